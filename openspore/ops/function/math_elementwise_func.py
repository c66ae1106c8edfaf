"""Functional elementwise math: arithmetic, unary functions, comparisons, logic, where/clamp (MindSpore 2.x).

Binary functions accept Tensors or Python numbers and follow MindSpore's implicit promotion (int32 / int32 ->
float32 for true division, Bool tensor + int -> Int64, comparisons -> Bool).
"""
import math as _math
from builtins import abs as builtins_abs

from ...common import dtype as mstype
from ...core.registry import prim
from .. import operations as P

__all__ = [
    "cast", "zeros_like", "ones_like",
    "add", "sub", "subtract", "mul", "multiply", "neg", "negative", "div", "divide", "true_divide",
    "floor_divide", "floor_div", "floor_mod", "remainder", "fmod", "pow", "square", "squared_difference",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "abs", "absolute", "sign", "floor", "ceil", "round", "trunc",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "arcsin", "arccos", "arctan", "arctan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh",
    "erf", "erfc", "sigmoid", "maximum", "minimum", "clamp", "clip", "clip_by_value",
    "equal", "eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isclose",
    "allclose", "where",
]

_add, _sub, _mul, _neg, _div, _cast = prim(P.Add), prim(P.Sub), prim(P.Mul), prim(P.Neg), prim(P.Div), prim(P.Cast)


def _dtype(value):
    """The dtype a value takes part in promotion with (a Type for tensors, the value itself for numbers)."""
    dtype = getattr(value, "dtype", None)
    return dtype if isinstance(dtype, mstype.Type) else value


def _result_dtype(*values):
    return mstype.result_type(*[_dtype(v) for v in values])


def _float_input(op, x):
    """Integer/bool tensors enter float functions as float32 (as MindSpore's transcendental ops do)."""
    if not isinstance(getattr(x, "dtype", None), mstype.Type):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor, but got {type(x).__name__}.")
    return x if x.dtype.kind in ("float", "complex") else _cast(x, mstype.float32)


# ---- dtype and constants ----------------------------------------------------------------------------
def cast(input, dtype):
    """cast(input, dtype): convert to `dtype` (no-op when it already has it)."""
    dtype = mstype.to_dtype(dtype, "cast")
    if getattr(input, "dtype", None) is dtype:
        return input
    return _cast(input, dtype)


def zeros_like(input, *, dtype=None):
    """zeros_like(input, *, dtype=None): zeros of input's shape (and dtype unless given)."""
    out = prim(P.ZerosLike)(input)
    return cast(out, dtype) if dtype is not None else out


def ones_like(input, *, dtype=None):
    """ones_like(input, *, dtype=None): ones of input's shape (and dtype unless given)."""
    out = prim(P.OnesLike)(input)
    return cast(out, dtype) if dtype is not None else out


# ---- arithmetic -------------------------------------------------------------------------------------
def add(input, other):
    """add(input, other): input + other with broadcasting and MindSpore's type promotion."""
    return _add(input, other)


def sub(input, other):
    """sub(input, other): input - other."""
    return _sub(input, other)


def subtract(input, other, *, alpha=1):
    """subtract(input, other, *, alpha=1): input - alpha * other."""
    return _sub(input, other if alpha == 1 else _mul(other, alpha))


def mul(input, other):
    """mul(input, other): input * other."""
    return _mul(input, other)


multiply = mul


def neg(input):
    """neg(input): -input."""
    return _neg(input)


negative = neg


def div(input, other, *, rounding_mode=None):
    """div(input, other, *, rounding_mode=None): true division (ints give float32); 'floor' or 'trunc' round."""
    if rounding_mode is None:
        return _div(input, other)
    if rounding_mode == "floor":
        return prim(P.FloorDiv)(input, other)
    if rounding_mode == "trunc":
        if _result_dtype(input, other).kind in ("int", "uint", "bool"):
            # x - fmod(x, y) is an exact multiple of y, so floor division of it truncates exactly
            return prim(P.FloorDiv)(_sub(input, prim(P.Mod)(input, other)), other)
        return prim(P.Trunc)(_div(input, other))
    raise ValueError(f"For 'div', 'rounding_mode' must be None, 'floor' or 'trunc', but got {rounding_mode!r}.")


