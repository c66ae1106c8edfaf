"""`Precision` and `Recall` per class: tp / predicted positives and tp / actual positives.

>>> import numpy as np
>>> from openspore.train import Precision, Recall
>>> x, y = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1])
>>> Precision()(x, y).tolist(), Recall()(x, y).tolist()
([0.5, 1.0], [1.0, 0.5])
"""
import numpy as np

from .metric import EPS, EvaluationBase, rearrange_inputs


class _PerClassRate(EvaluationBase):
    """true positives over a per-class count chosen by the subclass (`_denominator`)."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        """Reset the per-class counts."""
        self._class_num = 0
        self._true_positives = np.zeros(0) if self._type == "multilabel" else 0
        self._counts = np.zeros(0) if self._type == "multilabel" else 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: accumulate one batch."""
        y_pred, y = self._prepare(inputs)
        pred, true = self._one_hot_pair(y_pred, y)
        if self._type == "multilabel":
            # MindSpore rates each sample's labels (one value per row), batches appended in order
            tp = (pred * true).reshape(len(pred), -1).sum(axis=1)
            count = self._denominator(pred, true).reshape(len(pred), -1).sum(axis=1)
            self._true_positives = np.concatenate([np.reshape(self._true_positives, -1), tp])
            self._counts = np.concatenate([np.reshape(self._counts, -1), count])
            return
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)
        self._counts = self._counts + self._denominator(pred, true).sum(axis=0)

    def eval(self, average=False):
        """Per-class values as a numpy array, or their mean with `average=True`."""
        if self._class_num == 0:
            raise self._empty()
        if not isinstance(average, bool):
            raise TypeError(f"For '{type(self).__name__}.eval', the argument 'average' must be a bool, "
                            f"but got {type(average).__name__}.")
        result = self._true_positives / (self._counts + EPS)
        return np.float64(result.mean()) if average else result


class Precision(_PerClassRate):
    """`Precision(eval_type='classification')`: tp / (tp + fp) per class."""

    @staticmethod
    def _denominator(pred, true):
        return pred


class Recall(_PerClassRate):
    """`Recall(eval_type='classification')`: tp / (tp + fn) per class."""

    @staticmethod
    def _denominator(pred, true):
        return true
