"""Fused optimizer-update composites against their formulas written in numpy (float64)."""
import numpy as np

import openspore as ms
from openspore import ops

rng = np.random.default_rng(0)


def _param(a, name):
    return ms.Parameter(ms.Tensor(a.astype(np.float32)), name=name)


def test_apply_adagrad_da_follows_tensorflow_formula():
    var0, g = rng.standard_normal(5), rng.standard_normal(5)
    acc0, sq0 = rng.standard_normal(5), rng.random(5) + 0.5
    var, acc, sq = _param(var0, "v"), _param(acc0, "a"), _param(sq0, "s")
    lr, l1, l2, step = 0.1, 0.05, 0.02, 3
    out = ops.ApplyAdagradDA()(var, acc, sq, ms.Tensor(g.astype(np.float32)), lr, l1, l2,
                               ms.Tensor(np.array(step, np.int64)))
    a, s = acc0 + g, sq0 + g * g
    want = -lr * np.sign(a) * np.maximum(np.abs(a) - l1 * step, 0) / (l2 * step * lr + np.sqrt(s))
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), a, rtol=1e-6)
    np.testing.assert_allclose(sq.asnumpy(), s, rtol=1e-6)


def test_adam_no_update_param_returns_the_step():
    m0, v0, g = rng.standard_normal(4), rng.random(4), rng.standard_normal(4)
    m, v = _param(m0, "m"), _param(v0, "v")
    b1p, b2p, lr, b1, b2, eps = 0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-8
    step = ops.AdamNoUpdateParam()(m, v, b1p, b2p, lr, b1, b2, eps, ms.Tensor(g.astype(np.float32)))
    mn, vn = b1 * m0 + (1 - b1) * g, b2 * v0 + (1 - b2) * g * g
    want = -lr * np.sqrt(1 - b2p) / (1 - b1p) * mn / (np.sqrt(vn) + eps)
    np.testing.assert_allclose(step.asnumpy(), want, rtol=1e-4)
    np.testing.assert_allclose(m.asnumpy(), mn, rtol=1e-5)
    np.testing.assert_allclose(v.asnumpy(), vn, rtol=1e-5)


def test_fused_cast_adam_weight_decay_and_weight_scale_momentum():
    var0, m0, v0 = rng.standard_normal(4), rng.standard_normal(4), rng.random(4)
    g = rng.standard_normal(4)
    var = ms.Parameter(ms.Tensor(var0.astype(np.float16)), name="w")
    m, v = _param(m0, "m"), _param(v0, "v")
    ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-6, 0.1, ms.Tensor(g.astype(np.float16)), 2.0)
    gg = g.astype(np.float16).astype(np.float64) / 2.0
    mn, vn = 0.9 * m0 + 0.1 * gg, 0.999 * v0 + 0.001 * gg * gg
    want = var0.astype(np.float16) - 0.01 * (mn / (np.sqrt(vn) + 1e-6) + 0.1 * var0.astype(np.float16))
    assert var.dtype == ms.float16
    np.testing.assert_allclose(var.asnumpy().astype(np.float64), want, rtol=2e-3, atol=2e-3)
    w, acc = _param(var0, "w2"), _param(m0, "acc")
    ops.FusedWeightScaleApplyMomentum()(0.01, 4.0, w, acc, 0.1, ms.Tensor(g.astype(np.float32)), 0.9)
    accn = m0 * 0.9 + g / 4.0 + 0.01 * var0
    np.testing.assert_allclose(acc.asnumpy(), accn, rtol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), var0 - 0.1 * accn, rtol=1e-5, atol=1e-6)
