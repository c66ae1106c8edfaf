"""`ROC` (receiver operating characteristic points) and `auc` (area under a curve by the trapezoidal rule).

>>> import numpy as np
>>> from openspore.train import ROC, auc
>>> m = ROC(pos_label=2)
>>> m.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([1, 2, 2, 2]))
>>> fpr, tpr, thresholds = m.eval()
>>> thresholds.tolist(), auc(fpr, tpr)
([1.8, 0.8, 0.4, 0.35, 0.1], 1.0)
"""
import numpy as np

from .metric import Metric, check_arg_type, rearrange_inputs


def _binary_roc(scores, positive):
    """(fpr, tpr, thresholds): one point per distinct score, highest first, after a start above all scores."""
    order = np.argsort(-scores, kind="mergesort")
    scores, positive = scores[order], positive[order].astype(np.float64)
    last_of_run = np.r_[np.flatnonzero(np.diff(scores)), scores.size - 1]
    tps = np.cumsum(positive)[last_of_run]
    fps = (last_of_run + 1) - tps
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    thresholds = np.r_[scores[0] + 1, scores[last_of_run]]
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full(fps.shape, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full(tps.shape, np.nan)
    return fpr, tpr, thresholds


class ROC(Metric):
    """`ROC(class_num=None, pos_label=None)`: binary scores with labels (positive = `pos_label`, default 1), or
    (N, C) scores with class ids, one curve per class (one-vs-rest)."""

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        # MindSpore 2.10 checks the types only (TypeError); a class_num of 0 is accepted there too
        if class_num is not None:
            check_arg_type("class_num", class_num, int)
        if pos_label is not None:
            check_arg_type("pos_label", pos_label, int)
        self.class_num, self.pos_label = class_num, pos_label
        self.clear()

    def clear(self):
        """Forget the scores."""
        self._scores, self._labels = [], []

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: scores and labels of one shape (binary: every element is a sample, positive where
        the label is `pos_label`), or (N, C) scores and (N,) class ids (one curve per class). The thresholds keep
        the scores' dtype (integer scores give integer thresholds, as in MindSpore)."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim:
            y_pred, y = y_pred.reshape(-1), y.reshape(-1)
        elif y_pred.ndim == y.ndim + 1:
            y_pred, y = y_pred.reshape(-1, y_pred.shape[-1]), y.reshape(-1)
            if self.class_num is None:
                self.class_num = y_pred.shape[1]
        else:
            raise ValueError(f"For 'ROC', predicted value (input[0]) and true value (input[1]) must have same "
                             f"dimensions, or the dimension of predicted value equal the dimension of true value add "
                             f"1, but got predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
        if y_pred.shape[0] != y.shape[0]:
            raise ValueError(f"For 'ROC.update', y_pred {y_pred.shape} and y {y.shape} hold different sample counts.")
        self._scores.append(y_pred)
        self._labels.append(y)

    def eval(self):
        """(fpr, tpr, thresholds) — each a list with one array per class when there are several classes."""
        if not self._scores:
            raise self._empty()
        scores, labels = np.concatenate(self._scores), np.concatenate(self._labels)
        if scores.ndim == 1 or self.class_num in (None, 1):
            pos = 1 if self.pos_label is None else self.pos_label
            return _binary_roc(scores.reshape(-1), labels == pos)
        curves = [_binary_roc(scores[:, c], labels == c) for c in range(self.class_num)]
        return [c[0] for c in curves], [c[1] for c in curves], [c[2] for c in curves]


def auc(x, y, reorder=False):
    """Area under the curve through the points (x, y) by the trapezoidal rule (x sorted first when `reorder`)."""
    x, y = np.asarray(x, np.float64).reshape(-1), np.asarray(y, np.float64).reshape(-1)
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"For 'auc', x and y need the same length of at least 2, but got {x.size} and {y.size}.")
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    dx = np.diff(x)
    if np.any(dx < 0) and np.any(dx > 0):
        raise ValueError("For 'auc', x must be monotonic (or pass reorder=True).")
    area = float(np.sum(dx * (y[1:] + y[:-1]) / 2.0))
    return -area if np.all(dx <= 0) and np.any(dx < 0) else area
