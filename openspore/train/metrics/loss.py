"""`Loss()`: the average of the loss values seen (a batch's loss array counts by its mean).

>>> import numpy as np
>>> from openspore.train import Loss
>>> m = Loss()
>>> m.update(np.array([0.2, 0.4])); m.update(np.float32(0.9))
>>> round(float(m.eval()), 6)
0.6
"""
import numpy as np

from .metric import Metric, rearrange_inputs


class Loss(Metric):
    """Average over `update` calls of each call's (mean) loss."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Reset the sum."""
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(loss)`: a scalar or 1-D loss."""
        self._check_count(inputs, 1, "loss")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of the loss must be 0 or 1, but got {loss.ndim}.")
        self._sum_loss += float(loss.astype(np.float64).mean())
        self._total_num += 1

    def eval(self):
        """sum of losses / number of updates."""
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples is 0, please check "
                               "whether has called update method before calling eval method.")
        return self._sum_loss / self._total_num
