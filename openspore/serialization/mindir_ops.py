"""MindIR operator types → openspore primitives.

A MindSpore op arrives in one of two encodings (facts §2.2):
* PRIMITIVE (legacy ops: Conv2D, MaxPool, AdaptiveAvgPool2D, …): attributes live on the `PrimitiveProto`
  (`kernel_size=(5, 5)`, `stride=(1, 1, 1, 1)`, `pad_mode="valid"`, `format="NCHW"`);
* PRIMITIVE_FUNCTION (generated ops): every argument is a node input, the former attributes being `Constant`
  nodes in the op's argument order (`BatchNorm(x, scale, bias, mean, var, is_training, epsilon, momentum,
  data_format=0)`).

A `Spec` lists the op's arguments in MindSpore's order; each is filled from the node's inputs first, then from
the primitive's attributes (by name or alias), then from its default. `inputs` become our primitive's inputs,
`attrs` its attributes. Ops that do not map one-to-one are small functions. Each converter receives the
builder, the argument values (IR nodes or Python constants; monads removed) and the primitive attributes.
"""
from ..core.primitive import PRIMITIVES

_REQUIRED = object()

# Handled by the reader itself (monads, tuples, closures, control flow).
PLUMBING = frozenset(("Load", "UpdateState", "Depend", "MakeTuple", "MakeList", "TupleGetItem", "ListGetItem",
                      "Partial", "Switch"))


class Arg:
    __slots__ = ("name", "default", "norm", "aliases", "ours")

    def __init__(self, name, default=_REQUIRED, norm=None, aliases=(), ours=None):
        self.name, self.default, self.norm, self.aliases, self.ours = name, default, norm, aliases, ours or name


class Spec:
    """`ours(*inputs, **attrs)` from MindSpore arguments `inputs + attrs` (in that order)."""

    def __init__(self, ours, inputs=("x",), attrs=()):
        self.ours = ours
        self.inputs = [a if isinstance(a, Arg) else Arg(a) for a in inputs]
        self.attrs = [a if isinstance(a, Arg) else Arg(*a) for a in attrs]

    def __call__(self, b, op, args, attrs):
        values = resolve(op, self.inputs + self.attrs, args, attrs)
        for a in self.attrs:
            _constant(op, a.name, values[a.name])
        return b.call(self.ours, *[values[a.name] for a in self.inputs],
                      **{a.ours: values[a.name] for a in self.attrs})


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
            elif arg.default is _REQUIRED:
                raise ValueError(f"For '{op}', the argument '{arg.name}' is missing.")
            else:
                value = arg.default
        values[arg.name] = arg.norm(op, arg.name, value) if arg.norm is not None else value
    return values


def _constant(op, name, value):
    from ..ir import Node
    if isinstance(value, Node) or (isinstance(value, (tuple, list)) and any(isinstance(v, Node) for v in value)):
        raise ValueError(f"For '{op}', the argument '{name}' must be a constant, but it is computed in the graph.")


# ---- value normalisation ------------------------------------------------------------------------------------
_FORMATS = {0: "NCHW", 1: "NHWC"}  # MindSpore's Format enum as PRIMITIVE_FUNCTION constants carry it


def _format(op, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"For '{op}', '{name}' must be a format name or enum, but got {value!r}.")
    if isinstance(value, int):
        if value not in _FORMATS:
            raise ValueError(f"For '{op}', the '{name}' enum value {value} is not supported (0=NCHW, 1=NHWC).")
        return _FORMATS[value]
    return value.upper()


def _pad_mode(op, name, value):
    if not isinstance(value, str):
        raise ValueError(f"For '{op}', only string '{name}' values ('valid', 'same', 'pad') are supported, "
                         f"but got {value!r}.")
    return value


def _string(op, name, value):
    if not isinstance(value, str):
        raise ValueError(f"For '{op}', only string '{name}' values are supported, but got {value!r}.")
    return value


def _tuple(op, name, value):
    return tuple(value) if isinstance(value, list) else value


def _axis(op, name, value):
    """Reduction axes: None (all) → (); lists → tuples."""
    if value is None:
        return ()
    return tuple(value) if isinstance(value, list) else value


