"""openspore primitives → MindIR operator encodings: the write direction of `mindir_ops`.

The argument order of every op comes from the encoding declared next to its primitive (the `Spec` in its class
attribute `mindir`, ops/defs/_mindir.py), which the reader uses too, so what the writer emits is, by
construction, what the reader turns back into the same primitive with the same attributes:
* PRIMITIVE_FUNCTION ops (most ops in MindSpore 2.x): the node's inputs are the primitive's inputs followed by
  one `Constant` per former attribute, in the Spec's order (`MatMul(x, w, transpose_a, transpose_b)`,
  `BatchNorm(x, γ, β, mean, var, is_training, epsilon, momentum, format)` with the format as its enum int);
* PRIMITIVE ops (Conv2D, MaxPool, AvgPool, AdaptiveAvgPool2D and the in-place Assign family): attributes live on
  the `PrimitiveProto`, named and ordered as MindSpore writes them (`kernel_size`, `mode`, `out_channel`, …).

`encode(node)` returns an `Encoded` op; the graph writer adds naming, monads and the `shape` attribute.
"""
from ..core.primitive import PRIMITIVES
from ..ops.defs import _mindir
from . import mind_ir_pb2 as pb

PRIMITIVE = pb.PrimitiveProto.PRIMITIVE
PRIMITIVE_FUNCTION = pb.PrimitiveProto.PRIMITIVE_FUNCTION

_FORMAT_ENUM = {"NCHW": 0, "NHWC": 1}

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
    cls = PRIMITIVES.get(name)
    return cls.__dict__.get("mindir") if cls is not None else None


def supported(name):
    """Whether primitive `name` can be written (and read back)."""
    return name in ALIASES or _spec(name) is not None


def supported_primitives():
    return sorted(n for n in PRIMITIVES if _spec(n) is not None) + sorted(ALIASES)


def _instance(node, spec):
    # MindSpore's names (the attribute names in its layers), not whatever openspore's layers call theirs.
    return spec.instance(node) if callable(spec.instance) else spec.instance


def _attr_value(spec_arg, value):
    """Our attribute value as MindSpore passes it: formats as their enum, flags as bools."""
    if spec_arg.norm is _mindir.norm_format and isinstance(value, str):
        return _FORMAT_ENUM.get(value.upper(), value)
    if spec_arg.norm is _mindir.norm_bool:
        return bool(value)
    if spec_arg.norm is _mindir.norm_dtype:
        return str(value).lower()
    return value


def _function(node, spec):
    args = list(node.inputs)
    if len(args) > len(spec.inputs):
        raise ValueError(f"For '{node.op_name}', the node has {len(args)} inputs, but MindIR's "
                         f"'{node.op_name}' takes {len(spec.inputs)}.")
    for arg in spec.inputs[len(args):]:
        if arg.default is _mindir.REQUIRED:
            raise ValueError(f"For '{node.op_name}', the input '{arg.name}' is missing.")
        args.append(Const(arg.default))
    for arg in spec.attrs:
        value = _attr_value(arg, node.attrs[arg.ours])
        if spec.axis_as_tuple and arg.name == "axis" and isinstance(value, int):
            value = (value,)
        args.append(Const(value))
    abstract = node.abstract if spec.outputs is None else spec.outputs(node)
    return Encoded(node.op_name, PRIMITIVE_FUNCTION, args, instance_name=_instance(node, spec), abstract=abstract)


def encode(node):
    """The MindIR encoding of primitive node `node` (ValueError for ops that have none)."""
    name = node.op_name
    spec = _spec(name)
    if spec is None:
        raise ValueError(f"the primitive '{name}' has no MindIR encoding.")
    if spec.proto_attrs is not None:  # a PRIMITIVE op: attributes on the PrimitiveProto
        return Encoded(name, PRIMITIVE, node.inputs, spec.proto_attrs(node), _instance(node, spec), node.abstract)
    return _function(node, spec)
