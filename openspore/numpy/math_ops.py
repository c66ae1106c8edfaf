"""`mindspore.numpy` math and shape functions with NumPy's signatures (axis, keepdims, ...), on openspore ops:
elementwise functions, reductions, products, and array manipulation. Inputs may be Tensors, arrays, lists or
numbers; results are Tensors.

>>> import openspore.numpy as mnp
>>> mnp.sum(mnp.ones((2, 3)), axis=0).asnumpy().tolist()
[2.0, 2.0, 2.0]
>>> mnp.concatenate([mnp.zeros(2), mnp.ones(1)]).asnumpy().tolist()
[0.0, 0.0, 1.0]
"""
import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["sum", "mean", "amax", "amin", "max", "min", "prod", "var", "std", "ptp", "average", "nansum", "nanmean",
           "argmax", "argmin", "cumsum", "cumprod", "count_nonzero", "clip", "where", "matmul", "dot", "tensordot",
           "multi_dot", "trace", "isclose", "array_equal", "array_equiv", "all", "any", "sometrue", "diff", "trapz", "norm", "cov", "corrcoef"]

_UNARY = {"absolute": ops.abs, "abs": ops.abs, "fabs": ops.abs, "negative": ops.neg, "positive": ops.positive,
          "sqrt": ops.sqrt, "square": ops.square, "exp": ops.exp, "exp2": ops.exp2, "expm1": ops.expm1,
          "log": ops.log, "log2": ops.log2, "log10": ops.log10, "log1p": ops.log1p, "sin": ops.sin, "cos": ops.cos,
          "tan": ops.tan, "sinh": ops.sinh, "cosh": ops.cosh, "tanh": ops.tanh, "arcsin": ops.asin,
          "arccos": ops.acos, "arctan": ops.atan, "arcsinh": ops.asinh, "arccosh": ops.acosh, "arctanh": ops.atanh,
          "floor": ops.floor, "ceil": ops.ceil, "trunc": ops.trunc, "fix": ops.trunc, "rint": ops.round,
          "sign": ops.sign, "reciprocal": ops.reciprocal, "isnan": ops.isnan, "isinf": ops.isinf,
          "isfinite": ops.isfinite, "isneginf": ops.isneginf, "isposinf": ops.isposinf, "signbit": ops.signbit,
          "deg2rad": ops.deg2rad, "radians": ops.deg2rad, "rad2deg": ops.rad2deg, "logical_not": ops.logical_not}
_BINARY = {"add": ops.add, "subtract": ops.sub, "multiply": ops.mul, "divide": ops.div, "true_divide": ops.div,
           "floor_divide": ops.floor_div, "power": ops.pow, "float_power": ops.float_power, "remainder": ops.remainder,
           "mod": ops.remainder, "fmod": ops.fmod, "maximum": ops.maximum, "minimum": ops.minimum,
           "arctan2": ops.atan2, "hypot": ops.hypot, "copysign": ops.copysign, "heaviside": ops.heaviside,
           "logaddexp": ops.logaddexp, "logaddexp2": ops.logaddexp2, "equal": ops.equal, "not_equal": ops.ne,
           "less": ops.less, "less_equal": ops.le, "greater": ops.greater, "greater_equal": ops.ge,
           "logical_and": ops.logical_and, "logical_or": ops.logical_or, "logical_xor": ops.logical_xor,
           "kron": ops.kron, "outer": ops.outer, "inner": ops.inner, "cross": ops.cross}


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _make_unary(name, fn):
    def unary(x, dtype=None):
        out = fn(_as(x))
        return out if dtype is None else ops.cast(out, dtype)
    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"Elementwise {name} (NumPy semantics), as a Tensor."
    return unary


def _operand(x, other):
    """Tensors pass; a Python number stays a (weakly typed) scalar next to a Tensor; anything else → Tensor."""
    if isinstance(x, Tensor) or (isinstance(x, (int, float)) and isinstance(other, Tensor)):
        return x
    return asarray(x)


def _make_binary(name, fn):
    def binary(x1, x2, dtype=None):
        out = fn(_operand(x1, x2), _operand(x2, x1))
        return out if dtype is None else ops.cast(out, dtype)
    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"Elementwise {name} with broadcasting (NumPy semantics), as a Tensor."
    return binary


