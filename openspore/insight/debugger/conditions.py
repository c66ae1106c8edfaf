"""Watchpoint conditions: MindInsight's offline API classes (`TensorTooLargeCondition`, ...) with their
parameters and checks, plus rules MindInsight does not ship. One implementation, used by the offline
`DumpAnalyzer` and by the online session alike (engine.py drives them).

`condition.evaluate(value, history=(), inputs=None)` looks at one tensor (a numpy array), the same tensor in
earlier iterations (`history`, oldest first; change conditions need one) and, for operator conditions, the
node's input arrays; it returns an `Evaluation`.

>>> import numpy as np
>>> TensorTooLargeCondition(max_gt=1.0).evaluate(np.array([0.5, 2.0])).hit
True
>>> TensorOverflowCondition().evaluate(np.array([1.0, np.nan])).hit
True
>>> TensorUnchangedCondition().evaluate(np.ones(3), history=[np.ones(3)]).hit
True
"""
from collections import namedtuple

import numpy as np

# Error-code bits of a hit (MindInsight's WatchpointHit.error_code) and their messages.
ERR_NAN, ERR_INF, ERR_NO_PREV, ERR_MEMORY, ERR_NO_GRAPH_HISTORY, ERR_NO_VALUE = (1 << k for k in range(6))
ERROR_MESSAGES = {ERR_NAN: "Tensor contains NaN.", ERR_INF: "A tensor contains +/-INF.",
                  ERR_NO_PREV: "The previous step value cannot be found.",
                  ERR_MEMORY: "The tensor size exceeds the memory limit.",
                  ERR_NO_GRAPH_HISTORY: "Graph history file is not available.", ERR_NO_VALUE: "Tensor has no value."}


def error_messages(code):
    return [msg for bit, msg in ERROR_MESSAGES.items() if code & bit]


ParamResult = namedtuple("ParamResult", "name threshold actual hit")


class Evaluation:
    """`hit`: the condition holds; `error_code`: why the check could not be trusted or made (bits above);
    `params`: one ParamResult per set parameter (what was compared, with the tensor's actual value)."""

    __slots__ = ("hit", "error_code", "params")

    def __init__(self, hit, error_code=0, params=()):
        self.hit, self.error_code, self.params = bool(hit), int(error_code), list(params)

    def __repr__(self):
        return f"Evaluation(hit={self.hit}, error_code={self.error_code}, params={self.params})"


# ---- statistics ------------------------------------------------------------------------------------------
def _as_float(value):
    arr = np.asarray(value)
    if arr.dtype == np.bool_ or arr.dtype.kind in "iu":
        return arr.astype(np.float64)
    return arr.astype(np.float64, copy=False) if arr.dtype != np.float64 else arr


def nonfinite_code(arr):
    if arr.dtype.kind != "f" or arr.size == 0:
        return 0
    code = ERR_NAN if np.isnan(arr).any() else 0
    return code | (ERR_INF if np.isinf(arr).any() else 0)


def statistics(value):
    """max/min/mean/abs_mean over the finite elements, and the NaN/Inf/zero counts (statistic.csv's columns)."""
    arr = _as_float(value)
    finite = arr[np.isfinite(arr)] if arr.size else arr
    stats = {"count": int(arr.size), "nan_count": int(np.isnan(arr).sum()),
             "neg_inf_count": int(np.isneginf(arr).sum()), "pos_inf_count": int(np.isposinf(arr).sum()),
             "zero_count": int((arr == 0).sum()),
             "neg_zero_count": int(((arr == 0) & np.signbit(arr)).sum()),
             "pos_zero_count": int(((arr == 0) & ~np.signbit(arr)).sum())}
    if finite.size:
        stats.update(max=float(finite.max()), min=float(finite.min()), mean=float(finite.mean()),
                     abs_mean=float(np.abs(finite).mean()))
    else:
        stats.update(max=float("nan"), min=float("nan"), mean=float("nan"), abs_mean=float("nan"))
    return stats


# ---- parameter validation --------------------------------------------------------------------------------
def _check_number(cls, name, value, kind):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{cls}: parameter '{name}' should be a number, but got {value!r}.")
    v = float(value)
    ok = {"normal": np.isfinite(v), "abs": 0 <= v < np.inf, "positive": 0 < v < np.inf,
          "percentage": 0 <= v <= 100, "count": np.isfinite(v) and v >= 1 and v == int(v)}[kind]
    if not ok:
        expected = {"normal": "a finite number", "abs": "a number in [0, inf)", "positive": "a number in (0, inf)",
                    "percentage": "a percentage in [0, 100]", "count": "an integer >= 1"}[kind]
        raise ValueError(f"{cls}: parameter '{name}' should be {expected}, but got {value!r}.")
    return v


