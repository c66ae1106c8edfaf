"""Dynamic-LR list builders and learning-rate schedule Cells (facts §1.9 examples, formulas, errors)."""
import math

import numpy as np
import pytest

import openspore as ms
from openspore import nn


# ---- dynamic_lr lists -------------------------------------------------------------------------------------
def test_facts_examples():
    assert nn.piecewise_constant_lr([2, 4], [0.1, 0.01]) == [0.1, 0.1, 0.01, 0.01]
    assert nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2) == pytest.approx([0.1, 0.1, 0.055, 0.055, 0.01, 0.01])
    assert nn.warmup_lr(0.1, 6, 2, 2) == pytest.approx([0.0, 0.0, 0.05, 0.05, 0.1, 0.1])


def test_documented_examples():
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1) == [0.1, 0.1, 0.09000000000000001, 0.09000000000000001,
                                                          0.08100000000000002, 0.08100000000000002]
    assert nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True) == pytest.approx(
        [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657], rel=1e-12)
    assert nn.inverse_decay_lr(0.1, 0.5, 6, 1, 1) == pytest.approx(
        [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574], rel=1e-12)
    assert nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5) == pytest.approx(
        [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01], rel=1e-12)


def test_stair_and_update_variants():
    assert nn.exponential_decay_lr(1.0, 0.5, 4, 1, 2, is_stair=True) == [1.0, 1.0, 0.5, 0.5]
    assert nn.exponential_decay_lr(1.0, 0.5, 2, 1, 2) == pytest.approx([1.0, 0.5 ** 0.5])
    assert nn.inverse_decay_lr(1.0, 1.0, 4, 1, 2, is_stair=True) == [1.0, 1.0, 0.5, 0.5]
    assert nn.natural_exp_decay_lr(1.0, 1.0, 3, 1, 2) == pytest.approx([1.0, math.exp(-1), math.exp(-2)])
    # update_decay_epoch: the period grows to the next multiple of decay_epoch instead of flattening out
    grown = nn.polynomial_decay_lr(0.1, 0.01, 6, 1, 2, 1.0, update_decay_epoch=True)
    assert grown == pytest.approx([0.1, 0.055, 0.01, 0.0325, 0.01, 0.025])
    assert nn.polynomial_decay_lr(0.1, 0.01, 4, 1, 2, 1.0) == pytest.approx([0.1, 0.055, 0.01, 0.01])
    assert nn.cosine_decay_lr(0.0, 1.0, 5, 1, 2) == pytest.approx([1.0, 0.5, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("call,exc,text", [
    (lambda: nn.piecewise_constant_lr([2, 4], [0.1]), ValueError, "size"),
    (lambda: nn.piecewise_constant_lr([4, 2], [0.1, 0.2]), ValueError, "increasing"),
    (lambda: nn.piecewise_constant_lr((2.5,), (0.1,)), TypeError, "milestone"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 0, 2, 1), ValueError, "total_step"),
    (lambda: nn.exponential_decay_lr(1, 0.9, 6, 2, 1), TypeError, "learning_rate"),
    (lambda: nn.natural_exp_decay_lr(0.1, -0.9, 6, 2, 1), ValueError, "decay_rate"),
    (lambda: nn.inverse_decay_lr(0.1, 0.9, 6, 2, 1, is_stair=1), TypeError, "is_stair"),
    (lambda: nn.cosine_decay_lr(0.1, 0.01, 6, 2, 2), ValueError, "max_lr"),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.0), ValueError, "power"),
    (lambda: nn.warmup_lr(0.1, 6, 2, 0), ValueError, "warmup_epoch"),
])
def test_argument_errors(call, exc, text):
    with pytest.raises(exc, match=text):
        call()


# ---- schedule Cells ---------------------------------------------------------------------------------------
def _values(schedule, steps):
    return [float(schedule(ms.Tensor(s, ms.int32))) for s in steps]


def test_exponential_decay_facts_example(backend):
    lr = nn.ExponentialDecayLR(0.1, 0.9, 1)
    assert _values(lr, range(3)) == pytest.approx([0.1, 0.09, 0.081], rel=1e-6)
    out = lr(ms.Tensor(np.array([2], np.int32)))
    assert out.dtype is ms.float32 and out.shape == (1,)
    assert isinstance(lr, nn.LearningRateSchedule) and isinstance(lr, nn.Cell)


