"""`Fbeta(beta)` and `F1()`: the weighted harmonic mean of precision and recall, per class.

F_beta = (1 + beta^2) tp / (beta^2 (tp + fn) + (tp + fp)).

>>> import numpy as np
>>> from openspore.train import F1
>>> F1()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1])).round(4).tolist()
[0.6667, 0.6667]
"""
import numbers

import numpy as np

from .metric import EPS, EvaluationBase, rearrange_inputs


class Fbeta(EvaluationBase):
    """`Fbeta(beta)` for single-label classification (scores (N, C), class ids or one-hot labels)."""

    def __init__(self, beta):
        super().__init__("classification")
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not beta > 0:
            raise ValueError(f"For '{type(self).__name__}', the argument 'beta' must be a positive number, "
                             f"but got {beta!r}.")
        self.beta = float(beta)
        self.clear()

    def clear(self):
        """Reset the per-class counts."""
        self._class_num = 0
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: accumulate one batch."""
        y_pred, y = self._prepare(inputs)
        pred, true = self._one_hot_pair(y_pred, y)
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)
        self._actual_positives = self._actual_positives + true.sum(axis=0)
        self._positives = self._positives + pred.sum(axis=0)

    def eval(self, average=False):
        """Per-class F-beta scores, or their mean with `average=True`."""
        if self._class_num == 0:
            raise self._empty()
        b2 = self.beta * self.beta
        result = (1 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + EPS)
        return np.float64(result.mean()) if average else result


class F1(Fbeta):
    """`F1()`: Fbeta with beta = 1."""

    def __init__(self):
        super().__init__(1.0)