def _bool(op, name, value):
    if not isinstance(value, (bool, int)):
        raise ValueError(f"For '{op}', '{name}' must be a bool, but got {value!r}.")
    return bool(value)


def _dtype(op, name, value):
    """A dtype attribute, written as its lower-case name ('int64')."""
    from ..common import dtype as mstype
    found = getattr(mstype, str(value).lower(), None) if isinstance(value, (str, mstype.Type)) else None
    if not isinstance(found, mstype.Type):
        raise ValueError(f"For '{op}', '{name}' must name a dtype, but got {value!r}.")
    return found


_FMT = Arg("data_format", "NCHW", _format, ("format",))


# ---- ops that do not map one-to-one -------------------------------------------------------------------------
def _sum_like(ours):
    def convert(b, op, args, attrs):
        v = resolve(op, [Arg("input"), Arg("dim", None, _axis), Arg("keepdim", False, _bool), Arg("dtype", None)],
                    args, attrs)
        if v["dtype"] is not None:
            raise ValueError(f"For '{op}', an explicit 'dtype' is not supported, but got {v['dtype']!r}.")
        return b.call(ours, v["input"], v["dim"], keep_dims=v["keepdim"])
    return convert


def _matmul_ext(b, op, args, attrs):
    """torch.matmul semantics: 1-D operands gain a dimension that is removed again afterwards."""
    v = resolve(op, [Arg("input"), Arg("other")], args, attrs)
    x, y = v["input"], v["other"]
    xs, ys = b.abstract(x).shape, b.abstract(y).shape
    if not xs or not ys:
        raise ValueError(f"For '{op}', the inputs must have at least one dimension, but got {list(xs)} and {list(ys)}.")
    if len(xs) == 1:
        x = b.call("Reshape", x, (1, xs[0]))
    if len(ys) == 1:
        y = b.call("Reshape", y, (ys[0], 1))
    two_d = len(b.abstract(x).shape) == 2 and len(b.abstract(y).shape) == 2
    out = b.call("MatMul" if two_d else "BatchMatMul", x, y)
    if len(xs) == 1 or len(ys) == 1:
        shape = b.abstract(out).shape
        keep = shape[:-2] + ((shape[-2],) if len(xs) > 1 else ()) + ((shape[-1],) if len(ys) > 1 else ())
        out = b.call("Reshape", out, keep)
    return out


def _with_alpha(ours):
    def convert(b, op, args, attrs):
        v = resolve(op, [Arg("input"), Arg("other"), Arg("alpha", 1)], args, attrs)
        other = v["other"]
        if not (isinstance(v["alpha"], (int, float)) and v["alpha"] == 1):
            other = b.call("Mul", other, v["alpha"])
        return b.call(ours, v["input"], other)
    return convert


def _dense(b, op, args, attrs):
    """Dense(input, weight, bias=None) = input @ weight.T + bias."""
    v = resolve(op, [Arg("input"), Arg("weight"), Arg("bias", None)], args, attrs)
    two_d = len(b.abstract(v["input"]).shape) == 2
    out = b.call("MatMul" if two_d else "BatchMatMul", v["input"], v["weight"], transpose_b=True)
    return out if v["bias"] is None else b.call("Add", out, v["bias"])


def _scalar_binary(ours):
    def convert(b, op, args, attrs):
        v = resolve(op, [Arg("input"), Arg("other")], args, attrs)
        return b.call(ours, v["input"], v["other"])
    return convert


# ---- the table ------------------------------------------------------------------------------------------------
_UNARY = ("Abs", "Neg", "Exp", "Expm1", "Log", "Log1p", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Sin", "Cos",
          "Tan", "Tanh", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh", "Sigmoid", "ReLU",
          "ReLU6", "SiLU", "HSwish", "HSigmoid", "Mish", "Softsign", "Erf", "Erfc", "Floor", "Ceil", "Trunc", "Sign",
          "LogicalNot", "IsNan", "IsInf", "IsFinite", "Identity", "OnesLike", "ZerosLike", "Flatten", "GeLU",
          "FastGeLU")
