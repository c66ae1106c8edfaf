"""ONNX converters, declared next to each primitive: `declare(*classes, converter)` sets the class attribute `onnx`
(opset `OPSET`; serialization/onnx_export writes the file). This module is their library: converter functions and
factories the primitive modules bind to their classes.

Each converter receives the builder `b`, the IR node and its input entries (ONNX value names, or `Py`
constants for Python values) and returns the node's value: one ONNX name, or a tuple of them for
multi-output primitives (None where an output has no ONNX counterpart). Attributes come from the primitive
(`node.attrs`, normalised by its constructor); pads are computed with the primitive's own geometry so
'same' padding matches openspore exactly.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ._nn_util import window_geometry

OPSET = 18


class Py:
    """A Python constant input (ints, tuples, floats): used as an attribute or materialised as a tensor."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def onnx_pads(pads):
    top, bottom, left, right = pads
    return [int(top), int(left), int(bottom), int(right)]


def dtype_of(node):
    a = node.abstract
    return a.dtype.np_dtype if a is not None and not isinstance(a, tuple) else np.dtype(np.float32)


def common_dtype(node):
    """The dtype MindSpore computes a mixed-type elementwise op in (tensor dtypes, Python numbers weak)."""
    operands = []
    for i in node.inputs:
        if i.abstract is not None and not isinstance(i.abstract, tuple):
            operands.append(i.abstract.dtype)
        elif i.op == "const" and isinstance(i.value, (bool, int, float)):
            operands.append(i.value)
    return mstype.result_type(*operands).np_dtype if operands else dtype_of(node)


def cast_to(b, node, index, entry, dtype):
    """Input `index` as an ONNX value of numpy dtype `dtype` (a Cast when its dtype differs)."""
    source = node.inputs[index].abstract
    name = b.tensor(entry, dtype)
    if source is None or isinstance(source, tuple) or source.dtype.np_dtype == dtype:
        return name
    from onnx import helper
    return b.op("Cast", [name], to=helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))


def elementwise(op_type, operand="common"):
    """Binary ops: operands cast to the promoted dtype ('common'), the output's ('out') or bool ('bool')."""
    def convert(b, node, ins):
        dtype = {"common": common_dtype, "out": dtype_of}.get(operand, lambda n: np.dtype(np.bool_))(node)
        return b.op(op_type, [cast_to(b, node, i, e, dtype) for i, e in enumerate(ins)])
    return convert


def unary(op_type, operand="out", **attrs):
    """Unary ops: the input cast to the output dtype ('out'), to bool ('bool') or to a float ('float')."""
    def convert(b, node, ins):
        if operand == "bool":
            dtype = np.dtype(np.bool_)
        elif operand == "float":
            src = node.inputs[0].abstract.dtype
            dtype = src.np_dtype if src.kind == "float" else np.dtype(np.float32)
        else:
            dtype = dtype_of(node)
        return b.op(op_type, [cast_to(b, node, 0, ins[0], dtype)], **attrs)
    return convert


# ---- linear algebra ------------------------------------------------------------------------------------------
def matmul(b, node, ins, bias=None):
    a = node.attrs
    inputs = [b.tensor(ins[0]), b.tensor(ins[1])] + ([bias] if bias is not None else [])
    return b.op("Gemm", inputs, transA=int(a["transpose_a"]), transB=int(a["transpose_b"]))


def batch_matmul(b, node, ins):
    x, y = b.tensor(ins[0]), b.tensor(ins[1])
    if node.attrs["transpose_a"]:
        x = b.op("Transpose", [x], perm=swap_last(len(node.inputs[0].abstract.shape)))
    if node.attrs["transpose_b"]:
        y = b.op("Transpose", [y], perm=swap_last(len(node.inputs[1].abstract.shape)))
    return b.op("MatMul", [x, y])


def swap_last(rank):
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def bias_add(b, node, ins):
    fused = b.fused.get(node.id)
    if fused is not None:  # Dense: MatMul + BiasAdd → one Gemm; Conv2D + BiasAdd → one Conv with its B input
        absorbing = conv2d if fused.op_name == "Conv2D" else matmul
        return absorbing(b, fused, [b.env[i.id] for i in fused.inputs], bias=b.tensor(ins[1]))
    x, bias = b.tensor(ins[0]), b.tensor(ins[1])
    rank = len(node.inputs[0].abstract.shape)
    if rank > 2 and node.attrs["data_format"] == "NCHW":
        c = node.inputs[1].abstract.shape[0]
        bias = b.op("Reshape", [bias, b.const(np.array((c,) + (1,) * (rank - 2), np.int64))])
    return b.op("Add", [x, bias])


