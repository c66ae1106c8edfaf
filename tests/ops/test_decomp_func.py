"""Decompositions (qr, svd, eig, eigvals, pinv, geqrf, orgqr, ormqr and their classes) on both backends (the
`backend` fixture): reconstructions and numpy references, since factors are unique only up to signs; geqrf,
orgqr, R, singular values and pinv were also matched against MindSpore 2.10."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

A = np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4], [1, 0, 1]], np.float32)


def test_qr_reconstructs(backend):
    for mode, q_shape, r_shape in (("reduced", (4, 3), (3, 3)), ("complete", (4, 4), (4, 3))):
        q, r = ops.qr(ms.Tensor(A), mode)
        assert q.shape == q_shape and r.shape == r_shape
        np.testing.assert_allclose(q.asnumpy() @ r.asnumpy(), A, atol=1e-5)
        np.testing.assert_allclose(q.asnumpy().T @ q.asnumpy(), np.eye(q_shape[1]), atol=1e-5)
        np.testing.assert_allclose(r.asnumpy(), np.triu(r.asnumpy()))
    q, r = ops.Qr(True)(ms.Tensor(A))
    assert q.shape == (4, 4)
    with pytest.raises(ValueError, match="mode"):
        ops.qr(ms.Tensor(A), "r")


def test_svd_reconstructs_and_returns_v(backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 5))
    s, u, v = ops.svd(ms.Tensor(x))
    assert s.shape == (2, 3) and u.shape == (2, 3, 3) and v.shape == (2, 5, 3)
    np.testing.assert_allclose(s.asnumpy(), np.linalg.svd(x, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(u.asnumpy() * s.asnumpy()[:, None, :] @ np.swapaxes(v.asnumpy(), 1, 2), x, atol=1e-10)
    s_only = ops.svd(ms.Tensor(x), compute_uv=False)
    np.testing.assert_allclose(s_only.asnumpy(), s.asnumpy(), rtol=1e-10)
    s, u, v = ops.Svd(full_matrices=True)(ms.Tensor(A))
    assert u.shape == (4, 4) and v.shape == (3, 3)
    s, u, v = ops.Svd(compute_uv=False)(ms.Tensor(A))
    assert u.shape == (1,) and v.shape == (1,)


def test_eig_and_eigvals(backend):
    x = np.array([[0.0, -1.0], [1.0, 0.0]], np.float32)  # a rotation: eigenvalues ±i
    w, v = ops.eig(ms.Tensor(x))
    assert w.dtype == ms.complex64 and v.shape == (2, 2)
    np.testing.assert_allclose(x @ v.asnumpy(), v.asnumpy() * w.asnumpy()[None, :], atol=1e-6)
    np.testing.assert_allclose(sorted(ops.eigvals(ms.Tensor(x)).asnumpy().imag), [-1.0, 1.0], atol=1e-6)
    w, v = ops.Eig()(ms.Tensor(x))
    assert v.shape == ()
    with pytest.raises(ValueError, match="square"):
        ops.eig(ms.Tensor(A))


def test_pinv(backend):
    np.testing.assert_allclose(ops.pinv(ms.Tensor(A)).asnumpy(), np.linalg.pinv(A), atol=1e-5)
    s = np.linalg.svd(A, compute_uv=False)
    cut = ops.pinv(ms.Tensor(A), atol=float(s[1] + 1e-3)).asnumpy()  # keeps only the largest singular value
    u, sv, vh = np.linalg.svd(A.astype(np.float64), full_matrices=False)
    np.testing.assert_allclose(cut, np.outer(vh[0], u[:, 0]) / sv[0], atol=1e-5)


def test_geqrf_orgqr_ormqr(backend):
    y, tau = ops.geqrf(ms.Tensor(A))
    h, t = np.linalg.qr(A.astype(np.float64), mode="raw")
    np.testing.assert_allclose(y.asnumpy(), h.T, atol=1e-5)
    np.testing.assert_allclose(tau.asnumpy(), t, atol=1e-5)
    q = ops.orgqr(y, tau).asnumpy()
    np.testing.assert_allclose(q, np.linalg.qr(A)[0], atol=1e-5)
    full_q = np.linalg.qr(A.astype(np.float64), mode="complete")[0]
    c = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(ops.ormqr(y, tau, ms.Tensor(c)).asnumpy(), full_q @ c, atol=1e-4)
    np.testing.assert_allclose(ops.Ormqr(transpose=True)(y, tau, ms.Tensor(c)).asnumpy(), full_q.T @ c, atol=1e-4)
    np.testing.assert_allclose(ops.ormqr(y, tau, ms.Tensor(c.T), left=False).asnumpy(), c.T @ full_q, atol=1e-4)
    batched = np.stack([A, 2 * A])
    yb, tb = ops.geqrf(ms.Tensor(batched))
    np.testing.assert_allclose(ops.orgqr(yb, tb).asnumpy()[1], np.linalg.qr(A)[0], atol=1e-5)


def test_gradients_raise_clearly():
    with pytest.raises(NotImplementedError, match="Svd"):
        ms.grad(lambda x: ops.svd(x)[0].sum())(ms.Tensor(A))
