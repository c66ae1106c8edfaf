"""`mindspore.nn.grad`: the Jvp and Vjp cells (products with the Jacobian of a function or Cell).

>>> import openspore as ms
>>> from openspore import nn
>>> x = ms.Tensor([1.0, 2.0])
>>> out, grad = nn.Vjp(lambda a: a ** 3)(x, ms.Tensor([1.0, 1.0]))
>>> grad.asnumpy().tolist()
[3.0, 12.0]
>>> out, tangent = nn.Jvp(lambda a: a ** 3)(x, ms.Tensor([1.0, 0.0]))
>>> tangent.asnumpy().tolist()
[3.0, 0.0]
"""
from ..core.grad_api import jvp, vjp
from .cell import Cell

__all__ = ["Jvp", "Vjp"]


def _split(args, where):
    if len(args) < 2:
        raise TypeError(f"For '{where}', the inputs must be the function's inputs followed by 'v', but got "
                        f"{len(args)} argument(s).")
    return args[:-1], args[-1]


def _check_structure(where, what, v, count):
    """MindSpore joins `v` with what it stands for (the inputs for Jvp, the output for Vjp): one Tensor for one,
    a tuple or list for several; anything else is a TypeError (its 'Type Join Failed'). MindSpore does not check
    the tuple's length here, and neither do we."""
    many = isinstance(v, (tuple, list))
    if count is None:  # a single Tensor
        if many:
            raise TypeError(f"For '{where}', 'v' must be a Tensor like {what}, but got a {type(v).__name__} of "
                            f"length {len(v)}.")
    elif not many:
        raise TypeError(f"For '{where}', 'v' must be a tuple of {count} Tensors like {what}, but got "
                        f"{type(v).__name__}.")


class Jvp(Cell):
    """`Jvp(fn)(*inputs, v)` → `(fn(*inputs), J·v)`; `v` holds one tangent per input (a tuple when several)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = _split(args, "Jvp")
        _check_structure("Jvp", "the inputs", v, None if len(inputs) == 1 else len(inputs))
        return jvp(self.fn, tuple(inputs), v if isinstance(v, (tuple, list)) else (v,))


class Vjp(Cell):
    """`Vjp(fn)(*inputs, v)` → `(fn(*inputs), vᵀ·J)`; the gradient is a Tensor for one input, else a tuple."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = _split(args, "Vjp")
        out, pullback = vjp(self.fn, *inputs)
        _check_structure("Vjp", "the output", v, len(out) if isinstance(out, (tuple, list)) else None)
        grads = pullback(*v) if isinstance(v, (tuple, list)) else pullback(v)
        return out, grads[0] if len(grads) == 1 else grads
