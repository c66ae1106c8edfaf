"""`Tensor.register_hook(hook_fn)`: a hook on the gradient of one tensor (PyNative, as in MindSpore).

In a backward pass the gradient that reaches the tensor (summed over all its uses) goes through `hook_fn(grad)`
before it flows on to what produced the tensor; a hook that returns a Tensor replaces the gradient, one that
returns None keeps it. Hooks run in the order they were registered; the handle's `remove()` takes a hook off.
A hook on a differentiation input sees that input's final gradient, which is what grad returns for it.

>>> import openspore as ms
>>> x = ms.Tensor(1.0)
>>> handle = x.register_hook(lambda grad: grad * 2)
>>> float(ms.grad(lambda v: v * 3)(x))
6.0
>>> handle.remove()
>>> float(ms.grad(lambda v: v * 3)(x))
3.0
"""
import itertools

_handle_ids = itertools.count()
EVER_REGISTERED = [False]  # the backward walk looks for hooks only once some tensor has had one


class _TensorHookHandle:
    """What register_hook returns: `remove()` takes the hook off the tensor again."""

    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def remove(self):
        self._hooks.pop(self._key, None)


def register_hook(tensor, hook_fn):
    """Add `hook_fn(grad) -> Tensor or None` to `tensor`'s gradient hooks; returns a handle with remove()."""
    if not callable(hook_fn):
        raise TypeError(f"For 'Tensor.register_hook(hook)', the type of 'hook' should be a function, but got "
                        f"{type(hook_fn).__name__}.")
    EVER_REGISTERED[0] = True
    hooks = tensor.__dict__.setdefault("_grad_hooks", {})
    key = next(_handle_ids)
    hooks[key] = hook_fn
    return _TensorHookHandle(hooks, key)


def apply_grad_hooks(tensor, grad):
    """`grad` after the tensor's hooks (unchanged when it has none)."""
    hooks = getattr(tensor, "_grad_hooks", None)
    if not hooks or grad is None:
        return grad
    for hook in list(hooks.values()):
        new = hook(grad)
        if new is not None:
            grad = new
    return grad
