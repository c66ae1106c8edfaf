"""Rules none of the anchors ship, in the same `ConditionBase` shape so one engine runs them all.

* `LossNotDecreasingCondition(steps=N)`: the loss (a scalar tensor) has not gone below its value N iterations
  ago by more than `min_decrease` (relative), i.e. training stalled or diverged.
* `DeadReluCondition(dead_percentage_ge=...)`: the percentage of units (features along axis 0 = batch) that are
  <= 0 for every sample of the batch: dead ReLUs.
* `FirstNonFiniteCondition()`: the node made the first NaN/Inf: its output is non-finite while its inputs are
  finite. The engine reports only the earliest such node in execution order per iteration and rank.
* `UpdateRatioOutOfBandCondition(ratio_lt=..., ratio_gt=...)`: the update-to-weight ratio
  mean(|W_t - W_t-1|) / mean(|W_t-1|) is outside [ratio_lt, ratio_gt] (about 1e-3 is healthy).

>>> import numpy as np
>>> LossNotDecreasingCondition(steps=2).evaluate(np.float32(2.3), history=[np.float32(2.3), np.float32(2.31)]).hit
True
>>> DeadReluCondition(dead_percentage_ge=50).evaluate(np.array([[0., 1.], [0., 2.]])).hit
True
"""
import numpy as np

from .conditions import (ConditionBase, Evaluation, OperatorOverflowCondition, ParamResult, _as_float,
                         _update_ratio)


class LossNotDecreasingCondition(ConditionBase):
    """Hit when loss_t > loss_{t-steps} * (1 - min_decrease): no progress over `steps` iterations."""
    NAME, CONDITION_ID = "LossNotDecreasing", 101
    PARAMS = {"steps": "count"}
    DEFAULTS = {"min_decrease": 0.0}
    REQUIRES_ONE = False

    def __init__(self, steps=5, min_decrease=0.0):
        super().__init__(steps=steps, min_decrease=min_decrease)
        self.HISTORY = int(self._params["steps"])

    def _evaluate(self, arr, history, inputs):
        now = float(_as_float(arr).mean())
        before = float(_as_float(history[-self.HISTORY]).mean())
        limit = before * (1.0 - self._params["min_decrease"])
        return Evaluation(now >= limit, 0, [ParamResult("steps", self._params["steps"], before - now, now >= limit)])


class DeadReluCondition(ConditionBase):
    """Hit when at least `dead_percentage_ge` percent of the units never fire (<= 0 across the batch)."""
    NAME, CONDITION_ID = "DeadRelu", 102
    PARAMS = {"dead_percentage_ge": "percentage"}

    def __init__(self, dead_percentage_ge=50.0):
        super().__init__(dead_percentage_ge=dead_percentage_ge)

    def _evaluate(self, arr, history, inputs):
        a = _as_float(arr)
        units = (a <= 0).reshape(a.shape[0], -1).all(axis=0) if a.ndim > 1 else (a <= 0)
        pct = 100.0 * float(units.mean()) if units.size else 0.0
        return self._compare({"pct": pct}, {"dead_percentage_ge": ("pct", "ge")})


class FirstNonFiniteCondition(OperatorOverflowCondition):
    """The earliest node (execution order) whose output is non-finite while its inputs are finite."""
    NAME, CONDITION_ID = "FirstNonFinite", 103
    FIRST_ONLY = True


class UpdateRatioOutOfBandCondition(ConditionBase):
    """Hit when the update-to-weight ratio is below `ratio_lt` or above `ratio_gt`."""
    NAME, CONDITION_ID = "UpdateRatioOutOfBand", 104
    PARAMS = {"ratio_lt": "abs", "ratio_gt": "abs"}
    DEFAULTS = {"epsilon": 1e-9}
    HISTORY = 1

    def __init__(self, ratio_lt=1e-5, ratio_gt=1e-1, epsilon=1e-9):
        super().__init__(ratio_lt=ratio_lt, ratio_gt=ratio_gt, epsilon=epsilon)

    def _evaluate(self, arr, history, inputs):
        ratio = _update_ratio(arr, np.asarray(history[-1]), self._params["epsilon"])
        return self._compare({"r": ratio}, {"ratio_lt": ("r", "lt"), "ratio_gt": ("r", "gt")})
