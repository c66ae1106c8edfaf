"""`Accuracy(eval_type='classification')`: the fraction of correctly predicted samples.

>>> import numpy as np
>>> from openspore.train import Accuracy
>>> m = Accuracy()
>>> m.update(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
>>> round(float(m.eval()), 4)
0.6667
"""
import numpy as np

from .metric import EvaluationBase, rearrange_inputs


class Accuracy(EvaluationBase):
    """classification: argmax of the scores (N, C, ...) against class ids (N, ...) or one-hot labels;
    multilabel: a sample counts when every one of its 0/1 predictions matches."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: accumulate one batch."""
        y_pred, y = self._prepare(inputs)
        if self._type == "classification":
            result = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            result = (y_pred == y).all(axis=1).reshape(-1)
        self._correct_num += int(result.sum())
        self._total_num += result.shape[0]

    def eval(self):
        """correct / total (numpy.float64)."""
        if self._total_num == 0:
            raise self._empty()
        return np.float64(self._correct_num) / self._total_num
