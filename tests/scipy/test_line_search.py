"""mindspore.scipy.optimize.line_search: strong Wolfe steps, with the step, value, gradient and counters that
MindSpore 2.10 returns for the same problems (recorded from the real MindSpore on CPU)."""
import numpy as np
import pytest

import openspore as ms
import openspore.numpy as mnp
from openspore.scipy.optimize import line_search

T = ms.Tensor


def f32(*v):
    return T(np.array(v, np.float32))


@pytest.mark.parametrize("func, x0, p, want", [
    # (a_k, f_k, nfev, status): accepted at once, and after one interpolation step inside the bracket
    (lambda x: mnp.sum((x - 1.0) ** 4), f32(3.0, 3.0), f32(-1.0, -1.0), (1.0, 2.0, 2, 0)),
    (lambda x: mnp.sum(x * x), f32(1.8, 1.7), f32(-1.0, -1.0), (1.0, 1.13, 2, 0)),
    (lambda x: mnp.sum(x * x), f32(1.8, 1.7), f32(-10.0, -10.0), (0.175, 0.005, 3, 0)),
    (lambda x: mnp.sum(mnp.exp(x) - 2 * x), f32(2.0), f32(-5.0), (0.455064, 1.309971, 3, 0)),
])
def test_matches_mindspore(func, x0, p, want):
    res = line_search(func, x0, p)
    a_k, f_k, nfev, status = want
    assert res._fields == ("failed", "nit", "nfev", "ngev", "k", "a_k", "f_k", "g_k", "status")
    assert not res.failed and res.status == status and res.nit == 1 and res.k == 2
    assert res.nfev == res.ngev == nfev
    assert res.a_k == pytest.approx(a_k, rel=1e-4) and res.f_k == pytest.approx(f_k, rel=1e-4)
    x = x0.asnumpy() + res.a_k * p.asnumpy()
    grad = ms.grad(func)(T(x.astype(np.float32))).asnumpy()
    assert res.g_k.dtype == x0.dtype
    np.testing.assert_allclose(res.g_k.asnumpy(), grad, rtol=1e-4, atol=1e-5)
    # the strong Wolfe conditions hold at the returned step
    slope0 = float(ms.grad(func)(x0).asnumpy() @ p.asnumpy())
    f0 = float(func(x0).asnumpy())
    assert res.f_k <= f0 + 1e-4 * res.a_k * slope0 + 1e-6
    assert abs(float(res.g_k.asnumpy() @ p.asnumpy())) <= 0.9 * abs(slope0) + 1e-6


def test_status_failure_and_given_start_values():
    sq = lambda x: mnp.sum(x * x)  # noqa: E731
    res = line_search(sq, f32(1.8, 1.7), f32(-1.0, -1.0), maxiter=1)
    assert not res.failed and res.status == 3  # the outer loop used up maxiter (MindSpore reports 3 too)
    res = line_search(sq, f32(1.8, 1.7), f32(-1.0, -1.0), old_fval=f32(6.13)[0], gfk=f32(3.6, 3.4))
    assert res.nfev == 1 and res.a_k == 1.0  # the start point was not evaluated again
    res = line_search(sq, f32(1.8, 1.7), f32(1.0, 1.0))  # uphill: no step satisfies the conditions
    assert res.failed and res.status == 1
    res = line_search(lambda x: x[0] ** 2 - x[1] ** 3, f32(1.0, 1.0), f32(-1.0, -1.0))
    assert res.failed and res.status == 1 and res.nfev == 12  # ten zoom steps, as in MindSpore
    res = line_search(sq, T(np.array([1.8, 1.7])), T(np.array([-1.0, -1.0])), jac=lambda x: 2 * x)
    assert res.g_k.dtype == ms.float64 and res.a_k == 1.0
    with pytest.raises(ValueError, match="same shape"):
        line_search(sq, f32(1.8, 1.7), f32(-1.0))
