"""Argument checks shared by the `experimental.optim` optimizers, raising MindSpore 2.x's messages (which name the
optimizer, the argument, the bound and the value given)."""
from numbers import Real

from ...core.tensor import Tensor

__all__ = ["check_lr", "check_positive", "check_non_negative", "check_in_range", "check_pair", "check_float_type"]


def _number(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"For '{cls}', the '{name}' must be a float or an int, but got {type(value).__name__}.")
    return float(value)


def check_lr(cls, lr):
    """A number > 0 (a scalar Tensor is checked by the Optimizer base)."""
    if isinstance(lr, Tensor):
        return lr
    if _number(cls, "lr", lr) <= 0.0:
        raise ValueError(f"For {cls}, the lr must be greater than 0.0, but got {lr}.")
    return lr


def check_positive(cls, name, value):
    if _number(cls, name, value) <= 0.0:
        raise ValueError(f"For {cls}, the {name} must be greater than 0.0, but got {value}.")
    return value


def check_non_negative(cls, name, value):
    if _number(cls, name, value) < 0.0:
        raise ValueError(f"For {cls}, the {name} must be greater than or equal to 0.0, but got {value}.")
    return value


def check_in_range(cls, name, value, low, high, brackets="[)"):
    """low <= value < high, the interval's ends open or closed as `brackets` writes them ('[)', '[]', '()')."""
    v = _number(cls, name, value)
    above = v >= low if brackets[0] == "[" else v > low
    below = v <= high if brackets[1] == "]" else v < high
    if not (above and below):
        raise ValueError(f"For '{cls}', the '{name}' must be in range of {brackets[0]}{low}, {high}{brackets[1]}, "
                         f"but got {value} with type '{type(value).__name__}'.")
    return value


def check_pair(cls, name, value):
    """A tuple or list of two numbers (betas, etas, step_sizes), returned as a tuple."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"For '{cls}', the '{name}' must be a tuple or list of 2 numbers, but got {value!r}.")
    for i, v in enumerate(value):
        _number(cls, f"{name}[{i}]", v)
    return tuple(value)


def check_float_type(cls, name, value):
    """MindSpore's ASGD wants real floats for some arguments (an int is refused)."""
    if not isinstance(value, float):
        raise TypeError(f"For '{cls}', the type of {name} must be float, but got {type(value)}.")
    return value
