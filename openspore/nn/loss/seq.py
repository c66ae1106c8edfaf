"""CTCLoss, MultilabelMarginLoss and L1LossExt (the PyTorch-style L1 loss that `mint.nn.L1Loss` is in MindSpore).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> lp = ms.Tensor(np.log(np.full((3, 1, 2), 0.5, np.float32)))
>>> loss = nn.CTCLoss(reduction="sum")(lp, ms.Tensor(np.array([[1]], np.int32)), ms.Tensor(np.array([3], np.int32)),
...                                    ms.Tensor(np.array([1], np.int32)))
>>> round(float(loss.asnumpy()), 4)
0.2877
"""
from ... import ops
from ..cell import Cell
from ..layer._common import check_bool, is_int
from .loss import LossBase

__all__ = ["CTCLoss", "MultilabelMarginLoss", "L1LossExt"]


def _reduction(name, reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For '{name}', the 'reduction' must be 'none', 'mean' or 'sum', but got {reduction!r}.")
    return reduction


class CTCLoss(Cell):
    """`CTCLoss(blank=0, reduction='mean', zero_infinity=False)(log_probs, targets, input_lengths,
    target_lengths)`: the CTC loss of (T, N, C) log-probabilities (or unbatched (T, C) with (S,) targets and
    scalar-shaped lengths) against padded (N, S) targets; 'mean' divides each loss by its target length."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        if not is_int(blank) or blank < 0:
            raise ValueError(f"For 'CTCLoss', the 'blank' must be a non-negative int, but got {blank!r}.")
        self.blank = int(blank)
        self.reduction = _reduction("CTCLoss", reduction)
        self.zero_infinity = check_bool("CTCLoss", "zero_infinity", zero_infinity)

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        unbatched = len(log_probs.shape) == 2
        if unbatched:
            log_probs = ops.expand_dims(log_probs, 1)
            targets = ops.expand_dims(targets, 0)
            input_lengths = ops.reshape(input_lengths, (1,))
            target_lengths = ops.reshape(target_lengths, (1,))
        loss, _ = ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                               self.zero_infinity)
        if unbatched and self.reduction == "none":
            loss = ops.reshape(loss, ())
        return loss


class MultilabelMarginLoss(LossBase):
    """`MultilabelMarginLoss(reduction='mean')(x, target)`: Σ_j Σ_i max(0, 1 − (x[y_j] − x[i])) / C over the
    target classes y_j (target's entries before its first −1) and the other classes i, then reduced."""

    def __init__(self, reduction="mean"):
        super().__init__(_reduction("MultilabelMarginLoss", reduction))

    def construct(self, x, target):
        return ops.multilabel_margin_loss(x, target, self.reduction)


class L1LossExt(LossBase):
    """`L1LossExt(reduction='mean')(input, target)`: |input − target| (broadcast), reduced."""

    def __init__(self, reduction="mean"):
        super().__init__(_reduction("L1LossExt", reduction))

    def construct(self, input, target):
        return ops.l1_loss(input, target, self.reduction)
