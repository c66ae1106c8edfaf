"""`experimental.optim.lr_scheduler`: the schedulers added for MindSpore 2.x parity, chained and resumed ones,
against torch.optim.lr_scheduler and against sequences recorded from MindSpore 2.10.

The literal sequences below were printed once by a script run against the real MindSpore 2.10 (an SGD with two
groups, lr 0.1 and 0.05; `get_last_lr()[0]` before each of ten `step()` calls); they equal torch's too.
"""
import warnings

import numpy as np
import pytest
import torch

import openspore as ms
from openspore.experimental import optim

LS = optim.lr_scheduler


def _opt(lr=0.1):
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    b = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="b")
    return optim.SGD([{"params": [w]}, {"params": [b], "lr": lr / 2}], lr=lr)


def _topt(lr=0.1):
    return torch.optim.SGD([{"params": [torch.nn.Parameter(torch.zeros(1))]},
                            {"params": [torch.nn.Parameter(torch.zeros(1))], "lr": lr / 2}], lr=lr)


def _sequence(opt, schedulers, steps=10):
    rates = []
    for _ in range(steps):
        last = [float(x) for x in schedulers[-1].get_last_lr()]
        assert last == pytest.approx([float(g["lr"]) for g in opt.param_groups], rel=1e-6, abs=1e-9)
        rates.append(last)
        for s in schedulers:
            s.step()
    return rates


def _torch_sequence(opt, schedulers, steps=10):
    rates = []
    for _ in range(steps):
        rates.append(list(schedulers[-1].get_last_lr()))
        opt.step()
        for s in schedulers:
            s.step()
    return rates


BUILDERS = {  # the same construction for both libraries; `L` is the lr_scheduler module
    "MultiplicativeLR": lambda L, o: [L.MultiplicativeLR(o, lambda e: 0.95)],
    "MultiplicativeLR_groups": lambda L, o: [L.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.0 / (e + 1)])],
    "PolynomialLR": lambda L, o: [L.PolynomialLR(o, total_iters=4, power=2.0)],
    "PolynomialLR_default": lambda L, o: [L.PolynomialLR(o)],
    "CosineAnnealingWarmRestarts": lambda L, o: [L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)],
    "CosineAnnealingWarmRestarts_1": lambda L, o: [L.CosineAnnealingWarmRestarts(o, T_0=2)],
    "CyclicLR": lambda L, o: [L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2)],
    "CyclicLR_triangular2": lambda L, o: [L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3,
                                                     mode="triangular2")],
    "CyclicLR_exp_range": lambda L, o: [L.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3,
                                                   mode="exp_range", gamma=0.9)],
    "CyclicLR_scale_fn": lambda L, o: [L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                  scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations")],
    "SequentialLR": lambda L, o: [L.SequentialLR(o, [L.ConstantLR(o, factor=0.5, total_iters=2),
                                                     L.ExponentialLR(o, gamma=0.9)], milestones=[3])],
    "SequentialLR_3": lambda L, o: [L.SequentialLR(o, [L.LinearLR(o, start_factor=0.2, total_iters=2),
                                                       L.StepLR(o, 2, 0.5), L.ExponentialLR(o, gamma=0.8)],
                                                   milestones=[2, 5])],
    # chained: several schedulers stepping the same optimizer, each from the rate the others left
    "chain_step_exp": lambda L, o: [L.StepLR(o, step_size=2, gamma=0.5), L.ExponentialLR(o, gamma=0.9)],
    "chain_const_cos": lambda L, o: [L.ConstantLR(o, factor=0.5, total_iters=2), L.CosineAnnealingLR(o, T_max=4)],
    "chain_linear_multistep": lambda L, o: [L.LinearLR(o, start_factor=0.5, total_iters=3),
                                            L.MultiStepLR(o, milestones=[2, 4], gamma=0.1)],
    "chain_poly_mult": lambda L, o: [L.PolynomialLR(o, total_iters=6), L.MultiplicativeLR(o, lambda e: 0.9)],
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_sequences_match_torch(name):
    opt, topt = _opt(), _topt()
    ours = _sequence(opt, BUILDERS[name](LS, opt))
    theirs = _torch_sequence(topt, BUILDERS[name](torch.optim.lr_scheduler, topt))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-8)