class ConditionBase:
    """A watchpoint condition. Subclasses declare `PARAMS` = {name: validator kind} (thresholds; at least one
    must be set unless `REQUIRES_ONE` is False), `DEFAULTS` (hidden parameters) and implement `_evaluate`."""

    NAME = ""
    CONDITION_ID = 0
    PARAMS = {}
    DEFAULTS = {}
    REQUIRES_ONE = True
    HISTORY = 0          # earlier iterations of the same tensor needed
    NEEDS_INPUTS = False  # needs the node's input tensors
    ON_NON_FINITE = "error"  # NaN/Inf in the tensor: 'error' (report with error bits) or 'check' (it is the check)

    def __init__(self, **params):
        cls = type(self).__name__
        for name in params:
            if name not in self.PARAMS and name not in self.DEFAULTS:
                raise ValueError(f"{cls}: unknown parameter '{name}'; expected one of "
                                 f"{sorted(set(self.PARAMS) | set(self.DEFAULTS))}.")
        self._params = {}
        for name, kind in self.PARAMS.items():
            if params.get(name) is not None:
                self._params[name] = _check_number(cls, name, params[name], kind)
        for name, default in self.DEFAULTS.items():
            value = params.get(name, default)
            self._params[name] = value if isinstance(default, bool) else _check_number(cls, name, value, "abs")
        if self.REQUIRES_ONE and self.PARAMS and not any(n in self._params for n in self.PARAMS):
            raise ValueError(f"{cls}: set at least one of {list(self.PARAMS)}.")
        self._validate()

    def _validate(self):
        pass

    @property
    def name(self):
        return self.NAME

    @property
    def condition_id(self):
        return self.CONDITION_ID

    @property
    def param_names(self):
        return [n for n in self.PARAMS if n in self._params]

    @property
    def param_dict(self):
        return dict(self._params)

    def evaluate(self, value, history=(), inputs=None):
        if value is None:
            return Evaluation(False, ERR_NO_VALUE)
        arr = np.asarray(value)
        code = nonfinite_code(arr)
        if code and self.ON_NON_FINITE == "error":
            return Evaluation(True, code)
        if self.HISTORY and len(history) < self.HISTORY:
            return Evaluation(False, ERR_NO_PREV)
        return self._evaluate(arr, list(history), inputs)

    def _evaluate(self, arr, history, inputs):
        raise NotImplementedError

    def _compare(self, actual, ops):
        """ParamResults for each set parameter in `ops` = {name: (actual key, 'gt'|'lt'|'ge')}."""
        out = []
        for name, (key, how) in ops.items():
            if name not in self._params:
                continue
            threshold, value = self._params[name], actual[key]
            hit = {"gt": value > threshold, "lt": value < threshold, "ge": value >= threshold}[how]
            out.append(ParamResult(name, threshold, value, bool(hit)))
        return Evaluation(any(p.hit for p in out), 0, out)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({args})"


_LARGE = {"abs_mean_gt": ("abs_mean", "gt"), "max_gt": ("max", "gt"), "min_gt": ("min", "gt"),
          "mean_gt": ("mean", "gt")}
_SMALL = {"abs_mean_lt": ("abs_mean", "lt"), "max_lt": ("max", "lt"), "min_lt": ("min", "lt"),
          "mean_lt": ("mean", "lt")}


class TensorTooLargeCondition(ConditionBase):
    """Hit when any set statistic exceeds its threshold: abs_mean_gt, max_gt, min_gt, mean_gt."""
    NAME, CONDITION_ID = "TensorTooLarge", 15
    PARAMS = {"abs_mean_gt": "abs", "max_gt": "normal", "min_gt": "normal", "mean_gt": "normal"}

    def __init__(self, abs_mean_gt=None, max_gt=None, min_gt=None, mean_gt=None):
        super().__init__(abs_mean_gt=abs_mean_gt, max_gt=max_gt, min_gt=min_gt, mean_gt=mean_gt)

    def _evaluate(self, arr, history, inputs):
        return self._compare(statistics(arr), _LARGE)


