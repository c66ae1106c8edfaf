"""PyTorch-style learning-rate schedulers for `experimental.optim` optimizers: `scheduler.step()` (usually once
per epoch) writes the next rate into every group's 'lr' Parameter.

Rates follow torch.optim.lr_scheduler's recursive ("chainable") forms, computed in float32 from the current
group rates; `step(epoch)` uses the closed form where one exists.
"""
import math
from bisect import bisect_right
from collections import Counter

import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from .lr_base import LRScheduler, lr_lambdas_per_group
from .lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, MultiplicativeLR, PolynomialLR
from .lr_plateau import ReduceLROnPlateau, SequentialLR

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "ConstantLR", "LambdaLR",
           "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR", "MultiplicativeLR", "PolynomialLR",
           "ReduceLROnPlateau", "SequentialLR"]


class StepLR(LRScheduler):
    """`StepLR(optimizer, step_size, gamma=0.1, last_epoch=-1)`: multiply by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch = self._current(), self._epoch
        if epoch == 0 or epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self._epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """`MultiStepLR(optimizer, milestones, gamma=0.1, last_epoch=-1)`: multiply by gamma at each milestone."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch = self._current(), self._epoch
        if epoch not in self.milestones:
            return lrs
        return [lr * self.gamma ** self.milestones[epoch] for lr in lrs]

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self._epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """`ExponentialLR(optimizer, gamma, last_epoch=-1)`: multiply by gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current()
        return lrs if self._epoch == 0 else [lr * self.gamma for lr in lrs]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self._epoch for base in self.base_lrs]


class LinearLR(LRScheduler):
    """`LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5, last_epoch=-1)`: the factor moves
    linearly from start_factor to end_factor over total_iters epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if not 0 < start_factor <= 1.0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if not 0 <= end_factor <= 1.0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch = self._current(), self._epoch
        if epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if epoch > self.total_iters:
            return lrs
        # The factor is taken in float32 from the float32 epoch, as MindSpore does, so the rates round as its do.
        delta = self.end_factor - self.start_factor
        now = Tensor(float(epoch), mstype.float32)
        factor = 1.0 + delta / ((now - 1.0) * delta + self.total_iters * self.start_factor)
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        share = min(self.total_iters, self._epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * share) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """`ConstantLR(optimizer, factor=1/3, total_iters=5, last_epoch=-1)`: rate * factor until total_iters."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1.0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch = self._current(), self._epoch
        if epoch == 0:
            return [lr * self.factor for lr in lrs]
        if epoch != self.total_iters:
            return lrs
        return [lr / self.factor for lr in lrs]

    def _get_closed_form_lr(self):
        factor = 1.0 if self._epoch >= self.total_iters else self.factor
        return [base * factor for base in self.base_lrs]


class LambdaLR(LRScheduler):
    """`LambdaLR(optimizer, lr_lambda, last_epoch=-1)`: initial rate * lr_lambda(epoch) (one function, or one per
    group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = lr_lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self._epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class CosineAnnealingLR(LRScheduler):
    """`CosineAnnealingLR(optimizer, T_max, eta_min=0.0, last_epoch=-1)`: half a cosine from the initial rate to
    eta_min over T_max epochs (and back up over the next T_max, as torch)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803  (PyTorch's argument name)
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch, period = self._current(), self._epoch, self.T_max
        if epoch == 0:
            return lrs
        # The cosines are taken in float32 from the float32 epoch (host-side numpy scalars), as MindSpore does:
        # each step's ratio then rounds nearly as MindSpore's (its cosine kernel may differ by an ulp), and the
        # recursive rates stay within 1e-6 of its (float64 cosines drifted 2.6e-6 apart within two periods).
        f32, pi = np.float32, np.float32(math.pi)
        if (epoch - 1 - period) % (2 * period) == 0:
            fall = f32(1.0) - np.cos(pi / f32(period))
            return [lr + float(f32(f32(base - self.eta_min) * fall) / f32(2.0)) for lr, base in zip(lrs, self.base_lrs)]
        now = f32(epoch)
        ratio = (f32(1.0) + np.cos(pi * now / f32(period))) / (f32(1.0) + np.cos(pi * (now - f32(1.0)) / f32(period)))
        return [(lr - self.eta_min) * float(ratio) + self.eta_min for lr in lrs]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self._epoch / self.T_max)) / 2
                for base in self.base_lrs]
