"""Segmentation surface distances: `HausdorffDistance`, `MeanSurfaceDistance`, `RootMeanSquareDistance`.

`update(y_pred, y, label_idx)` takes two label maps of one shape; the masks `== label_idx` are reduced to their
surfaces (mask pixels with a 4-/6-connected neighbour outside the mask or beyond the border), and distances are
measured between surface points ('euclidean', 'chessboard' or 'taxicab').

>>> import numpy as np
>>> from openspore.train import HausdorffDistance
>>> x = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]]); y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
>>> m = HausdorffDistance(); m.update(x, y, 0); round(m.eval(), 4)
1.4142
"""
import numpy as np

from .metric import Metric, rearrange_inputs

_METRICS = ("euclidean", "chessboard", "taxicab")


def _surface(mask):
    inner = mask.copy()
    for axis in range(mask.ndim):
        for shift in (1, -1):
            neighbour = np.zeros_like(mask)
            src = [slice(None)] * mask.ndim
            dst = [slice(None)] * mask.ndim
            src[axis] = slice(None, -1) if shift == 1 else slice(1, None)
            dst[axis] = slice(1, None) if shift == 1 else slice(None, -1)
            neighbour[tuple(dst)] = mask[tuple(src)]
            inner &= neighbour
    return np.argwhere(mask & ~inner).astype(np.float64)


def _nearest(points_a, points_b, metric):
    """For each point of a, the distance to the nearest point of b."""
    diff = np.abs(points_a[:, None, :] - points_b[None, :, :])
    if metric == "euclidean":
        d = np.sqrt((diff ** 2).sum(-1))
    elif metric == "chessboard":
        d = diff.max(-1)
    else:
        d = diff.sum(-1)
    return d.min(1)


class _SurfaceDistance(Metric):
    def __init__(self, distance_metric):
        super().__init__()
        if distance_metric not in _METRICS:
            raise ValueError(f"For '{type(self).__name__}', 'distance_metric' must be one of {_METRICS}, "
                             f"but got {distance_metric!r}.")
        self.distance_metric = distance_metric
        self.clear()

    def clear(self):
        """Forget the last update."""
        self._pred_surface = self._true_surface = None

    @rearrange_inputs
    def update(self, *inputs):
        """`update(y_pred, y, label_idx)`: label maps of one shape and the label whose surfaces are compared."""
        self._check_count(inputs, 3, "y_pred, y, label_idx")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label = inputs[2]
        if y_pred.shape != y.shape:
            raise ValueError(f"For '{type(self).__name__}.update', y_pred and y must have the same shape, but got "
                             f"{y_pred.shape} and {y.shape}.")
        pred_mask, true_mask = y_pred == label, y == label
        if not pred_mask.any() or not true_mask.any():
            raise ValueError(f"For '{type(self).__name__}.update', label {label} must occur in both y_pred and y.")
        self._pred_surface, self._true_surface = _surface(pred_mask), _surface(true_mask)

    def _distances(self, a, b):
        if self._pred_surface is None:
            raise RuntimeError(f"Call the 'update' method before calling 'eval' for '{type(self).__name__}'.")
        return _nearest(a, b, self.distance_metric)


class HausdorffDistance(_SurfaceDistance):
    """`HausdorffDistance(distance_metric='euclidean', percentile=None, directed=False, crop=True)`: the largest
    (or `percentile`-th) surface distance, from y_pred to y (directed) or the larger of both directions."""

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        if percentile is not None and not 0 <= percentile <= 100:
            raise ValueError(f"For 'HausdorffDistance', 'percentile' must be in [0, 100], but got {percentile}.")
        self.percentile, self.directed, self.crop = percentile, bool(directed), bool(crop)
        super().__init__(distance_metric)

    def _one_way(self, a, b):
        d = self._distances(a, b)
        return float(d.max() if self.percentile is None else np.percentile(d, self.percentile))

    def eval(self):
        """The Hausdorff distance of the last update."""
        forward = self._one_way(self._pred_surface, self._true_surface)
        if self.directed:
            return forward
        return max(forward, self._one_way(self._true_surface, self._pred_surface))


class MeanSurfaceDistance(_SurfaceDistance):
    """`MeanSurfaceDistance(symmetric=False, distance_metric='euclidean')`: mean distance from the y_pred surface
    to the y surface (symmetric: the average of both directions' means)."""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        self.symmetric = bool(symmetric)
        super().__init__(distance_metric)

    def _directions(self):
        d = [self._distances(self._pred_surface, self._true_surface)]
        if self.symmetric:
            d.append(self._distances(self._true_surface, self._pred_surface))
        return d

    def eval(self):
        """The mean surface distance of the last update."""
        return float(np.mean([d.mean() for d in self._directions()]))


class RootMeanSquareDistance(MeanSurfaceDistance):
    """`RootMeanSquareDistance(symmetric=False, distance_metric='euclidean')`: sqrt of the mean squared surface
    distance (symmetric: of the average of both directions' mean squares)."""

    def eval(self):
        """The root-mean-square surface distance of the last update."""
        return float(np.sqrt(np.mean([(d ** 2).mean() for d in self._directions()])))
