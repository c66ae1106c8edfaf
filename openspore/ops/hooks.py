"""Gradient hooks on intermediate values: `ops.HookBackward(hook_fn)` and `ops.InsertGradientOf(f)`.

Both return their inputs unchanged; in the backward pass the gradient arriving at them goes through the hook:
`HookBackward`'s hook_fn receives the tuple of gradients (one per input) and may return replacements (or None to
keep them); `InsertGradientOf`'s f maps the gradient to the one passed on. Like MindSpore's HookBackward they run
in PyNative mode (on the eager tape).

>>> import openspore as ms
>>> seen = []
>>> hook = ms.ops.HookBackward(lambda grad: seen.append(float(grad[0].asnumpy())))
>>> ms.grad(lambda x, y: hook(x * y) * y, grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))[0].asnumpy().item()
4.0
>>> seen
[2.0]
"""
from ..core import autograd
from ..core.tensor import Tensor


def _identity_with_backward(op, inputs, transform):
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{op}', every input must be a Tensor, but input {i} is {type(x).__name__}.")

    def bprop(*args):
        douts = args[-1] if isinstance(args[-1], tuple) else (args[-1],)
        return transform(tuple(douts))
    out = autograd.custom_bprop_call(lambda *xs: xs, bprop, tuple(inputs))
    return out[0] if len(inputs) == 1 else out


class HookBackward:
    """HookBackward(hook_fn, cell_id="")(*inputs): the inputs unchanged; hook_fn(grads) sees (and may replace)
    their gradients in the backward pass."""

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"For 'HookBackward', 'hook_fn' must be a Python function, but got "
                            f"{type(hook_fn).__name__}.")
        self.hook_fn, self.cell_id, self.name = hook_fn, cell_id, "HookBackward"

    def _apply(self, grads):
        new = self.hook_fn(grads)
        if new is None:
            return grads
        new = new if isinstance(new, (tuple, list)) else (new,)
        if len(new) != len(grads):
            raise ValueError(f"For 'HookBackward', hook_fn returned {len(new)} gradients for {len(grads)} inputs.")
        return tuple(new)

    def __call__(self, *inputs):
        return _identity_with_backward("HookBackward", inputs, self._apply)

    def __repr__(self):
        return "Prim[HookBackward]"


class InsertGradientOf:
    """InsertGradientOf(f)(x): x unchanged; the gradient flowing back through it becomes f(gradient)."""

    def __init__(self, f):
        if not callable(f):
            raise TypeError(f"For 'InsertGradientOf', 'f' must be callable, but got {type(f).__name__}.")
        self.f, self.name = f, "InsertGradientOf"

    def __call__(self, x):
        return _identity_with_backward("InsertGradientOf", (x,), lambda grads: (self.f(grads[0]),))

    def __repr__(self):
        return "Prim[InsertGradientOf]"


__all__ = ["HookBackward", "InsertGradientOf"]
