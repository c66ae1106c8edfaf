"""`MAE()` and `MSE()`: mean absolute / squared error per sample.

As in MindSpore, the errors of all elements are summed and divided by the number of samples (the first
dimension), so a (N, D) prediction gives the mean over samples of each sample's summed error.

>>> import numpy as np
>>> from openspore.train import MAE, MSE
>>> x, y = np.array([0.1, 0.2, 0.6, 0.9]), np.array([0.1, 0.25, 0.7, 0.9])
>>> round(float(MAE()(x, y)), 6), round(float(MSE()(x, y)), 6)
(0.0375, 0.003125)
"""
import numpy as np

from .metric import Metric, rearrange_inputs


class _ErrorMetric(Metric):
    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._error_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: `y` is reshaped to `y_pred`'s shape (same number of elements)."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred = self._convert_data(inputs[0]).astype(np.float64)
        y = self._convert_data(inputs[1]).astype(np.float64)
        if y.size != y_pred.size:
            raise ValueError(f"For '{type(self).__name__}.update', the predicted value and the true value must have "
                             f"the same number of elements, but got shapes {y_pred.shape} and {y.shape}.")
        diff = y.reshape(y_pred.shape) - y_pred
        self._error_sum += float(self._elementwise(diff).sum())
        self._samples_num += y_pred.shape[0] if y_pred.ndim else 1

    def eval(self):
        """error sum / number of samples."""
        if self._samples_num == 0:
            raise self._empty()
        return np.float64(self._error_sum) / self._samples_num


class MAE(_ErrorMetric):
    """`MAE()`: mean absolute error."""

    @staticmethod
    def _elementwise(diff):
        return np.abs(diff)


class MSE(_ErrorMetric):
    """`MSE()`: mean squared error."""

    @staticmethod
    def _elementwise(diff):
        return diff * diff
