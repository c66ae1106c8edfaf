"""`mindspore._no_grad`: a context manager (and decorator) under which PyNative ops are not recorded for
differentiation, so values computed inside act as constants to any grad transform around them.

>>> import openspore as ms
>>> def f(x):
...     with ms._no_grad():
...         c = x * x          # a constant to the gradient
...     return (c * x).sum()
>>> ms.grad(f)(ms.Tensor([2.0, 3.0])).asnumpy().tolist()
[4.0, 9.0]
"""
import contextlib

from . import autograd

DEPTH = [0]  # how many _no_grad blocks are open; grad transforms refuse to start inside one


class _no_grad(contextlib.ContextDecorator):  # noqa: N801  (MindSpore's name)
    """`with _no_grad():` or `@_no_grad()`: ops run inside are not recorded by the active grad levels."""

    def __enter__(self):
        self._saved = autograd.ACTIVE[:]
        autograd.ACTIVE.clear()
        DEPTH[0] += 1
        return self

    def __exit__(self, *exc):
        DEPTH[0] -= 1
        autograd.ACTIVE[:] = self._saved
        return False


def check_grad_allowed():
    """Raise as MindSpore does when a gradient is asked for inside a `_no_grad` block."""
    if DEPTH[0]:
        raise RuntimeError("In no_grad context, you can not calculate gradient.")
