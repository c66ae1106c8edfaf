"""`mindspore._checkparam`: the argument checks MindSpore's layers use and its tests and user code import
(`from mindspore import _checkparam as Validator`, `twice`, `check_int`, ...). Each returns the checked value and
raises TypeError for a wrong type, ValueError for a value out of its range, with MindSpore 2.10's messages.

>>> from openspore import _checkparam as validator
>>> validator.check_positive_int(3, "channels", "Conv2d")
3
>>> validator.twice(5)
(5, 5)
>>> validator.check_int_range(2, 0, 3, validator.INC_LEFT, "axis", "Op")
2
"""
from collections.abc import Iterable  # noqa: F401  (MindSpore's module exposes the name)

import numpy as np

# relations: comparisons with one bound, ranges with two (MindSpore's numbering)
EQ, NE, LT, LE, GT, GE = 1, 2, 3, 4, 5, 6
INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH = 7, 8, 9, 10
IN, NOT_IN = 11, 12

_COMPARE = {EQ: ("=", lambda a, b: a == b), NE: ("!=", lambda a, b: a != b), LT: ("<", lambda a, b: a < b),
            LE: ("<=", lambda a, b: a <= b), GT: (">", lambda a, b: a > b), GE: (">=", lambda a, b: a >= b)}
_RANGE = {INC_NEITHER: ("({}, {})", lambda v, lo, hi: lo < v < hi),
          INC_LEFT: ("[{}, {})", lambda v, lo, hi: lo <= v < hi),
          INC_RIGHT: ("({}, {}]", lambda v, lo, hi: lo < v <= hi),
          INC_BOTH: ("[{}, {}]", lambda v, lo, hi: lo <= v <= hi)}


def _prefix(arg_name, prim_name):
    if prim_name and arg_name:
        return f"For '{prim_name}', the '{arg_name}'"
    if arg_name:
        return f"The '{arg_name}'"
    return f"For '{prim_name}', the input value" if prim_name else "The input value"


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_float(value):
    return isinstance(value, (float, np.floating))


def _check_compare(arg_value, value, rel, kind, is_kind, arg_name, prim_name):
    symbol, holds = _COMPARE[rel]
    where = _prefix(arg_name, prim_name)
    if isinstance(arg_value, bool) or not is_kind(arg_value):
        if isinstance(arg_value, bool):
            raise TypeError(f"{where} must be {kind} and must {symbol} {value}, but got '{arg_value}' with type "
                            f"'bool'.")
        raise TypeError(f"{where} must be {kind}, but got '{type(arg_value).__name__}'")
    if not holds(arg_value, value):
        raise ValueError(f"{where} must be {kind} and must {symbol} {value}, but got '{arg_value}' with type "
                         f"'{type(arg_value).__name__}'.")
    return arg_value


def check_int(arg_value, value, rel, arg_name=None, prim_name=None):
    """An int (not a bool) with `arg_value <rel> value`."""
    return _check_compare(arg_value, value, rel, "int", _is_int, arg_name, prim_name)


def check_equal_int(arg_value, value, arg_name=None, prim_name=None):
    return check_int(arg_value, value, EQ, arg_name, prim_name)


def check_positive_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GT, arg_name, prim_name)


def check_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, LT, arg_name, prim_name)


def check_non_positive_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, LE, arg_name, prim_name)


def check_non_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GE, arg_name, prim_name)


def check_float(arg_value, value, rel, arg_name=None, prim_name=None):
    """A float with `arg_value <rel> value`."""
    return _check_compare(arg_value, value, rel, "float", _is_float, arg_name, prim_name)


def check_positive_float(arg_value, arg_name=None, prim_name=None):
    return check_float(arg_value, 0, GT, arg_name, prim_name)


def check_negative_float(arg_value, arg_name=None, prim_name=None):
    return check_float(arg_value, 0, LT, arg_name, prim_name)


def check_non_positive_float(arg_value, arg_name=None, prim_name=None):
    return check_float(arg_value, 0, LE, arg_name, prim_name)


def check_non_negative_float(arg_value, arg_name=None, prim_name=None):
    return check_float(arg_value, 0, GE, arg_name, prim_name)