class TensorTooSmallCondition(ConditionBase):
    """Hit when any set statistic is below its threshold: abs_mean_lt, max_lt, min_lt, mean_lt."""
    NAME, CONDITION_ID = "TensorTooSmall", 16
    PARAMS = {"abs_mean_lt": "abs", "max_lt": "normal", "min_lt": "normal", "mean_lt": "normal"}

    def __init__(self, abs_mean_lt=None, max_lt=None, min_lt=None, mean_lt=None):
        super().__init__(abs_mean_lt=abs_mean_lt, max_lt=max_lt, min_lt=min_lt, mean_lt=mean_lt)

    def _evaluate(self, arr, history, inputs):
        return self._compare(statistics(arr), _SMALL)


class TensorRangeCondition(ConditionBase):
    """Percentage of elements inside [range_start_inclusive, range_end_inclusive] compared with
    range_percentage_lt / range_percentage_gt (both ends needed), and MAX-MIN with max_min_lt / max_min_gt."""
    NAME, CONDITION_ID = "TensorRange", 21
    PARAMS = {"range_percentage_lt": "percentage", "range_percentage_gt": "percentage", "max_min_lt": "positive",
              "max_min_gt": "abs", "range_start_inclusive": "normal", "range_end_inclusive": "normal"}

    def __init__(self, range_start_inclusive=None, range_end_inclusive=None, range_percentage_lt=None,
                 range_percentage_gt=None, max_min_lt=None, max_min_gt=None):
        super().__init__(range_start_inclusive=range_start_inclusive, range_end_inclusive=range_end_inclusive,
                         range_percentage_lt=range_percentage_lt, range_percentage_gt=range_percentage_gt,
                         max_min_lt=max_min_lt, max_min_gt=max_min_gt)

    def _validate(self):
        p = self._params
        if not any(k in p for k in ("range_percentage_lt", "range_percentage_gt", "max_min_lt", "max_min_gt")):
            raise ValueError("TensorRangeCondition: set at least one of range_percentage_lt, range_percentage_gt, "
                             "max_min_lt, max_min_gt.")
        if ("range_percentage_lt" in p or "range_percentage_gt" in p) and \
                not ("range_start_inclusive" in p and "range_end_inclusive" in p):
            raise ValueError("TensorRangeCondition: range_percentage_lt/range_percentage_gt need both "
                             "range_start_inclusive and range_end_inclusive.")
        if "range_start_inclusive" in p and "range_end_inclusive" in p and \
                p["range_start_inclusive"] > p["range_end_inclusive"]:
            raise ValueError("TensorRangeCondition: range_start_inclusive is above range_end_inclusive.")

    def _evaluate(self, arr, history, inputs):
        a = _as_float(arr)
        actual = {"max_min": float(a.max() - a.min()) if a.size else 0.0, "pct": 0.0}
        if "range_start_inclusive" in self._params and a.size:
            inside = (a >= self._params["range_start_inclusive"]) & (a <= self._params["range_end_inclusive"])
            actual["pct"] = 100.0 * float(inside.mean())
        return self._compare(actual, {"range_percentage_lt": ("pct", "lt"), "range_percentage_gt": ("pct", "gt"),
                                      "max_min_lt": ("max_min", "lt"), "max_min_gt": ("max_min", "gt")})


class TensorOverflowCondition(ConditionBase):
    """Hit when the tensor holds NaN or +/-Inf."""
    NAME, CONDITION_ID = "TensorOverflow", 13
    ON_NON_FINITE = "check"

    def _evaluate(self, arr, history, inputs):
        if arr.dtype.kind != "f":
            return Evaluation(False)
        nan, inf = int(np.isnan(arr).sum()), int(np.isinf(arr).sum())
        return Evaluation(nan + inf > 0, 0, [ParamResult("nan_count", 0, nan, nan > 0),
                                             ParamResult("inf_count", 0, inf, inf > 0)])


class OperatorOverflowCondition(ConditionBase):
    """Hit when the operator overflowed: its output holds NaN/Inf while all its inputs are finite (on Ascend
    MindSpore reads the overflow status register; here the operator's own inputs and output tell it)."""
    NAME, CONDITION_ID = "OperatorOverflow", 2
    ON_NON_FINITE = "check"
    NEEDS_INPUTS = True

    def _evaluate(self, arr, history, inputs):
        if not nonfinite_code(arr):
            return Evaluation(False)
        if inputs is None:
            return Evaluation(False, ERR_NO_VALUE)
        bad_inputs = sum(1 for x in inputs if x is not None and nonfinite_code(np.asarray(x)))
        return Evaluation(bad_inputs == 0, 0, [ParamResult("non_finite_inputs", 0, bad_inputs, bad_inputs == 0)])