MINDSPORE_2_10 = {
    "CosineAnnealingWarmRestarts": [0.1, 0.0775, 0.0325, 0.1, 0.09397115, 0.0775, 0.055, 0.0325, 0.01602885, 0.1],
    "CyclicLR_triangular2": [0.01, 0.055, 0.1, 0.07, 0.04, 0.01, 0.0325, 0.055, 0.04, 0.025],
    "SequentialLR_3": [0.02, 0.06, 0.1, 0.1, 0.05, 0.1, 0.08, 0.064, 0.0512, 0.04096],
    "chain_const_cos": [0.05, 0.04267767, 0.05, 0.01464466, 0.0, 0.01464466, 0.05, 0.08535533, 0.1, 0.08535533],
    "MultiplicativeLR": [0.1, 0.095, 0.09025, 0.0857375, 0.08145062, 0.07737809, 0.07350918, 0.06983372,
                         0.06634203, 0.06302493],
}


@pytest.mark.parametrize("name", sorted(MINDSPORE_2_10))
def test_sequences_match_recorded_mindspore(name):
    opt = _opt()
    ours = [r[0] for r in _sequence(opt, BUILDERS[name](LS, opt))]
    np.testing.assert_allclose(ours, MINDSPORE_2_10[name], rtol=2e-6, atol=1e-8)


RESUMED_MINDSPORE_2_10 = {  # get_last_lr()[0] before each of five step() calls, recorded from MindSpore 2.10
    "StepLR": (dict(step_size=2, gamma=0.5), [0.1, 0.05, 0.05, 0.025, 0.025]),
    "ExponentialLR": (dict(gamma=0.8), [0.08, 0.064, 0.0512, 0.04096, 0.032768]),
    "CosineAnnealingLR": (dict(T_max=3), [0.0, 0.05, 0.15, 0.2, 0.15]),
    "LinearLR": (dict(start_factor=0.25, total_iters=4), [0.13, 0.16, 0.16, 0.16, 0.16]),
    "ConstantLR": (dict(factor=0.5, total_iters=3), [0.2, 0.2, 0.2, 0.2, 0.2]),
    "MultiStepLR": (dict(milestones=[3, 5]), [0.01, 0.01, 0.001, 0.001, 0.001]),
    "PolynomialLR": (dict(total_iters=6), [0.075, 0.05, 0.025, 0.0, 0.0]),
    "CosineAnnealingWarmRestarts": (dict(T_0=3), [0.2, 0.15, 0.05, 0.2, 0.15]),
    "LambdaLR": (dict(lr_lambda=lambda e: 0.5 ** e), [0.025, 0.0125, 0.00625, 0.003125, 0.0015625]),
}


@pytest.mark.parametrize("name", sorted(RESUMED_MINDSPORE_2_10))
def test_resuming_with_last_epoch_matches_mindspore(name):
    """last_epoch=2 with 'initial_lr' 0.2 in the group and the current rate 0.1. MindSpore 2.10 takes the first
    step from the current rate (recursive form), where recent torch restarts some schedulers from the closed form
    (ExponentialLR, CosineAnnealingLR, LinearLR, PolynomialLR differ), so MindSpore's values are the reference."""
    kwargs, want = RESUMED_MINDSPORE_2_10[name]
    opt = optim.SGD([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")], lr=0.1)
    opt.param_groups[0]["initial_lr"] = 0.2
    ours = _sequence(opt, [getattr(LS, name)(opt, last_epoch=2, **kwargs)], 5)
    np.testing.assert_allclose([r[0] for r in ours], want, rtol=1e-5, atol=1e-8)


JUMPABLE = [("StepLR", dict(step_size=2, gamma=0.5)), ("ExponentialLR", dict(gamma=0.8)),
            ("CosineAnnealingLR", dict(T_max=3)), ("LinearLR", dict(start_factor=0.25, total_iters=4)),
            ("ConstantLR", dict(factor=0.5, total_iters=3)), ("MultiStepLR", dict(milestones=[3, 5])),
            ("PolynomialLR", dict(total_iters=6)), ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2)),
            ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.5))]


