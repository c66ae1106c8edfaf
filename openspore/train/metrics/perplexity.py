"""`Perplexity(ignore_label=None)`: exp of the mean negative log-probability of the labels.

>>> import numpy as np
>>> from openspore.train import Perplexity
>>> p = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])
>>> round(Perplexity(ignore_label=None)(p, np.array([1, 0, 1])), 4)
2.2314
"""
import numpy as np

from .metric import Metric, rearrange_inputs


class Perplexity(Metric):
    """`preds` are probabilities (..., C); labels are class ids (...). `ignore_label` ids are skipped."""

    def __init__(self, ignore_label=None):
        super().__init__()
        if ignore_label is not None and (isinstance(ignore_label, bool) or not isinstance(ignore_label, int)):
            raise TypeError(f"The type of 'ignore_label' should be 'int', but got type "
                            f"'{type(ignore_label).__name__}'.")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._sum_cross_entropy = 0.0
        self._sum_word_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """`update(preds, labels)`: preds (N, C) (or lists of such), labels (N,)."""
        if len(inputs) != 2:
            raise ValueError(f"For 'Perplexity.update', it needs 2 inputs (preds, labels), but got {len(inputs)}.")
        preds = self._convert_data(inputs[0]).astype(np.float64)
        labels = self._convert_data(inputs[1]).astype(np.int64)
        classes = preds.shape[-1]
        preds = preds.reshape(-1, classes)
        labels = labels.reshape(-1)
        if preds.shape[0] != labels.shape[0]:
            raise RuntimeError(f"For 'Perplexity.update', preds hold {preds.shape[0]} rows but labels hold "
                               f"{labels.shape[0]} values; they must match.")
        keep = labels != self.ignore_label if self.ignore_label is not None else np.ones(labels.shape, bool)
        labels, preds = labels[keep], preds[keep]
        if labels.size and (labels.min() < 0 or labels.max() >= classes):
            raise ValueError(f"For 'Perplexity.update', labels must be in [0, {classes}), "
                             f"but got values from {labels.min()} to {labels.max()}.")
        probs = preds[np.arange(labels.shape[0]), labels]
        self._sum_cross_entropy -= float(np.log(np.maximum(probs, 1e-12)).sum())
        self._sum_word_num += int(labels.shape[0])

    def eval(self):
        """exp(total cross entropy / number of counted labels)."""
        if self._sum_word_num == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of samples is 0.")
        return float(np.exp(self._sum_cross_entropy / self._sum_word_num))