class TensorAllZeroCondition(ConditionBase):
    """Hit when at least `zero_percentage_ge` percent of the elements are 0."""
    NAME, CONDITION_ID = "TensorAllZero", 17
    PARAMS = {"zero_percentage_ge": "percentage"}

    def __init__(self, zero_percentage_ge):
        super().__init__(zero_percentage_ge=zero_percentage_ge)

    def _evaluate(self, arr, history, inputs):
        pct = 100.0 * float((arr == 0).mean()) if arr.size else 0.0
        return self._compare({"pct": pct}, {"zero_percentage_ge": ("pct", "ge")})


class InitialWeightCondition(ConditionBase):
    """MindInsight's weight_initialization (step 0): zero_percentage_ge (default 100), max_gt, min_lt."""
    NAME, CONDITION_ID = "InitialWeight", 14
    PARAMS = {"zero_percentage_ge": "percentage", "max_gt": "normal", "min_lt": "normal"}
    REQUIRES_ONE = False

    def __init__(self, zero_percentage_ge=100, max_gt=None, min_lt=None):
        super().__init__(zero_percentage_ge=zero_percentage_ge, max_gt=max_gt, min_lt=min_lt)

    def _evaluate(self, arr, history, inputs):
        actual = statistics(arr)
        actual["pct"] = 100.0 * float((arr == 0).mean()) if arr.size else 0.0
        return self._compare(actual, {"zero_percentage_ge": ("pct", "ge"), "max_gt": ("max", "gt"),
                                      "min_lt": ("min", "lt")})


class TensorUnchangedCondition(ConditionBase):
    """Hit when the tensor equals its previous-iteration value within `rtol`/`atol` (allclose)."""
    NAME, CONDITION_ID = "TensorUnchanged", 20
    PARAMS = {"rtol": "abs"}
    DEFAULTS = {"atol": 1e-8, "equal_nan": False}
    REQUIRES_ONE = False
    HISTORY = 1

    def __init__(self, rtol=1e-5, atol=1e-8, equal_nan=False):
        super().__init__(rtol=rtol, atol=atol, equal_nan=equal_nan)

    def _evaluate(self, arr, history, inputs):
        prev = np.asarray(history[-1])
        same = prev.shape == arr.shape and bool(np.allclose(_as_float(arr), _as_float(prev), rtol=self._params["rtol"],
                                                            atol=self._params["atol"],
                                                            equal_nan=self._params["equal_nan"]))
        diff = float(np.abs(_as_float(arr) - _as_float(prev)).max()) if prev.shape == arr.shape and arr.size else 0.0
        return Evaluation(same, 0, [ParamResult("rtol", self._params["rtol"], diff, same)])


def _update_ratio(arr, prev, epsilon):
    a, p = _as_float(arr), _as_float(prev)
    return float(np.abs(a - p).mean() / (np.abs(p).mean() + epsilon)) if a.size else 0.0


class TensorChangeBelowThresholdCondition(ConditionBase):
    """Hit when mean(|W_t - W_t-1|) / (mean(|W_t-1|) + epsilon) < abs_mean_update_ratio_lt."""
    NAME, CONDITION_ID = "TensorChangeBelowThreshold", 19
    PARAMS = {"abs_mean_update_ratio_lt": "abs"}
    DEFAULTS = {"epsilon": 1e-9}
    HISTORY = 1

    def __init__(self, abs_mean_update_ratio_lt, epsilon=1e-9):
        super().__init__(abs_mean_update_ratio_lt=abs_mean_update_ratio_lt, epsilon=epsilon)

    def _evaluate(self, arr, history, inputs):
        ratio = _update_ratio(arr, history[-1], self._params["epsilon"])
        return self._compare({"ratio": ratio}, {"abs_mean_update_ratio_lt": ("ratio", "lt")})


class TensorChangeAboveThresholdCondition(ConditionBase):
    """Hit when mean(|W_t - W_t-1|) / (mean(|W_t-1|) + epsilon) > abs_mean_update_ratio_gt."""
    NAME, CONDITION_ID = "TensorChangeAboveThreshold", 18
    PARAMS = {"abs_mean_update_ratio_gt": "abs"}
    DEFAULTS = {"epsilon": 1e-9}
    HISTORY = 1

    def __init__(self, abs_mean_update_ratio_gt, epsilon=1e-9):
        super().__init__(abs_mean_update_ratio_gt=abs_mean_update_ratio_gt, epsilon=epsilon)

    def _evaluate(self, arr, history, inputs):
        ratio = _update_ratio(arr, history[-1], self._params["epsilon"])
        return self._compare({"ratio": ratio}, {"abs_mean_update_ratio_gt": ("ratio", "gt")})
