"""Encoding values for MindIR files: the inverse of `mindir_values` (facts §2.2).

The encodings follow what MindSpore 2.10 writes (see the fixture exports):
* Constant nodes: BOOL and INT64 in `i`, FLOAT in `f`, STRING in `s`, NONE and UMONAD without payload,
  TUPLE / LIST with one `AttributeProto` per element whose scalar sits in the repeated field (`ints: [v]`,
  `floats: [v]`, `strings: [v]`), tensors as `TENSORS{tensors{dims, data_type, name "value0", raw_data}}`.
* A node's `shape` attribute is its abstract value: `TENSORS{tensors{dims, data_type}}` for a tensor,
  `TUPLE{values…, seq_info{is_dyn_len: false}}` for a tuple, `UMONAD` for the monad.
* Tensor bytes are little-endian and equal to the checkpoint's `tensor_content`.
"""
import sys

import numpy as np

from ..common import dtype as mstype
from ..core.primitive import AbstractTensor
from ..core.tensor import Tensor
from . import mind_ir_pb2 as pb
from .mindir_values import MONAD

_ATTR = pb.AttributeProto
_TP = pb.TensorProto

# openspore dtype -> TensorProto.DataType (float64 is written as DOUBLE, as MindSpore does)
_DATA_TYPES = {
    mstype.float32: _TP.FLOAT, mstype.uint8: _TP.UINT8, mstype.int8: _TP.INT8, mstype.uint16: _TP.UINT16,
    mstype.int16: _TP.INT16, mstype.int32: _TP.INT32, mstype.int64: _TP.INT64, mstype.bool_: _TP.BOOL,
    mstype.float16: _TP.FLOAT16, mstype.float64: _TP.DOUBLE, mstype.uint32: _TP.UINT32, mstype.uint64: _TP.UINT64,
    mstype.complex64: _TP.COMPLEX64, mstype.complex128: _TP.COMPLEX128, mstype.bfloat16: _TP.BFLOAT16,
}


class EncodeError(ValueError):
    """A value the MindIR writer cannot encode (the caller adds where it occurs)."""


def data_type(dtype):
    """TensorProto.DataType of an openspore dtype."""
    code = _DATA_TYPES.get(dtype)
    if code is None:
        raise EncodeError(f"tensors of dtype {dtype} cannot be stored in MindIR.")
    return code


def tensor_bytes(array):
    """Little-endian C-order bytes of a numpy array (what the checkpoint stores as `tensor_content`)."""
    array = np.asarray(array)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    if sys.byteorder != "little" and array.dtype.itemsize > 1:
        array = array.byteswap()
    return array.tobytes()


def as_array(value):
    """(numpy array, openspore dtype) of a Tensor / Parameter / numpy array."""
    if isinstance(value, Tensor):
        return value.asnumpy(), value.dtype
    array = np.asarray(value)
    return array, mstype.nptype_to_dtype(array.dtype)


def fill_tensor(tp, value, name=""):
    """Fill TensorProto `tp` with dims, data_type and raw_data of a tensor value."""
    array, dtype = as_array(value)
    tp.dims.extend(int(d) for d in array.shape)
    tp.data_type = data_type(dtype)
    if name:
        tp.name = name
    tp.raw_data = tensor_bytes(array)
    return tp


# ---- constants -------------------------------------------------------------------------------------------
def _py_scalar(value):
    """numpy scalars behave like the Python numbers they hold."""
    if isinstance(value, np.generic) and value.ndim == 0 and value.dtype.kind in "biuf":
        return value.item()
    return value


def set_constant(attr, value, depth=0):
    """Encode a Python constant as a Constant node's `value` attribute (scalars in the single fields)."""
    value = _py_scalar(value)
    if depth > 32:
        raise EncodeError("the constant is nested too deeply.")
    if value is MONAD:
        attr.type = _ATTR.UMONAD
    elif value is None:
        attr.type = _ATTR.NONE
    elif isinstance(value, bool):
        attr.type, attr.i = _ATTR.BOOL, int(value)
    elif isinstance(value, int):
        _check_int64(value)
        attr.type, attr.i = _ATTR.INT64, value
    elif isinstance(value, float):
        attr.type, attr.f = _ATTR.FLOAT, value
    elif isinstance(value, str):
        attr.type, attr.s = _ATTR.STRING, value.encode("utf-8")
    elif isinstance(value, (tuple, list)):
        attr.type = _ATTR.TUPLE if isinstance(value, tuple) else _ATTR.LIST
        for item in value:
            set_element(attr.values.add(), item, depth + 1)
    elif isinstance(value, (Tensor, np.ndarray)):
        attr.type = _ATTR.TENSORS
        fill_tensor(attr.tensors.add(), value, name="value0")
    else:
        raise EncodeError(f"a constant of type {type(value).__name__} ({value!r:.60}) cannot be stored in MindIR.")
    return attr


