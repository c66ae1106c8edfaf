"""ASGD, Adadelta, AdaMax, Rprop, ProximalAdagrad, FTRL, LazyAdam, AdamOffload and LARS against numpy
references of their documented update rules, over three steps, in PyNative and Graph mode."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn

W0 = np.array([[0.5, -1.0, 2.0], [0.1, 0.0, -0.3]], np.float32)
GRADS = [np.array([[0.2, -0.1, 0.4], [-0.3, 0.5, 0.1]], np.float32),
         np.array([[0.1, 0.2, -0.4], [-0.2, 0.5, 0.3]], np.float32),
         np.array([[-0.3, 0.1, 0.2], [0.1, -0.5, 0.2]], np.float32)]


def _run(make, mode):
    ms.set_context(mode=mode)
    try:
        w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
        opt = make([w])
        step = ms.jit(opt) if mode == ms.GRAPH_MODE else opt
        for g in GRADS:
            step((ms.Tensor(g),))
        return w.asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def ref_asgd(lr=0.1, lambd=1e-4, alpha=0.75):
    w, eta = W0.astype(np.float64), lr
    for t, g in enumerate(GRADS, 1):
        w = w * (1 - lambd * eta) - eta * g
        eta = lr / (1 + lambd * lr * t) ** alpha
    return w


def ref_adadelta(lr=1.0, rho=0.9, eps=1e-6):
    w, acc, up = W0.astype(np.float64), 0.0, 0.0
    for g in GRADS:
        acc = rho * acc + (1 - rho) * g * g
        d = np.sqrt(up + eps) / np.sqrt(acc + eps) * g
        up = rho * up + (1 - rho) * d * d
        w = w - lr * d
    return w


def ref_adamax(lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    w, m, v = W0.astype(np.float64), 0.0, 0.0
    for t, g in enumerate(GRADS, 1):
        m = b1 * m + (1 - b1) * g
        v = np.maximum(b2 * v, np.abs(g))
        w = w - lr / (1 - b1 ** t) * m / (v + eps)
    return w


def ref_rprop(lr=0.1, etas=(0.5, 1.2), sizes=(1e-6, 50.0)):
    w, prev, step = W0.astype(np.float64), np.zeros_like(W0, np.float64), np.full(W0.shape, lr)
    for g in GRADS:
        s = np.sign(g * prev)
        step = np.clip(step * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)), *sizes)
        g = np.where(s < 0, 0.0, g)
        w = w - np.sign(g) * step
        prev = g
    return w


def ref_proximal(lr=0.1, accum=0.1, l1=0.01, l2=0.1):
    w, acc = W0.astype(np.float64), np.full(W0.shape, accum)
    for g in GRADS:
        acc = acc + g * g
        v = w - lr * g / np.sqrt(acc)
        w = np.sign(v) / (1 + lr * l2) * np.maximum(np.abs(v) - lr * l1, 0)
    return w


def ref_ftrl(lr=0.1, accum=0.1, p=-0.5, l1=0.01, l2=0.1):
    w, acc, lin = W0.astype(np.float64), np.full(W0.shape, accum), np.zeros(W0.shape)
    for g in GRADS:
        n = acc + g * g
        lin = lin + g - (n ** -p - acc ** -p) / lr * w
        quad = n ** -p / lr + 2 * l2
        w = np.where(np.abs(lin) > l1, (np.sign(lin) * l1 - lin) / quad, 0.0)
        acc = n
    return w


CASES = [
    (lambda p: nn.ASGD(p, 0.1), ref_asgd),
    (lambda p: nn.Adadelta(p), ref_adadelta),
    (lambda p: nn.AdaMax(p, 0.01), ref_adamax),
    (lambda p: nn.Rprop(p, 0.1), ref_rprop),
    (lambda p: nn.ProximalAdagrad(p, accum=0.1, learning_rate=0.1, l1=0.01, l2=0.1), ref_proximal),
    (lambda p: nn.FTRL(p, initial_accum=0.1, learning_rate=0.1, l1=0.01, l2=0.1), ref_ftrl),
]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("case", range(len(CASES)), ids=["ASGD", "Adadelta", "AdaMax", "Rprop", "ProximalAdagrad",
                                                          "FTRL"])
def test_update_matches_the_documented_rule(case, mode):
    make, ref = CASES[case]
    got = _run(make, ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, ref(), rtol=1e-5, atol=1e-6)


def test_lazy_and_offload_adam_step_like_adam():
    adam = _run(lambda p: nn.Adam(p, 0.01), ms.PYNATIVE_MODE)
    np.testing.assert_allclose(_run(lambda p: nn.LazyAdam(p, 0.01), ms.PYNATIVE_MODE), adam, rtol=1e-6)
    np.testing.assert_allclose(_run(lambda p: nn.AdamOffload(p, 0.01), ms.PYNATIVE_MODE), adam, rtol=1e-6)


def test_lars_scales_each_gradient_by_its_trust_ratio():
    coef, wd, lr = 0.01, 0.1, 0.1
    w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    b = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="bias")
    opt = nn.LARS(nn.Momentum([w, b], lr, 0.0, weight_decay=wd), coefficient=coef)
    gw, gb = GRADS[0], np.full(3, 0.5, np.float32)
    opt((ms.Tensor(gw), ms.Tensor(gb)))
    wn, gn = np.linalg.norm(W0), np.linalg.norm(gw)
    trust = coef * wn / (gn + wd * wn + 1e-5)
    np.testing.assert_allclose(w.asnumpy(), W0 - lr * (gw + wd * W0) * trust, rtol=1e-5)
    # the bias: LARS's filter skips it and LARS took the decay over from Momentum, so a plain step
    np.testing.assert_allclose(b.asnumpy(), 1 - lr * 0.5, rtol=1e-6)


def test_a_small_net_trains_with_each_optimizer():
    rs = np.random.RandomState(0)
    x = ms.Tensor(rs.rand(32, 4).astype(np.float32))
    y = ms.Tensor((rs.rand(32, 4) @ np.ones((4, 1))).astype(np.float32))
    for make in (nn.ASGD, nn.Adadelta, nn.AdaMax, nn.Rprop, nn.ProximalAdagrad, nn.FTRL):
        ms.set_seed(0)
        net = nn.Dense(4, 1)
        lr = 1.0 if make is nn.Adadelta else 0.05
        opt = make(net.trainable_params(), learning_rate=lr)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        first = float(train(x, y).asnumpy())
        for _ in range(30):
            last = float(train(x, y).asnumpy())
        assert last < first, make.__name__


def test_bad_hyper_parameters_are_named():
    w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    with pytest.raises(ValueError, match="Rprop"):
        nn.Rprop([w], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="FTRL"):
        nn.FTRL([w], lr_power=0.5)
    with pytest.raises(TypeError, match="LARS"):
        nn.LARS("sgd")
