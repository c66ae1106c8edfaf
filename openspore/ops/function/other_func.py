"""Functional side-effect and plumbing ops: assign, assign_add, assign_sub, stop_gradient, depend."""
from ...core.tensor import Tensor
from ...core.registry import prim
from .. import operations as P

__all__ = ["assign", "assign_add", "assign_sub", "stop_gradient", "depend"]

_assign, _assign_add, _assign_sub = prim(P.Assign), prim(P.AssignAdd), prim(P.AssignSub)
_stop_gradient, _depend = prim(P.StopGradient), prim(P.Depend)


def assign(variable, value):
    """`assign(variable, value)`: write `value` into `variable` in place; returns the updated data.

    >>> import openspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> _ = ms.ops.assign(w, ms.Tensor([5.0, 6.0]))
    >>> w.asnumpy().tolist()
    [5.0, 6.0]
    """
    return _assign(variable, value)


def assign_add(variable, value):
    """`assign_add(variable, value)`: variable += value, in place; returns the updated data."""
    return _assign_add(variable, value)


def assign_sub(variable, value):
    """`assign_sub(variable, value)`: variable -= value, in place; returns the updated data."""
    return _assign_sub(variable, value)


def stop_gradient(value):
    """`stop_gradient(value)`: the same value with no gradient; tensors inside tuples/lists are stopped too.

    >>> import openspore as ms
    >>> g = ms.grad(lambda x: (x * ms.ops.stop_gradient(x)).sum())(ms.Tensor([3.0]))
    >>> g.asnumpy().tolist()
    [3.0]
    """
    if isinstance(value, Tensor):
        return _stop_gradient(value)
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    return value


def depend(value, expr):
    """`depend(value, expr)`: returns `value`, evaluated after `expr` (gradients reach `value` only)."""
    if not isinstance(value, Tensor):
        return value
    return _depend(value, expr)
