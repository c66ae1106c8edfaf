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


def _as_inputs(op, primals, order=None):
    """primals as a tuple of Tensors (a Tensor, or a tuple of them for a function of several inputs)."""
    inputs = primals if isinstance(primals, tuple) else (primals,)
    if not inputs or not all(isinstance(p, Tensor) for p in inputs):
        raise TypeError(f"For '{op}', 'primals' must be a Tensor or a tuple of Tensors, but got "
                        f"{type(primals).__name__}.")
    if order is not None and (not isinstance(order, int) or isinstance(order, bool) or order < 1):
        raise ValueError(f"For '{op}', 'order' must be a positive int, but got {order!r}.")
    return inputs


def derivative(fn, primals, order):
    """(fn(primals), the order-th derivative of fn along the all-ones direction at primals); `primals` is a Tensor
    or a tuple of Tensors (one per input of fn, all moved along the same path)."""
    inputs = _as_inputs("derivative", primals, order)
    t0 = Tensor(np.zeros((), inputs[0].dtype.np_dtype))
    h = lambda t: fn(*[p + t for p in inputs])  # noqa: E731
    return fn(*inputs), _nth_derivative(h, order)(t0)


def _series_terms(inputs, series):
    """Per input, its list of series terms series[k] (shape of the input); every input has the same order."""
    given = series if isinstance(series, tuple) else (series,)
    if len(given) != len(inputs):
        raise ValueError(f"For 'jet', 'series' must hold one Tensor per primal ({len(inputs)}), but got {len(given)}.")
    terms, order = [], None
    for p, s in zip(inputs, given):
        if not isinstance(s, Tensor) or tuple(s.shape[1:]) != tuple(p.shape) or s.shape[0] < 1:
            raise ValueError(f"For 'jet', 'series' must be a Tensor of shape (order, "
                             f"{', '.join(map(str, p.shape))}), but got {getattr(s, 'shape', s)!r}.")
        if order is not None and s.shape[0] != order:
            raise ValueError(f"For 'jet', every series must have the same order, but got {order} and {s.shape[0]}.")
        order = s.shape[0]
        terms.append([F.squeeze(F.narrow(s, 0, k, 1), 0) for k in range(order)])
    return terms, order


def jet(fn, primals, series):
    """(fn(primals), out_series): out_series[k] is the (k+1)-th derivative of fn along the input path whose
    derivatives are series[0], series[1], … (a tuple of primals takes a tuple of series, one per primal)."""
    inputs = _as_inputs("jet", primals)
    terms, order = _series_terms(inputs, series)

    def h(t):
        moved = []
        for p, input_terms in zip(inputs, terms):
            x, power = p, t
            for k, s in enumerate(input_terms):  # t^(k+1) as a product: Pow's gradient is 0/0 at t = 0
                x = x + s * power / float(_math.factorial(k + 1))
                power = power * t
            moved.append(x)
        return fn(*moved)
    t0 = Tensor(np.zeros((), inputs[0].dtype.np_dtype))
    out_series = F.stack([_nth_derivative(h, k + 1)(t0) for k in range(order)], 0)
    return fn(*inputs), out_series