@pytest.mark.parametrize("name,kwargs", JUMPABLE, ids=[j[0] for j in JUMPABLE])
def test_step_to_an_epoch_matches_torch(name, kwargs):
    """step(epoch) (the closed form where torch has one; MindSpore 2.10 agrees except where it raises: MultiStepLR
    and CosineAnnealingWarmRestarts fail there with AttributeError/TypeError)."""
    opt = optim.SGD([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")], lr=0.1)
    topt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    ours, theirs = getattr(LS, name)(opt, **kwargs), getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    for epoch in [3, 1, 5, 6, 2, 9]:
        ours.step(epoch)
        with warnings.catch_warnings():  # torch deprecates the epoch argument of most schedulers
            warnings.simplefilter("ignore")
            theirs.step(epoch)
        assert float(ours.get_last_lr()[0]) == pytest.approx(theirs.get_last_lr()[0], rel=1e-5, abs=1e-8)
        assert float(opt.param_groups[0]["lr"]) == pytest.approx(theirs.get_last_lr()[0], rel=1e-5, abs=1e-8)
    if name == "CosineAnnealingWarmRestarts":
        assert (ours.T_cur, ours.T_i) == (theirs.T_cur, theirs.T_i)


PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]
PLATEAU = [dict(patience=1, factor=0.5), dict(mode="max", patience=2, factor=0.5, cooldown=1),
           dict(patience=0, factor=0.5, threshold=0.05, threshold_mode="abs", min_lr=0.02),
           dict(patience=0, factor=0.1, threshold=0.01, min_lr=[0.003, 0.001], eps=1e-3)]


@pytest.mark.parametrize("kwargs", PLATEAU)
def test_reduce_on_plateau_matches_torch(kwargs):
    opt, topt = _opt(), _topt()
    ours, theirs = LS.ReduceLROnPlateau(opt, **kwargs), torch.optim.lr_scheduler.ReduceLROnPlateau(topt, **kwargs)
    for i, metric in enumerate(PLATEAU_METRICS):
        ours.step(ms.Tensor(metric, ms.float32) if i % 2 else metric)
        theirs.step(metric)
        want = [g["lr"] for g in topt.param_groups]
        assert [float(x) for x in ours.get_last_lr()] == pytest.approx(want, rel=1e-5, abs=1e-9)
        assert [float(g["lr"]) for g in opt.param_groups] == pytest.approx(want, rel=1e-5, abs=1e-9)
    assert ours.last_epoch == len(PLATEAU_METRICS)


def test_reduce_on_plateau_recorded_mindspore():
    """patience=1, factor=0.5 on PLATEAU_METRICS: group 0's rate after each step in MindSpore 2.10."""
    opt = _opt()
    scheduler = LS.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    seen = []
    for metric in PLATEAU_METRICS:
        scheduler.step(metric)
        seen.append(float(scheduler.get_last_lr()[0]))
    np.testing.assert_allclose(seen, [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025, 0.0125, 0.0125,
                                      0.00625], rtol=1e-6)


def test_cyclic_lr_sets_the_base_rate_and_scheduler_drives_training():
    opt = _opt()
    LS.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2)
    assert [float(g["lr"]) for g in opt.param_groups] == pytest.approx([0.01, 0.01])
    w = opt.param_groups[0]["params"][0]
    opt((ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.zeros(2, np.float32))))
    assert w.asnumpy().tolist() == pytest.approx([0.99, 0.99])


ERRORS = [  # MindSpore 2.10's exception types and messages
    (lambda o: LS.ReduceLROnPlateau(o, factor=1.0), ValueError, "The lr factor should be less than 1.0."),
    (lambda o: LS.ReduceLROnPlateau(o, mode="avg"), ValueError, "`mode` should be 'min' or 'max', but got avg."),
    (lambda o: LS.ReduceLROnPlateau(o, threshold_mode="x"), ValueError,
     "`threshold mode` should be 'rel' or 'abs', but got x."),
    (lambda o: LS.ReduceLROnPlateau(o, min_lr=[0.1, 0.2, 0.3]), ValueError, "Expected 2 min_lrs, got 3"),
    (lambda o: LS.CyclicLR(o, base_lr=0.1, max_lr=0.2, mode="foo"), ValueError, "mode is invalid and scale_fn is None"),
    (lambda o: LS.CyclicLR(o, base_lr=[0.1], max_lr=0.2), ValueError, "Expected 2 values for base_lr, got 1"),
    (lambda o: LS.CosineAnnealingWarmRestarts(o, T_0=0), ValueError,
     "T_0 should be an integer and equal or greater than 0, but got 0"),
    (lambda o: LS.CosineAnnealingWarmRestarts(o, T_0=2.0), ValueError,
     "T_0 should be an integer and equal or greater than 0, but got 2.0"),
    (lambda o: LS.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError,
     "T_mult should be an integer and equal or greater than 1, but got 0"),
    (lambda o: LS.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="a"), TypeError,
     "The type of 'eta_min' should be one of '['float', 'int']', but got type 'str'."),
    (lambda o: LS.MultiplicativeLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (lambda o: LS.SequentialLR(o, [LS.ExponentialLR(o, 0.9)], milestones=[2]), ValueError,
     "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
     "points, but got number of schedulers 1 and the number of milestones 1"),
    (lambda o: LS.SequentialLR(o, [LS.ExponentialLR(o, 0.9), LS.ExponentialLR(_opt(), 0.9)], milestones=[2]),
     ValueError, "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got scheduler "
                 "at index 1 is different from the optimizer passed in."),
]


