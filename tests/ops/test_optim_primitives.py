"""Optimizer-update Primitive classes computed as composites: each update against a numpy transcription of its
documented formula (all but ApplyKerasMomentum were also checked against MindSpore 2.10 while written), the
in-place write to the Parameters, and use inside a jitted step."""
import numpy as np
import pytest

import openspore as ms
from openspore import Parameter, Tensor, ops

RNG = np.random.default_rng(17)


def _arr(low=-1.0, high=1.0):
    return RNG.uniform(low, high, (4,)).astype(np.float32)


def _params(*arrays):
    return [Parameter(Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(arrays)]


def _np_shrink(prox, a_l1, denom):
    return np.sign(prox) * np.maximum(np.abs(prox) - a_l1, 0) / denom


def test_gradient_descent_and_proximal():
    v, d = _arr(), _arr()
    (var,) = _params(v)
    ops.ApplyGradientDescent()(var, Tensor(np.float32(0.1)), Tensor(d))
    np.testing.assert_allclose(var.asnumpy(), v - 0.1 * d, rtol=1e-6)
    (var,) = _params(v)
    out = ops.ApplyProximalGradientDescent()(var, 0.1, 0.05, 0.2, Tensor(d))
    np.testing.assert_allclose(var.asnumpy(), _np_shrink(v - 0.1 * d, 0.1 * 0.05, 1 + 0.1 * 0.2), rtol=1e-6)
    np.testing.assert_array_equal(out.asnumpy(), var.asnumpy())


def test_adaptive_updates_follow_their_formulas():
    v, m, s, g = _arr(), _arr(), _arr(0.1, 1.0), _arr()
    var, mp, sp = _params(v, m, s)
    ops.ApplyAdaMax()(var, mp, sp, 0.9, 0.01, 0.9, 0.99, 1e-8, Tensor(g))
    m1, s1 = 0.9 * m + 0.1 * g, np.maximum(0.99 * s, np.abs(g))
    np.testing.assert_allclose(var.asnumpy(), v - 0.01 / (1 - 0.9) * m1 / (s1 + 1e-8), rtol=1e-5)
    np.testing.assert_allclose(mp.asnumpy(), m1, rtol=1e-6)
    var, acc, upd = _params(v, s, s * 0.5)
    ops.ApplyAdadelta()(var, acc, upd, 0.5, 0.9, 1e-6, Tensor(g))
    a1 = 0.9 * s + 0.1 * g * g
    step = np.sqrt(s * 0.5 + 1e-6) / np.sqrt(a1 + 1e-6) * g
    np.testing.assert_allclose(var.asnumpy(), v - 0.5 * step, rtol=1e-5)
    np.testing.assert_allclose(upd.asnumpy(), 0.9 * s * 0.5 + 0.1 * step * step, rtol=1e-5)
    var, acc = _params(v, s)
    ops.ApplyAdagradV2(1e-6)(var, acc, 0.01, Tensor(g))
    np.testing.assert_allclose(var.asnumpy(), v - 0.01 * g / (np.sqrt(s + g * g) + 1e-6), rtol=1e-5)
    var, acc = _params(v, s)
    ops.ApplyProximalAdagrad()(var, acc, 0.01, 0.001, 0.01, Tensor(g))
    prox = v - 0.01 * g / np.sqrt(s + g * g)
    np.testing.assert_allclose(var.asnumpy(), _np_shrink(prox, 0.01 * 0.001, 1 + 0.01 * 0.01), rtol=1e-5)


@pytest.mark.parametrize("name", ["ApplyAddSign", "ApplyPowerSign"])
def test_sign_updates(name):
    v, m, g = _arr(), _arr(), _arr()
    var, mp = _params(v, m)
    getattr(ops, name)()(var, mp, 0.001, 1.0 if name == "ApplyAddSign" else np.e, 0.99, 0.9, Tensor(g))
    m1 = 0.9 * m + 0.1 * g
    agree = np.sign(g) * np.sign(m1)
    update = (1.0 + 0.99 * agree) * g if name == "ApplyAddSign" else np.exp(np.e * 0.99 * agree) * g
    np.testing.assert_allclose(var.asnumpy(), v - 0.001 * update, rtol=1e-5)


@pytest.mark.parametrize("nesterov", [False, True])
def test_keras_momentum(nesterov):
    v, a, g = _arr(), _arr(), _arr()
    var, acc = _params(v, a)
    ops.ApplyKerasMomentum(use_nesterov=nesterov)(var, acc, 0.01, Tensor(g), 0.9)
    a1 = 0.9 * a - 0.01 * g
    np.testing.assert_allclose(acc.asnumpy(), a1, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), v + (a1 * 0.9 - 0.01 * g if nesterov else a1), rtol=1e-6)


def test_adam_with_amsgrad_in_a_jitted_step():
    v, m, s, vh, g = _arr(), _arr(), _arr(0.1, 1), _arr(0.1, 1), _arr()
    var, mp, sp, vhp = _params(v, m, s, vh)
    opt = ops.ApplyAdamWithAmsgrad(0.9, 0.999, 1e-8)

    @ms.jit
    def step(grad):
        return opt(var, mp, sp, vhp, Tensor(np.float32(0.9)), Tensor(np.float32(0.999)), Tensor(np.float32(0.01)), grad)
    step(Tensor(g))
    m1, s1 = 0.9 * m + 0.1 * g, 0.999 * s + 0.001 * g * g
    vh1 = np.maximum(vh, s1)
    want = v - 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9) * m1 / (np.sqrt(vh1) + 1e-8)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(vhp.asnumpy(), vh1, rtol=1e-6)
