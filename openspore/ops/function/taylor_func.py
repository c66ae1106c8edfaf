"""Higher-order forward derivatives: `ops.derivative(fn, primals, order)` and `ops.jet(fn, primals, series)`.

Both differentiate along a path through the inputs, h(t) = fn(x(t)), with nested `jvp`s in the scalar t (so they
cost more than true Taylor-mode arithmetic, and give the same numbers). `derivative` uses x(t) = primals + t
(elementwise functions: the order-th derivative at each point); `jet` uses
x(t) = primals + Σ_k series[k] · t^(k+1) / (k+1)!, so series[k] is the (k+1)-th derivative of the input path, and
returns the derivatives of h up to len(series), as MindSpore documents.

>>> import openspore as ms
>>> out, d3 = ms.ops.derivative(ms.ops.sin, ms.Tensor([0.0]), 3)
>>> d3.asnumpy().tolist()
[-1.0]
"""
import math as _math

import numpy as np

from ...core.grad_api import jvp
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["derivative", "jet"]


def _nth_derivative(h, n):
    """The function t ↦ dⁿh/dtⁿ (t), by n nested jvps with unit tangent."""
    fn = h
    for _ in range(n):
        fn = (lambda g: lambda t: jvp(g, (t,), (F.ones_like(t),))[1])(fn)
    return fn


def _check(op, primals, order=None):
    if not isinstance(primals, Tensor):
        raise TypeError(f"For '{op}', 'primals' must be a Tensor, but got {type(primals).__name__}.")
    if order is not None and (not isinstance(order, int) or isinstance(order, bool) or order < 1):
        raise ValueError(f"For '{op}', 'order' must be a positive int, but got {order!r}.")


def derivative(fn, primals, order):
    """(fn(primals), the order-th derivative of fn along the all-ones direction at primals)."""
    _check("derivative", primals, order)
    t0 = Tensor(np.zeros((), primals.dtype.np_dtype))
    h = lambda t: fn(primals + t)  # noqa: E731
    return fn(primals), _nth_derivative(h, order)(t0)


def jet(fn, primals, series):
    """(fn(primals), out_series): out_series[k] is the (k+1)-th derivative of fn along the input path whose
    derivatives are series[0], series[1], …"""
    _check("jet", primals)
    if not isinstance(series, Tensor) or tuple(series.shape[1:]) != tuple(primals.shape) or series.shape[0] < 1:
        raise ValueError(f"For 'jet', 'series' must be a Tensor of shape (order, {', '.join(map(str, primals.shape))}),"
                         f" but got {getattr(series, 'shape', series)!r}.")
    order = series.shape[0]
    terms = [F.squeeze(F.narrow(series, 0, k, 1), 0) for k in range(order)]

    def h(t):
        x, power = primals, t
        for k, s in enumerate(terms):  # t^(k+1) as a product: Pow's gradient is 0/0 at t = 0
            x = x + s * power / float(_math.factorial(k + 1))
            power = power * t
        return fn(x)
    t0 = Tensor(np.zeros((), primals.dtype.np_dtype))
    out_series = F.stack([_nth_derivative(h, k + 1)(t0) for k in range(order)], 0)
    return fn(primals), out_series