@pytest.mark.parametrize("make,exc,message", ERRORS)
def test_argument_errors_match_mindspore(make, exc, message):
    with pytest.raises(exc) as info:
        make(_opt())
    assert str(info.value) == message


def test_plateau_rejects_a_non_scalar_metric():
    scheduler = LS.ReduceLROnPlateau(_opt())
    with pytest.raises(TypeError, match="'metrics' must be a number or a one-element Tensor"):
        scheduler.step(ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="is not an Optimizer"):
        LS.ReduceLROnPlateau(object())


FLOAT32_MINDSPORE_2_10 = {  # group 0's rate (lr 0.1) before each step, exactly as MindSpore 2.10 printed it
    "LinearLR": (lambda o: [LS.LinearLR(o)],
                 [0.03333333507180214, 0.046666670590639114, 0.06000000610947609, 0.07333333790302277,
                  0.08666667342185974, 0.10000000894069672, 0.10000000894069672]),
    "ConstantLR": (lambda o: [LS.ConstantLR(o)],
                   [0.03333333507180214, 0.03333333507180214, 0.03333333507180214, 0.03333333507180214,
                    0.03333333507180214, 0.10000000149011612, 0.10000000149011612]),
    "CyclicLR+ExponentialLR": (lambda o: [LS.CyclicLR(o, 0.01, 0.1, 3), LS.ExponentialLR(o, 0.95)],
                               [0.009999999776482582, 0.037999991327524185, 0.06650000810623169,
                                0.0949999988079071, 0.0664999857544899, 0.038000013679265976,
                                0.009499999694526196]),
    "PolynomialLR+ConstantLR": (lambda o: [LS.PolynomialLR(o, 8, 0.5), LS.ConstantLR(o, 0.5, 4)],
                                [0.05000000074505806, 0.046770717948675156, 0.04330127313733101,
                                 0.03952847421169281, 0.0707106813788414, 0.06123724579811096,
                                 0.05000000447034836]),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_MINDSPORE_2_10))
def test_float32_rounding_matches_mindspore_exactly(name):
    """The recursive forms round in float32 where MindSpore's do (LinearLR's factor from the float32 epoch,
    ConstantLR dividing by its factor, CyclicLR's position in the cycle), so the rates are MindSpore's bit for bit
    (with float64 factors LinearLR ended at 0.09999999 instead of 0.10000001)."""
    build, want = FLOAT32_MINDSPORE_2_10[name]
    opt = _opt()
    got = [r[0] for r in _sequence(opt, build(opt), len(want))]
    np.testing.assert_array_equal(np.float32(got), np.float32(want))


def test_cosine_annealing_tracks_mindspore_over_two_periods():
    """CosineAnnealingLR(T_max=10, eta_min=0.001), 25 epochs, as MindSpore 2.10 printed them: its float32 recursion
    drifts from the exact cosine (0.0504999 at epoch 15, not 0.0505); with float64 cosines ours drifted elsewhere,
    2.6e-6 away from MindSpore."""
    want = [0.10000000149011612, 0.0975772961974144, 0.09054633975028992, 0.07959537208080292, 0.06579633802175522,
            0.050499990582466125, 0.03520365059375763, 0.02140462026000023, 0.010453655384480953,
            0.0034227040596306324, 0.0010000000474974513, 0.0034227012656629086, 0.010453637689352036,
            0.021404588595032692, 0.035203587263822556, 0.050499871373176575, 0.06579618901014328,
            0.079595185816288, 0.09054611623287201, 0.0975770577788353, 0.09999976307153702, 0.0975770652294159,
            0.09054611623287201, 0.079595185816288, 0.06579618155956268]
    opt = _opt()
    got = [r[0] for r in _sequence(opt, [LS.CosineAnnealingLR(opt, T_max=10, eta_min=0.001)], len(want))]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