divide = div


def true_divide(dividend, divisor):
    """true_divide(dividend, divisor): dividend / divisor without rounding."""
    return _div(dividend, divisor)


def floor_divide(input, other):
    """floor_divide(input, other): floor(input / other)."""
    return prim(P.FloorDiv)(input, other)


def floor_div(x, y):
    """floor_div(x, y): floor(x / y)."""
    return prim(P.FloorDiv)(x, y)


def floor_mod(x, y):
    """floor_mod(x, y): x - floor(x / y) * y (sign of y)."""
    return prim(P.FloorMod)(x, y)


def remainder(input, other):
    """remainder(input, other): Python-style modulus, with the sign of `other`."""
    return prim(P.FloorMod)(input, other)


def fmod(input, other):
    """fmod(input, other): C-style remainder, with the sign of `input`."""
    return prim(P.Mod)(input, other)


def pow(input, exponent):
    """pow(input, exponent): input ** exponent; either may be a number."""
    return prim(P.Pow)(input, exponent)


def square(input):
    """square(input): input * input."""
    return prim(P.Square)(input)


def squared_difference(x, y):
    """squared_difference(x, y): (x - y) ** 2."""
    return prim(P.SquaredDifference)(x, y)


# ---- unary functions ----------------------------------------------------------------------------------
def _unary(prim_name, param="input", doc=""):
    op = getattr(P, prim_name)()

    def fn(input):
        return op(input)
    fn.__name__ = fn.__qualname__ = prim_name.lower()
    fn.__doc__ = doc or f"{prim_name.lower()}({param}): elementwise {prim_name}; integer inputs give float32."
    return fn


exp = _unary("Exp")
expm1 = _unary("Expm1")
log = _unary("Log")
log1p = _unary("Log1p")
sqrt = _unary("Sqrt", "x")
rsqrt = _unary("Rsqrt")
reciprocal = _unary("Reciprocal")
sin, cos, tan = _unary("Sin"), _unary("Cos"), _unary("Tan")
asin, acos, atan = _unary("Asin"), _unary("Acos"), _unary("Atan")
sinh, cosh, tanh = _unary("Sinh"), _unary("Cosh"), _unary("Tanh")
asinh, acosh, atanh = _unary("Asinh"), _unary("Acosh"), _unary("Atanh")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
erf, erfc = _unary("Erf"), _unary("Erfc")
sigmoid = _unary("Sigmoid", doc="sigmoid(input): 1 / (1 + exp(-input)).")
abs = _unary("Abs", doc="abs(input): |input|, keeping integer dtypes.")  # noqa: A001 - MindSpore's name
absolute = abs
sign = _unary("Sign", doc="sign(input): -1, 0 or 1 elementwise.")
floor = _unary("Floor", doc="floor(input): round toward -inf.")
ceil = _unary("Ceil", doc="ceil(input): round toward +inf.")
trunc = _unary("Trunc", doc="trunc(input): round toward zero.")


def exp2(input):
    """exp2(input): 2 ** input."""
    return prim(P.Pow)(2.0, _float_input("exp2", input))


def log2(input):
    """log2(input): base-2 logarithm."""
    return _mul(prim(P.Log)(input), 1.0 / _math.log(2.0))


def log10(input):
    """log10(input): base-10 logarithm."""
    return _mul(prim(P.Log)(input), 1.0 / _math.log(10.0))


def round(input, *, decimals=0):  # noqa: A001 - MindSpore's name
    """round(input, *, decimals=0): round half to even, at `decimals` decimal places."""
    if decimals == 0:
        return prim(P.Round)(input)
    scale = 10.0 ** decimals
    x = _float_input("round", input)
    return _div(prim(P.Round)(_mul(x, scale)), scale)


def atan2(input, other):
    """atan2(input, other): the angle of (other, input), in (-pi, pi]."""
    return prim(P.Atan2)(input, other)


arctan2 = atan2


# ---- extrema and clamping -----------------------------------------------------------------------------
def maximum(input, other):
    """maximum(input, other): elementwise maximum."""
    return prim(P.Maximum)(input, other)


def minimum(input, other):
    """minimum(input, other): elementwise minimum."""
    return prim(P.Minimum)(input, other)


