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