def _sequence(check, sequence, arg_name, prim_name):
    if not isinstance(sequence, (tuple, list)):
        raise TypeError(f"{_prefix(arg_name, prim_name)} must be a tuple or list, but got "
                        f"'{type(sequence).__name__}'.")
    for i, item in enumerate(sequence):
        check(item, f"{arg_name}[{i}]" if arg_name else None, prim_name)
    return sequence


def check_positive_int_sequence(sequence, arg_name=None, prim_name=None):
    return _sequence(check_positive_int, sequence, arg_name, prim_name)


def check_non_negative_int_sequence(sequence, arg_name=None, prim_name=None):
    return _sequence(check_non_negative_int, sequence, arg_name, prim_name)


def check_positive_float_sequence(sequence, arg_name=None, prim_name=None):
    return _sequence(check_positive_float, sequence, arg_name, prim_name)


def check_number(arg_name, arg_value, value, rel, prim_name):
    """A number with `arg_value <rel> value` (ints and floats alike)."""
    symbol, holds = _COMPARE[rel]
    if not holds(arg_value, value):
        raise ValueError(f"For '{prim_name}', the argument '{arg_name}' must {symbol} {value}, but got {arg_value}.")
    return arg_value


def check_is_number(arg_value, arg_type=None, arg_name=None, prim_name=None):
    if isinstance(arg_value, bool) or not isinstance(arg_value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{_prefix(arg_name, prim_name)} must be a number, but got '{type(arg_value).__name__}'.")
    return arg_value


def _check_range(arg_value, lower_limit, upper_limit, rel, kind, arg_name, prim_name, kind_name="a number"):
    text, holds = _RANGE[rel]
    where = _prefix(arg_name, prim_name)
    if isinstance(arg_value, bool) or not kind(arg_value):
        raise TypeError(f"{where} must be {kind_name},  but got '{type(arg_value).__name__}'.")
    if not holds(arg_value, lower_limit, upper_limit):
        raise ValueError(f"{where} must be in range of {text.format(lower_limit, upper_limit)}, but got "
                         f"{arg_value} with type '{type(arg_value).__name__}'.")
    return arg_value


def check_int_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    """An int inside (lower_limit, upper_limit), the ends included as `rel` says."""
    return _check_range(arg_value, lower_limit, upper_limit, rel, _is_int, arg_name, prim_name, "'int'")


def check_float_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    """A float inside (lower_limit, upper_limit), the ends included as `rel` says."""
    return _check_range(arg_value, lower_limit, upper_limit, rel, _is_float, arg_name, prim_name, "'float'")


def check_number_range(arg_value, lower_limit, upper_limit, rel, value_type, arg_name=None, prim_name=None):
    return _check_range(arg_value, lower_limit, upper_limit, rel, lambda v: isinstance(v, value_type),
                        arg_name, prim_name)


def check_bool(arg_value, arg_name=None, prim_name=None):
    """A real bool (1 and 0 are refused)."""
    if not isinstance(arg_value, (bool, np.bool_)):
        raise TypeError(f"{_prefix(arg_name, prim_name)} must be a bool, but got {type(arg_value).__name__}.")
    return arg_value


def check_is_int(arg_value, arg_name=None, prim_name=None):
    if not _is_int(arg_value):
        raise TypeError(f"For '{prim_name}', the type of '{arg_name}' must be 'int', but got "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def check_is_float(arg_value, arg_name=None, prim_name=None):
    if not _is_float(arg_value):
        raise TypeError(f"For '{prim_name}', the type of '{arg_name}' must be 'float', but got "
                        f"'{type(arg_value).__name__}'.")
    return arg_value


def check_string(arg_value, valid_values, arg_name=None, prim_name=None):
    """A str among `valid_values`."""
    if not isinstance(arg_value, str) or arg_value not in valid_values:
        raise ValueError(f"{_prefix(arg_name, prim_name)} must be str and must be in '{list(valid_values)}', but "
                         f"got '{arg_value}'.")
    return arg_value


def check_value_type(arg_name, arg_value, valid_types, prim_name=None):
    """`arg_value` is an instance of one of `valid_types` (a bool does not pass for an int)."""
    valid_types = tuple(valid_types) if isinstance(valid_types, (tuple, list)) else (valid_types,)
    ok = isinstance(arg_value, valid_types) and not (isinstance(arg_value, bool) and bool not in valid_types)
    if not ok:
        names = [t.__name__ for t in valid_types]
        expected = f"'{names[0]}'" if len(names) == 1 else f"one of '{names}'"
        where = f"For '{prim_name}', the type of '{arg_name}'" if prim_name else f"The type of '{arg_name}'"
        raise TypeError(f"{where} should be {expected}, but got type '{type(arg_value).__name__}'.")
    return arg_value


def check_isinstance(arg_name, arg_value, classes):
    if not isinstance(arg_value, classes):
        raise ValueError(f"The parameter '{arg_name}' must be isinstance of {classes}, but got {arg_value}.")
    return arg_value


def check_valid_input(arg_name, arg_value, prim_name):
    if arg_value is None:
        raise ValueError(f"For '{prim_name}', the argument '{arg_name}'can not be None, but got {arg_value}.")
    return arg_value


_SUPPORTED = ("The supported data types depend on the hardware that executes the operator, for more details, "
              "please refer to the MindSpore official website to get more information about the data type.")


def _dtype_name(dtype):
    return str(dtype).replace("mindspore.", "").capitalize().replace("Bool_", "Bool")


def check_type_name(arg_name, arg_type, valid_types, prim_name):
    """`arg_type` (a dtype) is one of `valid_types`."""
    valid_types = tuple(valid_types) if isinstance(valid_types, (tuple, list)) else (valid_types,)
    if arg_type not in valid_types:
        expected = ", ".join(_dtype_name(t) for t in valid_types)
        raise TypeError(f"For '{prim_name}', the '{arg_name}' should be {expected}, but got '{arg_type!r}'.")
    return arg_type


def check_subclass(arg_name, type_, template_types, prim_name, addition_error_info=None):
    template_types = tuple(template_types) if isinstance(template_types, (tuple, list)) else (template_types,)
    if type_ not in template_types:
        expected = ", ".join(_dtype_name(t) for t in template_types)
        raise TypeError(f"For '{prim_name}', the element of '{arg_name}' must be {expected}, but got "
                        f"{_dtype_name(type_)}.{addition_error_info or _SUPPORTED}")
    return type_


def check_tensor_dtype_valid(arg_name, arg_type, valid_dtypes, prim_name):
    valid_dtypes = tuple(valid_dtypes) if isinstance(valid_dtypes, (tuple, list)) else (valid_dtypes,)
    if arg_type not in valid_dtypes:
        expected = ", ".join(f"Tensor[{_dtype_name(t)}]" for t in valid_dtypes)
        raise TypeError(f"For '{prim_name}', the element of '{arg_name}' must be {expected}, but got "
                        f"{_dtype_name(arg_type)}.{_SUPPORTED}")
    return arg_type


def check_axis_in_range(axis, ndim):
    """An axis inside [-ndim, ndim), returned non-negative."""
    if not _is_int(axis):
        raise TypeError(f"The axis must be int, but got {type(axis).__name__}.")
    if not -ndim <= axis < ndim:
        raise ValueError(f"The 'axis' must be in the range of [-{ndim}, {ndim}), but got {axis}.")
    return axis % ndim


def check_input_format(input_param):
    if input_param == "NCHW":
        return input_param
    raise ValueError(f"The data format must be NCHW, but got {input_param}.")


def _expand(m, n):
    if _is_int(m):
        return (int(m),) * n
    if isinstance(m, tuple):
        if len(m) != n:
            raise TypeError(f"When expanding an int number to tuple, input tuple dimension must be {n}, but got {m}")
        for v in m:
            if not _is_int(v):
                raise TypeError(f"When expanding an int number to tuple, the type of element in input tuple must be "
                                f"an integer, but got {type(v)}.")
        return m
    raise TypeError(f"When expanding an int number to tuple, input type must be integer or tuple[int], but got "
                    f"{type(m)}")


def twice(m):
    """An int as (m, m); a pair of ints as it is."""
    return _expand(m, 2)


def triple(m):
    """An int as (m, m, m); a triple of ints as it is."""
    return _expand(m, 3)


def is_stub_tensor(value):
    """openspore has no stub tensors (MindSpore's asynchronous PyNative outputs): always False."""
    return False
