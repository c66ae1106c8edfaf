"""Decoding MindIR values: `TensorProto` data (inline or external) and `AttributeProto` constants.

Everything read from a file is untrusted: sizes are checked before any allocation, and every failure is a
`MindIRError` naming the file and the place, never a protobuf or numpy traceback.
"""
import math
import os

import numpy as np

from ..common import dtype as mstype
from . import mind_ir_pb2 as pb

_ATTR = pb.AttributeProto
_TP = pb.TensorProto


class MindIRError(ValueError, RuntimeError):
    """A MindIR file cannot be read or converted. A ValueError (openspore) and a RuntimeError (what
    MindSpore's `load` raises when parsing fails), so scripts written against either keep working."""


class UnsupportedOpError(MindIRError):
    """The model uses operator types openspore cannot convert (all of them are listed)."""


class MindIRFileNotFoundError(FileNotFoundError, ValueError):
    """The MindIR file does not exist (MindSpore raises ValueError here; FileNotFoundError is the Python way)."""


class _Monad:
    """The side-effect monad `U` (and `IO`): ordering only, never data."""

    def __repr__(self):
        return "U"


MONAD = _Monad()

# TensorProto.DataType -> openspore dtype
_TENSOR_DTYPES = {
    _TP.FLOAT: mstype.float32, _TP.UINT8: mstype.uint8, _TP.INT8: mstype.int8, _TP.UINT16: mstype.uint16,
    _TP.INT16: mstype.int16, _TP.INT32: mstype.int32, _TP.INT64: mstype.int64, _TP.BOOL: mstype.bool_,
    _TP.FLOAT16: mstype.float16, _TP.DOUBLE: mstype.float64, _TP.UINT32: mstype.uint32,
    _TP.UINT64: mstype.uint64, _TP.COMPLEX64: mstype.complex64, _TP.COMPLEX128: mstype.complex128,
    _TP.BFLOAT16: mstype.bfloat16, _TP.FLOAT64: mstype.float64,
}


def tensor_dtype(data_type, where):
    dt = _TENSOR_DTYPES.get(data_type)
    if dt is None:
        name = _TP.DataType.Name(data_type) if data_type in _TP.DataType.values() else str(data_type)
        raise MindIRError(f"{where}: tensor data type {name} is not supported.")
    return dt


def tensor_shape(dims, where):
    shape = tuple(int(d) for d in dims)
    if any(d < 0 for d in shape):
        raise MindIRError(f"{where}: a stored tensor must have a static shape, but got dims {list(shape)}.")
    return shape


class TensorSource:
    """Where tensor bytes come from: inline `raw_data` / typed fields, or `external_data` files next to the
    model. `base_dir` is the model file's directory; external locations must stay inside it."""

    def __init__(self, base_dir, little_endian=True):
        self.base_dir = os.path.realpath(base_dir or ".")
        self.little_endian = little_endian

    def array(self, tp, where):
        """TensorProto -> numpy array of its dtype and shape."""
        dt = tensor_dtype(tp.data_type, where)
        shape = tensor_shape(tp.dims, where)
        if tp.compression_type != _TP.NO_COMPRESSION:
            kind = _TP.CompressionType.Name(tp.compression_type) if tp.compression_type in \
                _TP.CompressionType.values() else str(tp.compression_type)
            raise MindIRError(f"{where}: compressed tensors ({kind}) are not supported.")
        np_dtype = np.dtype(dt.np_dtype).newbyteorder("<" if self.little_endian else ">")
        count = math.prod(shape)
        nbytes = count * np_dtype.itemsize
        if tp.HasField("external_data"):
            data = self._external(tp.external_data, nbytes, where)
        elif tp.HasField("raw_data") or count == 0:
            data = tp.raw_data
        else:
            return self._typed(tp, dt, shape, count, where)
        if len(data) != nbytes:
            raise MindIRError(f"{where}: the tensor holds {len(data)} bytes, but shape {list(shape)} of "
                              f"{dt} needs {nbytes}.")
        return np.frombuffer(data, np_dtype).astype(dt.np_dtype, copy=True).reshape(shape)

    def _typed(self, tp, dt, shape, count, where):
        for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            values = getattr(tp, field)
            if len(values):
                if len(values) != count:
                    raise MindIRError(f"{where}: '{field}' has {len(values)} values, but shape {list(shape)} "
                                      f"needs {count}.")
                return np.asarray(list(values)).astype(dt.np_dtype).reshape(shape)
        raise MindIRError(f"{where}: the tensor of shape {list(shape)} has no data.")

    def _external(self, ext, nbytes, where):
        location, offset, length = ext.location, ext.offset, ext.length
        if not location or os.path.isabs(location):
            raise MindIRError(f"{where}: external data location {location!r} must be a path relative to the "
                              "model file's directory.")
        path = os.path.realpath(os.path.join(self.base_dir, location))
        if os.path.commonpath([path, self.base_dir]) != self.base_dir:
            raise MindIRError(f"{where}: external data location {location!r} leaves the model's directory.")
        if offset < 0 or length != nbytes:
            raise MindIRError(f"{where}: external data (offset {offset}, length {length}) does not fit the "
                              f"tensor, which needs {nbytes} bytes.")
        try:
            size = os.path.getsize(path)
            if offset + length > size:
                raise MindIRError(f"{where}: external data file {path} has {size} bytes; the tensor needs bytes "
                                  f"{offset}..{offset + length}.")
            with open(path, "rb") as f:
                f.seek(offset)
                return f.read(length)
        except OSError as exc:
            raise MindIRError(f"{where}: cannot read external data file {path}: {exc.strerror or exc}.") from None


