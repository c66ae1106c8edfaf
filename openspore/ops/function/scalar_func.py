"""MindSpore's functional helpers on Python values (`ops.scalar_add`, `ops.tuple_getitem`, `ops.make_range`, ...)
and the `tensor_*` operator aliases. In Graph mode MindSpore lowers these to graph nodes; openspore's graph
capture runs Python on constant values while tracing, so they are plain functions in both modes.

>>> import openspore as ms
>>> ms.ops.scalar_add(2, 3), ms.ops.tuple_setitem((1, 2, 3), 1, 9), ms.ops.shape_mul((2, 3, 4))
(5, (1, 9, 3), 24)
"""
import math
import operator

import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F

_SCALAR = {"scalar_add": operator.add, "scalar_sub": operator.sub, "scalar_mul": operator.mul,
           "scalar_div": operator.truediv, "scalar_floordiv": operator.floordiv, "scalar_mod": operator.mod,
           "scalar_pow": operator.pow, "scalar_eq": operator.eq, "scalar_ne": operator.ne, "scalar_lt": operator.lt,
           "scalar_le": operator.le, "scalar_gt": operator.gt, "scalar_ge": operator.ge, "scalar_max": max,
           "scalar_min": min, "bool_and": lambda a, b: bool(a and b), "bool_or": lambda a, b: bool(a or b),
           "bool_eq": operator.eq, "string_concat": operator.add, "string_eq": operator.eq, "is_": operator.is_,
           "is_not": operator.is_not, "tuple_equal": operator.eq, "list_equal": operator.eq,
           "in_dict": lambda key, d: key in d, "not_in_dict": lambda key, d: key not in d}
_TENSOR = {"tensor_add": "add", "tensor_sub": "sub", "tensor_mul": "mul", "tensor_div": "div", "tensor_pow": "pow",
           "tensor_gt": "gt", "tensor_ge": "ge", "tensor_lt": "lt", "tensor_le": "le", "tensor_mod": "floor_mod",
           "tensor_floordiv": "floor_div", "tensor_exp": "exp", "tensor_expm1": "expm1"}

__all__ = sorted(list(_SCALAR) + list(_TENSOR) + [
    "scalar_log", "scalar_uadd", "scalar_usub", "scalar_cast", "scalar_to_tensor", "bool_not", "array_to_scalar",
    "make_tuple", "make_list", "make_dict", "make_range", "make_slice", "tuple_getitem", "tuple_setitem",
    "tuple_len", "tuple_reversed", "tuple_div", "tuple_to_array", "list_getitem", "list_setitem", "list_len",
    "dict_getitem", "dict_setitem", "shape_mul"])


def _named(name, fn, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


globals().update({name: _named(name, (lambda f: lambda x, y: f(x, y))(f), f"{name}(x, y) on Python values.")
                  for name, f in _SCALAR.items()})
globals().update({alias: getattr(F, name) for alias, name in _TENSOR.items()})


def scalar_log(x):
    """Natural logarithm of a number."""
    return math.log(x)


def scalar_uadd(x):
    """+x."""
    return +x


def scalar_usub(x):
    """−x."""
    return -x


def scalar_cast(input_x, input_y):
    """A number converted to the Python type of dtype input_y (int, float or bool)."""
    dtype = mstype.to_dtype(input_y, "scalar_cast")
    return bool(input_x) if dtype == mstype.bool_ else float(input_x) if dtype.kind == "float" else int(input_x)


def scalar_to_tensor(input_x, dtype=mstype.float32):
    """A 0-D Tensor holding the number."""
    return Tensor(np.asarray(input_x, mstype.to_dtype(dtype, "scalar_to_tensor").np_dtype))


def bool_not(x):
    """not x."""
    return not x


def array_to_scalar(x):
    """The Python number in a one-element Tensor."""
    return x.asnumpy().item() if isinstance(x, Tensor) else x


def make_tuple(*elements):
    """A tuple of the arguments."""
    return tuple(elements)


def make_list(*elements):
    """A list of the arguments."""
    return list(elements)


def make_dict(keys, values):
    """A dict from parallel key and value sequences."""
    return dict(zip(keys, values))


def make_range(start, stop=None, step=1):
    """tuple(range(...))."""
    return tuple(range(start) if stop is None else range(start, stop, step))


def make_slice(start, stop, step):
    """slice(start, stop, step)."""
    return slice(start, stop, step)


def tuple_getitem(data, index):
    """data[index]."""
    return data[index]


def tuple_setitem(data, index, value):
    """A new tuple with data[index] replaced by value."""
    items = list(data)
    items[index] = value
    return tuple(items)


def tuple_len(data):
    """len(data)."""
    return len(data)


def tuple_reversed(data):
    """The tuple reversed."""
    return tuple(reversed(data))


def tuple_div(x, y):
    """Elementwise integer division of two tuples (each division must be exact)."""
    if len(x) != len(y):
        raise ValueError(f"For 'tuple_div', the tuples must have the same length, but got {len(x)} and {len(y)}.")
    if any(b == 0 or a % b for a, b in zip(x, y)):
        raise ValueError(f"For 'tuple_div', {x} is not exactly divisible by {y}.")
    return tuple(a // b for a, b in zip(x, y))


def tuple_to_array(x):
    """A 1-D Tensor from a tuple of numbers."""
    return Tensor(np.asarray(x, np.float32 if any(isinstance(v, float) for v in x) else np.int64))


def list_getitem(data, index):
    """data[index]."""
    return data[index]


def list_setitem(data, index, value):
    """A new list with data[index] replaced by value."""
    items = list(data)
    items[index] = value
    return items


def list_len(data):
    """len(data)."""
    return len(data)


def dict_getitem(dic, key):
    """dic[key]."""
    return dic[key]


def dict_setitem(dic, key, value):
    """A new dict with dic[key] = value."""
    return {**dic, key: value}


def shape_mul(shape):
    """The product of a shape's entries."""
    return int(np.prod(shape)) if len(shape) else 1
