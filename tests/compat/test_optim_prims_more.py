"""ApplyFtrl and LARSUpdate against their documented formulas in NumPy (MindSpore's CPU values for ApplyFtrl are
in recorded/optim_prims_more; MindSpore 2.10 has no CPU kernel for LARSUpdate)."""
import numpy as np

import openspore as ms
from openspore import Parameter, Tensor, ops


def test_apply_ftrl_is_ftrl_proximal_with_l1_on_both_signs():
    rng = np.random.default_rng(3)
    v0, l0, g0 = (rng.uniform(-1, 1, (4, 5)).astype(np.float32) for _ in range(3))
    a0 = rng.uniform(0.1, 1, (4, 5)).astype(np.float32)
    lr, l1, l2, p = 0.1, 0.3, 0.05, -0.5
    var, acc, lin = Parameter(Tensor(v0), name="v"), Parameter(Tensor(a0), name="a"), Parameter(Tensor(l0), name="l")
    out = ops.ApplyFtrl()(var, acc, lin, Tensor(g0), lr, l1, l2, p)
    an = a0 + g0 * g0
    ln = l0 + g0 - (an ** -p - a0 ** -p) / lr * v0
    vn = np.where(np.abs(ln) > l1, (np.sign(ln) * l1 - ln) / (an ** -p / lr + 2 * l2), 0.0)
    assert (ln < -l1).any() and (ln > l1).any() and (np.abs(ln) <= l1).any()   # all three branches are exercised
    np.testing.assert_allclose(out.asnumpy(), vn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), vn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lin.asnumpy(), ln, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), an, rtol=1e-6)


def test_lars_update_trust_ratio_clip_and_zero_norms():
    w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    g = np.linspace(0.5, -0.5, 6, dtype=np.float32).reshape(2, 3)
    nw, ng = np.linalg.norm(w), np.linalg.norm(g)
    wd, lr = 0.01, 0.1

    def run(op, norm_w, norm_g):
        return op(Tensor(w), Tensor(g), Tensor(np.float32(norm_w)), Tensor(np.float32(norm_g)), Tensor(np.float32(wd)),
                  Tensor(np.float32(lr))).asnumpy()

    trust = 0.001 * nw / (ng + wd * nw + 1e-5)
    np.testing.assert_allclose(run(ops.LARSUpdate(), nw, ng), (g + wd * w) * trust, rtol=1e-5)
    big = ops.LARSUpdate(hyperpara=10.0, use_clip=True)   # trust / lr > 1 is clipped to 1
    np.testing.assert_allclose(run(big, nw, ng), g + wd * w, rtol=1e-5)
    np.testing.assert_allclose(run(ops.LARSUpdate(), 0.0, ng), g + wd * w, rtol=1e-5)   # a zero norm: trust 1
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        class Net(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.lars = ops.LARSUpdate()

            def construct(self, a, b, c, d, e, f):
                return self.lars(a, b, c, d, e, f)
        graph = Net()(Tensor(w), Tensor(g), Tensor(np.float32(nw)), Tensor(np.float32(ng)), Tensor(np.float32(wd)),
                      Tensor(np.float32(lr))).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph, (g + wd * w) * trust, rtol=1e-5)


def _adafactor_run(steps=3, **kwargs):
    net = ms.nn.Dense(4, 3)
    net.weight.set_data(Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)))
    net.bias.set_data(Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
    opt = ms.nn.AdaFactor(net.trainable_params(), **kwargs)
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()), opt)
    rng = np.random.default_rng(0)
    x, y = Tensor(rng.standard_normal((8, 4)).astype(np.float32)), Tensor(rng.standard_normal((8, 3)).astype(np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, net.weight.asnumpy()


def test_adafactor_pynative_matches_graph_and_state_shapes():
    eager = _adafactor_run(weight_decay=0.1)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = _adafactor_run(weight_decay=0.1)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(eager[0], graph[0], rtol=1e-5)
    np.testing.assert_allclose(eager[1], graph[1], rtol=1e-5)
    assert eager[0][-1] < eager[0][0]
    opt = ms.nn.AdaFactor(ms.nn.Dense(4, 3).trainable_params())
    assert [tuple(p.shape) for p in opt.exp_avg_sq_row] == [(3,), (1,)]
    assert [tuple(p.shape) for p in opt.exp_avg_sq_col] == [(4,), (1,)]
    assert [tuple(p.shape) for p in opt.exp_avg_sq] == [(1,), (3,)]
