"""`Metric`: the base of every evaluation metric (facts §1.14), plus input conversion shared by the metrics.

A metric accumulates state over `update(*inputs)` calls and reports with `eval()`; `clear()` resets it.
Inputs may be Tensors, numpy arrays or (nested) lists. `set_indexes([i, j])` makes `update` pick
`inputs[i], inputs[j]` out of a longer output tuple (e.g. `(loss, logits, label)` of `nn.WithEvalCell`).

>>> import numpy as np
>>> from openspore.train import Accuracy
>>> m = Accuracy().set_indexes([1, 2])
>>> m.update(np.float32(0.3), np.array([[0.1, 0.9], [0.8, 0.2]]), np.array([1, 1]))
>>> float(m.eval())
0.5
"""
import functools
import sys
from abc import ABCMeta, abstractmethod

import numpy as np

from ...core.tensor import Tensor

# 0/0 must give 0 (a class never predicted has precision 0, not nan); the tiniest float keeps x/eps huge
# only when x > 0, which cannot happen where the denominator is a count that is 0.
EPS = sys.float_info.min


def to_numpy(data, where="Metric"):
    """Tensor / numpy array / list → numpy array (half-precision floats widened to float32)."""
    if isinstance(data, Tensor):
        array = data.asnumpy()
    elif isinstance(data, np.ndarray):
        array = data
    elif isinstance(data, (list, tuple, np.generic, int, float)) and not isinstance(data, bool):
        array = np.asarray(data)
    else:
        raise TypeError(f"For '{where}', the input data type must be Tensor, list or numpy.ndarray, "
                        f"but got {type(data).__name__}.")
    if array.dtype.kind == "V" or (array.dtype.kind == "f" and array.dtype.itemsize < 4) \
            or array.dtype.name == "bfloat16":
        array = array.astype(np.float32)
    return array


def check_arg_type(name, value, expected):
    """MindSpore's metric argument check: TypeError "The type of 'name' should be 'int', but got type 'str'."
    (a bool is not taken for an int)."""
    if isinstance(value, bool) and expected is not bool or not isinstance(value, expected):
        raise TypeError(f"The type of '{name}' should be '{expected.__name__}', but got type "
                        f"'{type(value).__name__}'.")
    return value


def rearrange_inputs(func):
    """Decorator for `update(self, *inputs)`: apply the metric's `indexes` (if set) to the inputs first."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        if indexes is not None:
            if max(indexes) >= len(inputs):
                raise ValueError(f"For '{type(self).__name__}.update', the indexes {indexes} select inputs that "
                                 f"do not exist: only {len(inputs)} inputs were given.")
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)
    return wrapper


class Metric(metaclass=ABCMeta):
    """Base class of metrics: override `clear`, `update(*inputs)` and `eval`."""

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data):
        return to_numpy(data, type(self).__name__)

    @staticmethod
    def _check_onehot_data(data):
        """True when `data` (N, C, ...) holds only 0/1 values and exactly one 1 along axis 1."""
        if data.ndim < 2:
            return False
        if not np.isin(data, (0, 1)).all():
            return False
        return bool((data.sum(axis=1) == 1).all())

    @property
    def indexes(self):
        """The input positions `update` reads (None: all inputs, in order)."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """`set_indexes(indexes)`: make `update` use `inputs[i] for i in indexes`; returns self."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0
                                                    for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all its elements must "
                             "be int, please check whether it is correct.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        """clear → update(*inputs) → eval(): the metric of one batch."""
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self):
        """Reset the accumulated state."""

    @abstractmethod
    def eval(self):
        """The metric over everything seen since the last `clear`."""

    @abstractmethod
    def update(self, *inputs):
        """Accumulate one batch."""

    def _check_count(self, inputs, n, what):
        if len(inputs) != n:
            raise ValueError(f"For '{type(self).__name__}.update', it needs {n} inputs ({what}), "
                             f"but got {len(inputs)}.")

    def _empty(self):
        return RuntimeError(f"The '{type(self).__name__}' can not be calculated, because the number of samples is 0, "
                            "please check whether your inputs (predicted value, true value) are empty, or has called "
                            "update method before calling eval method.")


class EvaluationBase(Metric):
    """Classification metrics with `eval_type` 'classification' (scores + class ids / one-hot labels) or
    'multilabel' (0/1 predictions and labels of the same shape)."""

    def __init__(self, eval_type):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            # MindSpore's check: a TypeError, worded as below
            raise TypeError("The argument 'eval_type' must be in {'multilabel', 'classification'}, "
                            f"but got {eval_type}")
        self._type = eval_type

    def _prepare(self, inputs):
        """(y_pred, y) as numpy with y as class ids (classification) after shape/value checks."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        name = type(self).__name__
        if self._type == "classification":
            if y_pred.ndim < 2:
                raise ValueError(f"For '{name}.update', the predicted value (inputs[0]) must have shape (N, C, ...) "
                                 f"for classification, but got {y_pred.shape}.")
            if y.ndim == y_pred.ndim and self._check_onehot_data(y):
                y = y.argmax(axis=1)
            expected = (y_pred.shape[0],) + y_pred.shape[2:]
            if y.shape != expected:
                raise ValueError(f"For '{name}.update', the true value (inputs[1]) must have shape {expected} "
                                 f"(class ids) or {y_pred.shape} (one-hot) for predicted value of shape "
                                 f"{y_pred.shape}, but got {y.shape}.")
            if y.size and (y.min() < 0 or y.max() >= y_pred.shape[1] or (y != np.round(y)).any()):
                raise ValueError(f"For '{name}.update', the true value (inputs[1]) must be class ids in "
                                 f"[0, {y_pred.shape[1]}), but got values from {y.min()} to {y.max()}.")
            y = y.astype(np.int64)
        else:
            if y_pred.shape != y.shape or y_pred.ndim < 2:
                raise ValueError(f"For '{name}.update', 'multilabel' needs predicted and true values of the same "
                                 f"shape (N, C, ...), but got {y_pred.shape} and {y.shape}.")
            if not (np.isin(y_pred, (0, 1)).all() and np.isin(y, (0, 1)).all()):
                raise ValueError(f"For '{name}.update', 'multilabel' predicted and true values must hold only 0 "
                                 "and 1.")
        self._check_class_num(y_pred.shape[1])
        return y_pred, y

    def _check_class_num(self, num):
        known = getattr(self, "_class_num", 0)
        if known and known != num:
            raise ValueError(f"For '{type(self).__name__}.update', class number not match, last input predicted data "
                             f"contain {known} classes, but current predicted data contain {num} classes, please "
                             "check your predicted value (inputs[0]).")
        self._class_num = num

    def _one_hot_pair(self, y_pred, y):
        """Classification: (N*..., C) one-hot predictions (argmax) and labels; multilabel: as given."""
        num = y_pred.shape[1]
        if self._type == "classification":
            eye = np.eye(num)
            pred = eye[y_pred.argmax(axis=1).reshape(-1)]
            true = eye[y.reshape(-1)]
        else:
            pred = np.moveaxis(y_pred, 1, -1).reshape(-1, num).astype(np.float64)
            true = np.moveaxis(y, 1, -1).reshape(-1, num).astype(np.float64)
        return pred, true
