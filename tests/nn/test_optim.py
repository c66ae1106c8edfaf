"""nn optimizers: updates over several steps against torch.optim (where the formulas coincide) or explicit
formulas, state names and order, global_step, learning-rate forms, weight decay and loss scale."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import nn

from ..conftest import assert_close

SHAPES = [(3, 4), (4,)]


def _setup(names=("fc.weight", "fc.bias"), seed=0):
    rng = np.random.default_rng(seed)
    inits = [rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES]
    grads = [[rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES] for _ in range(5)]
    params = [ms.Parameter(ms.Tensor(a), name=n) for a, n in zip(inits, names)]
    return inits, grads, params


def _run(opt, grads):
    for step in grads:
        assert opt(tuple(ms.Tensor(g) for g in step)) == (True,) * len(step)


def _torch_run(inits, grads, make):
    tparams = [torch.nn.Parameter(torch.tensor(a, dtype=torch.float64)) for a in inits]
    topt = make(tparams)
    for step in grads:
        for p, g in zip(tparams, step):
            p.grad = torch.tensor(g, dtype=torch.float64)
        topt.step()
    return [p.detach().numpy() for p in tparams]


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_torch_sgd(backend, nesterov):
    inits, grads, params = _setup()
    opt = nn.Momentum(params, learning_rate=0.1, momentum=0.9, use_nesterov=nesterov)
    _run(opt, grads)
    expected = _torch_run(inits, grads, lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=nesterov))
    for p, e in zip(params, expected):
        assert_close(p, e, rtol=1e-5, atol=1e-6)
    assert opt.global_step.asnumpy().tolist() == [5]


@pytest.mark.parametrize("kwargs", [dict(momentum=0.9), dict(momentum=0.9, dampening=0.2, weight_decay=0.01),
                                    dict(momentum=0.8, nesterov=True, weight_decay=0.05), dict()])
def test_sgd_matches_torch_sgd(backend, kwargs):
    inits, grads, params = _setup()
    opt = nn.SGD(params, learning_rate=0.05, **kwargs)
    _run(opt, grads)
    expected = _torch_run(inits, grads, lambda p: torch.optim.SGD(p, lr=0.05, **kwargs))
    for p, e in zip(params, expected):
        assert_close(p, e, rtol=1e-5, atol=1e-6)


def _adam_reference(inits, grads, lr=0.01, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, nesterov=False, amsgrad=False):
    ws = [a.astype(np.float64) for a in inits]
    ms_ = [np.zeros_like(w) for w in ws]
    vs = [np.zeros_like(w) for w in ws]
    vh = [np.zeros_like(w) for w in ws]
    for t, step in enumerate(grads, start=1):
        for i, g in enumerate(step):
            g = g + wd * ws[i]
            ms_[i] = b1 * ms_[i] + (1 - b1) * g
            vs[i] = b2 * vs[i] + (1 - b2) * g * g
            vh[i] = np.maximum(vh[i], vs[i])
            lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            direction = b1 * ms_[i] + (1 - b1) * g if nesterov else ms_[i]
            ws[i] = ws[i] - lr_t * direction / (np.sqrt(vh[i] if amsgrad else vs[i]) + eps)
    return ws


@pytest.mark.parametrize("kwargs", [dict(), dict(use_nesterov=True), dict(use_amsgrad=True),
                                    dict(weight_decay=0.1, eps=1e-3)])
def test_adam_formula(backend, kwargs):
    inits, grads, params = _setup()
    opt = nn.Adam(params, learning_rate=0.01, **kwargs)
    _run(opt, grads)
    ref = _adam_reference(inits, grads, wd=kwargs.get("weight_decay", 0.0), eps=kwargs.get("eps", 1e-8),
                          nesterov=kwargs.get("use_nesterov", False), amsgrad=kwargs.get("use_amsgrad", False))
    for p, e in zip(params, ref):
        assert_close(p, e, rtol=1e-4, atol=1e-6)
    assert_close(opt.beta1_power, 0.9 ** 5, rtol=1e-5)
    assert opt.beta1_power.shape == () and opt.beta2_power.dtype is ms.float32


def test_adam_close_to_torch_adam(backend):
    """eps sits next to sqrt(v) before the step-size bias correction in MindSpore: with a tiny eps both agree."""
    inits, grads, params = _setup()
    _run(nn.Adam(params, learning_rate=0.01), grads)
    expected = _torch_run(inits, grads, lambda p: torch.optim.Adam(p, lr=0.01, eps=1e-8))
    for p, e in zip(params, expected):
        assert_close(p, e, rtol=1e-4, atol=1e-6)


def test_adam_weight_decay_formula_and_decay_filter(backend):
    inits, grads, params = _setup(names=("layer.weight", "norm.gamma"))
    opt = nn.AdamWeightDecay(params, learning_rate=0.01, weight_decay=0.1)
    assert opt.decay_flags == (True, False)
    _run(opt, grads)
    ws = [a.astype(np.float64) for a in inits]
    m = [np.zeros_like(w) for w in ws]
    v = [np.zeros_like(w) for w in ws]
    for step in grads:
        for i, g in enumerate(step):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            ws[i] = ws[i] - 0.01 * (m[i] / (np.sqrt(v[i]) + 1e-6) + (0.1 * ws[i] if i == 0 else 0.0))
    for p, e in zip(params, ws):
        assert_close(p, e, rtol=1e-4, atol=1e-6)
    assert [p.name for p in opt.get_parameters()] == [
        "global_step", "learning_rate", "layer.weight", "norm.gamma", "adam_m.layer.weight", "adam_m.norm.gamma",
        "adam_v.layer.weight", "adam_v.norm.gamma"]


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_formula(backend, centered):
    inits, grads, params = _setup()
    opt = nn.RMSProp(params, learning_rate=0.01, decay=0.9, momentum=0.5, epsilon=1e-6, centered=centered)
    _run(opt, grads)
    ws = [a.astype(np.float64) for a in inits]
    mss = [np.ones_like(w) for w in ws]
    mgs = [np.zeros_like(w) for w in ws]
    moms = [np.zeros_like(w) for w in ws]
    for step in grads:
        for i, g in enumerate(step):
            mgs[i] = 0.9 * mgs[i] + 0.1 * g
            mss[i] = 0.9 * mss[i] + 0.1 * g * g
            var = mss[i] - mgs[i] ** 2 if centered else mss[i]
            moms[i] = 0.5 * moms[i] + 0.01 * g / np.sqrt(var + 1e-6)
            ws[i] = ws[i] - moms[i]
    for p, e in zip(params, ws):
        assert_close(p, e, rtol=1e-4, atol=1e-6)
    expected_state = (["mean_grad.fc.weight", "mean_grad.fc.bias"] if centered else []) + [
        "mean_square.fc.weight", "mean_square.fc.bias", "moment.fc.weight", "moment.fc.bias"]
    assert [p.name for p in opt.get_parameters()][4:] == expected_state


def test_adagrad_matches_torch(backend):
    inits, grads, params = _setup()
    opt = nn.Adagrad(params, accum=0.1, learning_rate=0.05)
    _run(opt, grads)
    expected = _torch_run(inits, grads, lambda p: torch.optim.Adagrad(p, lr=0.05, initial_accumulator_value=0.1,
                                                                      eps=0.0))
    for p, e in zip(params, expected):
        assert_close(p, e, rtol=1e-5, atol=1e-6)
    assert_close(opt.accum[0], 0.1 + sum(s[0].astype(np.float64) ** 2 for s in grads), rtol=1e-5)


def test_lamb_formula(backend):
    inits, grads, params = _setup()
    opt = nn.Lamb(params, learning_rate=0.02, weight_decay=0.01)
    _run(opt, grads)
    ws = [a.astype(np.float64) for a in inits]
    m = [np.zeros_like(w) for w in ws]
    v = [np.zeros_like(w) for w in ws]
    for t, step in enumerate(grads, start=1):
        for i, g in enumerate(step):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            mh, vh = m[i] / (1 - 0.9 ** t), v[i] / (1 - 0.999 ** t)
            ratio = np.clip(np.linalg.norm(ws[i]) / np.linalg.norm(mh / np.sqrt(vh + 1e-6) + 0.01 * ws[i]), 0, 10)
            ws[i] = ws[i] - 0.02 * ratio * (mh / (np.sqrt(vh) + 1e-6) + 0.01 * ws[i])
    for p, e in zip(params, ws):
        assert_close(p, e, rtol=1e-4, atol=1e-6)
    assert [p.name for p in opt.get_parameters()][4:] == ["lamb_m.fc.weight", "lamb_m.fc.bias", "lamb_v.fc.weight",
                                                          "lamb_v.fc.bias"]


# ---- the Optimizer base ---------------------------------------------------------------------------------
def test_state_names_and_order():
    _, _, params = _setup()
    expected = {
        nn.Momentum(params, 0.1, 0.9): ["momentum", "moments.fc.weight", "moments.fc.bias"],
        nn.SGD(params, momentum=0.9): ["momentum", "accum.fc.weight", "accum.fc.bias", "stat.fc.weight",
                                       "stat.fc.bias"],
        nn.Adam(params): ["beta1_power", "beta2_power", "moment1.fc.weight", "moment1.fc.bias", "moment2.fc.weight",
                          "moment2.fc.bias"],
        nn.Adam(params, use_amsgrad=True): ["beta1_power", "beta2_power", "moment1.fc.weight", "moment1.fc.bias",
                                            "moment2.fc.weight", "moment2.fc.bias", "vhat.fc.weight", "vhat.fc.bias"],
        nn.Adagrad(params): ["accum.fc.weight", "accum.fc.bias"],
    }
    for opt, state in expected.items():
        names = [p.name for p in opt.get_parameters()]
        assert names == ["global_step", "learning_rate", "fc.weight", "fc.bias"] + state, type(opt).__name__
        assert [k for k, _ in opt.parameters_and_names()] == names
    opt = nn.Momentum(params, 0.1, 0.9)
    assert opt.global_step.shape == (1,) and opt.global_step.dtype is ms.int32
    assert opt.learning_rate.shape == () and opt.learning_rate.dtype is ms.float32
    assert opt.learning_rate.name == "learning_rate" and float(opt.get_lr()) == pytest.approx(0.1)
    assert isinstance(opt.parameters, ms.ParameterTuple) and opt.parameters[0] is params[0]
    assert opt.momentum.shape == () and float(opt.momentum) == pytest.approx(0.9)
    assert float(nn.Adagrad(params).accum[1].asnumpy()[0]) == pytest.approx(0.1)
    assert [p.name for p in params] == ["fc.weight", "fc.bias"]  # the user's parameters are not renamed
    assert not opt.dynamic_lr and not opt.is_group and not opt.is_group_lr


def test_unnamed_parameters_keep_their_names():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)))
    name = p.name
    opt = nn.Momentum([p], 0.1, 0.9)
    assert p.name == name and opt.moments[0].name == f"moments.{name}"


class _TrainStep(nn.Cell):
    """A TrainOneStepCell stand-in: MindSpore's wrappers do not prefix their children's parameter names."""

    def __init__(self, network, optimizer):
        super().__init__(auto_prefix=False)
        self.network = network
        self.optimizer = optimizer


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="weight")
        self.bias = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="bias")


def test_checkpoint_names_inside_a_training_cell(tmp_path):
    net = _Net()
    train = _TrainStep(net, nn.SGD(net.trainable_params(), momentum=0.9))
    keys = [k for k, _ in train.parameters_and_names()]
    assert keys[2:] == ["optimizer.global_step", "optimizer.learning_rate", "optimizer.momentum",
                        "optimizer.accum.weight", "optimizer.accum.bias", "optimizer.stat.weight",
                        "optimizer.stat.bias"]
    path = str(tmp_path / "train.ckpt")
    ms.save_checkpoint(train, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == ["weight", "bias", "global_step", "learning_rate", "momentum", "accum.weight",
                            "accum.bias", "stat.weight", "stat.bias"]
    assert loaded["global_step"].dtype is ms.int32 and loaded["global_step"].shape == (1,)
    assert loaded["learning_rate"].shape == () and loaded["momentum"].dtype is ms.float32


def test_checkpoint_round_trip_restores_optimizer_state(tmp_path):
    inits, grads, params = _setup()
    opt = nn.Adam(params, learning_rate=0.01)
    _run(opt, grads[:3])
    path = str(tmp_path / "adam.ckpt")
    ms.save_checkpoint(opt, path)
    _, _, fresh = _setup()
    opt2 = nn.Adam(fresh, learning_rate=0.01)
    not_loaded, _ = ms.load_param_into_net(opt2, ms.load_checkpoint(path))
    assert not not_loaded
    _run(opt, grads[3:])
    _run(opt2, grads[3:])
    for a, b in zip(params, fresh):
        assert_close(a, b.asnumpy(), rtol=0, atol=0)
    assert opt2.global_step.asnumpy().tolist() == [5]


def test_weight_decay_skips_beta_and_gamma_and_loss_scale_divides(backend):
    inits, grads, params = _setup(names=("dense.weight", "bn.beta"))
    opt = nn.SGD(params, learning_rate=0.1)  # no decay
    nn_ = nn.Momentum(params, learning_rate=0.1, momentum=0.0, weight_decay=0.5, loss_scale=4.0)
    assert nn_.decay_flags == (True, False) and nn_.exec_weight_decay
    before = [p.asnumpy().astype(np.float64) for p in params]
    nn_(tuple(ms.Tensor(g * 4) for g in grads[0]))
    assert_close(params[0], before[0] - 0.1 * (grads[0][0] + 0.5 * before[0]), rtol=1e-5, atol=1e-6)
    assert_close(params[1], before[1] - 0.1 * grads[0][1], rtol=1e-5, atol=1e-6)
    assert opt.decay_flags == (True, False) and not opt.exec_weight_decay


def test_parameter_groups():
    _, grads, params = _setup(names=("conv.weight", "fc.bias"))
    extra = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="other")
    groups = [{"params": [params[0]], "lr": 0.5, "weight_decay": 0.1},
              {"params": [params[1], extra]},
              {"order_params": [extra, params[0], params[1]]}]
    opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.0, weight_decay=0.0)
    assert opt.is_group and opt.is_group_lr and not opt.dynamic_lr and opt.is_group_params_ordered
    assert [p.name for p in opt.parameters] == ["other", "conv.weight", "fc.bias"]
    assert [lr.name for lr in opt.learning_rate] == ["learning_rate", "learning_rate_group_0", "learning_rate"]
    assert opt.decay_flags == (False, True, False)
    assert float(opt.get_lr_parameter(params[0])) == 0.5
    assert [float(x) for x in opt.get_lr_parameter([extra, params[1]])] == [pytest.approx(0.1)] * 2
    w0, b0 = params[0].asnumpy().copy(), params[1].asnumpy().copy()
    opt((ms.Tensor(np.ones(3, np.float32)), ms.Tensor(grads[0][0]), ms.Tensor(grads[0][1])))
    assert_close(params[0], w0 - 0.5 * (grads[0][0] + 0.1 * w0), rtol=1e-5, atol=1e-6)
    assert_close(params[1], b0 - 0.1 * grads[0][1], rtol=1e-5, atol=1e-6)
    assert_close(extra, np.full(3, 0.9), rtol=1e-6)
    names = [p.name for p in opt.get_parameters()]
    assert names[:3] == ["global_step", "learning_rate", "learning_rate_group_0"]


def test_group_dynamic_lr_and_grad_centralization():
    rng = np.random.default_rng(1)
    conv = ms.Parameter(ms.Tensor(rng.uniform(-1, 1, (2, 16, 3, 3)).astype(np.float32)), name="conv.weight")
    bias = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="conv.bias")
    opt = nn.SGD([{"params": [conv], "grad_centralization": True, "lr": [0.1, 0.2]}, {"params": [bias]}],
                 learning_rate=0.1)
    assert opt.dynamic_lr and opt.is_group_lr
    g = rng.uniform(-1, 1, (2, 16, 3, 3)).astype(np.float32)
    c0 = conv.asnumpy().copy()
    lrs = opt.get_lr()
    assert [float(x) for x in lrs] == [pytest.approx(0.1), pytest.approx(0.1)]
    opt((ms.Tensor(g), ms.Tensor(np.ones(2, np.float32))))
    centred = g - g.mean(axis=(1, 2, 3), keepdims=True)
    assert_close(conv, c0 - 0.1 * centred, rtol=1e-5, atol=1e-6)
    assert [float(x) for x in opt.get_lr()] == [pytest.approx(0.2), pytest.approx(0.1)]


@pytest.mark.parametrize("make,exc,text", [
    (lambda p: nn.Momentum(p, 0.1, 1), TypeError, "momentum"),
    (lambda p: nn.Momentum(p, -0.1, 0.9), ValueError, "learning_rate"),
    (lambda p: nn.Momentum(p, "0.1", 0.9), TypeError, "learning_rate"),
    (lambda p: nn.Momentum(p, ms.Tensor(np.ones((2, 2), np.float32)), 0.9), ValueError, "dimension"),
    (lambda p: nn.Momentum(p, 0.1, 0.9, loss_scale=0.0), ValueError, "loss_scale"),
    (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=-1.0), ValueError, "weight_decay"),
    (lambda p: nn.Momentum([], 0.1, 0.9), ValueError, "empty"),
    (lambda p: nn.Momentum([p[0], 1.0], 0.1, 0.9), TypeError, "Parameter"),
    (lambda p: nn.Momentum([{"params": p, "momentum": 0.1}], 0.1, 0.9), KeyError, "keys"),
    (lambda p: nn.Momentum([{"params": p}, {"params": p[:1]}], 0.1, 0.9), RuntimeError, "already exists"),
    (lambda p: nn.Adam(p, beta1=1.0), ValueError, "beta1"),
    (lambda p: nn.Adam(p, use_lazy=True, use_amsgrad=True), ValueError, "amsgrad"),
    (lambda p: nn.Adam(p, use_fast=True), KeyError, "use_fast"),
    (lambda p: nn.SGD(p, nesterov=True), ValueError, "nesterov"),
    (lambda p: nn.RMSProp(p, epsilon=0.0), ValueError, "epsilon"),
])
def test_argument_errors(make, exc, text):
    _, _, params = _setup()
    with pytest.raises(exc, match=text):
        make(params)


def test_gradient_count_must_match():
    _, _, params = _setup()
    with pytest.raises(ValueError, match="number of gradients"):
        nn.Momentum(params, 0.1, 0.9)((ms.Tensor(np.ones((3, 4), np.float32)),))


def test_custom_optimizer_on_the_base_class(backend):
    class PlainSGD(nn.Optimizer):
        def __init__(self, params, learning_rate):
            super().__init__(learning_rate, params)

        def construct(self, gradients):
            lr = self.get_lr()
            for p, g in zip(self.parameters, gradients):
                ms.ops.assign(p, p - lr * g)
            return True

    _, grads, params = _setup()
    before = params[0].asnumpy().copy()
    PlainSGD(params, 0.5)(tuple(ms.Tensor(g) for g in grads[0]))
    assert_close(params[0], before - 0.5 * grads[0][0], rtol=1e-6)


def test_dynamic_weight_decay_cell(backend):
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    decay = nn.ExponentialDecayLR(0.5, 0.5, 1)  # 0.5, 0.25, ... by global step
    opt = nn.Momentum([w], learning_rate=0.1, momentum=0.0, weight_decay=decay)
    assert opt.dynamic_weight_decay and opt.exec_weight_decay
    assert float(opt.get_weight_decay()) == pytest.approx(0.5)
    zero = (ms.Tensor(np.zeros(2, np.float32)),)
    opt(zero)  # w -= 0.1 * 0.5 * w
    opt(zero)  # w -= 0.1 * 0.25 * w
    assert_close(w, np.full(2, (1 - 0.05) * (1 - 0.025)), rtol=1e-6)
    with pytest.raises(TypeError, match="dynamic weight decay"):
        nn.SGD([w], weight_decay=decay)


@pytest.mark.parametrize("name", ["Momentum", "Adam", "SGD", "AdamWeightDecay", "RMSProp", "Adagrad", "Lamb"])
def test_float16_parameters_keep_their_dtype(backend, name):
    w = ms.Parameter(ms.Tensor(np.ones(3, np.float16)), name="w")
    kwargs = {"momentum": 0.9} if name == "Momentum" else {}
    opt = getattr(nn, name)([w], learning_rate=0.01, **kwargs)
    opt((ms.Tensor(np.full(3, 0.5, np.float16)),))
    assert w.dtype is ms.float16 and float(w.asnumpy()[0]) < 1.0
    assert all(p.dtype is ms.float16 for p in opt.get_parameters() if p.name.endswith(".w"))
