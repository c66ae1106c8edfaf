"""openspore.scipy: linalg on the MatrixInverse/Cholesky primitives, BFGS minimize, linear_sum_assignment."""
import itertools

import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.scipy import linalg, optimize

rng = np.random.default_rng(0)
M = rng.normal(size=(4, 4))
SPD = (M @ M.T + 4 * np.eye(4)).astype(np.float32)
B = rng.normal(size=(4, 2)).astype(np.float32)


def T(x):
    return ms.Tensor(np.asarray(x))


def close(got, want, tol=1e-4):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


def test_linalg_against_numpy():
    close(linalg.inv(T(SPD)), np.linalg.inv(SPD))
    lower = np.linalg.cholesky(SPD)
    close(linalg.cholesky(T(SPD), lower=True), lower)
    close(linalg.cholesky(T(SPD)), lower.T)
    close(linalg.cho_solve(linalg.cho_factor(T(SPD)), T(B)), np.linalg.solve(SPD, B))
    close(linalg.cho_solve(linalg.cho_factor(T(SPD), lower=True), T(B)), np.linalg.solve(SPD, B))
    close(linalg.solve_triangular(T(lower), T(B), lower=True), np.linalg.solve(lower, B))
    close(linalg.solve_triangular(T(lower), T(B[:, 0]), trans="T", lower=True), np.linalg.solve(lower.T, B[:, 0]))
    close(linalg.block_diag(T(np.ones((1, 2), np.float32)), T(np.full((2, 1), 2.0, np.float32))),
          [[1, 1, 0], [0, 0, 2], [0, 0, 2]])
    close(ops.cholesky_inverse(ops.cholesky(T(SPD))), np.linalg.inv(SPD))


def test_inverse_and_cholesky_gradients():
    # d/dA sum(inv(A)) = -(A^-T 1 A^-T); checked against central differences in float64
    a = np.linalg.inv(SPD).astype(np.float64) + np.eye(4)
    g = ms.grad(lambda x: ops.inverse(x).sum())(T(a)).asnumpy()
    inv = np.linalg.inv(a)
    np.testing.assert_allclose(g, -(inv.T @ np.ones((4, 4)) @ inv.T), rtol=1e-6)
    g = ms.grad(lambda x: (ops.cholesky(x) ** 2).sum())(T(SPD.astype(np.float64))).asnumpy()
    assert np.triu(g, 1).max() == 0  # only the lower triangle is read
    np.testing.assert_allclose(np.diag(g), np.ones(4), rtol=1e-6)  # sum(L²) = trace(A): dA_ii = 1, off-diag 0
    np.testing.assert_allclose(np.tril(g, -1), 0, atol=1e-9)


def test_minimize_bfgs():
    target = np.array([1.0, -2.0, 0.5])
    res = optimize.minimize(lambda x: ((x - T(target)) ** 2).sum() + (x[0] * x[1]) ** 2 * 0.1,
                            T(np.zeros(3)), method="BFGS")
    assert res.success and res.nit > 0 and res.x.shape == (3,) and res.x.dtype == ms.float64
    assert np.abs(res.jac.asnumpy()).max() <= 1e-5
    res32 = optimize.minimize(lambda x: ((x - 3.0) ** 2).sum(), T(np.zeros(2, np.float32)), options={"gtol": 1e-3})
    assert res32.success and res32.x.dtype == ms.float32
    np.testing.assert_allclose(res32.x.asnumpy(), [3.0, 3.0], atol=1e-3)
    rosen = optimize.minimize(lambda x: (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2,
                              T(np.array([-1.2, 1.0])), options={"maxiter": 500})
    np.testing.assert_allclose(rosen.x.asnumpy(), [1.0, 1.0], atol=1e-3)
    with pytest.raises(ValueError, match="BFGS"):
        optimize.minimize(lambda x: x.sum(), T(np.zeros(1)), method="Nelder-Mead")


@pytest.mark.parametrize("shape, maximize", [((3, 3), False), ((4, 6), False), ((5, 3), True), ((6, 6), True)])
def test_linear_sum_assignment_is_optimal(shape, maximize):
    cost = np.random.default_rng(shape[0] * 7 + shape[1]).integers(0, 20, size=shape).astype(np.float64)
    rows, cols = optimize.linear_sum_assignment(T(cost), maximize)
    rows, cols = rows.asnumpy(), cols.asnumpy()
    k = min(shape)
    assert len(rows) == k and len(set(rows)) == k and len(set(cols)) == k
    total = cost[rows, cols].sum()
    small, large = (cost, 0) if shape[0] <= shape[1] else (cost.T, 1)
    best = [small[range(small.shape[0]), list(p)].sum() for p in itertools.permutations(range(small.shape[1]),
                                                                                         small.shape[0])]
    assert total == (max(best) if maximize else min(best))
    r, c = optimize.linear_sum_assignment(T(np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]], np.float64)), False)
    assert r.asnumpy().tolist() == [0, 1, 2] and c.asnumpy().tolist() == [1, 0, 2]  # MindSpore 2.10's answer
