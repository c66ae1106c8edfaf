"""`mindspore.numpy` 1-D convolution (convolve, correlate) and polynomials as coefficient vectors, highest
power first (polyadd, polysub, polymul, polyder, polyint, polyval), on openspore ops.

The sliding windows of a convolution are a gather with an index matrix built from the (static) lengths, so
integer inputs stay integer and the functions trace in GRAPH_MODE.

>>> import openspore.numpy as mnp
>>> mnp.convolve([1, 2, 3], [0, 1, 0.5]).asnumpy().tolist()
[0.0, 1.0, 2.5, 4.0, 1.5]
>>> mnp.polymul([3.0, 1.0, 2.0], [2.0, 5.0]).asnumpy().tolist(), mnp.polyval([3, 0, 1], 5).asnumpy().item()
([6.0, 17.0, 9.0, 10.0], 76.0)
"""
import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["convolve", "correlate", "polyadd", "polysub", "polymul", "polyder", "polyint", "polyval"]

_MODES = ("full", "same", "valid")


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _vectors(name, a, v):
    """Both inputs as 1-D, non-empty Tensors of their promoted dtype."""
    x, y = _as(a), _as(v)
    if len(x.shape) != 1 or len(y.shape) != 1:
        raise ValueError(f"For 'mindspore.numpy.{name}', a and v must be 1-D, but got shapes {x.shape} and "
                         f"{y.shape}.")
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"For 'mindspore.numpy.{name}', the inputs cannot be empty.")
    common = mstype.promote_types(x.dtype, y.dtype)
    return ops.cast(x, common), ops.cast(y, common)


def _full_convolution(x, y):
    """out[k] = sum_j x[j] y[k - j], length n + m - 1."""
    n, m = x.shape[0], y.shape[0]
    padded = ops.pad(x, (m - 1, m - 1))
    # windows[k, i] = padded[k + i]: the i-th tap under output k
    index = onp.arange(n + m - 1)[:, None] + onp.arange(m)[None, :]
    windows = ops.gather(padded, Tensor(index.astype(onp.int32)), 0)
    return ops.sum(windows * ops.flip(y, (0,)), -1, dtype=x.dtype)  # keeps an integer dtype (ops.sum gives int64)


def _trim(full, n, m, mode, name):
    if mode not in _MODES:
        raise ValueError(f"For 'mindspore.numpy.{name}', mode must be one of {list(_MODES)}, but got {mode!r}.")
    if mode == "full":
        return full
    short, long_ = min(n, m), max(n, m)
    if mode == "same":
        return full[(short - 1) // 2:(short - 1) // 2 + long_]
    return full[short - 1:long_]


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D sequences ('full', 'same' or 'valid' length)."""
    x, y = _vectors("convolve", a, v)
    return _trim(_full_convolution(x, y), x.shape[0], y.shape[0], mode, "convolve")


def correlate(a, v, mode="valid"):
    """Cross-correlation c[k] = sum_n a[n + k] v[n] of two 1-D sequences (float32 for integer inputs, as
    MindSpore returns)."""
    x, y = _vectors("correlate", a, v)
    if x.dtype.kind != "float":
        x, y = ops.cast(x, mstype.float32), ops.cast(y, mstype.float32)
    return _trim(_full_convolution(x, ops.flip(y, (0,))), x.shape[0], y.shape[0], mode, "correlate")


def _poly(name, p):
    t = _as(p)
    if len(t.shape) > 1:
        raise ValueError(f"For 'mindspore.numpy.{name}', the input must be a scalar or a 1-D sequence of "
                         f"coefficients, but got shape {t.shape}.")
    return ops.reshape(t, (-1,))


def _aligned(name, a1, a2):
    x, y = _poly(name, a1), _poly(name, a2)
    common = mstype.promote_types(x.dtype, y.dtype)
    x, y = ops.cast(x, common), ops.cast(y, common)
    n = max(x.shape[0], y.shape[0])
    # leading zeros pad the lower-degree polynomial (coefficients are highest power first)
    return ops.pad(x, (n - x.shape[0], 0)), ops.pad(y, (n - y.shape[0], 0))


def polyadd(a1, a2):
    """Sum of two polynomials."""
    x, y = _aligned("polyadd", a1, a2)
    return x + y


def polysub(a1, a2):
    """Difference a1 − a2 of two polynomials."""
    x, y = _aligned("polysub", a1, a2)
    return x - y


def polymul(a1, a2):
    """Product of two polynomials."""
    return convolve(_poly("polymul", a1), _poly("polymul", a2))


def _order(name, m):
    if not isinstance(m, int) or m < 0:
        raise ValueError(f"For 'mindspore.numpy.{name}', the order m must be a non-negative int, but got {m!r}.")


def polyder(p, m=1):
    """The m-th derivative (empty once m exceeds the degree)."""
    _order("polyder", m)
    c = _poly("polyder", p)
    for _ in range(m):
        n = c.shape[0]
        if n <= 1:
            return c[:0]
        powers = Tensor(onp.arange(n - 1, 0, -1)).astype(c.dtype)
        c = c[:n - 1] * powers
    return c


def polyint(p, m=1, k=None):
    """The m-th antiderivative; k holds the integration constants (one per step, or one used for all)."""
    _order("polyint", m)
    c = _poly("polyint", p)
    if m == 0:
        return c
    c = c if c.dtype.kind == "float" else ops.cast(c, mstype.float32)
    consts = onp.zeros(m) if k is None else onp.broadcast_to(onp.asarray(k, onp.float64).reshape(-1), (m,))
    for step in range(m):
        n = c.shape[0]
        c = ops.concat([c / Tensor(onp.arange(n, 0, -1)).astype(c.dtype),
                        Tensor(onp.array([consts[step]])).astype(c.dtype)], 0)
    return c


def polyval(p, x):
    """The polynomial p evaluated at x (Horner's scheme), as float32 (float64 stays float64)."""
    c = _poly("polyval", p)
    xt = _as(x)
    ftype = mstype.float64 if mstype.float64 in (c.dtype, xt.dtype) else mstype.float32
    c, xt = ops.cast(c, ftype), ops.cast(xt, ftype)
    out = ops.zeros_like(xt)
    for i in range(c.shape[0]):
        out = out * xt + c[i]
    return out
