"""`Dice(smooth=1e-5)`: Σ over updates of 2·Σ(x·y) / (Σx² + Σy² + smooth), divided by the number of samples (the
first dimension's sizes added up), as MindSpore's is: one update of 3 samples gives a third of its coefficient.

>>> import numpy as np
>>> from openspore.train import Dice
>>> x, y = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([[0, 1], [1, 0], [0, 1]])
>>> round(float(Dice()(x, y)), 6)
0.204678
"""
import numbers

import numpy as np

from .metric import Metric, rearrange_inputs


class Dice(Metric):
    """Set similarity of a prediction and a target of the same shape (1 = identical)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, numbers.Real) or not smooth > 0:
            raise ValueError(f"For 'Dice', the argument 'smooth' must be a positive float, but got {smooth!r}.")
        self.smooth = float(smooth)
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._dice_coeff_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: arrays of the same shape."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred = self._convert_data(inputs[0]).astype(np.float64).reshape(-1)
        y = self._convert_data(inputs[1]).astype(np.float64)
        samples = y.shape[0] if y.ndim else 1
        if y.size != y_pred.size:
            raise ValueError("For 'Dice.update', the predicted value and the true value must have the same shape, "
                             f"but got {y_pred.size} and {y.size} elements.")
        y = y.reshape(-1)
        intersection = float(y_pred @ y)
        union = float(y_pred @ y_pred + y @ y)
        self._dice_coeff_sum += 2.0 * intersection / (union + self.smooth)
        self._samples_num += samples

    def eval(self):
        """The summed Dice coefficients over the number of samples seen."""
        if self._samples_num == 0:
            raise self._empty()
        return self._dice_coeff_sum / self._samples_num
