"""FocalLoss and TripletMarginWithDistanceLoss, written with `ops`.

>>> import numpy as np, openspore as ms
>>> logits = ms.Tensor(np.array([[0.8, 1.4], [0.5, 0.9], [1.2, 0.9]], np.float32))
>>> labels = ms.Tensor(np.array([[1], [1], [0]], np.int32))
>>> round(float(FocalLoss(weight=ms.Tensor(np.array([1, 2], np.float32)), gamma=2.0)(logits, labels).asnumpy()), 6)
0.125166
"""
from ... import ops
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ..cell import Cell
from .loss import LossBase

__all__ = ["FocalLoss", "TripletMarginWithDistanceLoss"]


class FocalLoss(LossBase):
    """`FocalLoss(weight=None, gamma=2.0, reduction='mean')(logits, labels)`: for logits (N, C, ...) and labels of
    the same rank, class ids (N, 1, ...) or one-hot (N, C, ...), with p = softmax over C:
    loss = sum over C of -(1 - p)^gamma * weight[c] * log p * onehot, averaged over the positions of each
    sample, then reduced (as MindSpore 2.10)."""

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)):
            raise TypeError(f"For 'FocalLoss', 'gamma' must be a float, but got {type(gamma).__name__}.")
        if weight is not None and (not isinstance(weight, Tensor) or weight.ndim != 1):
            raise TypeError(f"For 'FocalLoss', 'weight' must be a 1-D Tensor, but got {weight!r}.")
        self.gamma, self.weight = float(gamma), weight

    def construct(self, logits, labels):
        if logits.ndim < 2:
            raise ValueError(f"For 'FocalLoss', 'logits' must be (N, C, ...), but got shape {logits.shape}.")
        classes = logits.shape[1]
        if labels.ndim != logits.ndim:
            raise ValueError(f"For 'FocalLoss', the dimensions of 'logits' and 'labels' must be equal, but got "
                             f"dimension of 'logits' {logits.ndim} and dimension of 'labels' {labels.ndim}.")
        if labels.shape != logits.shape:
            if labels.shape[1] != 1:
                raise ValueError(f"For 'FocalLoss', 'labels' of shape {labels.shape} must be class ids (N, 1, ...) "
                                 f"or one-hot of the logits' shape {logits.shape}.")
            labels = ops.squeeze(labels, 1)
            labels = ops.moveaxis(ops.one_hot(ops.cast(labels, mstype.int32), classes, Tensor(1.0, logits.dtype),
                                              Tensor(0.0, logits.dtype)), -1, 1)
        labels = ops.cast(labels, logits.dtype)
        log_p = ops.log_softmax(logits, 1)
        if self.weight is not None:
            shape = (1, classes) + (1,) * (logits.ndim - 2)
            log_p = log_p * ops.reshape(ops.cast(self.weight, logits.dtype), shape)
        focal = -ops.pow(1.0 - ops.exp(ops.log_softmax(logits, 1)), self.gamma) * log_p * labels
        per_sample = ops.reduce_sum(focal, 1)
        if per_sample.ndim > 1:  # MindSpore averages the spatial positions even for reduction='none'
            per_sample = ops.mean(per_sample, tuple(range(1, per_sample.ndim)))
        return self.get_loss(per_sample)


def _pairwise_distance(x, y, eps=1e-6):
    diff = x - y + eps
    return ops.sqrt(ops.reduce_sum(diff * diff, -1))


class TripletMarginWithDistanceLoss(Cell):
    """`TripletMarginWithDistanceLoss(distance_function=None, swap=False, reduction='mean', margin=1.0)(x,
    positive, negative)`: max(d(x, positive) - d(x, negative) + margin, 0), d the given function or the L2
    pairwise distance (eps 1e-6); with swap the negative distance is min(d(x, n), d(positive, n))."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__()
        if distance_function is not None and not callable(distance_function):
            raise TypeError("For 'TripletMarginWithDistanceLoss', 'distance_function' must be callable, but got "
                            f"{type(distance_function).__name__}.")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For 'TripletMarginWithDistanceLoss', 'reduction' must be 'none', 'mean' or 'sum', but "
                             f"got {reduction!r}.")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or margin < 0:
            raise ValueError(f"For 'TripletMarginWithDistanceLoss', 'margin' must be a non-negative number, got {margin!r}.")
        self.distance_function = distance_function or _pairwise_distance
        self.swap, self.reduction, self.margin = bool(swap), reduction, float(margin)

    def construct(self, x, positive, negative):
        d_pos = self.distance_function(x, positive)
        d_neg = self.distance_function(x, negative)
        if self.swap:
            d_neg = ops.minimum(d_neg, self.distance_function(positive, negative))
        loss = ops.maximum(d_pos - d_neg + self.margin, ops.zeros_like(d_pos))
        if self.reduction == "mean":
            return ops.mean(loss)
        if self.reduction == "sum":
            return ops.reduce_sum(loss)
        return loss
