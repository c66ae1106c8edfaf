"""`TopKCategoricalAccuracy(k)`, `Top1CategoricalAccuracy()`, `Top5CategoricalAccuracy()`.

>>> import numpy as np
>>> from openspore.train import TopKCategoricalAccuracy
>>> x = np.array([[0.2, 0.5, 0.3, 0.6, 0.2], [0.1, 0.35, 0.5, 0.2, 0.], [0.9, 0.6, 0.2, 0.01, 0.3]])
>>> round(float(TopKCategoricalAccuracy(3)(x, np.array([2, 0, 1]))), 4)
0.6667
"""
import numpy as np

from .metric import Metric, rearrange_inputs


class TopKCategoricalAccuracy(Metric):
    """A sample is correct when its label is among the `k` highest scores (ties: lower class id first)."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"For '{type(self).__name__}', the argument 'k' must be an int, "
                            f"but got {type(k).__name__}.")
        if k < 1:
            raise ValueError(f"For '{type(self).__name__}', the argument 'k' must be at least 1, but got {k}.")
        self.k = int(k)
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: scores (N, C) and class ids (N,) or one-hot labels (N, C)."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim != 2:
            raise ValueError(f"For '{type(self).__name__}.update', the predicted value must have shape (N, C), "
                             f"but got {y_pred.shape}.")
        if y.ndim == 2 and self._check_onehot_data(y):
            y = y.argmax(axis=1)
        if y.shape != (y_pred.shape[0],):
            raise ValueError(f"For '{type(self).__name__}.update', the true value must have shape "
                             f"({y_pred.shape[0]},) or {y_pred.shape}, but got {y.shape}.")
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        """correct / samples."""
        if self._samples_num == 0:
            raise self._empty()
        return np.float64(self._correct_num) / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(1)`."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(5)`."""

    def __init__(self):
        super().__init__(5)
