"""More of MindSpore's losses: MultiLabelSoftMarginLoss, MultiMarginLoss, HingeEmbeddingLoss, GaussianNLLLoss,
TripletMarginLoss, PoissonNLLLoss (Cells), with their functional forms in `ops`.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> x = ms.Tensor(np.array([[0.3, 0.6, 0.6]], np.float32)); y = ms.Tensor(np.array([[0.0, 1.0, 1.0]], np.float32))
>>> round(float(nn.MultiLabelSoftMarginLoss()(x, y).asnumpy()), 5)
0.57644
"""
import math

from ... import ops
from ..cell import Cell

__all__ = ["MultiLabelSoftMarginLoss", "MultiMarginLoss", "HingeEmbeddingLoss", "GaussianNLLLoss",
           "TripletMarginLoss", "PoissonNLLLoss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "hinge_embedding_loss", "gaussian_nll_loss", "triplet_margin_loss", "poisson_nll_loss"]


def _reduce(loss, reduction, where):
    if reduction == "mean":
        return ops.mean(loss)
    if reduction == "sum":
        return ops.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"For '{where}', 'reduction' must be 'mean', 'sum' or 'none', but got {reduction!r}.")


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """−mean over classes of y·log σ(x) + (1−y)·log σ(−x) (times weight), per sample, then reduced."""
    per = -(target * ops.logsigmoid(input) + (1 - target) * ops.logsigmoid(-input))
    if weight is not None:
        per = per * weight
    return _reduce(ops.mean(per, -1), reduction, "multilabel_soft_margin_loss")


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Σ_{j≠y} max(0, margin − x_y + x_j)^p / C (scaled by weight[y]), per sample, then reduced."""
    classes = input.shape[-1]
    onehot = ops.cast(ops.one_hot(target, classes, 1.0, 0.0), input.dtype)
    picked = ops.sum(input * onehot, -1, keepdim=True)
    hinge = ops.relu(margin - picked + input) * (1 - onehot)
    if p == 2:
        hinge = hinge * hinge
    elif p != 1:
        raise ValueError(f"For 'multi_margin_loss', 'p' must be 1 or 2, but got {p}.")
    if weight is not None:
        hinge = hinge * ops.expand_dims(ops.sum(onehot * weight, -1), -1)
    return _reduce(ops.sum(hinge, -1) / classes, reduction, "multi_margin_loss")


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """x where y = 1, max(0, margin − x) where y = −1."""
    loss = ops.where(targets == 1, inputs, ops.relu(margin - inputs))
    return _reduce(loss, reduction, "hinge_embedding_loss")


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """½(log max(var, eps) + (x − target)² / max(var, eps)) (+ ½ log 2π when full)."""
    v = ops.clamp(var, eps, None)
    loss = 0.5 * (ops.log(v) + ops.square(x - target) / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


def _pairwise_distance(a, b, p, eps):
    return ops.pow(ops.sum(ops.pow(ops.abs(a - b + eps), p), -1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction="mean"):
    """max(d(a, p) − d(a, n) + margin, 0) with d the p-norm distance (swap: d(a, n) → min(d(a, n), d(p, n)))."""
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ops.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce(ops.relu(d_pos - d_neg + margin), reduction, "triplet_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction="mean"):
    """exp(x) − y·x (log_input) or x − y·log(x + eps), plus Stirling's term for y > 1 when full."""
    loss = ops.exp(input) - target * input if log_input else input - target * ops.log(input + eps)
    if full:
        stirling = target * ops.log(ops.clamp(target, 1.0, None)) - target + \
            0.5 * ops.log(2 * math.pi * ops.clamp(target, 1.0, None))
        loss = loss + ops.where(target > 1, stirling, ops.zeros_like(stirling))
    return _reduce(loss, reduction, "poisson_nll_loss")


class MultiLabelSoftMarginLoss(Cell):
    """`MultiLabelSoftMarginLoss(weight=None, reduction='mean')(x, target)`."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def construct(self, x, target):
        return multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(Cell):
    """`MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)(x, target, weight=None)`."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__()
        self.p, self.margin, self.reduction, self.weight = p, margin, reduction, weight

    def construct(self, x, target, weight=None):
        return multi_margin_loss(x, target, self.p, self.margin, weight if weight is not None else self.weight,
                                 self.reduction)


class HingeEmbeddingLoss(Cell):
    """`HingeEmbeddingLoss(margin=1.0, reduction='mean')(logits, labels)`."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def construct(self, logits, labels):
        return hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class GaussianNLLLoss(Cell):
    """`GaussianNLLLoss(*, full=False, eps=1e-6, reduction='mean')(logits, labels, var)`."""

    def __init__(self, *, full=False, eps=1e-06, reduction="mean"):
        super().__init__()
        self.full, self.eps, self.reduction = full, eps, reduction

    def construct(self, logits, labels, var):
        return gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class TripletMarginLoss(Cell):
    """`TripletMarginLoss(p=2, swap=False, eps=1e-6, reduction='mean', margin=1.0)(x, positive, negative,
    margin=1.0)`."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__()
        self.p, self.swap, self.eps, self.reduction, self.margin = p, swap, eps, reduction, margin

    def construct(self, x, positive, negative, margin=None):
        return triplet_margin_loss(x, positive, negative, self.margin if margin is None else margin, self.p,
                                   self.eps, self.swap, self.reduction)


class PoissonNLLLoss(Cell):
    """`PoissonNLLLoss(log_input=True, full=False, eps=1e-8, reduction='mean')(input, target)`."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__()
        self.log_input, self.full, self.eps, self.reduction = log_input, full, eps, reduction

    def construct(self, input, target):
        return poisson_nll_loss(input, target, self.log_input, self.full, self.eps, self.reduction)