# ---- convolution and pooling ------------------------------------------------------------------------------------
def conv2d(b, node, ins, bias=None):
    prim = node.op
    pads, _ = prim.geometry(node.inputs[0].abstract.shape[2:])
    inputs = [b.tensor(ins[0]), b.tensor(ins[1])] + ([bias] if bias is not None else [])
    return b.op("Conv", inputs, kernel_shape=list(prim.kernel_size),
                strides=list(prim.stride[2:]), dilations=list(prim.dilation[2:]), group=int(prim.group),
                pads=onnx_pads(pads))


def pool_geometry(node):
    a = node.attrs
    kernel, strides = tuple(a["kernel_size"])[-2:], tuple(a["strides"])[-2:]
    mode = str(a["pad_mode"]).lower()
    pads = tuple(a.get("pad", (0, 0, 0, 0))) if mode == "pad" else (0, 0, 0, 0)
    if len(pads) == 1:
        pads = pads * 4
    applied, _ = window_geometry(node.op_name, node.inputs[0].abstract.shape[2:], kernel, strides, (1, 1), mode, pads,
                                 bool(a.get("ceil_mode", False)))
    return list(kernel), list(strides), applied


def max_pool(b, node, ins):
    kernel, strides, pads = pool_geometry(node)
    return b.op("MaxPool", [b.tensor(ins[0])], kernel_shape=kernel, strides=strides, pads=onnx_pads(pads))


def avg_pool(b, node, ins):
    kernel, strides, pads = pool_geometry(node)
    a = node.attrs
    if a.get("divisor_override"):
        raise b.unsupported(node, "divisor_override")
    include = int(bool(a.get("count_include_pad", False)) and str(a["pad_mode"]).lower() == "pad")
    return b.op("AveragePool", [b.tensor(ins[0])], kernel_shape=kernel, strides=strides, pads=onnx_pads(pads),
                count_include_pad=include, ceil_mode=int(bool(a.get("ceil_mode", False))))