def set_element(attr, value, depth=0):
    """Encode a tuple/list element or a primitive attribute: scalars in the repeated fields (`ints: [v]`)."""
    value = _py_scalar(value)
    if isinstance(value, bool):
        attr.type = _ATTR.BOOL
        attr.ints.append(int(value))
    elif isinstance(value, int):
        _check_int64(value)
        attr.type = _ATTR.INT64
        attr.ints.append(value)
    elif isinstance(value, float):
        attr.type = _ATTR.FLOAT
        attr.floats.append(value)
    elif isinstance(value, str):
        attr.type = _ATTR.STRING
        attr.strings.append(value.encode("utf-8"))
    else:
        set_constant(attr, value, depth)
    return attr


def primitive_attribute(name, value):
    """A PrimitiveProto attribute: scalars in the single fields, tuples element-wise, string lists in `strings`."""
    attr = _ATTR(name=name)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        attr.type = _ATTR.LIST
        for v in value:
            item = attr.values.add(type=_ATTR.STRING)
            item.strings.append(v.encode("utf-8"))
        return attr
    return set_constant(attr, value)


def _check_int64(value):
    if not -(1 << 63) <= value < (1 << 63):
        raise EncodeError(f"the integer {value} does not fit in int64.")


# ---- abstract values (the `shape` attribute) --------------------------------------------------------------
def set_abstract(attr, abstract, top=True):
    """Encode a node's abstract value (tensor, tuple of them, or the monad) into `attr`."""
    if abstract is MONAD:
        attr.type = _ATTR.UMONAD
    elif isinstance(abstract, AbstractTensor):
        attr.type = _ATTR.TENSORS
        tp = attr.tensors.add()
        tp.dims.extend(int(d) for d in abstract.shape)
        tp.data_type = data_type(abstract.dtype)
    elif isinstance(abstract, tuple):
        attr.type = _ATTR.TUPLE
        for item in abstract:
            set_abstract(attr.values.add(), item, top=False)
        if top:
            attr.seq_info.is_dyn_len = False
    else:
        raise EncodeError(f"a value of type {abstract!r} cannot be described in MindIR.")
    return attr


def shape_attribute(abstract):
    return set_abstract(_ATTR(name="shape"), abstract)


def value_info(vi, name, abstract):
    """Fill a graph input/output `ValueInfoProto`: one tensor for a tensor, `attr_info` for a tuple."""
    vi.name = name
    if isinstance(abstract, AbstractTensor):
        tp = vi.tensor.add()
        tp.dims.extend(int(d) for d in abstract.shape)
        tp.data_type = data_type(abstract.dtype)
    elif abstract is MONAD:
        vi.denotation = "UMonadType"
        vi.attr_info.type = _ATTR.UMONAD
    else:
        set_abstract(vi.attr_info, abstract)
    return vi


def closure_attribute(names):
    """A Partial's `shape` is FUNCGRAPHCLOSURE{s: graph}; a Switch's UNIONFUNCCLOSURE of its two closures."""
    attr = _ATTR(name="shape")
    target = attr
    if len(names) > 1:
        attr.type = _ATTR.UNIONFUNCCLOSURE
    for g in names:
        if len(names) > 1:
            target = attr.values.add()
        target.type = _ATTR.FUNCGRAPHCLOSURE
        target.s = g.encode("utf-8")
    return attr


def const_key(value):
    """A hashable key telling constants apart exactly (True vs 1 vs 1.0, -0.0 vs 0.0, tensor bytes)."""
    if value is MONAD or value is None:
        return (repr(value),)
    if isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, repr(value) if isinstance(value, float) else value)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(const_key(v) for v in value)
    if isinstance(value, Tensor):
        return ("tensor", str(value.dtype), tuple(value.shape), value.asnumpy().tobytes())
    if hasattr(value, "dtype") and hasattr(value, "tobytes"):
        return ("array", str(value.dtype), tuple(value.shape), value.tobytes())
    return ("object", id(value))
