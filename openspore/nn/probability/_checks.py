"""Construction-time checks shared by distributions and bijectors.

Parameters given to a constructor are concrete values, so they are checked here in NumPy once (a negative
standard deviation is a ValueError at construction, as in MindSpore); parameters passed per call are traced
values inside a construct and are not checked (MindSpore gives NaN there too).

>>> import numpy as np
>>> from openspore.nn.probability._checks import broadcast_shape
>>> broadcast_shape([(2, 1), (3,)], "Normal")
(2, 3)
"""
import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor

FLOAT_TYPES = tuple(mstype.FLOAT_DTYPES)


def is_float_dtype(dtype):
    return dtype in FLOAT_TYPES


def check_float_dtype(dtype, owner, what="dtype"):
    if not is_float_dtype(dtype):
        raise TypeError(f"For '{owner}', the '{what}' should be one of {list(FLOAT_TYPES)}, but got {dtype}.")


def check_numeric_dtype(dtype, owner):
    """Discrete distributions sample integers or floats (never bools)."""
    if not isinstance(dtype, mstype.Type) or dtype == mstype.bool_ or not (
            is_float_dtype(dtype) or dtype in (mstype.int8, mstype.int16, mstype.int32, mstype.int64,
                                               mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64)):
        raise TypeError(f"For '{owner}', the 'dtype' should be an int or float dtype, but got {dtype}.")


def check_seed(seed, owner):
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"For '{owner}', the 'seed' should be an int, but got {type(seed).__name__}.")


def check_name(name, owner):
    if not isinstance(name, str):
        raise TypeError(f"For '{owner}', the 'name' should be a str, but got {type(name).__name__}.")


def as_array(value, name):
    """A constructor argument as a NumPy array (a Tensor's data, a number, a list or an array)."""
    if value is None or isinstance(value, (bool, np.bool_, str)):
        raise TypeError(f"Parameter '{name}' should be a number, list, numpy array or Tensor, "
                        f"but got {type(value).__name__}.")
    if isinstance(value, Tensor):
        return value.asnumpy()
    return np.asarray(value)


def to_param_tensor(value, name, dtype):
    """A constructor parameter as a Tensor of the distribution's float dtype."""
    array = as_array(value, name)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"Parameter '{name}' should hold numbers, but got an array of {array.dtype}.")
    return Tensor(array.astype(mstype.dtype_to_nptype(dtype)), dtype=dtype)


def broadcast_shape(shapes, owner):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise ValueError(f"For '{owner}', the shapes of the parameters {[tuple(s) for s in shapes]} "
                         "cannot be broadcast together.") from None


def check_greater_zero(tensor, name):
    if not np.all(tensor.asnumpy() > 0):
        raise ValueError(f"{name} must be greater than zero.")


def check_greater_equal_zero(tensor, name):
    if not np.all(tensor.asnumpy() >= 0):
        raise ValueError(f"{name} must be greater than or equal to zero.")


def check_greater(low, high, low_name, high_name):
    if not np.all(low.asnumpy() < high.asnumpy()):
        raise ValueError(f"{low_name} must be less than {high_name}")


def check_prob(tensor):
    """Probabilities strictly inside (0, 1), as MindSpore's Bernoulli and Geometric require."""
    array = tensor.asnumpy()
    if not np.all(array > 0):
        raise ValueError("Probabilities must be greater than zero")
    if not np.all(array < 1):
        raise ValueError("Probabilities must be less than one")


def check_sum_to_one(tensor, owner):
    array = tensor.asnumpy()
    if not np.all(array >= 0):
        raise ValueError(f"Probabilities must be greater than or equal to zero for {owner} distribution.")
    if not np.allclose(array.sum(axis=-1), 1.0, atol=1e-6):
        raise ValueError(f"Probabilities for each category should sum to one for {owner} distribution.")


def check_not_scalar(value, name):
    """Gamma, Beta and Poisson take array or Tensor parameters only, as in MindSpore."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise TypeError(f"Input {name} can't be scalar")