_BINARY = ("Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow", "Greater", "GreaterEqual", "Less",
           "LessEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "FloorDiv", "FloorMod", "Mod",
           "SquaredDifference", "Atan2")
_REDUCE = ("ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny")
_POOL_ATTRS = (Arg("kernel_size", 1, _tuple), Arg("strides", 1, _tuple), Arg("pad_mode", "valid", _pad_mode), _FMT)

CONVERTERS = {name: Spec(name) for name in _UNARY}
CONVERTERS.update({name: Spec(name, ("x", "y")) for name in _BINARY})
CONVERTERS.update({name: Spec(name, ("x", Arg("axis", (), _axis)), [Arg("keep_dims", False, _bool)])
                   for name in _REDUCE})
CONVERTERS.update({
    "ReduceSum": Spec("ReduceSum", ("x", Arg("axis", (), _axis)),
                      [Arg("keep_dims", False, _bool), Arg("skip_mode", False, _bool)]),
    "SumExt": _sum_like("ReduceSum"),
    "MeanExt": _sum_like("ReduceMean"),
    "MatMul": Spec("MatMul", ("x", "y"), [Arg("transpose_a", False, _bool), Arg("transpose_b", False, _bool)]),
    "BatchMatMul": Spec("BatchMatMul", ("x", "y"),
                        [Arg("transpose_a", False, _bool), Arg("transpose_b", False, _bool)]),
    "MatMulExt": _matmul_ext,
    "Dense": _dense,
    "BiasAdd": Spec("BiasAdd", ("x", "bias"), [_FMT]),
    "AddExt": _with_alpha("Add"),
    "SubExt": _with_alpha("Sub"),
    "Muls": _scalar_binary("Mul"),
    "Divs": _scalar_binary("Div"),
    "GeluExt": Spec("GeluExt", ("x",), [Arg("approximate", "none", _string)]),
    "LeakyReLU": Spec("LeakyReLU", ("x",), [Arg("alpha", 0.2)]),
    "Elu": Spec("Elu", ("x",), [Arg("alpha", 1.0)]),
    "PReLU": Spec("PReLU", ("x", "weight")),
    "Softmax": Spec("Softmax", ("x",), [Arg("axis", -1, _tuple)]),
    "LogSoftmax": Spec("LogSoftmax", ("x",), [Arg("axis", -1, _tuple)]),
    "Conv2D": Spec("Conv2D", ("x", "w"), [
        Arg("out_channel"), Arg("kernel_size", norm=_tuple), Arg("mode", 1), Arg("pad_mode", "valid", _pad_mode),
        Arg("pad", 0, _tuple), Arg("stride", 1, _tuple), Arg("dilation", 1, _tuple),
        Arg("group", 1, aliases=("groups",)), _FMT]),
    "MaxPool": Spec("MaxPool", ("x",), _POOL_ATTRS),
    "AvgPool": Spec("AvgPool", ("x",), _POOL_ATTRS),
    "AdaptiveAvgPool2D": Spec("AdaptiveAvgPool2D", ("x",), [Arg("output_size", norm=_tuple)]),
    "BatchNorm": Spec("BatchNorm", ("x", "scale", "bias", "mean", "variance"), [
        Arg("is_training", False, _bool), Arg("epsilon", 1e-5), Arg("momentum", 0.1), _FMT]),
    "LayerNorm": Spec("LayerNorm", ("x", "gamma", "beta"), [
        Arg("begin_norm_axis", 1), Arg("begin_params_axis", 1), Arg("epsilon", 1e-7)]),
    "Dropout": Spec("Dropout", ("x",), [Arg("keep_prob", 0.5), Arg("Seed0", 0), Arg("Seed1", 0)]),
    "Reshape": Spec("Reshape", ("x", Arg("shape", norm=_tuple))),
    "Transpose": Spec("Transpose", ("x", Arg("perm", norm=_tuple))),
    "ExpandDims": Spec("ExpandDims", ("x", "axis")),
    "Squeeze": Spec("Squeeze", ("x",), [Arg("axis", (), _axis)]),
    "Tile": Spec("Tile", ("x", Arg("dims", norm=_tuple))),
    "BroadcastTo": Spec("BroadcastTo", ("x",), [Arg("shape", norm=_tuple)]),
    "Concat": Spec("Concat", ("tensors",), [Arg("axis", 0)]),
    "Stack": Spec("Stack", ("tensors",), [Arg("axis", 0)]),
    "Split": Spec("Split", ("x",), [Arg("axis", 0), Arg("output_num", 1)]),
    "Gather": Spec("Gather", ("params", "indices", "axis"), [Arg("batch_dims", 0)]),
    "StridedSlice": Spec("StridedSlice", ("x", Arg("begin", norm=_tuple), Arg("end", norm=_tuple),
                                          Arg("strides", norm=_tuple)),
                         [Arg(m, 0) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                              "shrink_axis_mask")]),
    "Select": Spec("Select", ("cond", "x", "y")),
    "OneHot": Spec("OneHot", ("indices", "depth", "on_value", "off_value"), [Arg("axis", -1)]),
    # In-place writes of training-mode exports (BatchNorm's moving statistics); the monad input is dropped.
    "Assign": Spec("Assign", ("variable", "value")),
    "AssignAdd": Spec("AssignAdd", ("variable", "value")),
    "AssignSub": Spec("AssignSub", ("variable", "value")),
})

