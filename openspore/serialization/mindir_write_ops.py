"""openspore primitives → MindIR operator encodings: the write direction of `mindir_ops`.

The argument order of every op comes from the reader's table (`mindir_ops.CONVERTERS`), so what the writer
emits is, by construction, what the reader turns back into the same primitive with the same attributes:
* PRIMITIVE_FUNCTION ops (most ops in MindSpore 2.x): the node's inputs are the primitive's inputs followed by
  one `Constant` per former attribute, in the Spec's order (`MatMul(x, w, transpose_a, transpose_b)`,
  `BatchNorm(x, γ, β, mean, var, is_training, epsilon, momentum, format)` with the format as its enum int);
* PRIMITIVE ops (Conv2D, MaxPool, AvgPool, AdaptiveAvgPool2D and the in-place Assign family): attributes live on
  the `PrimitiveProto`, named and ordered as MindSpore writes them (`kernel_size`, `mode`, `out_channel`, …).

`encode(node)` returns an `Encoded` op; the graph writer adds naming, monads and the `shape` attribute.
"""
from ..core.primitive import AbstractTensor
from . import mind_ir_pb2 as pb
from . import mindir_ops
from .mindir_ops import Spec

PRIMITIVE = pb.PrimitiveProto.PRIMITIVE
PRIMITIVE_FUNCTION = pb.PrimitiveProto.PRIMITIVE_FUNCTION

_FORMAT_ENUM = {"NCHW": 0, "NHWC": 1}

# The instance names MindSpore's layers give their primitives (PrimitiveProto.instance_name).
_INSTANCE_NAMES = {"MatMul": "matmul", "BiasAdd": "bias_add", "ReLU": "relu", "LayerNorm": "layer_norm",
                   "Gather": "gather", "Reshape": "reshape", "Conv2D": "conv2d", "MaxPool": "max_pool",
                   "AvgPool": "avg_pool", "AdaptiveAvgPool2D": "adaptive_avgpool2d"}

# Ops that only order or pass values through at inference: written as plumbing or dropped.
ALIASES = frozenset(("StopGradient",))


class Const:
    """A constant argument of an op (becomes a `Constant` node)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Const({self.value!r})"


class Encoded:
    """One MindIR op: `op_type`, `prim_type`, `instance_name`, `inputs` (IR nodes and Consts, in order),
    `attrs` (PrimitiveProto attributes, ordered (name, value) pairs) and `abstract` (the `shape` attribute)."""

    __slots__ = ("op_type", "prim_type", "instance_name", "inputs", "attrs", "abstract")

    def __init__(self, op_type, prim_type, inputs, attrs=(), instance_name="", abstract=None):
        self.op_type, self.prim_type, self.inputs = op_type, prim_type, list(inputs)
        self.attrs, self.instance_name, self.abstract = list(attrs), instance_name, abstract


def _spec(name):
    conv = mindir_ops.CONVERTERS.get(name)
    return conv if isinstance(conv, Spec) and conv.ours == name else None


def supported(name):
    """Whether primitive `name` can be written (and read back)."""
    return name in ALIASES or name in _PRIMITIVE_ATTRS or _spec(name) is not None


def supported_primitives():
    return sorted(n for n in mindir_ops.CONVERTERS if supported(n)) + sorted(ALIASES)


def _instance(node):
    # MindSpore's names (the attribute names in its layers), not whatever openspore's layers call theirs.
    if node.op_name == "BatchNorm":
        return "bn_train" if node.attrs.get("is_training") else "bn_infer"
    return _INSTANCE_NAMES.get(node.op_name, "")


def _attr_value(spec_arg, value):
    """Our attribute value as MindSpore passes it: formats as their enum, flags as bools."""
    if spec_arg.norm is mindir_ops._format and isinstance(value, str):
        return _FORMAT_ENUM.get(value.upper(), value)
    if spec_arg.norm is mindir_ops._bool:
        return bool(value)
    if spec_arg.norm is mindir_ops._dtype:
        return str(value).lower()
    return value


def _function(node, spec):
    args = list(node.inputs)
    if len(args) > len(spec.inputs):
        raise ValueError(f"For '{node.op_name}', the node has {len(args)} inputs, but MindIR's "
                         f"'{node.op_name}' takes {len(spec.inputs)}.")
    for arg in spec.inputs[len(args):]:
        if arg.default is mindir_ops._REQUIRED:
            raise ValueError(f"For '{node.op_name}', the input '{arg.name}' is missing.")
        args.append(Const(arg.default))
    for arg in spec.attrs:
        value = _attr_value(arg, node.attrs[arg.ours])
        if node.op_name in ("Softmax", "Squeeze") and arg.name == "axis" and isinstance(value, int):
            value = (value,)  # MindSpore passes these axes as tuples (its Squeeze rejects a plain int)
        args.append(Const(value))
    abstract = node.abstract
    if node.op_name == "BatchNorm":
        # MindSpore's BatchNorm has five outputs: y, batch mean/variance and two reserve spaces (all of C).
        c = node.abstract[1]
        abstract = (node.abstract[0],) + (AbstractTensor(c.shape, c.dtype),) * 4
    return Encoded(node.op_name, PRIMITIVE_FUNCTION, args, instance_name=_instance(node), abstract=abstract)


# ---- PRIMITIVE ops: attributes as MindSpore names and orders them ---------------------------------------------
def _conv2d(node):
    prim = node.op
    pads, _ = prim.geometry(node.inputs[0].abstract.shape[2:])
    fmt = prim.attrs["data_format"]
    return [("kernel_size", tuple(prim.kernel_size)), ("mode", prim.attrs["mode"]),
            ("out_channel", prim.out_channel), ("input_names", ["x", "w"]), ("pad", tuple(prim.pad)),
            ("pad_mode", prim.pad_mode.lower()), ("format", fmt), ("pad_list", tuple(int(p) for p in pads)),
            ("groups", prim.group), ("stride", tuple(prim.stride)), ("group", prim.group),
            ("dilation", tuple(prim.dilation)), ("output_names", ["output"])]


def _pool(node):
    a = node.attrs
    return [("pad_mode", str(a["pad_mode"]).upper()), ("output_names", ["output"]),
            ("kernel_size", _four(a["kernel_size"])), ("format", a["data_format"]),
            ("strides", _four(a["strides"])), ("input_names", ["x"])]


def _adaptive_avg_pool(node):
    size = node.attrs["output_size"]
    size = tuple(size) if isinstance(size, (tuple, list)) else (size, size)
    return [("output_names", ["y"]), ("output_size", size), ("input_names", ["x"])]


def _in_place(node):
    return [("side_effect_mem", True), ("input_names", ["ref", "value"]), ("output_names", ["ref"])]


def _four(value):
    if isinstance(value, int):
        return (1, 1, value, value)
    value = tuple(value)
    return value if len(value) == 4 else (1, 1) + value


_PRIMITIVE_ATTRS = {"Conv2D": _conv2d, "MaxPool": _pool, "AvgPool": _pool, "AdaptiveAvgPool2D": _adaptive_avg_pool,
                    "Assign": _in_place, "AssignAdd": _in_place, "AssignSub": _in_place}


def encode(node):
    """The MindIR encoding of primitive node `node` (ValueError for ops that have none)."""
    name = node.op_name
    if name in _PRIMITIVE_ATTRS:
        return Encoded(name, PRIMITIVE, node.inputs, _PRIMITIVE_ATTRS[name](node), _instance(node), node.abstract)
    spec = _spec(name)
    if spec is None:
        raise ValueError(f"the primitive '{name}' has no MindIR encoding.")
    return _function(node, spec)
