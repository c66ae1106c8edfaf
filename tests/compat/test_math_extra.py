"""ops math composites added for MindSpore coverage, each against NumPy."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

rng = np.random.default_rng(0)
A = rng.normal(size=(3, 4)).astype(np.float32)
B = rng.normal(size=(3, 4)).astype(np.float32)
P = rng.uniform(0.1, 0.9, size=(3, 4)).astype(np.float32)


def T(x):
    return ms.Tensor(np.asarray(x))


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(got.asnumpy() if isinstance(got, ms.Tensor) else got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name, fn, want", [
    ("deg2rad", lambda: ops.deg2rad(T(A)), np.deg2rad(A)),
    ("rad2deg", lambda: ops.rad2deg(T(A)), np.rad2deg(A)),
    ("frac", lambda: ops.frac(T(A * 3)), np.modf(A * 3)[0]),
    ("hypot", lambda: ops.hypot(T(A), T(B)), np.hypot(A, B)),
    ("heaviside", lambda: ops.heaviside(T(np.array([-1.0, 0.0, 2.0], np.float32)), T(np.float32(0.5))),
     np.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5)),
    ("lerp", lambda: ops.lerp(T(A), T(B), 0.25), A + 0.25 * (B - A)),
    ("logaddexp", lambda: ops.logaddexp(T(A * 50), T(B * 50)), np.logaddexp(A * 50, B * 50)),
    ("logaddexp2", lambda: ops.logaddexp2(T(A), T(B)), np.logaddexp2(A, B)),
    ("logit", lambda: ops.logit(T(P)), np.log(P / (1 - P))),
    # MindSpore 2.10 computes 0 · log(0) as written: nan (checked on MindSpore 2.10)
    ("xlogy", lambda: ops.xlogy(T(np.array([0.0, 2.0], np.float32)), T(np.array([0.0, 3.0], np.float32))),
     np.array([np.nan, 2 * np.log(3.0)])),
    ("xdivy", lambda: ops.xdivy(T(np.array([0.0, 2.0], np.float32)), T(np.array([0.0, 4.0], np.float32))), [0.0, 0.5]),
    ("sinc", lambda: ops.sinc(T(np.array([0.0, 0.5, 1.5], np.float32))), np.sinc([0.0, 0.5, 1.5])),
    ("float_power", lambda: ops.float_power(T(P), 2.5), np.power(P.astype(np.float64), 2.5)),
    ("fmax", lambda: ops.fmax(T(np.array([np.nan, 1.0, 3.0], np.float32)), T(np.array([2.0, np.nan, 1.0], np.float32))),
     [2.0, 1.0, 3.0]),
    ("fmin", lambda: ops.fmin(T(np.array([np.nan, 1.0, 3.0], np.float32)), T(np.array([2.0, np.nan, 1.0], np.float32))),
     [2.0, 1.0, 1.0]),
    ("copysign", lambda: ops.copysign(T(A), T(B)), np.copysign(A, B)),
    ("ldexp", lambda: ops.ldexp(T(A), T(np.array([1, 2, 3, 0], np.int32))), np.ldexp(A, [1, 2, 3, 0])),
    ("nan_to_num", lambda: ops.nan_to_num(T(np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)), 0.0, 9.0, -9.0),
     [0.0, 9.0, -9.0, 1.0]),
    ("tensor_dot", lambda: ops.tensor_dot(T(A), T(B.T), ((1,), (0,))), A @ B.T),
    ("tensor_dot_int", lambda: ops.tensor_dot(T(A.reshape(3, 2, 2)), T(B.reshape(2, 2, 3)), 2),
     np.tensordot(A.reshape(3, 2, 2), B.reshape(2, 2, 3), 2)),
    ("dot", lambda: ops.dot(T(A), T(B.T)), A @ B.T),
    ("batch_dot", lambda: ops.batch_dot(T(A), T(B)), (A * B).sum(1, keepdims=True)),
    ("batch_dot_3d", lambda: ops.batch_dot(T(A.reshape(3, 2, 2)), T(B.reshape(3, 2, 2))),
     np.einsum("bij,bjk->bik", A.reshape(3, 2, 2), B.reshape(3, 2, 2))),
    ("vecdot", lambda: ops.vecdot(T(A), T(B)), (A * B).sum(-1)),
    ("mv", lambda: ops.mv(T(A), T(B[0])), A @ B[0]),
    ("addmv", lambda: ops.addmv(T(A[:, 0]), T(A), T(B[0]), beta=2, alpha=3), 2 * A[:, 0] + 3 * (A @ B[0])),
    ("addr", lambda: ops.addr(T(A), T(A[:, 0]), T(B[0]), beta=0.5), 0.5 * A + np.outer(A[:, 0], B[0])),
    ("baddbmm", lambda: ops.baddbmm(T(A.reshape(3, 2, 2)), T(A.reshape(3, 2, 2)), T(B.reshape(3, 2, 2)), 2, 1),
     2 * A.reshape(3, 2, 2) + A.reshape(3, 2, 2) @ B.reshape(3, 2, 2)),
    ("addbmm", lambda: ops.addbmm(T(A[:2, :2]), T(A.reshape(3, 2, 2)), T(B.reshape(3, 2, 2))),
     A[:2, :2] + (A.reshape(3, 2, 2) @ B.reshape(3, 2, 2)).sum(0)),
    ("addcdiv", lambda: ops.addcdiv(T(A), T(B), T(P), 2), A + 2 * B / P),
    ("kron", lambda: ops.kron(T(A[:2, :2]), T(B[:2, :3])), np.kron(A[:2, :2], B[:2, :3])),
    ("diff", lambda: ops.diff(T(A), 2, 1), np.diff(A, 2, 1)),
    ("trapz", lambda: ops.trapz(T(A), dx=0.5), np.trapezoid(A, dx=0.5)),
    ("trapz_x", lambda: ops.trapz(T(A), T(np.cumsum(P[0]))), np.trapezoid(A, np.cumsum(P[0]))),
    ("linspace", lambda: ops.linspace(1.0, 3.0, 5), np.linspace(1, 3, 5)),
    ("logspace", lambda: ops.logspace(0.0, 2.0, 3), [1.0, 10.0, 100.0]),
    ("cross", lambda: ops.cross(T(A[:, :3]), T(B[:, :3]), 1), np.cross(A[:, :3], B[:, :3])),
    ("dist", lambda: ops.dist(T(A), T(B), 3), (np.abs(A - B) ** 3).sum() ** (1 / 3)),
    ("cov", lambda: ops.cov(T(A)), np.cov(A)),
    ("cov_fw", lambda: ops.cov(T(A), fweights=T(np.array([1, 2, 1, 3], np.int32)), aweights=T(P[0])),
     np.cov(A, fweights=[1, 2, 1, 3], aweights=P[0])),
    ("renorm", lambda: ops.renorm(T(A), 2, 0, 1.0),
     A * np.where(np.linalg.norm(A, axis=1, keepdims=True) > 1, 1 / np.linalg.norm(A, axis=1, keepdims=True), 1)),
    ("t", lambda: ops.t(T(A)), A.T),
    ("matrix_power", lambda: ops.matrix_power(T(A[:3, :3]), 3), np.linalg.matrix_power(A[:3, :3], 3)),
    ("vander", lambda: ops.vander(T(P[0]), 3), np.vander(P[0], 3)),
    ("count_nonzero", lambda: ops.count_nonzero(T(np.array([[0, 1], [2, 0]], np.int32)), 1), [1, 1]),
    ("nansum", lambda: ops.nansum(T(np.array([np.nan, 1.0, 2.0], np.float32))), 3.0),
    ("nanmean", lambda: ops.nanmean(T(np.array([np.nan, 1.0, 2.0], np.float32))), 1.5),
    ("reduce_sum", lambda: ops.reduce_sum(T(A)), A.sum()),
    ("reduce_max", lambda: ops.reduce_max(T(A), 1), A.max(1)),
    ("logcumsumexp", lambda: ops.logcumsumexp(T(A * 30), 1), np.logaddexp.accumulate(A * 30, 1)),
    ("cdist", lambda: ops.cdist(T(A), T(B)), np.linalg.norm(A[:, None] - B[None], axis=-1)),
    ("cdist_p1", lambda: ops.cdist(T(A), T(B), 1.0), np.abs(A[:, None] - B[None]).sum(-1)),
    ("quantile", lambda: ops.quantile(T(A), 0.3, 1), np.quantile(A, 0.3, axis=1)),
    ("quantile_all", lambda: ops.quantile(T(A), T(np.array([0.1, 0.9], np.float32))), np.quantile(A, [0.1, 0.9])),
    ("msort", lambda: ops.msort(T(A)), np.sort(A, 0)),
    ("inv", lambda: ops.inv(T(P)), 1 / P),
])
def test_against_numpy(name, fn, want):
    close(fn(), np.asarray(want, np.float64), 1e-4)


def test_median_and_aminmax_and_predicates():
    v, i = ops.median(T(A), 1)
    close(v, np.sort(A, 1)[:, 1])
    assert (A[np.arange(3), i.asnumpy()] == v.asnumpy()).all()
    lo, hi = ops.aminmax(T(A), axis=1)
    close(lo, A.min(1))
    close(hi, A.max(1))
    x = T(np.array([-np.inf, np.inf, -1.0], np.float32))
    assert ops.isneginf(x).asnumpy().tolist() == [True, False, False]
    assert ops.isposinf(x).asnumpy().tolist() == [False, True, False]
    assert ops.signbit(x).asnumpy().tolist() == [True, False, True]
    assert ops.is_floating_point(x) and not ops.is_complex(x) and ops.is_tensor(x) and not ops.is_tensor(1)
    assert ops.isreal(x).asnumpy().all()
    with pytest.raises(ValueError, match="negative powers"):
        ops.matrix_power(T(A[:3, :3]), -1)


def test_composites_differentiate():
    g = ms.grad(lambda a: ops.hypot(a, a).sum())(T(A))
    close(g, np.sign(A) * np.sqrt(2.0))
    g = ms.grad(lambda a: ops.tensor_dot(a, a.T, 1).sum())(T(A))
    close(g, 2 * np.tile(A.sum(0, keepdims=True), (3, 1)), 1e-4)


def test_bitwise_inv_and_linspace_primitives():
    a = T(np.array([6, 3, -1], np.int32))
    assert ops.bitwise_and(a, 3).asnumpy().tolist() == [2, 3, 3]
    assert ops.bitwise_or(a, T(np.array([1, 4, 0], np.int32))).asnumpy().tolist() == [7, 7, -1]
    assert ops.bitwise_xor(a, 5).asnumpy().tolist() == [3, 6, -6]
    assert ops.invert(a).asnumpy().tolist() == [-7, -4, 0]
    assert ms.ops.Invert()(T(np.array([True, False]))).asnumpy().tolist() == [False, True]
    close(ops.inv(T(P)), 1 / P)
    close(ms.ops.LinSpace()(T(np.float32(1.0)), T(np.float32(0.0)), 3), [1.0, 0.5, 0.0])
    g_start, g_end = ms.grad(lambda s, e: (ops.linspace(s, e, 5) * T(np.arange(5, dtype=np.float32))).sum(),
                             grad_position=(0, 1))(T(np.float32(0.0)), T(np.float32(2.0)))
    t = np.linspace(0, 1, 5)
    close(g_start, (np.arange(5) * (1 - t)).sum())
    close(g_end, (np.arange(5) * t).sum())
