"""MindIR operator types → openspore primitives.

Most ops map one-to-one: their encoding (a `Spec`: MindSpore's argument order, attribute names, defaults) is
declared next to the primitive it reads into (`mindir(...)` in ops/defs, see ops/defs/_mindir.py), and
`CONVERTERS` collects them. The ops below do not map one-to-one — MindSpore op types with no primitive of their
own, read as a composition of ours — and are small functions keyed by MindSpore's op type. Each converter
receives the builder, the argument values (IR nodes or Python constants; monads removed) and the primitive
attributes.
"""
from ..core.primitive import PRIMITIVES
from ..ops.defs._mindir import Arg, Spec, norm_axis, norm_bool, resolve

# Handled by the reader itself (monads, tuples, closures, control flow).
PLUMBING = frozenset(("Load", "UpdateState", "Depend", "MakeTuple", "MakeList", "TupleGetItem", "ListGetItem",
                      "Partial", "Switch"))


# ---- ops that do not map one-to-one -------------------------------------------------------------------------
def _sum_like(ours):
    def convert(b, op, args, attrs):
        v = resolve(op, [Arg("input"), Arg("dim", None, norm_axis), Arg("keepdim", False, norm_bool),
                         Arg("dtype", None)], args, attrs)
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
def declared_specs():
    """{MindIR op type: Spec} of every primitive that declares its encoding (its own class attribute `mindir`)."""
    return {spec.ours: spec for spec in (cls.__dict__.get("mindir") for cls in PRIMITIVES.values()) if spec}


CONVERTERS = declared_specs()
CONVERTERS.update({
    "SumExt": _sum_like("ReduceSum"),
    "MeanExt": _sum_like("ReduceMean"),
    "MatMulExt": _matmul_ext,
    "Dense": _dense,
    "AddExt": _with_alpha("Add"),
    "SubExt": _with_alpha("Sub"),
    "Muls": _scalar_binary("Mul"),
    "Divs": _scalar_binary("Div"),
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
