"""`mindspore.numpy` integer and dtype helpers: bitwise_and/or/xor/not (invert), gcd/lcm, divmod, cbrt, and
MindSpore's promotion rules as `promote_types` / `result_type`.

MindSpore's numpy turns a Python int into an int32 Tensor and a Python float into a float32 one *before*
promoting (they are not weak scalars here), and an int mixed with a float gives the float type (float32 +
int64 -> float32, unlike NumPy's float64); `result_type` below is the one place that rule is written.

>>> import openspore.numpy as mnp
>>> mnp.bitwise_and(mnp.array([12, 7]), 10).asnumpy().tolist(), mnp.promote_types(mnp.int8, mnp.uint8)
([8, 2], mindspore.int16)
>>> [t.asnumpy().tolist() for t in mnp.divmod(mnp.array([7, -7]), 3)]
[[2, -3], [1, 2]]
"""
import builtins

import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "gcd", "lcm", "divmod", "cbrt",
           "promote_types", "result_type"]

_INTEGRAL = ("int", "uint", "bool")


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _to_dtype(value, where):
    """A MindSpore dtype from a dtype, a NumPy type or a name; anything else is a TypeError."""
    if isinstance(value, mstype.Type):
        return value
    if isinstance(value, (str, type)) or isinstance(value, onp.dtype):
        try:
            return mstype.nptype_to_dtype(onp.dtype(value).type)
        except TypeError:
            pass
    raise TypeError(f"For 'mindspore.numpy.{where}', expected a dtype (mindspore.float32, np.int8, 'int32', ...), "
                    f"but got {value!r} of type {type(value).__name__}.")


def promote_types(type1, type2):
    """The dtype both inputs convert to without losing their kind (an int with a float gives the float).

    >>> import openspore.numpy as mnp
    >>> mnp.promote_types(mnp.float32, mnp.int64), mnp.promote_types("float16", "float64")
    (mindspore.float32, mindspore.float64)
    """
    return mstype.promote_types(_to_dtype(type1, "promote_types"), _to_dtype(type2, "promote_types"))


def _operand_dtype(value):
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, builtins.bool):
        return mstype.bool_
    if isinstance(value, builtins.int):
        return mstype.int32
    if isinstance(value, builtins.float):
        return mstype.float32
    return _to_dtype(value, "result_type")


def result_type(*arrays_and_dtypes):
    """The dtype an operation on these Tensors / dtypes / Python scalars returns (Python int → int32, float →
    float32, then `promote_types`)."""
    if not arrays_and_dtypes:
        raise ValueError("For 'mindspore.numpy.result_type', at least one array or dtype is required.")
    out = _operand_dtype(arrays_and_dtypes[0])
    for item in arrays_and_dtypes[1:]:
        out = mstype.promote_types(out, _operand_dtype(item))
    return out


def _cast(out, dtype):
    return out if dtype is None else ops.cast(out, mstype.to_dtype(dtype, "mindspore.numpy"))


def _int_pair(name, x1, x2, allow_float=False):
    """Both operands as Tensors of their promoted dtype (integers or bool; floats only where allowed)."""
    a, b = _as(x1), _as(x2)
    common = mstype.promote_types(a.dtype, b.dtype)
    if common.kind not in _INTEGRAL and not (allow_float and common.kind == "float"):
        raise TypeError(f"For 'mindspore.numpy.{name}', the inputs must be integer or bool Tensors, but got "
                        f"{a.dtype} and {b.dtype}.")
    return ops.cast(a, common), ops.cast(b, common)


def _make_bitwise(name, fn):
    def bitwise(x1, x2, dtype=None):
        a, b = _int_pair(name, x1, x2)
        return _cast(fn(a, b), dtype)
    bitwise.__name__ = bitwise.__qualname__ = name
    bitwise.__doc__ = f"Elementwise {name} of integer or bool Tensors (broadcast, promoted to a common dtype)."
    return bitwise


bitwise_and = _make_bitwise("bitwise_and", ops.bitwise_and)
bitwise_or = _make_bitwise("bitwise_or", ops.bitwise_or)
bitwise_xor = _make_bitwise("bitwise_xor", ops.bitwise_xor)


def invert(x, dtype=None):
    """Bitwise NOT of an integer Tensor (two's complement: ~12 == -13; MindSpore rejects bool here)."""
    t = _as(x)
    if t.dtype.kind not in ("int", "uint"):
        raise TypeError(f"For 'mindspore.numpy.invert', the input must be an integer Tensor, but got {t.dtype}.")
    return _cast(ops.invert(t), dtype)


bitwise_not = invert


def _gcd_ints(a, b):
    """gcd on integer Tensors; float inputs are computed as int32 and cast back (as MindSpore does)."""
    if a.dtype.kind == "float":
        return ops.cast(ops.gcd(ops.cast(a, mstype.int32), ops.cast(b, mstype.int32)), a.dtype)
    return ops.gcd(a, b)


def gcd(x1, x2, dtype=None):
    """Greatest common divisor of |x1| and |x2|, elementwise."""
    a, b = _int_pair("gcd", x1, x2, allow_float=True)
    return _cast(_gcd_ints(a, b), dtype)


def lcm(x1, x2, dtype=None):
    """Least common multiple of |x1| and |x2| (0 where either is 0), elementwise."""
    a, b = _int_pair("lcm", x1, x2, allow_float=True)
    g = _gcd_ints(a, b)
    safe = ops.where(g == 0, ops.ones_like(g), g)
    return _cast(ops.abs(ops.floor_div(a, safe) * b), dtype)


def _operand(x, other):
    if isinstance(x, Tensor) or (isinstance(x, (int, float)) and isinstance(other, Tensor)):
        return x
    return asarray(x)


def divmod(x1, x2, dtype=None):  # noqa: A001 (NumPy's name)
    """(floor_divide(x1, x2), remainder(x1, x2)); the remainder has the sign of x2."""
    a, b = _operand(x1, x2), _operand(x2, x1)
    return _cast(ops.floor_div(a, b), dtype), _cast(ops.remainder(a, b), dtype)


def cbrt(x, dtype=None):
    """Real cube root (negative for negative inputs); float64 stays float64, everything else gives float32."""
    t = _as(x)
    t = t if t.dtype in (mstype.float32, mstype.float64) else ops.cast(t, mstype.float32)
    return _cast(ops.sign(t) * ops.pow(ops.abs(t), 1.0 / 3.0), dtype)
