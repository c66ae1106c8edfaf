"""Saved-tensor hooks (`mindspore.saved_tensors_hooks`, `register_saved_tensors_hooks`) and the function form
of recompute (`mindspore.recompute`).

While a grad transform records, each op keeps the Tensors its backward rule will read. Inside
`saved_tensors_hooks(pack_hook, unpack_hook)` they are kept as `pack_hook(tensor)` instead, and the backward
rule reads `unpack_hook(packed)` — e.g. to move activations to host memory or to compress them. Hooks nest: the
innermost pair applies. They act on PyNative recording (openspore's compiled graphs differentiate IR, which has
no saved tensors to pack).

>>> import numpy as np, openspore as ms
>>> seen = []
>>> def pack(t):
...     seen.append("pack")
...     return t.asnumpy()
>>> def unpack(a):
...     seen.append("unpack")
...     return ms.Tensor(a)
>>> def f(x, y):
...     with ms.saved_tensors_hooks(pack, unpack):
...         return (x * y).sum()
>>> g = ms.grad(f, grad_position=(0, 1))(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.full(2, 3.0, np.float32)))
>>> g[0].asnumpy().tolist(), seen.count("pack") >= 2, "unpack" in seen
([3.0, 3.0], True, True)
"""
import functools

from . import autograd

__all__ = ["saved_tensors_hooks", "register_saved_tensors_hooks", "recompute"]


class saved_tensors_hooks:  # noqa: N801  (MindSpore's name)
    """`with saved_tensors_hooks(pack_hook, unpack_hook):` pack the tensors saved for the backward pass with
    `pack_hook(tensor) -> object` and restore them with `unpack_hook(object) -> Tensor`."""

    def __init__(self, pack_hook, unpack_hook):
        for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"For 'saved_tensors_hooks', the '{name}' must be callable, but got "
                                f"{type(hook).__name__}.")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        autograd.SAVED_TENSORS_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        autograd.SAVED_TENSORS_HOOKS.pop()
        return False


def register_saved_tensors_hooks(pack_hook, unpack_hook):
    """Decorator: run the function (or a Cell's construct) inside `saved_tensors_hooks(pack_hook, unpack_hook)`."""
    hooks = saved_tensors_hooks(pack_hook, unpack_hook)

    def decorate(fn):
        if not callable(fn):
            raise TypeError(f"register_saved_tensors_hooks decorates a function, but got {type(fn).__name__}.")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with saved_tensors_hooks(hooks.pack_hook, hooks.unpack_hook):
                return fn(*args, **kwargs)
        return wrapper
    return decorate


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
              **kwargs):
    """`recompute(block, *args, ...)`: block(*args), keeping none of its intermediate values for the backward,
    which runs the block again from its inputs (as `Cell.recompute()` does for every call of a cell). The
    block's trainable parameters get their gradients through the rerun; keyword arguments go to the block.

    >>> import numpy as np, openspore as ms
    >>> from openspore import nn
    >>> net = nn.Dense(3, 2)
    >>> x = ms.Tensor(np.ones((4, 3), np.float32))
    >>> g = ms.grad(lambda v: ms.recompute(net, v).sum(), weights=net.trainable_params())(x)
    >>> g[1][0].shape
    (2, 3)
    """
    if not callable(block):
        raise TypeError(f"For 'recompute', the 'block' must be a Cell or a function, but got {type(block).__name__}.")
    if context_fn is not None and not callable(context_fn):
        raise TypeError("For 'recompute', the 'context_fn' must be callable or None.")
    params = tuple(block.trainable_params()) if hasattr(block, "trainable_params") else ()

    def run(*a):
        return block(*a, **kwargs)
    if not autograd.ACTIVE:  # nothing records: no activations to drop
        return run(*args)
    return autograd.recompute_call(run, args, params)
