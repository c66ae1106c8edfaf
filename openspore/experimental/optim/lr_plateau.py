"""`ReduceLROnPlateau` and `SequentialLR` of `mindspore.experimental.optim.lr_scheduler`: schedules driven by a
measured metric, and by other schedulers in turn. Semantics are torch.optim.lr_scheduler's (MindSpore 2.10 gives
the same sequences; checked side by side).

>>> import numpy as np, openspore as ms
>>> from openspore.experimental import optim
>>> opt = optim.SGD([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")], lr=0.1)
>>> scheduler = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
>>> for loss in [1.0, 0.8, 0.9, 0.9]:
...     _ = scheduler.step(loss)
>>> round(float(opt.param_groups[0]["lr"]), 4)
0.05
"""
from bisect import bisect_right
from numbers import Real

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ... import ops
from .lr_base import LRScheduler
from .optimizer import Optimizer

__all__ = ["ReduceLROnPlateau", "SequentialLR"]


class ReduceLROnPlateau:
    """`ReduceLROnPlateau(optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4, threshold_mode='rel',
    cooldown=0, min_lr=0, eps=1e-8)`: `step(metrics)` after each evaluation; when the metric has not improved
    (by `threshold`, relative or absolute) for more than `patience` steps, every rate is multiplied by `factor`
    (not below `min_lr`, and only when it moves by more than `eps`), then `cooldown` steps pass unwatched."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if factor >= 1.0:
            raise ValueError("The lr factor should be less than 1.0.")
        if mode not in ("min", "max"):
            raise ValueError(f"`mode` should be 'min' or 'max', but got {mode}.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"`threshold mode` should be 'rel' or 'abs', but got {threshold_mode}.")
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != groups:
                raise ValueError(f"Expected {groups} min_lrs, got {len(min_lr)}")
            self.min_lrs = [float(v) for v in min_lr]
        else:
            self.min_lrs = [float(min_lr)] * groups
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, factor, patience
        self.threshold, self.threshold_mode, self.cooldown, self.eps = threshold, threshold_mode, cooldown, eps
        self.mode_worse = float("inf") if mode == "min" else float("-inf")
        self.best, self.wait, self.cooldown_counter, self.last_epoch = self.mode_worse, 0, 0, 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def get_last_lr(self):
        """The groups' current rates, one float32 Tensor per group."""
        return [Tensor(lr.asnumpy()) for lr in self._last_lr]

    def _is_better(self, current):
        if self.mode == "min":
            bound = self.best * (1.0 - self.threshold) if self.threshold_mode == "rel" else self.best - self.threshold
            return current < bound
        bound = self.best * (1.0 + self.threshold) if self.threshold_mode == "rel" else self.best + self.threshold
        return current > bound

    def step(self, metrics):
        """Record one measurement of the watched metric (a number or a one-element Tensor)."""
        if isinstance(metrics, Tensor):
            current = float(metrics.asnumpy().reshape(-1)[0]) if metrics.size == 1 else None
        elif isinstance(metrics, Real) and not isinstance(metrics, bool):
            current = float(metrics)
        else:
            current = None
        if current is None:
            raise TypeError(f"For 'ReduceLROnPlateau.step', 'metrics' must be a number or a one-element Tensor, "
                            f"but got {metrics!r}.")
        self.last_epoch += 1
        if self._is_better(current):
            self.best, self.wait = current, 0
        else:
            self.wait += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.wait > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.wait = self.cooldown, 0
        return True

    def _reduce_lr(self):
        for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                ops.assign(group["lr"], Tensor(new, mstype.float32))


class SequentialLR:
    """`SequentialLR(optimizer, schedulers, milestones, last_epoch=-1)`: schedulers[i] drives the rates from
    milestones[i-1] on (each starts over, `step(0)`, at its milestone)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        schedulers, milestones = list(schedulers), list(milestones)
        if len(schedulers) != len(milestones) + 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones {len(milestones)}")
        for i, scheduler in enumerate(schedulers):
            if not isinstance(scheduler, LRScheduler):
                raise TypeError(f"Sequential Schedulers expects schedulers to be LRScheduler instances, but got "
                                f"{type(scheduler).__name__} at index {i}.")
            if scheduler.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                                 f"got scheduler at index {i} is different from the optimizer passed in.")
        self.optimizer, self._schedulers, self._milestones = optimizer, schedulers, milestones
        self.last_epoch = last_epoch + 1
        # Each scheduler already stepped once when built: put the initial rates back, undo those steps, and
        # let only the first scheduler take its first step.
        for group in optimizer.param_groups:
            ops.assign(group["lr"], Tensor(float(group["initial_lr"]), mstype.float32))
        for scheduler in schedulers:
            ops.assign(scheduler.last_epoch, scheduler.last_epoch - 1.0)
        schedulers[0].step()

    def get_last_lr(self):
        """The rates the scheduler now in charge set last, one float32 Tensor per group."""
        return self._schedulers[bisect_right(self._milestones, self.last_epoch)].get_last_lr()

    def step(self):
        """Advance one epoch with the scheduler in charge of it (restarted at its milestone)."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        return True