globals().update({n: _make_unary(n, f) for n, f in _UNARY.items()})
globals().update({n: _make_binary(n, f) for n, f in _BINARY.items()})


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001 (NumPy's name)
    """Sum over `axis` (all axes when None)."""
    out = ops.sum(_as(a), _axis(axis), keepdims)
    out = out if initial is None else out + initial
    return out if dtype is None else ops.cast(out, dtype)


def mean(a, axis=None, keepdims=False, dtype=None):
    """Arithmetic mean over `axis`."""
    x = _as(a)
    x = x if x.dtype.kind == "float" else ops.cast(x, mstype.float32)
    out = ops.mean(x, _axis(axis), keepdims)
    return out if dtype is None else ops.cast(out, dtype)


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """Maximum over `axis`."""
    return ops.amax(_as(a), _axis(axis), keepdims)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """Minimum over `axis`."""
    return ops.amin(_as(a), _axis(axis), keepdims)


max = amax  # noqa: A001
min = amin  # noqa: A001


def prod(a, axis=None, keepdims=False, dtype=None):
    """Product over `axis`."""
    out = ops.prod(_as(a), _axis(axis), keepdims)
    return out if dtype is None else ops.cast(out, dtype)


def var(x, axis=None, ddof=0, keepdims=False):
    """Variance over `axis` (divisor n − ddof)."""
    return ops.var(_as(x), _axis(axis), ddof, keepdims)


def std(x, axis=None, ddof=0, keepdims=False):
    """Standard deviation over `axis`."""
    return ops.std(_as(x), _axis(axis), ddof, keepdims)


def ptp(x, axis=None, keepdims=False):
    """max − min over `axis`."""
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def average(x, axis=None, weights=None, returned=False):
    """Weighted mean over `axis`."""
    x = _as(x)
    if weights is None:
        out, total = mean(x, axis), Tensor(onp.float32(x.size if axis is None else x.shape[axis]))
    else:
        w = _as(weights)
        if axis is not None and len(w.shape) == 1 and len(x.shape) > 1:
            w = ops.reshape(w, tuple(-1 if i == axis % len(x.shape) else 1 for i in range(len(x.shape))))
        total = sum(ops.broadcast_to(w, tuple(x.shape)), axis)
        out = sum(x * w, axis) / total
    return (out, total) if returned else out


def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum treating NaN as 0."""
    return ops.nansum(_as(a), _axis(axis), keepdims, dtype=dtype)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean over the non-NaN entries."""
    return ops.nanmean(_as(a), _axis(axis), keepdims, dtype=dtype)


def argmax(a, axis=None):
    """Index of the maximum (of the flattened array when axis is None)."""
    x = _as(a)
    return ops.argmax(ops.reshape(x, (-1,)) if axis is None else x, None if axis is None else axis)


def argmin(a, axis=None):
    """Index of the minimum (of the flattened array when axis is None)."""
    x = _as(a)
    return ops.argmin(ops.reshape(x, (-1,)) if axis is None else x, None if axis is None else axis)


def cumsum(a, axis=None, dtype=None):
    """Cumulative sum (of the flattened array when axis is None)."""
    x = _as(a)
    return ops.cumsum(ops.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis, dtype)


def cumprod(a, axis=None, dtype=None):
    """Cumulative product (of the flattened array when axis is None)."""
    x = _as(a)
    return ops.cumprod(ops.reshape(x, (-1,)) if axis is None else x, 0 if axis is None else axis, dtype)


def count_nonzero(x, axis=None, keepdims=False):
    """Number of nonzero entries."""
    return ops.count_nonzero(_as(x), () if axis is None else axis, keepdims)


def clip(a, a_min, a_max, dtype=None):
    """Values clamped to [a_min, a_max]."""
    out = ops.clamp(_as(a), a_min, a_max)
    return out if dtype is None else ops.cast(out, dtype)


def where(condition, x=None, y=None):
    """x where condition else y (or the nonzero indices of condition when x, y are omitted)."""
    if x is None and y is None:
        return tuple(Tensor(i.astype(onp.int32)) for i in onp.nonzero(_as(condition).asnumpy()))
    xt, yt = _as(x), _as(y)
    return ops.where(_as(condition), xt, yt)


def matmul(x1, x2, dtype=None):
    """Matrix product with broadcasting."""
    out = ops.matmul(_as(x1), _as(x2))
    return out if dtype is None else ops.cast(out, dtype)


def dot(a, b):
    """NumPy dot: the product over a's last axis and b's second-to-last (last for 1-D)."""
    a, b = _as(a), _as(b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return a * b
    return ops.dot(a, b)


def tensordot(a, b, axes=2):
    """Sum of products over the given axes."""
    return ops.tensor_dot(_as(a), _as(b), axes)


def multi_dot(arrays):
    """a @ b @ c ... left to right."""
    out = _as(arrays[0])
    for m in arrays[1:]:
        out = ops.matmul(out, _as(m))
    return out


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum of diagonal `offset` over (axis1, axis2)."""
    out = ops.sum(ops.diagonal(_as(a), offset, axis1, axis2), -1)
    return out if dtype is None else ops.cast(out, dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a − b| ≤ atol + rtol·|b| elementwise."""
    return ops.isclose(_as(a), _as(b), rtol, atol, equal_nan)


def array_equal(a1, a2, equal_nan=False):
    """Same shape and values, as a 0-d bool Tensor (MindSpore returns a Tensor, also for different shapes).

    >>> import openspore.numpy as mnp
    >>> mnp.array_equal([1, 2], [1, 2]).asnumpy().item(), mnp.array_equal([1], [1, 2]).asnumpy().item()
    (True, False)
    """
    x, y = _as(a1), _as(a2)
    if x.shape != y.shape:
        return asarray(False)
    return ops.all(ops.isclose(x, y, 0.0, 0.0, equal_nan) if equal_nan else x == y)


def array_equiv(a1, a2):
    """Equal after broadcasting to a common shape (a 0-d bool Tensor; False when they do not broadcast)."""
    x, y = _as(a1), _as(a2)
    try:
        onp.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        return asarray(False)
    return ops.all(x == y)


def all(a, axis=None, keepdims=False):  # noqa: A001 (NumPy's name)
    """True where every element along `axis` is nonzero (all axes when None)."""
    return ops.all(ops.cast(_as(a), mstype.bool_), _axis(axis), bool(keepdims))


def any(a, axis=None, keepdims=False):  # noqa: A001 (NumPy's name)
    """True where some element along `axis` is nonzero (all axes when None).

    >>> import openspore.numpy as mnp
    >>> mnp.any(mnp.array([[0, 1], [0, 0]]), axis=1).asnumpy().tolist()
    [True, False]
    """
    return ops.any(ops.cast(_as(a), mstype.bool_), _axis(axis), bool(keepdims))


def sometrue(a, axis=None, keepdims=False):
    """NumPy's old name of `any` (keepdims may be any truthy value)."""
    return any(a, axis, keepdims)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """n-th discrete difference along `axis`."""
    return ops.diff(_as(a), n, axis, prepend, append)


def trapz(y, x=None, dx=1.0, axis=-1):
    """Trapezoidal integral along `axis`."""
    return ops.trapz(_as(y), None if x is None else _as(x), dx=dx, dim=axis)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm (NumPy's `ord` choices for vectors; Frobenius for matrices by default)."""
    return ops.norm(_as(x), ord, axis, keepdims)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """Covariance matrix of the variables (rows unless rowvar=False)."""
    x = _as(m)
    if y is not None:
        x = ops.concat([ops.atleast_2d(x), ops.atleast_2d(_as(y))], 0 if rowvar else 1)
    if not rowvar and len(x.shape) == 2:
        x = ops.transpose(x, (1, 0))
    correction = ddof if ddof is not None else (0 if bias else 1)
    out = ops.cov(x, correction=correction, fweights=fweights, aweights=aweights)
    return out if dtype is None else ops.cast(out, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients."""
    c = cov(x, y, rowvar)
    d = ops.sqrt(ops.diagonal(c))
    out = c / ops.outer(d, d)
    return out if dtype is None else ops.cast(out, dtype)
