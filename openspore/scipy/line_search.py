"""`mindspore.scipy.optimize.line_search`: an inexact line search for a step satisfying the strong Wolfe
conditions (Nocedal & Wright, Numerical Optimization, algorithms 3.5 and 3.6), gradients from openspore's
autodiff (or a given `jac`).

The search itself is scalar bookkeeping on the host; each trial step evaluates f and its gradient as Tensors.
Counters follow MindSpore's result: nfev / ngev include the evaluation at the start point (unless old_fval and
gfk are given), k is the outer-loop counter after the last step (nit = k − 1), and status is 0 (converged),
1 (failed: no step found, e.g. pk is not a descent direction) or 3 (the outer loop used up maxiter).

>>> import numpy as np, openspore as ms
>>> from openspore.scipy.optimize import line_search
>>> res = line_search(lambda x: ((x - 1.0) ** 4).sum(), ms.Tensor(np.array([3.0, 3.0], np.float32)),
...                   ms.Tensor(np.array([-1.0, -1.0], np.float32)))
>>> res.a_k, res.f_k, bool(res.failed), res.nfev
(1.0, 2.0, False, 2)
"""
import math
from collections import namedtuple

import numpy as np

from ..core.grad_api import value_and_grad
from ..core.tensor import Tensor

__all__ = ["line_search"]

LineSearchResults = namedtuple("LineSearchResults", ["failed", "nit", "nfev", "ngev", "k", "a_k", "f_k", "g_k",
                                                     "status"])

_ZOOM_MAXITER = 10


def _within(a, lo, hi, margin):
    left, width = min(lo, hi), abs(hi - lo)
    return math.isfinite(a) and left + margin * width <= a <= left + (1.0 - margin) * width


def _cubic(lo, hi):
    """Minimiser of the cubic through both ends' values and slopes (N&W eq. 3.59), or NaN."""
    (a0, f0, d0), (a1, f1, d1) = lo, hi
    e1 = d0 + d1 - 3.0 * (f0 - f1) / (a0 - a1)
    disc = e1 * e1 - d0 * d1
    if disc < 0:
        return math.nan
    e2 = math.copysign(math.sqrt(disc), a1 - a0)
    denom = d1 - d0 + 2.0 * e2
    return a1 - (a1 - a0) * (d1 + e2 - e1) / denom if denom != 0 else math.nan


def _quadratic(lo, hi):
    """Minimiser of the parabola through lo's value and slope and hi's value, or NaN."""
    (a0, f0, d0), (a1, f1, _) = lo, hi
    span = a1 - a0
    curv = (f1 - f0 - d0 * span) / (span * span)
    return a0 - d0 / (2.0 * curv) if curv > 0 else math.nan


def _interpolate(lo, hi, first):
    """A trial step inside [lo, hi]: the cubic fit (not on the first zoom step, where the quadratic through
    phi(lo), phi'(lo) and phi(hi) is the better-founded guess), else the quadratic, else the midpoint; each
    kept only well inside the interval."""
    with np.errstate(all="ignore"):
        if not first:
            a = _cubic(lo, hi)
            if _within(a, lo[0], hi[0], 0.2):
                return a
        a = _quadratic(lo, hi)
        if _within(a, lo[0], hi[0], 0.1):
            return a
    return 0.5 * (lo[0] + hi[0])


class _Phi:
    """phi(a) = f(xk + a pk) and its slope, counting evaluations."""

    def __init__(self, f, jac, xk, pk, dtype):
        self.xk, self.pk, self.count, self.dtype = xk, pk, 0, dtype
        if jac is None:
            self.value_grad = value_and_grad(f)
        else:
            self.value_grad = lambda x: (f(x), jac(x))

    def __call__(self, a):
        self.count += 1
        x = Tensor((self.xk + a * self.pk).astype(self.dtype))
        value, grad = self.value_grad(x)
        g = grad.asnumpy().astype(np.float64).reshape(-1)
        pk = self.pk.reshape(-1)
        return float(np.asarray(value.asnumpy() if isinstance(value, Tensor) else value)), g, float(g @ pk)


def _zoom(phi, lo, hi, phi0, dphi0, c1, c2):
    """Algorithm 3.6: shrink [lo, hi] (each (a, phi, dphi)) to a strong-Wolfe step; (found, a, f, g)."""
    a = f = g = None
    for j in range(_ZOOM_MAXITER):
        a = _interpolate(lo, hi, first=j == 0)
        f, g, d = phi(a)
        if f > phi0 + c1 * a * dphi0 or f >= lo[1]:
            hi = (a, f, d)
            continue
        if abs(d) <= -c2 * dphi0:
            return True, a, f, g
        if d * (hi[0] - lo[0]) >= 0:
            hi = lo
        lo = (a, f, d)
    return False, a, f, g


def line_search(f, xk, pk, jac=None, gfk=None, old_fval=None, old_old_fval=None, c1=1e-4, c2=0.9, maxiter=20):
    """A step a_k along pk from xk with f(xk + a_k pk) ≤ f(xk) + c1 a_k ∇f·pk and |∇f(xk + a_k pk)·pk| ≤
    c2 |∇f(xk)·pk|. Returns LineSearchResults(failed, nit, nfev, ngev, k, a_k, f_k, g_k, status)."""
    for name, value in (("xk", xk), ("pk", pk)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For 'line_search', '{name}' must be a Tensor, but got {type(value).__name__}.")
    if tuple(xk.shape) != tuple(pk.shape):
        raise ValueError(f"For 'line_search', 'xk' and 'pk' must have the same shape, but got {tuple(xk.shape)} "
                         f"and {tuple(pk.shape)}.")
    x0 = xk.asnumpy().astype(np.float64)
    p = pk.asnumpy().astype(np.float64)
    phi = _Phi(f, jac, x0, p, xk.dtype.np_dtype)
    if old_fval is not None and gfk is not None:
        phi0 = float(np.asarray(old_fval.asnumpy() if isinstance(old_fval, Tensor) else old_fval))
        g0 = np.asarray(gfk.asnumpy() if isinstance(gfk, Tensor) else gfk, np.float64).reshape(-1)
    else:
        phi0, g0, _ = phi(0.0)
    dphi0 = float(g0 @ p.reshape(-1))

    prev = (0.0, phi0, dphi0)
    done = found = False
    best = (0.0, phi0, g0)
    i = 1
    while i <= maxiter and not done:
        a = 1.0 if i == 1 else 2.0 * prev[0]
        fa, ga, da = phi(a)
        if fa > phi0 + c1 * a * dphi0 or (fa >= prev[1] and i > 1):
            found, za, zf, zg = _zoom(phi, prev, (a, fa, da), phi0, dphi0, c1, c2)
            done, best = True, (za, zf, zg)
        elif abs(da) <= -c2 * dphi0:
            done = found = True
            best = (a, fa, ga)
        elif da >= 0:
            found, za, zf, zg = _zoom(phi, (a, fa, da), prev, phi0, dphi0, c1, c2)
            done, best = True, (za, zf, zg)
        prev = (a, fa, da)
        i += 1
    failed = not (done and found)
    status = 1 if failed else (3 if i > maxiter else 0)
    a_k, f_k, g_k = best
    g_out = Tensor(np.asarray(g_k).reshape(xk.shape).astype(xk.dtype.np_dtype))
    return LineSearchResults(failed=failed, nit=i - 1, nfev=phi.count, ngev=phi.count, k=i, a_k=float(a_k),
                             f_k=float(f_k), g_k=g_out, status=status)
