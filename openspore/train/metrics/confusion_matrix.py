"""`ConfusionMatrix(num_classes, normalize='no_norm', threshold=0.5)`: counts of (true class, predicted class).

Row i, column j counts samples of true class i predicted as class j. Predictions are class scores
(N, C, ...) (argmax over axis 1), integer class ids, or float scores binarised with `threshold`.

>>> import numpy as np
>>> from openspore.train import ConfusionMatrix
>>> ConfusionMatrix(2)(np.array([1, 0, 1, 0]), np.array([1, 0, 0, 1])).tolist()
[[1.0, 1.0], [1.0, 1.0]]
"""

import numpy as np

from .metric import Metric, rearrange_inputs

_NORMALIZE = ("no_norm", "target", "prediction", "all")


class ConfusionMatrix(Metric):
    """normalize: 'no_norm' counts, 'target' rows sum to 1, 'prediction' columns sum to 1, 'all' total is 1."""

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)):
            raise TypeError(f"The type of 'num_classes' should be 'int', but got type '{type(num_classes).__name__}'.")
        if num_classes < 1:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'num_classes' must be a positive int, "
                             f"but got {num_classes!r}.")
        if normalize not in _NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be one of {list(_NORMALIZE)}, "
                             f"but got {normalize!r}.")
        if not isinstance(threshold, float):  # MindSpore takes a float only (0.5, not 1)
            raise TypeError(f"The type of 'threshold' should be 'float', but got type '{type(threshold).__name__}'.")
        self.num_classes = int(num_classes)
        self.normalize = normalize
        self.threshold = float(threshold)
        self.clear()

    def clear(self):
        """Reset the counts."""
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes), np.float64)
        self._seen = False

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim == y.ndim:
            if y_pred.dtype.kind == "f":
                y_pred = (y_pred >= self.threshold)
        else:
            raise ValueError("For 'ConfusionMatrix.update', the predicted value must have the same dimension as the "
                             f"true value or one more, but got shapes {y_pred.shape} and {y.shape}.")
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'ConfusionMatrix.update', the predicted classes of shape {y_pred.shape} do not "
                             f"match the true value of shape {y.shape}.")
        y_pred = y_pred.astype(np.int64).reshape(-1)
        y = y.astype(np.int64).reshape(-1)
        n = self.num_classes
        for what, v in (("true", y), ("predicted", y_pred)):
            if v.size and (v.min() < 0 or v.max() >= n):
                raise ValueError(f"For 'ConfusionMatrix.update', the {what} classes must be in [0, {n}), "
                                 f"but got values from {v.min()} to {v.max()}.")
        self.confusion_matrix += np.bincount(n * y + y_pred, minlength=n * n).reshape(n, n)
        self._seen = True

    def eval(self):
        """The (num_classes, num_classes) matrix, normalised as configured."""
        if not self._seen:
            raise RuntimeError("The 'ConfusionMatrix' can not be calculated, because the number of samples is 0, "
                               "please check whether has called update method before calling eval method.")
        m = self.confusion_matrix
        if self.normalize == "no_norm":
            return m.copy()
        if self.normalize == "all":
            return m / m.sum()
        axis = 1 if self.normalize == "target" else 0
        totals = m.sum(axis=axis, keepdims=True)
        return np.divide(m, totals, out=np.zeros_like(m), where=totals != 0)
