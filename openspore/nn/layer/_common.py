"""Argument checks and parameter helpers shared by the layers.

Checks raise in MindSpore's style (`For 'Dense', the 'in_channels' must be ..., but got ...`) at construction,
so `construct` stays free of validation and fast in PyNative.
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.initializer import initializer
from ...core.dispatch import cast
from ...core.parameter import Parameter
from ...core.tensor import Tensor


def is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def positive_int(cls_name, arg_name, value):
    if not is_int(value) or value <= 0:
        raise ValueError(f"For '{cls_name}', the '{arg_name}' must be a positive int, but got {value!r}.")
    return int(value)


def non_negative_int(cls_name, arg_name, value):
    if not is_int(value) or value < 0:
        raise ValueError(f"For '{cls_name}', the '{arg_name}' must be a non-negative int, but got {value!r}.")
    return int(value)


def check_bool(cls_name, arg_name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{cls_name}', the '{arg_name}' must be a bool, but got {type(value).__name__}.")
    return bool(value)


def check_number(cls_name, arg_name, value, low=None, high=None, low_open=False, high_open=False):
    """A real number within [low, high] (ends open when asked)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls_name}', the '{arg_name}' must be a float, but got {type(value).__name__}.")
    ok = True
    if low is not None:
        ok = value > low if low_open else value >= low
    if high is not None and ok:
        ok = value < high if high_open else value <= high
    if not ok:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        raise ValueError(f"For '{cls_name}', the '{arg_name}' must be in range {left}{low}, {high}{right}, "
                         f"but got {value!r}.")
    return float(value)


def int_tuple(cls_name, arg_name, value, n, allow_zero=False):
    """int or sequence of n ints → tuple of n ints (positive, or non-negative with allow_zero)."""
    if is_int(value):
        items = (int(value),) * n
    elif isinstance(value, (tuple, list)) and len(value) == n and all(is_int(v) for v in value):
        items = tuple(int(v) for v in value)
    else:
        raise TypeError(f"For '{cls_name}', the '{arg_name}' must be an int or a tuple of {n} ints, but got {value!r}.")
    low = 0 if allow_zero else 1
    if min(items) < low:
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"For '{cls_name}', the '{arg_name}' must hold {kind} ints, but got {value!r}.")
    return items


def pad_mode_of(cls_name, pad_mode, modes=("same", "valid", "pad")):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in modes:
        raise ValueError(f"For '{cls_name}', the 'pad_mode' must be one of {list(modes)} (case insensitive), "
                         f"but got {pad_mode!r}.")
    return pad_mode.lower()


def check_dtype(cls_name, dtype):
    return mstype.to_dtype(dtype, cls_name)


def make_param(init, shape, dtype, name, requires_grad=True):
    """A Parameter initialized by `init` (an Initializer, an alias string, a number or a Tensor of `shape`)."""
    if isinstance(init, Tensor) and tuple(init.shape) != tuple(shape):
        raise ValueError(f"For the parameter '{name}', the shape of the initial Tensor must be {tuple(shape)}, "
                         f"but got {tuple(init.shape)}.")
    return Parameter(initializer(init, shape, dtype), name=name, requires_grad=requires_grad)


def compute_cast(cell, value):
    """`value` in the cell's mixed-precision compute type (set by `Cell.to_float`), else unchanged."""
    dst = cell._mixed_dtype
    if dst is None or value.dtype is dst or value.dtype.kind != "float":
        return value
    return cast(value, dst)


def same_dtype(value, dtype):
    """`value` cast to `dtype` unless it already has it (no op in the common case)."""
    return value if value.dtype is dtype else cast(value, dtype)


def init_repr(init):
    return init if isinstance(init, str) else repr(init)
