"""Every watchpoint rule with tensors that must and must not trigger it."""
import math

import numpy as np
import pytest

from openspore.insight.debugger import (CONDITIONS, DeadReluCondition, FirstNonFiniteCondition,
                                        InitialWeightCondition, LossNotDecreasingCondition,
                                        OperatorOverflowCondition, TensorAllZeroCondition,
                                        TensorChangeAboveThresholdCondition, TensorChangeBelowThresholdCondition,
                                        TensorOverflowCondition, TensorRangeCondition, TensorTooLargeCondition,
                                        TensorTooSmallCondition, TensorUnchangedCondition,
                                        UpdateRatioOutOfBandCondition, make_condition, tuning_hints)
from openspore.insight.debugger.conditions import ERR_INF, ERR_NAN, ERR_NO_PREV, ERR_NO_VALUE

A = np.array
W = A([[0.5, -0.5], [1.0, -1.0]], np.float32)

# (condition, value, history, inputs, must hit)
CASES = [
    (TensorTooLargeCondition(abs_mean_gt=0.7), W, (), None, True),
    (TensorTooLargeCondition(abs_mean_gt=0.8), W, (), None, False),
    (TensorTooLargeCondition(max_gt=0.9), W, (), None, True),
    (TensorTooLargeCondition(max_gt=1.0), W, (), None, False),
    (TensorTooLargeCondition(min_gt=-1.5), W, (), None, True),
    (TensorTooLargeCondition(mean_gt=0.1), W, (), None, False),
    (TensorTooSmallCondition(abs_mean_lt=0.8), W, (), None, True),
    (TensorTooSmallCondition(abs_mean_lt=0.7), W, (), None, False),
    (TensorTooSmallCondition(max_lt=1.5), W, (), None, True),
    (TensorTooSmallCondition(min_lt=-1.0), W, (), None, False),
    (TensorTooSmallCondition(mean_lt=0.1), W, (), None, True),
    (TensorRangeCondition(range_start_inclusive=-0.5, range_end_inclusive=0.5, range_percentage_gt=40), W, (), None,
     True),
    (TensorRangeCondition(range_start_inclusive=-0.5, range_end_inclusive=0.5, range_percentage_gt=50), W, (), None,
     False),
    (TensorRangeCondition(range_start_inclusive=-0.5, range_end_inclusive=0.5, range_percentage_lt=60), W, (), None,
     True),
    (TensorRangeCondition(max_min_gt=1.5), W, (), None, True),
    (TensorRangeCondition(max_min_lt=1.5), W, (), None, False),
    (TensorOverflowCondition(), A([1.0, np.inf]), (), None, True),
    (TensorOverflowCondition(), A([1.0, np.nan]), (), None, True),
    (TensorOverflowCondition(), A([1.0, 1e38], np.float32), (), None, False),
    (TensorOverflowCondition(), A([1, 2], np.int32), (), None, False),
    (OperatorOverflowCondition(), A([np.inf]), (), [A([1e30]), A([1e30])], True),
    (OperatorOverflowCondition(), A([np.inf]), (), [A([np.inf])], False),
    (OperatorOverflowCondition(), A([1.0]), (), [A([1.0])], False),
    (TensorAllZeroCondition(zero_percentage_ge=100), np.zeros(4), (), None, True),
    (TensorAllZeroCondition(zero_percentage_ge=100), A([0, 0, 0, 1e-9]), (), None, False),
    (TensorAllZeroCondition(zero_percentage_ge=50), A([0, 0, 1, 1]), (), None, True),
    (InitialWeightCondition(), np.zeros((2, 2)), (), None, True),
    (InitialWeightCondition(), W, (), None, False),
    (InitialWeightCondition(zero_percentage_ge=100, max_gt=0.9), W, (), None, True),
    (TensorUnchangedCondition(), W, [W.copy()], None, True),
    (TensorUnchangedCondition(), W, [W * 1.01], None, False),
    (TensorUnchangedCondition(rtol=0.1), W, [W * 1.01], None, True),
    (TensorChangeAboveThresholdCondition(abs_mean_update_ratio_gt=0.1), W, [W * 0.5], None, True),
    (TensorChangeAboveThresholdCondition(abs_mean_update_ratio_gt=0.1), W, [W * 0.99], None, False),
    (TensorChangeBelowThresholdCondition(abs_mean_update_ratio_lt=1e-4), W, [W.copy()], None, True),
    (TensorChangeBelowThresholdCondition(abs_mean_update_ratio_lt=1e-4), W, [W * 0.9], None, False),
    (LossNotDecreasingCondition(steps=2), A(2.0), [A(2.0), A(2.1)], None, True),
    (LossNotDecreasingCondition(steps=2), A(1.5), [A(2.0), A(1.8)], None, False),
    (LossNotDecreasingCondition(steps=1, min_decrease=0.1), A(1.9), [A(2.0)], None, True),
    (DeadReluCondition(dead_percentage_ge=50), A([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), (), None, True),
    (DeadReluCondition(dead_percentage_ge=50), A([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]), (), None, False),
    (FirstNonFiniteCondition(), A([np.nan]), (), [A([0.0])], True),
    (FirstNonFiniteCondition(), A([np.nan]), (), [A([np.nan])], False),
    (UpdateRatioOutOfBandCondition(), W, [W * 0.5], None, True),
    (UpdateRatioOutOfBandCondition(), W, [W.copy()], None, True),
    (UpdateRatioOutOfBandCondition(), W, [W * 0.999], None, False),
]


@pytest.mark.parametrize("cond, value, history, inputs, expected", CASES,
                         ids=[f"{c!r}-{e}" for c, _, _, _, e in CASES])
def test_rule_triggers_exactly_when_it_should(cond, value, history, inputs, expected):
    ev = cond.evaluate(value, history, inputs)
    assert ev.hit is expected, ev
    assert ev.error_code == 0


def test_every_mindinsight_condition_is_listed_with_its_abbreviation():
    abbrs = [CONDITIONS[c][0] for c in list(CONDITIONS)[:17]]
    assert abbrs == ["WI", "WO", "WL", "WS", "GV", "GL", "GE", "TO", "OO", "TL", "TS", "TZ", "WNC", "WCL", "WCS",
                     "AR", "TR"]
    assert make_condition("weight_not_changed").param_dict == {"rtol": 1e-5, "atol": 1e-8, "equal_nan": False}
    assert make_condition("tensor_all_zero").param_dict == {"zero_percentage_ge": 100}
    assert make_condition("weight_change_too_small").param_dict["abs_mean_update_ratio_lt"] == 1e-4


def test_error_codes():
    ev = TensorTooLargeCondition(max_gt=1).evaluate(A([np.nan, np.inf, 0.0]))
    assert ev.hit and ev.error_code == ERR_NAN | ERR_INF
    assert TensorUnchangedCondition().evaluate(W).error_code == ERR_NO_PREV
    assert TensorOverflowCondition().evaluate(None).error_code == ERR_NO_VALUE


@pytest.mark.parametrize("make, message", [
    (lambda: TensorTooLargeCondition(), "at least one"),
    (lambda: TensorTooLargeCondition(abs_mean_gt=-1), r"\[0, inf\)"),
    (lambda: TensorTooLargeCondition(max_gt=math.inf), "finite"),
    (lambda: TensorAllZeroCondition(zero_percentage_ge=101), "percentage"),
    (lambda: TensorRangeCondition(range_percentage_lt=10), "range_start_inclusive"),
    (lambda: TensorRangeCondition(max_min_lt=0), r"\(0, inf\)"),
    (lambda: TensorTooSmallCondition(max_lt="1"), "number"),
    (lambda: make_condition("weight_exploding"), "unknown watchpoint condition"),
])
def test_bad_parameters_get_clear_errors(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_tuning_hints_follow_the_node_category():
    assert "learning rate" in tuning_hints(TensorOverflowCondition(), "weight")[0]
    assert tuning_hints(TensorOverflowCondition(), "tensor") == ["Check whether the input tensor of the operator is "
                                                                 "normal."]
    assert any("frozen" in h for h in tuning_hints(TensorUnchangedCondition(), "weight"))
