"""`mindspore.ops.primitive`: the Primitive base class and the decorators used around primitives.

>>> from openspore.ops.primitive import constexpr
>>> @constexpr
... def twice(n):
...     return 2 * n
>>> twice(3)
6
"""
import functools
import inspect
import types

from ..core.dispatch import current_tracer
from ..core.primitive import Primitive  # noqa: F401
from .custom_primitive import PrimitiveWithCheck, PrimitiveWithInfer  # noqa: F401

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "constexpr", "prim_attr_register"]


_FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType)


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Mark a function evaluated on Python constants at compile time. openspore's graph capture runs Python
    while tracing, so the function simply runs on its (constant) arguments in both modes; while a graph is
    traced, a function passed as an argument arrives as None, as in MindSpore's graph (a function has no
    constant value there)."""
    def deco(f):
        @functools.wraps(f)
        def run(*args, **kwargs):
            if current_tracer() is not None:
                args = tuple(None if isinstance(a, _FUNCTION_TYPES) else a for a in args)
                kwargs = {k: None if isinstance(v, _FUNCTION_TYPES) else v for k, v in kwargs.items()}
            return f(*args, **kwargs)
        run._constexpr = True
        return run
    return deco(fn) if fn is not None else deco


def prim_attr_register(fn):
    """Decorator for a Primitive subclass's `__init__`: records the constructor arguments as attributes
    (`self.<name>`, and in `self.attrs` when the primitive keeps such a dict)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def init(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for key, value in list(bound.arguments.items())[1:]:
            setattr(self, key, value)
            attrs = getattr(self, "attrs", None)
            if isinstance(attrs, dict):
                attrs[key] = value
        return fn(self, *args, **kwargs)
    return init