def test_decay_schedules_match_formulas(backend):
    steps = range(0, 7)
    p = [s / 3 for s in steps]
    assert _values(nn.ExponentialDecayLR(0.1, 0.5, 3, is_stair=True), steps) == pytest.approx(
        [0.1 * 0.5 ** (s // 3) for s in steps], rel=1e-6)
    assert _values(nn.NaturalExpDecayLR(0.1, 0.5, 3), steps) == pytest.approx(
        [0.1 * math.exp(-0.5 * q) for q in p], rel=1e-6)
    assert _values(nn.NaturalExpDecayLR(0.1, 0.5, 3, True), steps) == pytest.approx(
        [0.1 * math.exp(-0.5 * (s // 3)) for s in steps], rel=1e-6)
    assert _values(nn.InverseDecayLR(0.1, 0.5, 3), steps) == pytest.approx([0.1 / (1 + 0.5 * q) for q in p], rel=1e-6)
    assert _values(nn.CosineDecayLR(0.01, 0.1, 4), steps) == pytest.approx(
        [0.01 + 0.045 * (1 + math.cos(math.pi * min(s, 4) / 4)) for s in steps], rel=1e-5)
    assert _values(nn.WarmUpLR(0.1, 4), steps) == pytest.approx([0.1 * min(s, 4) / 4 for s in steps], rel=1e-6)


def test_polynomial_decay(backend):
    steps = range(0, 8)
    plain = nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)
    assert _values(plain, steps) == pytest.approx(
        [0.09 * (1 - min(s, 4) / 4) ** 0.5 + 0.01 for s in steps], rel=1e-5, abs=1e-7)
    grown = nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, update_decay_steps=True)
    periods = [4 * max(math.ceil(s / 4), 1) for s in steps]
    assert _values(grown, steps) == pytest.approx(
        [0.09 * (1 - s / d) + 0.01 for s, d in zip(steps, periods)], rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("make,exc,text", [
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError, "decay_steps"),
    (lambda: nn.NaturalExpDecayLR(1, 0.9, 2), TypeError, "learning_rate"),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 2, is_stair="yes"), TypeError, "is_stair"),
    (lambda: nn.CosineDecayLR(0.2, 0.1, 2), ValueError, "max_lr"),
    (lambda: nn.PolynomialDecayLR(0.1, -0.1, 2, 1.0), ValueError, "end_learning_rate"),
    (lambda: nn.WarmUpLR(0.1, 2.5), TypeError, "warmup_steps"),
])
def test_schedule_argument_errors(make, exc, text):
    with pytest.raises(exc, match=text):
        make()


def test_optimizer_follows_a_schedule_cell(backend):
    w = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([w], learning_rate=nn.ExponentialDecayLR(1.0, 0.5, 1))
    assert opt.dynamic_lr and float(opt.get_lr()) == 1.0
    for _ in range(3):
        opt((ms.Tensor(np.ones(1, np.float32)),))
    # steps used lr 1, 0.5, 0.25
    assert w.asnumpy().tolist() == pytest.approx([-1.75])
    assert opt.global_step.asnumpy().tolist() == [3]
    assert float(opt.get_lr()) == pytest.approx(0.125)
    assert [p.name for p in opt.get_parameters()] == ["global_step", "w", "momentum", "accum.w", "stat.w"]


def test_optimizer_follows_a_dynamic_lr_list(backend):
    w = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")
    schedule = nn.piecewise_constant_lr([1, 3], [0.5, 0.1])
    opt = nn.Momentum([w], learning_rate=schedule, momentum=0.0)
    for _ in range(3):
        opt((ms.Tensor(np.ones(1, np.float32)),))
    assert w.asnumpy().tolist() == pytest.approx([-0.7])
    names = [(k, p.name, p.shape) for k, p in opt.parameters_and_names()]
    assert names[-1] == ("learning_rate.learning_rate", "learning_rate", (3,))
    with pytest.raises(RuntimeError, match="out of range"):
        opt((ms.Tensor(np.ones(1, np.float32)),))
