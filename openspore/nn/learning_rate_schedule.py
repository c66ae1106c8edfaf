"""Learning-rate schedules as Cells (`mindspore.nn.learning_rate_schedule`): `schedule(global_step)` returns the
learning rate of that step as a float32 Tensor. An optimizer given a schedule calls it with its `global_step`
every step.

`p = global_step / decay_steps` (floored when `is_stair`) for the decay schedules.

>>> import openspore as ms
>>> from openspore import nn
>>> lr = nn.ExponentialDecayLR(0.1, 0.9, 1)
>>> [round(float(lr(ms.Tensor(s, ms.int32))), 6) for s in range(3)]
[0.1, 0.09, 0.081]
"""
import math

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .cell import Cell
from .dynamic_lr import _check_bool, _check_float, _check_int

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
           "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base of the learning-rate schedules: subclasses implement `construct(global_step)`."""

    def construct(self, global_step):
        raise NotImplementedError(f"For '{type(self).__name__}', the method 'construct' must be overridden.")


def _step(global_step):
    """The step as a float32 Tensor (a Python int is accepted for convenience)."""
    if not isinstance(global_step, Tensor):
        global_step = Tensor(global_step, mstype.int32)
    return ops.cast(global_step, mstype.float32)


class _DecayLR(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        op = type(self).__name__
        self.learning_rate = _check_float(op, "learning_rate", learning_rate, positive=True)
        self.decay_rate = _check_float(op, "decay_rate", decay_rate, positive=True)
        self.decay_steps = _check_int(op, "decay_steps", decay_steps)
        self.is_stair = _check_bool(op, "is_stair", is_stair)

    def _p(self, global_step):
        p = _step(global_step) / float(self.decay_steps)
        return ops.floor(p) if self.is_stair else p


class ExponentialDecayLR(_DecayLR):
    """`ExponentialDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)`: lr * decay_rate ** p."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__(learning_rate, decay_rate, decay_steps, is_stair)
        self._base = Tensor(self.decay_rate, mstype.float32)

    def construct(self, global_step):
        return ops.pow(self._base, self._p(global_step)) * self.learning_rate


class NaturalExpDecayLR(_DecayLR):
    """`NaturalExpDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)`: lr * exp(-decay_rate * p)."""

    def construct(self, global_step):
        return ops.exp(self._p(global_step) * -self.decay_rate) * self.learning_rate


class InverseDecayLR(_DecayLR):
    """`InverseDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)`: lr / (1 + decay_rate * p)."""

    def construct(self, global_step):
        return self.learning_rate / (self._p(global_step) * self.decay_rate + 1.0)


class CosineDecayLR(LearningRateSchedule):
    """`CosineDecayLR(min_lr, max_lr, decay_steps)`: min_lr + (max_lr - min_lr)/2 * (1 + cos(pi * p)) with
    p = min(global_step, decay_steps) / decay_steps."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        op = type(self).__name__
        self.min_lr = _check_float(op, "min_lr", min_lr)
        self.max_lr = _check_float(op, "max_lr", max_lr, positive=True)
        if self.min_lr >= self.max_lr:
            raise ValueError(f"For '{op}', the 'max_lr' must be greater than the 'min_lr', "
                             f"but got 'max_lr' {self.max_lr} and 'min_lr' {self.min_lr}.")
        self.decay_steps = _check_int(op, "decay_steps", decay_steps)

    def construct(self, global_step):
        p = ops.minimum(_step(global_step), float(self.decay_steps)) / float(self.decay_steps)
        return (ops.cos(p * math.pi) + 1.0) * (0.5 * (self.max_lr - self.min_lr)) + self.min_lr


class PolynomialDecayLR(LearningRateSchedule):
    """`PolynomialDecayLR(learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False)`:
    (lr - end_lr) * (1 - p) ** power + end_lr, p = min(step, decay_steps) / decay_steps; with update_decay_steps
    the period is decay_steps * max(ceil(step / decay_steps), 1) and the step is not capped."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        op = type(self).__name__
        self.learning_rate = _check_float(op, "learning_rate", learning_rate, positive=True)
        self.end_learning_rate = _check_float(op, "end_learning_rate", end_learning_rate)
        self.decay_steps = _check_int(op, "decay_steps", decay_steps)
        self.power = _check_float(op, "power", power, positive=True)
        self.update_decay_steps = _check_bool(op, "update_decay_steps", update_decay_steps)
        self._power = Tensor(self.power, mstype.float32)

    def construct(self, global_step):
        step = _step(global_step)
        period = float(self.decay_steps)
        if self.update_decay_steps:
            period = ops.maximum(ops.ceil(step / period), 1.0) * period
        else:
            step = ops.minimum(step, period)
        remaining = 1.0 - step / period
        return ops.pow(remaining, self._power) * (self.learning_rate - self.end_learning_rate) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """`WarmUpLR(learning_rate, warmup_steps)`: lr * min(global_step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        op = type(self).__name__
        self.learning_rate = _check_float(op, "learning_rate", learning_rate, positive=True)
        self.warmup_steps = _check_int(op, "warmup_steps", warmup_steps)

    def construct(self, global_step):
        steps = float(self.warmup_steps)
        return ops.minimum(_step(global_step), steps) * (self.learning_rate / steps)
