"""Rows: conversion of Python values to column arrays, column-name checks, the per-run context."""
import numpy as np

from .. import config

INFINITE = float("inf")
_INT64_LIMIT = 2 ** 63


def to_array(value, where="GeneratorDataset"):
    """One column value as a numpy array (Python int → int64, float → float64, str/bytes → string arrays); a dict
    stays a dict (see pyobjects.py)."""
    if type(value) is np.ndarray and not value.dtype.hasobject:  # the common cases first: one check per value
        return value
    if type(value) is int and -_INT64_LIMIT <= value < _INT64_LIMIT:
        return np.array(value, dtype=np.int64)
    if isinstance(value, np.ndarray):
        if value.dtype == object:  # Python objects cannot become tensors; say so here, not deep in a later op
            raise TypeError(f"For '{where}', a column value must be a numeric or string array, but got a numpy array "
                            f"of dtype object with shape {value.shape}.")
        return value
    if isinstance(value, bool):
        return np.array(value, dtype=np.bool_)
    if isinstance(value, int):
        if not -2 ** 63 <= value < 2 ** 63:
            raise ValueError(f"For '{where}', the int column value {value} does not fit int64.")
        return np.array(value, dtype=np.int64)
    if isinstance(value, float):
        return np.array(value, dtype=np.float64)
    if isinstance(value, (str, bytes, np.generic)):
        return np.array(value)
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if isinstance(value, dict):  # a Python object column: kept by reference, converted only by the iterators
        return value
    if isinstance(value, (list, tuple)) or hasattr(value, "__array_interface__") or hasattr(value, "__array__"):
        try:
            array = np.asarray(value)
        except (ValueError, OverflowError):  # ragged nesting (numpy refuses it), ints beyond 64 bits
            array = np.asarray(value, dtype=object) if isinstance(value, (list, tuple)) else None
        if array is None or array.dtype == object:
            raise TypeError(f"For '{where}', a column value must convert to a numeric or string array, but got "
                            f"a ragged or mixed {type(value).__name__}: {value!r:.80}")
        return array
    raise TypeError(f"For '{where}', a column value must be a numpy array, a Python scalar, str, bytes or a list of "
                    f"them, but got {type(value).__name__}.")


def to_row(item, num_columns, where="GeneratorDataset"):
    """A source item as a tuple of arrays; a tuple or list is a row of columns, anything else (a dict too) one
    column."""
    if not isinstance(item, (tuple, list)):
        item = (item,)
    if num_columns is not None and len(item) != num_columns:
        raise RuntimeError(f"For '{where}', the 'source' of '{where}' should return same number of NumPy arrays as "
                           f"specified in column_names, the size of column_names is:{num_columns} and number of "
                           f"returned NumPy array is:{len(item)}.")
    row = []
    for k, value in enumerate(item):
        try:
            row.append(to_array(value, where))
        except TypeError as exc:  # MindSpore reports an unconvertible column while iterating, as a RuntimeError
            raise RuntimeError(f"Data type of {k + 1}th item of the input or its converted Numpy array is expected "
                               f"to be int or float or str, but got {_kind(value)}. {exc}") from exc
    return tuple(row)


def _kind(value):
    if isinstance(value, np.ndarray):
        return value.dtype.name
    return type(value).__name__


def names_list(value, arg, where):
    """A str or list of str column names as a list (None stays None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)):  # MindSpore's wording (a tuple is accepted here, not there)
        raise TypeError(f"Argument {arg} with value {value!r} is not of type [<class 'list'>, <class 'str'>], but "
                        f"got {type(value)}.")
    if not value:
        raise ValueError(f"{arg} should not be empty.")
    for k, name in enumerate(value):
        if not isinstance(name, str):
            raise TypeError(f"Argument {arg}[{k}] with value {name!r} is not of type [<class 'str'>], but got "
                            f"{type(name)}.")
    if len(set(value)) != len(value):
        raise ValueError(f"For '{where}', '{arg}' must not contain duplicate names, but got {list(value)}.")
    return list(value)


class MissingColumnError(RuntimeError, ValueError):
    """A named column the dataset does not have. MindSpore reports it as a RuntimeError of the pipeline; it is
    also a ValueError, as openspore reported it before."""


_MISSING_COLUMN = {  # MindSpore's sentences (its tests match on them)
    "map": "Invalid parameter, input column name: {c} doesn't exist in the dataset columns.",
    "rename": "Invalid column, column to be renamed does not exist.",
    "project": "Invalid column, column name: {c} does not exist.",
    "filter": "Invalid parameter, column name: {c} does not exist in the dataset columns.",
    "batch": "Invalid input_columns, '{c}' of 'input_columns' doesn't exist.",
}


def check_columns_exist(columns, available, where):
    for c in columns:
        if c not in available:
            sentence = _MISSING_COLUMN.get(where, "For '{where}', column '{c}' does not exist.").format(c=c,
                                                                                                    where=where)
            raise MissingColumnError(f"{sentence} The dataset columns are {available}.")


class Context:
    """State of one iterator: the epoch number and how many passes each node has made (for seeding)."""

    def __init__(self, root, quiet=False):
        self.quiet = quiet  # a pass that only measures (size, first row): user callbacks do not see it
        self.epoch = 0
        self._keys = {}
        self._passes = {}
        self.cache_forced = {}  # source id -> the indices a cache above it wants read (its misses)
        self.callback_runners = {}  # map node id -> its DSCallback counters in this iterator
        stack = [root]
        while stack:  # preorder numbering: the same pipeline shape gives the same keys, hence the same draws
            node = stack.pop()
            if id(node) not in self._keys:
                self._keys[id(node)] = len(self._keys)
                stack.extend(reversed(node.children))

    def key(self, node):
        return self._keys.setdefault(id(node), len(self._keys))

    def next_pass(self, node):
        k = self._passes.get(id(node), 0)
        self._passes[id(node)] = k + 1
        return k

    def pass_count(self, node):
        """How many passes of `node` have started (the current pass is number pass_count - 1)."""
        return self._passes.get(id(node), 0)

    def rng(self, node):
        """A generator for the next pass of `node` (reproducible when the dataset seed is set)."""
        return config._rng(self.key(node), self.next_pass(node))
