"""`ConfusionMatrixMetric`: rates derived from per-class true/false positive/negative counts of binarised
(one-hot) predictions (N, C, ...), such as sensitivity (tpr), precision (ppv), F1 or Matthews' coefficient.

>>> import numpy as np
>>> m = ConfusionMatrixMetric(metric_name="tpr")
>>> m.update(np.array([[[0], [1]], [[1], [0]]]), np.array([[[0], [1]], [[0], [1]]]))
>>> m.update(np.array([[[0], [1]], [[1], [0]]]), np.array([[[0], [1]], [[1], [0]]]))
>>> m.eval().tolist()
[0.75]
"""
import warnings

import numpy as np

from .metric import Metric, rearrange_inputs

_ALIASES = {
    "tpr": "sensitivity", "recall": "sensitivity", "hit_rate": "sensitivity", "true positive rate": "sensitivity",
    "tnr": "specificity", "selectivity": "specificity", "true negative rate": "specificity",
    "ppv": "precision", "positive predictive value": "precision",
    "npv": "negative predictive value",
    "fnr": "miss rate", "false negative rate": "miss rate",
    "fpr": "fall out", "false positive rate": "fall out",
    "fdr": "false discovery rate", "for": "false omission rate", "pt": "prevalence threshold",
    "ts": "threat score", "critical success index": "threat score", "csi": "threat score",
    "acc": "accuracy", "ba": "balanced accuracy", "f1": "f1 score", "mcc": "matthews correlation coefficient",
    "fm": "fowlkes mallows index", "bm": "informedness", "mk": "markedness",
}


def _ratio(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1), np.nan)