def adaptive_avg_pool(b, node, ins):
    in_hw = node.inputs[0].abstract.shape[2:]
    out_hw = node.abstract.shape[2:]
    if tuple(out_hw) == (1, 1):
        return b.op("GlobalAveragePool", [b.tensor(ins[0])])
    if all(i % o == 0 for i, o in zip(in_hw, out_hw)):
        kernel = [i // o for i, o in zip(in_hw, out_hw)]
        return b.op("AveragePool", [b.tensor(ins[0])], kernel_shape=kernel, strides=kernel)
    raise b.unsupported(node, f"output size {tuple(out_hw)} does not divide the input size {tuple(in_hw)}")


# ---- normalisation and activations -----------------------------------------------------------------------
def batch_norm(b, node, ins):
    a = node.attrs
    if a["is_training"]:
        raise b.unsupported(node, "training-mode BatchNorm (export the network in eval mode)")
    y = b.op("BatchNormalization", [b.tensor(e) for e in ins[:5]], epsilon=float(a["epsilon"]),
             momentum=float(1.0 - a["momentum"]))
    return (y, None, None)


def layer_norm(b, node, ins):
    a = node.attrs
    rank = len(node.inputs[0].abstract.shape)
    axis, params_axis = a["begin_norm_axis"] % rank, a["begin_params_axis"] % rank
    if axis != params_axis:
        raise b.unsupported(node, "begin_params_axis different from begin_norm_axis")
    y, mean = b.op("LayerNormalization", [b.tensor(e) for e in ins[:3]], n_out=2, axis=axis,
                   epsilon=float(a["epsilon"]))
    return (y, mean, None)


def softmax(op_type):
    def convert(b, node, ins):
        axis = node.attrs["axis"]
        if isinstance(axis, (tuple, list)):
            if len(axis) != 1:
                raise b.unsupported(node, f"softmax over several axes {tuple(axis)}")
            axis = axis[0]
        return b.op(op_type, [b.tensor(ins[0])], axis=int(axis))
    return convert


def gelu_tanh(b, node, ins):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x = b.tensor(ins[0])
    dt = dtype_of(node)
    cube = b.op("Mul", [b.op("Mul", [x, x]), x])
    inner = b.op("Add", [x, b.op("Mul", [cube, b.const(np.array(0.044715, dt))])])
    t = b.op("Tanh", [b.op("Mul", [inner, b.const(np.array(math.sqrt(2.0 / math.pi), dt))])])
    return b.op("Mul", [b.op("Mul", [x, b.const(np.array(0.5, dt))]), b.op("Add", [t, b.const(np.array(1.0, dt))])])


def gelu_ext(b, node, ins):
    if node.attrs["approximate"] == "tanh":
        return gelu_tanh(b, node, ins)
    dt = dtype_of(node)
    x = b.tensor(ins[0])
    erf = b.op("Erf", [b.op("Mul", [x, b.const(np.array(1.0 / math.sqrt(2.0), dt))])])
    return b.op("Mul", [b.op("Mul", [x, b.const(np.array(0.5, dt))]), b.op("Add", [erf, b.const(np.array(1.0, dt))])])


def rounding(op_type):
    """Floor / Ceil leave integers as they are (ONNX defines them for floats only)."""
    def convert(b, node, ins):
        if node.inputs[0].abstract.dtype.kind != "float":
            return b.op("Identity", [b.tensor(ins[0])])
        return b.op(op_type, [b.tensor(ins[0])])
    return convert


def rsqrt(b, node, ins):
    return b.op("Reciprocal", [b.op("Sqrt", [cast_to(b, node, 0, ins[0], dtype_of(node))])])


def square(b, node, ins):
    x = cast_to(b, node, 0, ins[0], dtype_of(node))
    return b.op("Mul", [x, x])


def leaky_relu(b, node, ins):
    return b.op("LeakyRelu", [b.tensor(ins[0])], alpha=float(node.attrs["alpha"]))


def elu(b, node, ins):
    return b.op("Elu", [b.tensor(ins[0])], alpha=float(node.attrs["alpha"]))


# ---- shapes and indexing ---------------------------------------------------------------------------------
def reshape(b, node, ins):
    return b.op("Reshape", [b.tensor(ins[0]), b.const(np.array(node.abstract.shape, np.int64))])


def transpose(b, node, ins):
    rank = len(node.inputs[0].abstract.shape)
    return b.op("Transpose", [b.tensor(ins[0])], perm=[int(p) % rank for p in b.py(ins[1], node, "perm")])


def flatten(b, node, ins):
    return b.op("Flatten", [b.tensor(ins[0])], axis=1)


def expand_dims(b, node, ins):
    return b.op("Unsqueeze", [b.tensor(ins[0]), b.const(np.array([b.py(ins[1], node, "axis")], np.int64))])


def squeeze(b, node, ins):
    axis = node.attrs["axis"]
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    if not axis:
        return b.op("Squeeze", [b.tensor(ins[0])])
    return b.op("Squeeze", [b.tensor(ins[0]), b.const(np.array(axis, np.int64))])


def gather(b, node, ins):
    if node.attrs["batch_dims"]:
        raise b.unsupported(node, "Gather with batch_dims")
    return b.op("Gather", [b.tensor(ins[0]), b.tensor(ins[1])], axis=int(b.py(ins[2], node, "axis")))


def split(b, node, ins):
    a = node.attrs
    n = int(a["output_num"])
    axis = int(a["axis"])
    size = node.inputs[0].abstract.shape[axis]
    sizes = b.const(np.full(n, size // n, np.int64))
    return tuple(b.op("Split", [b.tensor(ins[0]), sizes], n_out=n, axis=axis))


def concat(b, node, ins):
    return b.op("Concat", [b.tensor(e) for e in ins[0]], axis=int(node.attrs["axis"]))


def stack(b, node, ins):
    axis = int(node.attrs["axis"])
    axes = b.const(np.array([axis], np.int64))
    return b.op("Concat", [b.op("Unsqueeze", [b.tensor(e), axes]) for e in ins[0]], axis=axis)


def tile(b, node, ins):
    """MindSpore aligns `multiples` and the input shape on the right, padding the shorter with ones."""
    reps = tuple(b.py(ins[1], node, "multiples"))
    shape = tuple(node.inputs[0].abstract.shape)
    x = b.tensor(ins[0])
    if len(reps) > len(shape):
        shape = (1,) * (len(reps) - len(shape)) + shape
        x = b.op("Reshape", [x, b.const(np.array(shape, np.int64))])
    reps = (1,) * (len(shape) - len(reps)) + reps
    return b.op("Tile", [x, b.const(np.array(reps, np.int64))])


def broadcast_to(b, node, ins):
    return b.op("Expand", [b.tensor(ins[0]), b.const(np.array(node.abstract.shape, np.int64))])


def select(b, node, ins):
    dtype = dtype_of(node)
    return b.op("Where", [b.tensor(ins[0], np.dtype(np.bool_)), b.tensor(ins[1], dtype), b.tensor(ins[2], dtype)])


def cast(b, node, ins):
    from onnx import helper
    return b.op("Cast", [b.tensor(ins[0])], to=helper.np_dtype_to_tensor_dtype(dtype_of(node)))


def reduce(op_type):
    def convert(b, node, ins):
        axis = b.py(ins[1], node, "axis") if len(ins) > 1 else ()
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        inputs = [cast_to(b, node, 0, ins[0], dtype_of(node))] + ([b.const(np.array(axis, np.int64))] if axis else [])
        return b.op(op_type, inputs, keepdims=int(bool(node.attrs["keep_dims"])))
    return convert


def identity(b, node, ins):
    return b.op("Identity", [b.tensor(ins[0])])




def declare(*classes_and_converter):
    """declare(*classes, converter): `converter` is how each class is written to ONNX (its `onnx` attribute)."""
    *classes, converter = classes_and_converter
    for cls in classes:
        cls.onnx = converter
