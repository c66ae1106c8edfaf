"""Remembering how pipeline objects were built: every subclass of a recording base keeps the arguments of the
outermost constructor call in `_init_args`, which `serialize` writes out and `deserialize` calls again.

>>> class Base(Recorded):
...     pass
>>> class Thing(Base):
...     def __init__(self, size, scale=2.0):
...         self.size = size
>>> Thing(3)._init_args
{'size': 3, 'scale': 2.0}
"""
import functools
import inspect


def _wrap(init):
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        if "_init_args" not in self.__dict__:  # the outermost constructor records; super().__init__ calls do not
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError:
                bound = None  # the real call below raises the error with the constructor's own message
            if bound is not None:
                bound.apply_defaults()
                params = {}
                for name, value in list(bound.arguments.items())[1:]:
                    kind = signature.parameters[name].kind
                    if kind is inspect.Parameter.VAR_KEYWORD:
                        params.update(value)
                    elif kind is inspect.Parameter.VAR_POSITIONAL:
                        params[name] = list(value)
                    else:
                        params[name] = value
                self.__dict__["_init_args"] = params
        init(self, *args, **kwargs)

    __init__._records_init = True
    return __init__


class Recorded:
    """Mixin: subclasses that define `__init__` get it wrapped so that their construction is recorded."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_records_init", False):
            cls.__init__ = _wrap(init)