# Training graphs (an exported TrainOneStepCell, what `converter_lite --trainModel=true` reads): the gradient
# kernels and the optimizer update that autodiff and nn.Momentum emit.
_CONV_GRAD_ATTRS = [Arg("out_channel"), Arg("kernel_size", norm=_tuple), Arg("pad_mode", "valid", _pad_mode),
                    Arg("pad", 0, _tuple), Arg("pad_list", None, _tuple), Arg("mode", 1), Arg("stride", 1, _tuple),
                    Arg("dilation", 1, _tuple), Arg("group", 1, aliases=("groups",)), _FMT]
CONVERTERS.update({
    "ReluGrad": Spec("ReluGrad", ("y_backprop", "x")),
    "SparseSoftmaxCrossEntropyWithLogits": Spec("SparseSoftmaxCrossEntropyWithLogits", ("features", "labels"),
                                                [Arg("is_grad", False, _bool)]),
    "MaxPoolWithArgmaxV2": Spec("MaxPoolWithArgmaxV2", ("x",), [
        Arg("kernel_size", norm=_tuple), Arg("strides", None, _tuple), Arg("pads", 0, _tuple),
        Arg("dilation", (1, 1), _tuple), Arg("ceil_mode", False, _bool), Arg("argmax_type", "int64", _dtype)]),
    "MaxPoolGradWithArgmax": Spec("MaxPoolGradWithArgmax", ("x", "grad", "argmax")),
    "Conv2DBackpropInput": Spec("Conv2DBackpropInput", ("dout", "weight", Arg("input_size", norm=_tuple)),
                                _CONV_GRAD_ATTRS),
    "Conv2DBackpropFilter": Spec("Conv2DBackpropFilter", ("dout", "x", Arg("filter_size", norm=_tuple)),
                                 _CONV_GRAD_ATTRS),
    "ApplyMomentum": Spec("ApplyMomentum", ("variable", "accumulation", "learning_rate", "gradient", "momentum"),
                          [Arg("use_nesterov", False, _bool), Arg("use_locking", False, _bool),
                           Arg("gradient_scale", 1.0)]),
})


def supported_op_types():
    """Every MindIR op_type the reader converts (control-flow and monad plumbing included)."""
    return sorted(set(CONVERTERS) | PLUMBING)


def check_table():
    """Each converter's target primitives exist and take the attributes given (used by the tests)."""
    problems = []
    for op, conv in CONVERTERS.items():
        if isinstance(conv, Spec):
            cls = PRIMITIVES.get(conv.ours)
            if cls is None:
                problems.append(f"{op}: no primitive '{conv.ours}'")
                continue
            missing = [a.ours for a in conv.attrs if a.ours not in cls.attr_defaults]
            if missing:
                problems.append(f"{op}: primitive '{conv.ours}' has no attributes {missing}")
    return problems