def _rate(name, tp, fp, tn, fn):
    p, n = tp + fn, fp + tn
    tpr, tnr = _ratio(tp, p), _ratio(tn, n)
    ppv, npv = _ratio(tp, tp + fp), _ratio(tn, tn + fn)
    table = {
        "sensitivity": lambda: tpr, "specificity": lambda: tnr, "precision": lambda: ppv,
        "negative predictive value": lambda: npv, "miss rate": lambda: _ratio(fn, p),
        "fall out": lambda: _ratio(fp, n), "false discovery rate": lambda: _ratio(fp, fp + tp),
        "false omission rate": lambda: _ratio(fn, fn + tn),
        "prevalence threshold": lambda: _ratio(np.sqrt(tpr * (1 - tnr)) + tnr - 1, tpr + tnr - 1),
        "threat score": lambda: _ratio(tp, tp + fn + fp), "accuracy": lambda: _ratio(tp + tn, p + n),
        "balanced accuracy": lambda: (tpr + tnr) / 2.0, "f1 score": lambda: _ratio(2.0 * tp, 2.0 * tp + fp + fn),
        "matthews correlation coefficient": lambda: _ratio(tp * tn - fp * fn,
                                                           np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
        "fowlkes mallows index": lambda: np.sqrt(ppv * tpr), "informedness": lambda: tpr + tnr - 1.0,
        "markedness": lambda: ppv + npv - 1.0,
    }
    return table[name]()


_DECREASE = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _reduce(values, decrease):
    """Reduce (N, C) values ignoring nan: over everything, over the batch axis or over the channel axis."""
    if decrease == "none":
        return values
    axis = {"mean": None, "sum": None, "mean_batch": 0, "sum_batch": 0, "mean_channel": 1, "sum_channel": 1}[decrease]
    with warnings.catch_warnings():  # an all-nan slice gives nan, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        if decrease == "mean":  # each sample's mean over its classes, then the mean over samples (as MindSpore)
            out = np.nanmean(np.nanmean(values, axis=1), axis=0)
        elif decrease.startswith("mean"):
            out = np.nanmean(values, axis=axis)
        else:
            out = np.nansum(values, axis=axis)
    return np.asarray(out)


class ConfusionMatrixMetric(Metric):
    """`ConfusionMatrixMetric(skip_channel=True, metric_name="sensitivity", calculation_method=False,
    decrease="mean")`.

    `update(y_pred, y)` takes binarised predictions and one-hot labels of shape (N, C, ...). For every sample
    and class the counts tp, fp, tn, fn are taken over the remaining axes. With calculation_method=True the rate is
    computed per sample and class and then reduced by `decrease` (nan entries, where a rate is undefined, are
    skipped); otherwise the counts of all samples and classes are summed and the rate computed once. `skip_channel=False` leaves
    the first channel (background) out. `eval()` returns an array ([value] when the counts are fully reduced, a
    number when per-sample rates are).
    """

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        super().__init__()
        if not isinstance(metric_name, str) or _ALIASES.get(metric_name.lower(), metric_name.lower()) not in (
                set(_ALIASES.values()) | {"prevalence threshold"}):
            raise NotImplementedError(f"For 'ConfusionMatrixMetric', the metric_name {metric_name!r} is not "
                                      f"supported; use one of {sorted(set(_ALIASES.values()))} or an abbreviation.")
        if decrease not in _DECREASE:
            raise ValueError(f"For 'ConfusionMatrixMetric', 'decrease' must be one of {list(_DECREASE)}, but got "
                             f"{decrease!r}.")
        self.skip_channel, self.calculation_method = bool(skip_channel), bool(calculation_method)
        self.metric_name, self.decrease = _ALIASES.get(metric_name.lower(), metric_name.lower()), decrease
        self.clear()

    def clear(self):
        """Forget the counts seen so far."""
        self._counts = []

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y)`: binarised predictions and one-hot labels, both (N, C, ...)."""
        self._check_count(inputs, 2, "y_pred, y")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.shape != y.shape or y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', y_pred and y must have the same shape (N, C, ...), "
                             f"but got {y_pred.shape} and {y.shape}.")
        if not self.skip_channel:
            y_pred, y = y_pred[:, 1:], y[:, 1:]
        y_pred, y = y_pred.astype(np.float64), y.astype(np.float64)
        axes = tuple(range(2, y.ndim))
        tp = (y_pred * y).sum(axes)
        fp = (y_pred * (1 - y)).sum(axes)
        fn = ((1 - y_pred) * y).sum(axes)
        tn = ((1 - y_pred) * (1 - y)).sum(axes)
        self._counts.append(np.stack([tp, fp, tn, fn], axis=-1))

    def eval(self):
        """The metric over everything updated since `clear()`."""
        if not self._counts:
            raise RuntimeError("For 'ConfusionMatrixMetric.eval', update must be called before eval.")
        counts = np.concatenate(self._counts, axis=0)  # (N, C, 4)
        if self.calculation_method:
            values = _rate(self.metric_name, *np.moveaxis(counts, -1, 0))
            out = _reduce(values, self.decrease)
            if out.ndim == 0:  # a number, as MindSpore returns for a full reduction of per-sample rates
                return np.float64(out)
        else:  # the counts of all samples and classes together, whatever `decrease` says (as MindSpore 2.10)
            out = _rate(self.metric_name, *counts.reshape(-1, 4).sum(0))
        out = np.asarray(out, np.float64)
        return out.reshape(1) if out.ndim == 0 else out


def _check_margin(margin):
    if isinstance(margin, int) and not isinstance(margin, bool) and margin >= 0:
        return margin
    raise ValueError(f"For 'OcclusionSensitivity', 'margin' must be a non-negative int, but got {margin!r}.")


class OcclusionSensitivity(Metric):
    """`OcclusionSensitivity(pad_val=0.0, margin=2, n_batch=128, b_box=None)`: how much the model's score for
    the true label drops when a window of half-size `margin` around each position of the input is replaced by
    `pad_val`. `update(model, y_pred, label)` takes one input (1, ...) and its label; `eval()` gives the map
    (score with the original input minus score with that position occluded), of the input's spatial shape.
    `b_box` ([min, max) per spatial axis, flattened) restricts the positions examined."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = float(pad_val)
        self.margin = _check_margin(margin)
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch <= 0:
            raise ValueError(f"For 'OcclusionSensitivity', 'n_batch' must be a positive int, but got {n_batch!r}.")
        self.n_batch, self.b_box = n_batch, b_box
        self.clear()

    def clear(self):
        """Forget the last map."""
        self._baseline = None
        self._map = None

    def update(self, *inputs):
        """`update(model, y_pred, label)`: `model` maps a batch (B, ...) to class scores (B, C)."""
        self._check_count(inputs, 3, "model, y_pred, label")
        model, x, label = inputs
        from ...core.tensor import Tensor
        x = self._convert_data(x).astype(np.float32)
        if x.shape[0] != 1:
            raise ValueError(f"For 'OcclusionSensitivity.update', the input must hold one sample (1, ...), but got "
                             f"shape {x.shape}.")
        label = int(np.asarray(self._convert_data(label)).reshape(-1)[0])
        spatial = x.shape[1:] if x.ndim == 2 else x.shape[2:]
        lead = x.ndim - len(spatial)
        bounds = [(0, s) for s in spatial]
        if self.b_box is not None:
            box = list(self.b_box)
            if len(box) != 2 * len(spatial):
                raise ValueError(f"For 'OcclusionSensitivity', 'b_box' must give [min, max) for each of the "
                                 f"{len(spatial)} spatial axes, but got {self.b_box!r}.")
            bounds = [(max(0, box[2 * k]), min(spatial[k], box[2 * k + 1])) for k in range(len(spatial))]

        def scores(batch):
            out = model(Tensor(batch))
            return np.asarray(out.asnumpy() if hasattr(out, "asnumpy") else out).reshape(len(batch), -1)[:, label]

        baseline = scores(x)[0]
        positions = list(np.ndindex(*[hi - lo for lo, hi in bounds]))
        result = np.zeros([hi - lo for lo, hi in bounds], np.float32)
        for start in range(0, len(positions), self.n_batch):
            chunk = positions[start:start + self.n_batch]
            batch = np.repeat(x, len(chunk), axis=0)
            for row, pos in enumerate(chunk):
                window = tuple(slice(max(0, p + lo - self.margin), p + lo + self.margin + 1)
                               for p, (lo, _) in zip(pos, bounds))
                batch[(row,) + (slice(None),) * (lead - 1) + window] = self.pad_val
            drops = baseline - scores(batch)
            for pos, value in zip(chunk, drops):
                result[pos] = value
        self._baseline, self._map = baseline, result

    def eval(self):
        """The sensitivity map of the last `update`."""
        if self._map is None:
            raise RuntimeError("For 'OcclusionSensitivity.eval', update must be called before eval.")
        return self._map

