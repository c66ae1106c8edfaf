"""`ops.PrimitiveWithInfer` and `ops.PrimitiveWithCheck`: user-defined primitives written in Python.

`PrimitiveWithInfer(name)`: a subclass describes its output by `__infer__(*args)` (dicts with 'shape', 'dtype',
'value') or by `infer_shape(*shapes)`, `infer_dtype(*dtypes)` and `infer_value(*values)` (constant propagation).
`PrimitiveWithCheck(name)`: a subclass only checks its inputs (`__check__`, or `check_shape` / `check_dtype`) and
keeps the registered primitive's inference. Calling one runs the checks/inference, then the kernel of the
registered primitive of the subclass's class name or, failing that, of `name` (with the attributes it accepts).

>>> import numpy as np
>>> import openspore as ms
>>> from openspore.ops import PrimitiveWithInfer, prim_attr_register
>>> class Add(PrimitiveWithInfer):
...     @prim_attr_register
...     def __init__(self):
...         super().__init__("Add")
...     def infer_shape(self, x, y):
...         return x
...     def infer_dtype(self, x, y):
...         return x
>>> Add()(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])).asnumpy()
array([4., 6.], dtype=float32)
"""
from ..core import autograd
from ..core.registry import PRIMITIVES
from ..core.tensor import Tensor

__all__ = ["PrimitiveWithInfer", "PrimitiveWithCheck"]


def _abstract(arg):
    if isinstance(arg, Tensor):
        return {"shape": tuple(arg.shape), "dtype": arg.dtype, "value": None}
    return {"shape": None, "dtype": type(arg), "value": arg}


def _differentiable_call(user_call):
    """A subclass's own `__call__` (its forward written in Python) as one autograd node whose backward is the
    subclass's `get_bprop()` rule, `bprop(*inputs, out, dout)`; without one, a gradient that has to flow back
    through the primitive is an error, as in MindSpore (one that is stopped on every output is not)."""
    def __call__(self, *args):
        get_bprop = getattr(self, "get_bprop", None)
        if get_bprop is not None:
            bprop = get_bprop()
        else:
            def bprop(*_):
                raise RuntimeError(f"Illegal primitive: Primitive {type(self).__name__}'s bprop not defined.")
        if not autograd.ACTIVE:
            return user_call(self, *args)
        seen = {}

        def forward(*xs):
            seen["out"] = user_call(self, *xs)
            return seen["out"]
        result = autograd.custom_bprop_call(forward, bprop, args)
        out = seen["out"]
        if isinstance(out, Tensor) or not autograd._flatten_tensors(out):
            return result if isinstance(out, Tensor) else out
        fresh = iter(result)  # the node's outputs, in order: put back into the output's own structure
        return _restructure(out, fresh)
    __call__.__doc__ = user_call.__doc__
    return __call__


def _restructure(value, fresh):
    if isinstance(value, Tensor):
        return next(fresh)
    if type(value) in (tuple, list):
        return type(value)(_restructure(v, fresh) for v in value)
    return value


class _PythonPrimitive:
    """What both kinds share: a name, attributes, io names and the dispatch to a registered kernel."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__call__" in cls.__dict__:
            cls.__call__ = _differentiable_call(cls.__dict__["__call__"])

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        obj.attrs = {}   # before __init__, so that @prim_attr_register records the constructor arguments in it
        return obj

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise TypeError(f"The name of a primitive must be a non-empty str, but got {name!r}.")
        self.name = name
        self.instance_name = ""

    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        setattr(self, name, value)
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        self.__dict__.pop(name, None)
        return self

    def init_prim_io_names(self, inputs, outputs):
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def set_prim_instance_name(self, instance_name):
        self.instance_name = instance_name
        return self

    def _kernel(self):
        for key in (type(self).__name__, self.name):
            cls = PRIMITIVES.get(key)
            if cls is not None:
                accepted = {k: v for k, v in self.attrs.items() if k in cls.attr_defaults}
                return cls(**accepted)
        raise RuntimeError(f"Unsupported op [{type(self).__name__}] on CPU: openspore has no kernel registered under "
                           f"'{type(self).__name__}' or '{self.name}' for this Python primitive.")

    def __repr__(self):
        return f"Prim[{self.name}]"


class PrimitiveWithInfer(_PythonPrimitive):
    """`PrimitiveWithInfer(name)`: override `__infer__` or `infer_shape` / `infer_dtype` / `infer_value`."""

    def infer_shape(self, *args):
        return None

    def infer_dtype(self, *args):
        return None

    def infer_value(self, *args):
        return None

    def __infer__(self, *args):
        """{'shape', 'dtype', 'value'} of the output from the inputs' abstract dicts."""
        shapes = [a["shape"] for a in args]
        dtypes = [a["dtype"] for a in args]
        values = [a.get("value") for a in args]
        out = {"dtype": self.infer_dtype(*dtypes), "shape": self.infer_shape(*shapes), "value": None}
        if all(v is not None for v in values):
            out["value"] = self.infer_value(*values)
        return out

    def __call__(self, *args):
        inferred = self.__infer__(*[_abstract(a) for a in args])
        if inferred.get("value") is not None:
            return inferred["value"]
        out = self._kernel()(*args)
        shape = inferred.get("shape")
        if shape is not None and isinstance(out, Tensor) and tuple(shape) != tuple(out.shape) \
                and all(isinstance(d, int) and d >= 0 for d in shape):
            raise ValueError(f"For '{self.name}', infer_shape gave {tuple(shape)} but the kernel produced "
                             f"{tuple(out.shape)}.")
        return out


class PrimitiveWithCheck(_PythonPrimitive):
    """`PrimitiveWithCheck(name)`: override `__check__` or `check_shape` / `check_dtype`; inference stays the
    registered primitive's."""

    def check_shape(self, *args):
        return None

    def check_dtype(self, *args):
        return None

    def __check__(self, *args):
        self.check_dtype(*[a["dtype"] for a in args])
        self.check_shape(*[a["shape"] for a in args])

    def __call__(self, *args):
        self.__check__(*[_abstract(a) for a in args])
        return self._kernel()(*args)
