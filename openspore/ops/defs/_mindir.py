"""MindIR encodings, declared next to each primitive: `mindir(*classes, inputs=..., attrs=..., ...)`.

A MindSpore op arrives in one of two encodings (facts §2.2):
* PRIMITIVE (legacy ops: Conv2D, MaxPool, AdaptiveAvgPool2D, …): attributes live on the `PrimitiveProto`
  (`kernel_size=(5, 5)`, `stride=(1, 1, 1, 1)`, `pad_mode="valid"`, `format="NCHW"`);
* PRIMITIVE_FUNCTION (generated ops): every argument is a node input, the former attributes being `Constant`
  nodes in the op's argument order (`BatchNorm(x, scale, bias, mean, var, is_training, epsilon, momentum,
  data_format=0)`).

A `Spec` lists the op's arguments in MindSpore's order; reading, each is filled from the node's inputs first, then
from the primitive's attributes (by name or alias), then from its default: `inputs` become our primitive's inputs,
`attrs` its attributes. Writing (serialization/mindir_write_ops) emits the same order, so what is written reads
back as the same primitive. A Spec is set as the class attribute `mindir` of the primitive of the same name (the
MindIR op type); `proto_attrs(node)` marks a PRIMITIVE-encoded op and gives its attributes as MindSpore names and
orders them; `instance` is the instance name MindSpore's layers give the primitive.

>>> from openspore.core.primitive import PRIMITIVES
>>> spec = PRIMITIVES["MatMul"].mindir
>>> [a.name for a in spec.inputs + spec.attrs], spec.instance
(['x', 'y', 'transpose_a', 'transpose_b'], 'matmul')
"""
REQUIRED = object()


class Arg:
    __slots__ = ("name", "default", "norm", "aliases", "ours")

    def __init__(self, name, default=REQUIRED, norm=None, aliases=(), ours=None):
        self.name, self.default, self.norm, self.aliases, self.ours = name, default, norm, aliases, ours or name


class Spec:
    """`ours(*inputs, **attrs)` from MindSpore arguments `inputs + attrs` (in that order); see the module docstring.
    `axis_as_tuple`: MindSpore passes the 'axis' attribute as a tuple (its Squeeze rejects a plain int);
    `outputs(node)`: the abstract MindSpore's op has, where it has more outputs than ours."""

    def __init__(self, ours, inputs=("x",), attrs=(), instance="", proto_attrs=None, axis_as_tuple=False,
                 outputs=None):
        self.ours = ours
        self.inputs = [a if isinstance(a, Arg) else Arg(a) for a in inputs]
        self.attrs = [a if isinstance(a, Arg) else Arg(*a) for a in attrs]
        self.instance, self.proto_attrs = instance, proto_attrs
        self.axis_as_tuple, self.outputs = axis_as_tuple, outputs

    def __call__(self, b, op, args, attrs):
        values = resolve(op, self.inputs + self.attrs, args, attrs)
        for a in self.attrs:
            _constant(op, a.name, values[a.name])
        return b.call(self.ours, *[values[a.name] for a in self.inputs],
                      **{a.ours: values[a.name] for a in self.attrs})


def mindir(*classes, inputs=("x",), attrs=(), **options):
    """Declare each class's MindIR encoding: a `Spec` named after the class, as its `mindir` attribute."""
    for cls in classes:
        cls.mindir = Spec(cls.name if isinstance(getattr(cls, "name", None), str) else cls.__name__, inputs, attrs,
                          **options)


def resolve(op, spec, args, attrs):
    """{argument name: value} for MindSpore op `op` from positional `args` and primitive `attrs`."""
    if len(args) > len(spec):
        raise ValueError(f"For '{op}', expected at most {len(spec)} arguments ({', '.join(a.name for a in spec)}), "
                         f"but got {len(args)}.")
    values = {}
    for i, arg in enumerate(spec):
        if i < len(args):
            value = args[i]
        else:
            key = next((k for k in (arg.name, *arg.aliases) if k in attrs), None)
            if key is not None:
                value = attrs[key]
            elif arg.default is REQUIRED:
                raise ValueError(f"For '{op}', the argument '{arg.name}' is missing.")
            else:
                value = arg.default
        values[arg.name] = arg.norm(op, arg.name, value) if arg.norm is not None else value
    return values


def _is_graph_value(value):
    return hasattr(value, "op") and hasattr(value, "inputs")  # an IR node (ops sit below the IR: no import)


def _constant(op, name, value):
    if _is_graph_value(value) or (isinstance(value, (tuple, list)) and any(_is_graph_value(v) for v in value)):
        raise ValueError(f"For '{op}', the argument '{name}' must be a constant, but it is computed in the graph.")


# ---- value normalisation ------------------------------------------------------------------------------------
FORMATS = {0: "NCHW", 1: "NHWC"}  # MindSpore's Format enum as PRIMITIVE_FUNCTION constants carry it


def norm_format(op, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"For '{op}', '{name}' must be a format name or enum, but got {value!r}.")
    if isinstance(value, int):
        if value not in FORMATS:
            raise ValueError(f"For '{op}', the '{name}' enum value {value} is not supported (0=NCHW, 1=NHWC).")
        return FORMATS[value]
    return value.upper()


def norm_pad_mode(op, name, value):
    if not isinstance(value, str):
        raise ValueError(f"For '{op}', only string '{name}' values ('valid', 'same', 'pad') are supported, "
                         f"but got {value!r}.")
    return value


def norm_str(op, name, value):
    if not isinstance(value, str):
        raise ValueError(f"For '{op}', only string '{name}' values are supported, but got {value!r}.")
    return value


def norm_tuple(op, name, value):
    return tuple(value) if isinstance(value, list) else value


def norm_axis(op, name, value):
    """Reduction axes: None (all) → (); lists → tuples."""
    if value is None:
        return ()
    return tuple(value) if isinstance(value, list) else value


def norm_bool(op, name, value):
    if not isinstance(value, (bool, int)):
        raise ValueError(f"For '{op}', '{name}' must be a bool, but got {value!r}.")
    return bool(value)


def norm_dtype(op, name, value):
    """A dtype attribute, written as its lower-case name ('int64')."""
    from ...common import dtype as mstype
    found = getattr(mstype, str(value).lower(), None) if isinstance(value, (str, mstype.Type)) else None
    if not isinstance(found, mstype.Type):
        raise ValueError(f"For '{op}', '{name}' must name a dtype, but got {value!r}.")
    return found


DATA_FORMAT = Arg("data_format", "NCHW", norm_format, ("format",))


def four(value):
    """A window size or stride as MindSpore's PRIMITIVE attributes hold it: (1, 1, h, w)."""
    if isinstance(value, int):
        return (1, 1, value, value)
    value = tuple(value)
    return value if len(value) == 4 else (1, 1) + value


POOL_ATTRS = (Arg("kernel_size", 1, norm_tuple), Arg("strides", 1, norm_tuple), Arg("pad_mode", "valid", norm_pad_mode),
              DATA_FORMAT)


def pool_proto_attrs(node):
    """MaxPool / AvgPool as PRIMITIVE ops: MindSpore's attribute names and order."""
    a = node.attrs
    return [("pad_mode", str(a["pad_mode"]).upper()), ("output_names", ["output"]),
            ("kernel_size", four(a["kernel_size"])), ("format", a["data_format"]),
            ("strides", four(a["strides"])), ("input_names", ["x"])]
