"""`experimental.optim`: PyTorch-style optimizers and schedulers against torch.optim (and MindSpore's Adam form)."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore.experimental import optim

from ..conftest import assert_close

SHAPES = [(3, 4), (4,)]


def _setup(seed=0):
    rng = np.random.default_rng(seed)
    inits = [rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES]
    grads = [[rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES] for _ in range(5)]
    params = [ms.Parameter(ms.Tensor(a), name=n) for a, n in zip(inits, ("fc.weight", "fc.bias"))]
    return inits, grads, params


def _run(opt, grads):
    for step in grads:
        assert opt(tuple(ms.Tensor(g) for g in step)) is True


def _torch(inits, grads, make):
    tparams = [torch.nn.Parameter(torch.tensor(a, dtype=torch.float64)) for a in inits]
    topt = make(tparams)
    for step in grads:
        for p, g in zip(tparams, step):
            p.grad = torch.tensor(g, dtype=torch.float64)
        topt.step()
    return [p.detach().numpy() for p in tparams]


@pytest.mark.parametrize("kwargs", [dict(momentum=0.9), dict(momentum=0.9, dampening=0.1, weight_decay=0.01),
                                    dict(momentum=0.8, nesterov=True), dict(weight_decay=0.1, maximize=True)])
def test_sgd_matches_torch(backend, kwargs):
    inits, grads, params = _setup()
    opt = optim.SGD(params, lr=0.05, **kwargs)
    _run(opt, grads)
    for p, e in zip(params, _torch(inits, grads, lambda tp: torch.optim.SGD(tp, lr=0.05, **kwargs))):
        assert_close(p, e, rtol=1e-5, atol=1e-6)
    assert [p.name for p in opt.get_parameters()] == ["fc.weight", "fc.bias", "accum.fc.weight", "accum.fc.bias",
                                                      "stat.fc.weight", "stat.fc.bias"]


@pytest.mark.parametrize("kwargs", [dict(), dict(amsgrad=True), dict(weight_decay=0.1, eps=1e-3),
                                    dict(maximize=True, betas=(0.8, 0.99))])
def test_adamw_matches_torch(backend, kwargs):
    inits, grads, params = _setup()
    opt = optim.AdamW(params, lr=0.01, **kwargs)
    _run(opt, grads)
    for p, e in zip(params, _torch(inits, grads, lambda tp: torch.optim.AdamW(tp, lr=0.01, **kwargs))):
        assert_close(p, e, rtol=1e-4, atol=1e-6)
    assert opt.state_step.asnumpy().tolist() == 5
    names = [p.name for p in opt.get_parameters()]
    assert names[2:] == ["exp_avg.fc.weight", "exp_avg.fc.bias", "exp_avg_sq.fc.weight", "exp_avg_sq.fc.bias",
                         "max_exp_avg_sq.fc.weight", "max_exp_avg_sq.fc.bias", "state_step"]


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_steps_like_mindspore_adam(backend, amsgrad):
    inits, grads, params = _setup()
    opt = optim.Adam(params, lr=0.01, weight_decay=0.05, eps=1e-3, amsgrad=amsgrad)
    _run(opt, grads)
    ws = [a.astype(np.float64) for a in inits]
    m, v, vh = ([np.zeros_like(w) for w in ws] for _ in range(3))
    for t, step in enumerate(grads, start=1):
        for i, g in enumerate(step):
            g = g + 0.05 * ws[i]
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            vh[i] = np.maximum(vh[i], v[i])
            lr_t = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            ws[i] = ws[i] - lr_t * m[i] / (np.sqrt(vh[i] if amsgrad else v[i]) + 1e-3)
    for p, e in zip(params, ws):
        assert_close(p, e, rtol=1e-4, atol=1e-6)


def test_param_groups_and_add_param_group(backend):
    inits, grads, params = _setup()
    opt = optim.SGD([{"params": [params[0]], "lr": 0.5}, {"params": params[1], "momentum": 0.9}], lr=0.1)
    assert [float(g["lr"]) for g in opt.param_groups] == [0.5, pytest.approx(0.1)]
    assert [g["lr"].name for g in opt.param_groups] == ["learning_rate_group_0", "learning_rate_group_1"]
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[0]["momentum"] == 0.0
    _run(opt, grads[:2])
    assert_close(params[0], inits[0] - 0.5 * (grads[0][0] + grads[1][0]), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [params[0]]})
    extra = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="extra")
    opt.add_param_group({"params": [extra], "lr": 0.25})
    assert len(opt.parameters) == 3 and opt.group_start_id == [0, 1, 2, 3]


@pytest.mark.parametrize("make,exc", [
    (lambda p: optim.Adam(p, lr=-1.0), ValueError),
    (lambda p: optim.AdamW(p, betas=(1.0, 0.9)), ValueError),
    (lambda p: optim.SGD(p, lr=0.1, nesterov=True), ValueError),
    (lambda p: optim.SGD(p, lr="fast"), TypeError),
    (lambda p: optim.SGD([{"params": set(p)}], lr=0.1), TypeError),
    (lambda p: optim.SGD([{"params": [1.0]}], lr=0.1), TypeError),
])
def test_argument_errors(make, exc):
    _, _, params = _setup()
    with pytest.raises(exc):
        make(params)


# ---- schedulers -------------------------------------------------------------------------------------------
SCHEDULERS = [
    ("StepLR", dict(step_size=2, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[1, 3, 3], gamma=0.5)),
    ("ExponentialLR", dict(gamma=0.8)),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ("ConstantLR", dict(factor=0.5, total_iters=3)),
    ("CosineAnnealingLR", dict(T_max=3, eta_min=0.01)),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_rates_match_torch(name, kwargs):
    _, _, params = _setup()
    opt = optim.SGD(params, lr=0.1)
    scheduler = getattr(optim.lr_scheduler, name)(opt, **kwargs)
    tparam = torch.nn.Parameter(torch.zeros(1))
    topt = torch.optim.SGD([tparam], lr=0.1)
    tscheduler = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    ours, theirs = [], []
    for _ in range(9):
        ours.append(float(scheduler.get_last_lr()[0]))
        theirs.append(tscheduler.get_last_lr()[0])
        topt.step()
        tscheduler.step()
        scheduler.step()
    np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-8)
    assert float(opt.param_groups[0]["lr"]) == pytest.approx(tscheduler.get_last_lr()[0], rel=1e-5, abs=1e-8)


def test_lambda_lr_and_closed_form_step():
    _, _, params = _setup()
    opt = optim.Adam([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.01}], lr=0.1)
    scheduler = optim.lr_scheduler.LambdaLR(opt, [lambda e: 0.5 ** e, lambda e: 1.0 / (e + 1)])
    for _ in range(3):
        scheduler.step()
    assert [float(x) for x in scheduler.get_last_lr()] == pytest.approx([0.1 * 0.125, 0.01 / 4], rel=1e-6)
    step = optim.lr_scheduler.StepLR(optim.SGD(params, lr=1.0), step_size=2, gamma=0.1)
    step.step(5)
    assert float(step.get_last_lr()[0]) == pytest.approx(0.01, rel=1e-6)
    assert float(step.last_epoch) == 5.0 and step.last_epoch.name == "last_epoch_StepLR"
    with pytest.raises(TypeError, match="not an Optimizer"):
        optim.lr_scheduler.StepLR(object(), 1)
    with pytest.raises(KeyError, match="initial_lr"):
        optim.lr_scheduler.StepLR(optim.SGD(params, lr=1.0), 1, last_epoch=3)
