"""`MultiplicativeLR`, `PolynomialLR`, `CosineAnnealingWarmRestarts` and `CyclicLR` of
`mindspore.experimental.optim.lr_scheduler`: torch.optim.lr_scheduler's rates (MindSpore 2.10 gives the same
sequences; checked side by side), computed in float32 from the groups' current rates where torch's form is
recursive.

>>> import numpy as np, openspore as ms
>>> from openspore.experimental import optim
>>> opt = optim.SGD([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")], lr=0.1)
>>> scheduler = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
>>> rates = []
>>> for _ in range(4):
...     rates.append(round(float(scheduler.get_last_lr()[0]), 4)); _ = scheduler.step()
>>> rates
[0.1, 0.05, 0.1, 0.05]
"""
import math
from numbers import Real

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ... import ops
from .lr_base import LRScheduler, lr_lambdas_per_group

__all__ = ["MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts", "CyclicLR"]


def _per_group(optimizer, name, value):
    """One value per parameter group: a list/tuple of that length, or one value repeated."""
    groups = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != groups:
            raise ValueError(f"Expected {groups} values for {name}, got {len(value)}")
        return list(value)
    return [value] * groups


class MultiplicativeLR(LRScheduler):
    """`MultiplicativeLR(optimizer, lr_lambda, last_epoch=-1)`: each epoch multiplies the rate by
    lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = lr_lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch = self._current(), self._epoch
        if epoch <= 0:
            return lrs
        return [lr * fn(epoch) for fn, lr in zip(self.lr_lambdas, lrs)]


class PolynomialLR(LRScheduler):
    """`PolynomialLR(optimizer, total_iters=5, power=1.0, last_epoch=-1)`: the rate decays as
    (1 - epoch/total_iters)^power times the initial rate, reaching 0 at total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        if isinstance(total_iters, bool) or not isinstance(total_iters, int) or total_iters < 0:
            raise ValueError(f"For 'PolynomialLR', 'total_iters' must be a non-negative int, but got {total_iters!r}.")
        if isinstance(power, bool) or not isinstance(power, Real):
            raise TypeError(f"For 'PolynomialLR', 'power' must be a float or an int, but got {type(power).__name__}.")
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, epoch, total = self._current(), self._epoch, self.total_iters
        if epoch == 0 or epoch > total:
            return lrs
        factor = ((1.0 - epoch / total) / (1.0 - (epoch - 1) / total)) ** self.power
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        left = 1.0 - min(self.total_iters, self._epoch) / self.total_iters if self.total_iters else 0.0
        return [base * left ** self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """`CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1)`: cosine annealing from
    the initial rate to eta_min over T_i epochs, then a restart; T_0 is the first period and each next one is
    T_mult times longer. `T_cur` (epochs since the restart) and `T_i` are attributes, as in MindSpore."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1):  # noqa: N803  (the API's names)
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"T_0 should be an integer and equal or greater than 0, but got {T_0}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"T_mult should be an integer and equal or greater than 1, but got {T_mult}")
        if isinstance(eta_min, bool) or not isinstance(eta_min, Real):
            raise TypeError(f"The type of 'eta_min' should be one of '['float', 'int']', "
                            f"but got type '{type(eta_min).__name__}'.")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min  # noqa: N815
        self.T_cur = last_epoch  # noqa: N815
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        share = (1.0 + math.cos(math.pi * self.T_cur / self.T_i)) / 2.0
        return [self.eta_min + (base - self.eta_min) * share for base in self.base_lrs]

    def _place(self, epoch):
        """T_cur and T_i for an absolute epoch: the restarts before it are the sums of the geometric periods."""
        if epoch < self.T_0:
            return epoch, self.T_0
        if self.T_mult == 1:
            return epoch % self.T_0, self.T_0
        n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
        return epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1), self.T_0 * self.T_mult ** n

    def step(self, epoch=None):
        """Advance one epoch (restarting when the period ends) or jump to `epoch` (it may be fractional)."""
        if epoch is None and self._epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self._epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur - self.T_i, self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self.T_cur, self.T_i = self._place(epoch)
        ops.assign(self.last_epoch, float(math.floor(epoch)))
        self._write(self.get_lr())
        return True


class CyclicLR(LRScheduler):
    """`CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular', gamma=1.0,
    scale_fn=None, scale_mode='cycle', last_epoch=-1)`: the rate climbs from base_lr to max_lr over step_size_up
    steps and back over step_size_down; the amplitude is scaled per cycle ('triangular': 1, 'triangular2': halved
    each cycle) or per step ('exp_range': gamma^step), or by `scale_fn` of the cycle or step (`scale_mode`).
    Starting fresh, it sets the groups' rates to base_lr."""

    _MODES = {"triangular": (lambda x: 1.0, "cycle"), "triangular2": (lambda x: 1.0 / 2.0 ** (x - 1), "cycle")}

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1):
        base_lrs = [float(v) for v in _per_group(optimizer, "base_lr", base_lr)]
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                ops.assign(group["lr"], lr)
        self.max_lrs = [float(v) for v in _per_group(optimizer, "max_lr", max_lr)]
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        if up <= 0 or down <= 0:
            raise ValueError(f"For 'CyclicLR', 'step_size_up' and 'step_size_down' must be positive, "
                             f"but got {step_size_up} and {step_size_down}.")
        self.total_step_size = up + down
        self.step_up_ratio = up / self.total_step_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"For 'CyclicLR', 'scale_mode' must be 'cycle' or 'iterations', but got {scale_mode!r}.")
        self.mode, self.gamma = mode, gamma
        if scale_fn is not None:
            self._scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "exp_range":
            self._scale_fn, self.scale_mode = (lambda x: gamma ** x), "iterations"
        else:
            self._scale_fn, self.scale_mode = self._MODES[mode]
        self._cycle_bases = base_lrs
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def get_lr(self):
        epoch = self._epoch
        cycle = math.floor(1 + epoch / self.total_step_size)
        # The position in the cycle is taken in float32 from the float32 epoch, as MindSpore does, so the rates
        # round as its do; the scale function gets the whole cycle or step number (a Python int).
        now = Tensor(float(epoch), mstype.float32)
        x = 1.0 + now / self.total_step_size - float(cycle)
        if float(x) <= self.step_up_ratio:
            rise = x / self.step_up_ratio
        else:
            rise = (x - 1.0) / (self.step_up_ratio - 1.0)
        scale = self._scale_fn(cycle if self.scale_mode == "cycle" else epoch)
        return [(top - base) * rise * scale + base for base, top in zip(self._cycle_bases, self.max_lrs)]
