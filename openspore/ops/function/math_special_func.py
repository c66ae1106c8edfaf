"""Special functions (`ops.lgamma`, `ops.digamma`, `ops.polygamma`, `ops.zeta`, `ops.erfinv`, `ops.mvlgamma` and
the Bessel family), each a call of its primitive (ops/defs/math_special.py) or a composite of them.

>>> import openspore as ms
>>> round(float(ms.ops.lgamma(ms.Tensor([5.0])).asnumpy()[0]), 4)  # log(4!)
3.1781
>>> round(float(ms.ops.erfinv(ms.ops.erf(ms.Tensor([0.3]))).asnumpy()[0]), 5)
0.3
"""
import math as _math

import numpy as np

from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "erfinv", "mvlgamma", "i0", "bessel_i0", "bessel_i0e",
           "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
           "bessel_y0", "bessel_y1", "igamma", "igammac"]


def _tensor(op, name, value, like=None):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        dtype = like.dtype.np_dtype if like is not None and like.dtype.kind == "float" else np.float32
        return Tensor(np.asarray(value, dtype))
    raise TypeError(f"For '{op}', '{name}' must be a Tensor or a number, but got {type(value).__name__}.")


def _unary(name, op):
    def fn(input):
        return PRIMITIVES[name]()(_tensor(op, "input", input))
    fn.__name__ = op
    fn.__doc__ = f"{op}(input): elementwise, see `ops.{name}` ({PRIMITIVES[name].__doc__.split(':', 1)[1].strip()})"
    return fn


lgamma = _unary("Lgamma", "lgamma")
digamma = _unary("Digamma", "digamma")
erfinv = _unary("Erfinv", "erfinv")
bessel_i0 = _unary("BesselI0", "bessel_i0")
bessel_i0e = _unary("BesselI0e", "bessel_i0e")
bessel_i1 = _unary("BesselI1", "bessel_i1")
bessel_i1e = _unary("BesselI1e", "bessel_i1e")
bessel_j0 = _unary("BesselJ0", "bessel_j0")
bessel_j1 = _unary("BesselJ1", "bessel_j1")
bessel_k0 = _unary("BesselK0", "bessel_k0")
bessel_k0e = _unary("BesselK0e", "bessel_k0e")
bessel_k1 = _unary("BesselK1", "bessel_k1")
bessel_k1e = _unary("BesselK1e", "bessel_k1e")
bessel_y0 = _unary("BesselY0", "bessel_y0")
bessel_y1 = _unary("BesselY1", "bessel_y1")
i0 = _unary("BesselI0", "i0")


def polygamma(n, input):
    """ψ⁽ⁿ⁾(input), the n-th derivative of digamma (n a non-negative integer or integer Tensor)."""
    x = _tensor("polygamma", "input", input)
    order = n if isinstance(n, Tensor) else Tensor(np.asarray(n, np.int64))
    return PRIMITIVES["Polygamma"]()(order, x)


def zeta(input, other):
    """The Hurwitz zeta function ζ(input, other) = Σₖ (other + k)^−input, elementwise with broadcasting."""
    x = _tensor("zeta", "input", input, other if isinstance(other, Tensor) else None)
    q = _tensor("zeta", "other", other, x)
    return PRIMITIVES["Zeta"]()(F.cast(x, q.dtype) if x.dtype is not q.dtype else x, q)


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: Σ_{i<p} lgamma(input − i/2) + p(p − 1)/4 · log π."""
    if not isinstance(p, int) or isinstance(p, bool) or p < 1:
        raise ValueError(f"For 'mvlgamma', 'p' must be a positive int, but got {p!r}.")
    x = _tensor("mvlgamma", "input", input)
    total = lgamma(x)
    for i in range(1, p):
        total = total + lgamma(x - i / 2.0)
    return total + p * (p - 1) / 4.0 * _math.log(_math.pi)


def _incomplete_gamma(name, op, input, other):
    a = _tensor(op, "input", input, other if isinstance(other, Tensor) else None)
    x = _tensor(op, "other", other, a)
    return PRIMITIVES[name]()(F.cast(a, x.dtype) if a.dtype is not x.dtype else a, x)


def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other), elementwise with broadcasting."""
    return _incomplete_gamma("Igamma", "igamma", input, other)


def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other) = 1 − P(input, other)."""
    return _incomplete_gamma("Igammac", "igammac", input, other)