# ---- AttributeProto -> Python value ---------------------------------------------------------------------
_INT_KINDS = (_ATTR.INT8, _ATTR.INT16, _ATTR.INT32, _ATTR.INT64, _ATTR.UINT8, _ATTR.UINT16, _ATTR.UINT32,
              _ATTR.UINT64)
_FLOAT_KINDS = (_ATTR.FLOAT, _ATTR.FLOAT16, _ATTR.BFLOAT16)


def _scalar(attr, single, repeated, default):
    """Scalars live in the single field (`i`) in Constant nodes but in the repeated one (`ints`) inside
    tuples of primitive attributes: accept both."""
    if attr.HasField(single):
        return getattr(attr, single)
    values = getattr(attr, repeated)
    return values[0] if len(values) else default


def _text(raw, where):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MindIRError(f"{where}: a string value is not valid UTF-8.") from None


def attribute_value(attr, where, tensors, depth=0):
    """The Python value of a constant / primitive attribute: bool, int, float, str, None, tuple, list,
    numpy array (TENSORS), or MONAD."""
    if depth > 32:
        raise MindIRError(f"{where}: constant nested too deeply.")
    kind = attr.type
    if kind == _ATTR.BOOL:
        return bool(_scalar(attr, "i", "ints", 0))
    if kind in _INT_KINDS:
        return int(_scalar(attr, "i", "ints", 0))
    if kind in _FLOAT_KINDS:
        return float(_scalar(attr, "f", "floats", 0.0))
    if kind == _ATTR.DOUBLE:
        return float(_scalar(attr, "d", "doubles", 0.0))
    if kind == _ATTR.STRING:
        if attr.HasField("s"):
            return _text(attr.s, where)
        return _text(attr.strings[0], where) if len(attr.strings) else ""
    if kind in (_ATTR.TUPLE, _ATTR.LIST):
        items = [attribute_value(v, where, tensors, depth + 1) for v in attr.values]
        return tuple(items) if kind == _ATTR.TUPLE else items
    if kind == _ATTR.TENSORS:
        if len(attr.tensors) != 1:
            raise MindIRError(f"{where}: a tensor constant must hold exactly one tensor, got {len(attr.tensors)}.")
        return tensors.array(attr.tensors[0], where)
    if kind == _ATTR.TENSOR:
        return tensors.array(attr.t, where)
    if kind == _ATTR.NONE:
        return None
    if kind in (_ATTR.UMONAD, _ATTR.IOMONAD):
        return MONAD
    name = _ATTR.AttributeType.Name(kind) if kind in _ATTR.AttributeType.values() else str(kind)
    raise MindIRError(f"{where}: constants of kind {name} are not supported.")


def attribute_map(attrs, where, tensors):
    """{name: value} of a repeated AttributeProto (primitive attributes)."""
    return {a.name: attribute_value(a, f"{where}, attribute '{a.name}'", tensors) for a in attrs}
