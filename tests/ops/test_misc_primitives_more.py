"""DropoutGenMask/DoMask, EditDistance, Betainc (values and x-gradient against scipy), MatrixLogarithm."""
import numpy as np
import pytest
from scipy import linalg, special

import openspore as ms
from openspore import ops

T = ms.Tensor
rng = np.random.default_rng(0)


def test_dropout_gen_and_do_mask():
    ms.set_seed(5)
    mask = ops.DropoutGenMask()((40, 50), 0.3)
    assert mask.dtype == ms.uint8 and mask.shape == (-(-2000 // 128) * 16,)
    x = T(np.ones((40, 50), np.float32))
    out = ops.DropoutDoMask()(x, mask, 0.3).asnumpy()
    assert np.all(np.isclose(out, 0.0) | np.isclose(out, 1 / 0.3))
    assert abs((out > 0).mean() - 0.3) < 0.03
    ms.set_seed(5)
    np.testing.assert_array_equal(ops.DropoutGenMask()((40, 50), 0.3).asnumpy(), mask.asnumpy())
    keep = (out > 0).astype(np.float32)
    g = ms.grad(lambda v: (ops.DropoutDoMask()(v, mask, 0.3) * 2.0).sum())(x).asnumpy()
    np.testing.assert_allclose(g, keep * 2.0 / 0.3, rtol=1e-6)


def test_edit_distance_on_sparse_sequences():
    # batch of 2: hypothesis "ab" / "c", truth "abc" / "" ; positions (b, t)
    h_idx = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
    t_idx = np.array([[0, 0], [0, 1], [0, 2]], np.int64)
    args = (T(h_idx), T(np.array([1, 2, 3])), T(np.array([2, 2], np.int64)), T(t_idx), T(np.array([1, 2, 3])),
            T(np.array([2, 3], np.int64)))
    assert ops.EditDistance(False)(*args).asnumpy().tolist() == [1.0, 1.0]
    normed = ops.EditDistance()(*args).asnumpy()
    assert normed[0] == pytest.approx(1 / 3) and np.isinf(normed[1])


def test_betainc_matches_scipy_with_x_gradient():
    a = rng.random(6) * 4 + 0.2
    b = rng.random(6) * 4 + 0.2
    x = rng.random(6) * 0.98 + 0.01
    np.testing.assert_allclose(ops.Betainc()(T(a), T(b), T(x)).asnumpy(), special.betainc(a, b, x), rtol=1e-10,
                               atol=1e-12)
    g = ms.grad(lambda v: ops.Betainc()(T(a), T(b), v).sum())(T(x)).asnumpy()
    density = x ** (a - 1) * (1 - x) ** (b - 1) / special.beta(a, b)
    np.testing.assert_allclose(g, density, rtol=1e-8)
    with pytest.raises(ValueError, match="positive"):
        ops.Betainc()(T(np.array([-1.0])), T(np.array([1.0])), T(np.array([0.5])))


def test_matrix_logarithm_matches_scipy():
    m = (rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.complex128)
    got = ops.MatrixLogarithm()(T(m)).asnumpy()
    for k in range(2):
        np.testing.assert_allclose(got[k], linalg.logm(m[k]), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.stack([linalg.expm(g) for g in got]), m, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="complex"):
        ops.MatrixLogarithm()(T(np.eye(2, dtype=np.float32)))


def _rnnt_brute(acts, labels, blank=0):
    """−log Σ over every monotone alignment path of the product of its emission probabilities."""
    lp = acts - np.log(np.exp(acts).sum(-1, keepdims=True))
    t_len, u1 = lp.shape[:2]

    def paths(t, u):
        if t == t_len - 1 and u == u1 - 1:
            return [lp[t, u, blank]]
        out = []
        if t + 1 < t_len:
            out += [lp[t, u, blank] + rest for rest in paths(t + 1, u)]
        if u + 1 < u1:
            out += [lp[t, u, labels[u]] + rest for rest in paths(t, u + 1)]
        return out
    return -np.logaddexp.reduce(paths(0, 0))


def test_rnnt_loss_matches_path_enumeration_and_finite_differences():
    acts = rng.standard_normal((2, 4, 3, 5))
    labels = np.array([[1, 3], [2, 0]], np.int32)
    costs, grads = ops.RNNTLoss()(T(acts), T(labels), T(np.array([4, 3], np.int32)), T(np.array([2, 1], np.int32)))
    assert costs.asnumpy()[0] == pytest.approx(_rnnt_brute(acts[0], labels[0]), rel=1e-10)
    assert costs.asnumpy()[1] == pytest.approx(_rnnt_brute(acts[1, :3, :2], labels[1, :1]), rel=1e-10)
    eps, g = 1e-6, grads.asnumpy()
    for idx in [(0, 0, 0, 0), (0, 2, 1, 3), (0, 3, 2, 0), (1, 1, 1, 0)]:
        up, dn = acts.copy(), acts.copy()
        up[idx] += eps
        dn[idx] -= eps
        b = idx[0]
        f = (lambda a: _rnnt_brute(a[0], labels[0])) if b == 0 else (lambda a: _rnnt_brute(a[1, :3, :2], labels[1, :1]))
        assert g[idx] == pytest.approx((f(up) - f(dn)) / (2 * eps), abs=1e-6)
    assert (g[1, 3] == 0).all() and (g[1, :, 2] == 0).all()  # beyond the sequence's lengths
    auto = ms.grad(lambda a: (ops.RNNTLoss()(a, T(labels), T(np.array([4, 3], np.int32)),
                                             T(np.array([2, 1], np.int32)))[0] * T(np.array([1.0, 2.0]))).sum())(
        T(acts)).asnumpy()
    np.testing.assert_allclose(auto, g * np.array([1.0, 2.0])[:, None, None, None], rtol=1e-10)
