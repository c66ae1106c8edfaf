"""`mindspore.utils.MsDispatchMode`: a context manager (or decorator) whose `__ms_dispatch__(func, args,
kwargs=None)` receives every eager op call made inside it, instead of the op running directly.

`func.name` is the primitive's name and `func(*args)` runs the op; a handler may log, change the arguments or the
result, or not run the op at all. Modes nest, the innermost handling each call; ops a handler runs itself are not
intercepted. Calls recorded into a graph under `jit` are not seen: nothing runs while a graph is traced.

>>> import openspore as ms
>>> from openspore.utils import MsDispatchMode
>>> class Names(MsDispatchMode):
...     def __init__(self):
...         self.seen = []
...     def __ms_dispatch__(self, func, args, kwargs=None):
...         self.seen.append(func.name)
...         return func(*args)
>>> with Names() as mode:
...     y = ms.Tensor([1.0, -2.0]) * 3
>>> mode.seen, y.asnumpy().tolist()
(['Mul'], [3.0, -6.0])
"""
import contextlib

from ..core import dispatch

__all__ = ["MsDispatchMode"]


class MsDispatchMode(contextlib.ContextDecorator):
    """Subclass it and override `__ms_dispatch__(self, func, args, kwargs=None)`; the default runs the op."""

    def __enter__(self):
        dispatch.push_dispatch_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        dispatch.pop_dispatch_mode(self)
        return False

    def __ms_dispatch__(self, func, args, kwargs=None):
        return func(*args, **(kwargs or {}))