def clamp(input, min=None, max=None):  # noqa: A002 - MindSpore's parameter names
    """clamp(input, min=None, max=None): limit values to [min, max]. The dtype follows the usual promotion of
    input with the bounds, as in MindSpore 2.10: an int tensor clamped to 0.5 gives float32, to 1 stays int."""
    if min is None and max is None:
        raise ValueError("For 'clamp', at least one of 'min' and 'max' must be given, but both are None.")
    out = input
    if min is not None:
        out = prim(P.Maximum)(out, min)
    if max is not None:
        out = prim(P.Minimum)(out, max)
    return out


clip = clamp


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """clip_by_value(x, clip_value_min=None, clip_value_max=None): clamp x to [min, max]; keeps x's dtype."""
    return cast(clamp(x, clip_value_min, clip_value_max), x.dtype)


# ---- comparisons and logic ----------------------------------------------------------------------------
def _compare(prim_name, name, symbol):
    op = getattr(P, prim_name)()

    def fn(input, other):
        return op(input, other)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, other): input {symbol} other elementwise, with broadcasting; Bool output."
    return fn


equal = _compare("Equal", "equal", "==")
eq = _compare("Equal", "eq", "==")
ne = _compare("NotEqual", "ne", "!=")
not_equal = _compare("NotEqual", "not_equal", "!=")
lt = _compare("Less", "lt", "<")
less = _compare("Less", "less", "<")
le = _compare("LessEqual", "le", "<=")
less_equal = _compare("LessEqual", "less_equal", "<=")
gt = _compare("Greater", "gt", ">")
greater = _compare("Greater", "greater", ">")
ge = _compare("GreaterEqual", "ge", ">=")
greater_equal = _compare("GreaterEqual", "greater_equal", ">=")
logical_and = _compare("LogicalAnd", "logical_and", "and")
logical_or = _compare("LogicalOr", "logical_or", "or")
logical_xor = _compare("LogicalXor", "logical_xor", "xor")


def logical_not(input):
    """logical_not(input): not input elementwise (nonzero is True); Bool output."""
    return prim(P.LogicalNot)(input)


def isnan(input):
    """isnan(input): True where input is NaN."""
    return prim(P.IsNan)(input)


def isinf(input):
    """isinf(input): True where input is +-inf."""
    return prim(P.IsInf)(input)


def isfinite(input):
    """isfinite(input): True where input is neither NaN nor infinite."""
    return prim(P.IsFinite)(input)


def _is_number(value):
    return isinstance(value, (bool, int, float)) and not isinstance(getattr(value, "dtype", None), mstype.Type)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False): |input - other| <= atol + rtol * |other|.

    Infinities are close only to themselves; NaNs only when equal_nan is True. `other` may be a number.
    """
    if not isinstance(getattr(input, "dtype", None), mstype.Type):
        raise TypeError(f"For 'isclose', the 'input' must be a Tensor, but got {type(input).__name__}.")
    if _is_number(other):
        other_finite, other_nan, other_abs = _math.isfinite(other), other != other, builtins_abs(other)
    else:
        other_finite, other_nan, other_abs = prim(P.IsFinite)(other), prim(P.IsNan)(other), prim(P.Abs)(other)
    both_finite = prim(P.LogicalAnd)(prim(P.IsFinite)(input), other_finite)
    diff = prim(P.Abs)(_sub(input, other))
    within = prim(P.LessEqual)(diff, _add(_mul(other_abs, rtol), atol))
    close = prim(P.LogicalOr)(prim(P.LogicalAnd)(both_finite, within), prim(P.Equal)(input, other))
    if equal_nan:
        close = prim(P.LogicalOr)(close, prim(P.LogicalAnd)(prim(P.IsNan)(input), other_nan))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False): a 0-d Bool, True when isclose everywhere."""
    return prim(P.ReduceAll)(isclose(input, other, rtol, atol, equal_nan), ())


def where(condition, input, other):
    """where(condition, input, other): input where condition is True, else other (all three broadcast)."""
    if getattr(condition, "dtype", None) is not mstype.bool_:
        condition = cast(condition, mstype.bool_)
    return prim(P.Select)(condition, input, other)
