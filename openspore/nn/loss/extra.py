"""More of MindSpore's losses: MultiLabelSoftMarginLoss, MultiMarginLoss, HingeEmbeddingLoss, GaussianNLLLoss,
TripletMarginLoss, PoissonNLLLoss (Cells), with their functional forms in `ops`.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> x = ms.Tensor(np.array([[0.3, 0.6, 0.6]], np.float32)); y = ms.Tensor(np.array([[0.0, 1.0, 1.0]], np.float32))
>>> round(float(nn.MultiLabelSoftMarginLoss()(x, y).asnumpy()), 5)
0.57644
"""
from ...ops.function.nn_extra_func import (gaussian_nll_loss, hinge_embedding_loss, multi_margin_loss,
                                          multilabel_soft_margin_loss, poisson_nll_loss, triplet_margin_loss)
from ..cell import Cell

__all__ = ["MultiLabelSoftMarginLoss", "MultiMarginLoss", "HingeEmbeddingLoss", "GaussianNLLLoss",
           "TripletMarginLoss", "PoissonNLLLoss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "hinge_embedding_loss", "gaussian_nll_loss", "triplet_margin_loss", "poisson_nll_loss"]


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
