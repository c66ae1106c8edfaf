"""Functional math API (ops.add … ops.norm): semantics against NumPy, MindSpore's dtype rules, tuple results,
and gradients of the composites against finite differences (float64, numpy backend)."""
import math

import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, ops
from tests.device import use_backend


def T(a, dtype=None):
    return Tensor(np.asarray(a), dtype)


def np_of(t):
    return t.asnumpy()


# ---- dtype promotion (facts §3.3) ---------------------------------------------------------------------
def test_true_division_of_ints_gives_float32(backend):
    a, b = T(np.array([7, -7, 6], np.int32)), T(np.array([2, 2, 4], np.int32))
    for out in (ops.div(a, b), ops.true_divide(a, b), ops.Div()(a, b)):
        assert out.dtype == ms.float32
        np.testing.assert_allclose(np_of(out), [3.5, -3.5, 1.5])
    # the RealDiv primitive itself keeps the integer dtype and truncates (as on MindSpore 2.10)
    truncated = ops.RealDiv()(a, b)
    assert truncated.dtype == ms.int32 and np_of(truncated).tolist() == [3, -3, 1]
    assert ops.div(T(np.array([4], np.int64)), 2).dtype == ms.float32


def test_promotion_examples(backend):
    assert ops.add(T(np.array([True, False])), 2).dtype == ms.int64
    assert ops.add(T(np.array([1, 2], np.int8)), 3).dtype == ms.int8
    assert ops.mul(T(np.array([1, 2], np.int32)), 2.5).dtype == ms.float32
    assert ops.add(T(np.array([1.0], np.float16)), 2.5).dtype == ms.float16
    assert ops.add(T(np.array([1], np.int32)), T(np.array([1.0], np.float16))).dtype == ms.float16
    assert ops.floor_divide(T(np.array([7, -7], np.int32)), 2).dtype == ms.int32
    assert ops.mul(T(np.array([True])), T(np.array([True]))).dtype == ms.bool_
    for fn in (ops.equal, ops.ne, ops.lt, ops.le, ops.gt, ops.ge, ops.eq, ops.less, ops.greater_equal):
        out = fn(T(np.array([1.0, 2.0], np.float32)), 1.5)
        assert out.dtype == ms.bool_


def test_transcendental_of_ints_is_float32(backend):
    x = T(np.array([0, 1, 2], np.int32))
    with pytest.raises(TypeError, match="Exp"):  # exp alone rejects ints (MindSpore 2.10's CPU kernel)
        ops.exp(x)
    for fn, ref in ((ops.sqrt, np.sqrt), (ops.sin, np.sin), (ops.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
                    (ops.erf, lambda v: np.array([math.erf(e) for e in v])), (ops.log1p, np.log1p),
                    (ops.reciprocal, lambda v: np.array([np.inf, 1.0, 0.5]))):
        out = fn(x)
        assert out.dtype == ms.float32, fn.__name__
        np.testing.assert_allclose(np_of(out), ref(np.array([0.0, 1.0, 2.0])), rtol=1e-6, err_msg=fn.__name__)
    for fn in (ops.abs, ops.square, ops.sign, ops.floor, ops.round, ops.neg):
        assert fn(x).dtype == ms.int32, fn.__name__


# ---- elementwise semantics ------------------------------------------------------------------------------
def test_division_family_matches_numpy(backend):
    xi = np.array([7, -7, 7, -7, 0, 5], np.int32)
    yi = np.array([2, 2, -2, -2, 3, 5], np.int32)
    xf, yf = xi.astype(np.float32) + 0.5, yi.astype(np.float32)
    for x, y in ((xi, yi), (xf, yf)):
        tx, ty = T(x), T(y)
        np.testing.assert_array_equal(np_of(ops.div(tx, ty, rounding_mode="floor")), np.floor_divide(x, y))
        np.testing.assert_array_equal(np_of(ops.div(tx, ty, rounding_mode="trunc")),
                                      np.trunc(x / y).astype(x.dtype))
        np.testing.assert_array_equal(np_of(ops.remainder(tx, ty)), np.mod(x, y))
        np.testing.assert_array_equal(np_of(ops.floor_mod(tx, ty)), np.mod(x, y))
        np.testing.assert_array_equal(np_of(ops.fmod(tx, ty)), np.fmod(x, y))
    assert np_of(ops.Mod()(T(np.float32([-4.0])), T(np.float32([3.0]))))[0] == -1.0
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(T(xf), T(yf), rounding_mode="ceil")


def test_pow_and_unary_functions(backend):
    x = np.array([[0.3, 1.7, 2.5], [0.9, 1.1, 0.4]], np.float32)
    t = T(x)
    np.testing.assert_allclose(np_of(ops.pow(t, 2)), x ** 2, rtol=1e-6)
    np.testing.assert_allclose(np_of(ops.pow(2.0, t)), 2.0 ** x, rtol=1e-6)
    np.testing.assert_allclose(np_of(ops.pow(t, t)), x ** x, rtol=1e-6)
    assert np_of(ops.pow(T(np.array([2, 3], np.int32)), 3)).tolist() == [8, 27]
    cases = {ops.exp: np.exp, ops.expm1: np.expm1, ops.log: np.log, ops.log1p: np.log1p, ops.log2: np.log2,
             ops.log10: np.log10, ops.exp2: np.exp2, ops.rsqrt: lambda v: 1 / np.sqrt(v), ops.tanh: np.tanh,
             ops.atan: np.arctan, ops.asinh: np.arcsinh, ops.acosh: lambda v: np.arccosh(v + 1),
             ops.erfc: lambda v: np.array([[math.erfc(e) for e in row] for row in v])}
    for fn, ref in cases.items():
        arg = x + 1 if fn is ops.acosh else x
        np.testing.assert_allclose(np_of(fn(T(arg))), ref(x) if fn is ops.acosh else ref(arg), rtol=2e-6,
                                   atol=1e-7, err_msg=fn.__name__)
    np.testing.assert_allclose(np_of(ops.atan2(t, T(x[::-1].copy()))), np.arctan2(x, x[::-1]), rtol=1e-6)
    np.testing.assert_array_equal(np_of(ops.round(T(np.float32([0.5, 1.5, 2.5, -0.5])))), [0.0, 2.0, 2.0, -0.0])
    np.testing.assert_allclose(np_of(ops.round(T(np.float32([1.2345, -2.5551])), decimals=2)), [1.23, -2.56],
                               rtol=1e-6)


def test_erf_numpy_kernel_is_accurate():
    use_backend("numpy")
    x = np.concatenate([np.linspace(-6, 6, 2001), [0.0, np.inf, -np.inf]])
    got_erf = np_of(ops.erf(T(x)))
    got_erfc = np_of(ops.erfc(T(x)))
    np.testing.assert_allclose(got_erf, [math.erf(v) for v in x], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(got_erfc, [math.erfc(v) for v in x], rtol=1e-11, atol=1e-300)
    assert np.isnan(np_of(ops.erf(T(np.array([np.nan])))))[0]


def test_clamp_where_and_logic(backend):
    x = np.array([[-2.0, -0.5, 0.3], [0.8, 1.5, 3.0]], np.float32)
    t = T(x)
    np.testing.assert_array_equal(np_of(ops.clamp(t, -1, 1)), np.clip(x, -1, 1))
    np.testing.assert_array_equal(np_of(ops.clamp(t, min=0.0)), np.maximum(x, 0))
    np.testing.assert_array_equal(np_of(ops.clip(t, max=0.5)), np.minimum(x, 0.5))
    np.testing.assert_array_equal(np_of(ops.clip_by_value(t, T(np.float32([0, 1, 2])), 2.5)),
                                  np.minimum(np.maximum(x, [0, 1, 2]), 2.5))
    ints = ops.clamp(T(np.array([-5, 0, 5], np.int32)), -2, 2)
    assert ints.dtype == ms.int32 and np_of(ints).tolist() == [-2, 0, 2]
    with pytest.raises(ValueError, match="at least one"):
        ops.clamp(t)
    cond = T(np.array([True, False, True]))
    out = ops.where(cond, t, 0.0)
    np.testing.assert_array_equal(np_of(out), np.where([True, False, True], x, 0.0))
    assert ops.where(T(np.array([1, 0])), 1, 2).dtype == ms.int64
    a, b = np.array([True, False, True, False]), np.array([True, True, False, False])
    assert np_of(ops.logical_and(T(a), T(b))).tolist() == (a & b).tolist()
    assert np_of(ops.logical_or(T(a), T(b))).tolist() == (a | b).tolist()
    assert np_of(ops.logical_xor(T(a), T(b))).tolist() == (a ^ b).tolist()
    assert np_of(ops.logical_not(T(a))).tolist() == (~a).tolist()
    special = T(np.float32([1.0, np.nan, np.inf, -np.inf]))
    assert np_of(ops.isnan(special)).tolist() == [False, True, False, False]
    assert np_of(ops.isinf(special)).tolist() == [False, False, True, True]
    assert np_of(ops.isfinite(special)).tolist() == [True, False, False, False]
    with pytest.raises(TypeError, match="'cond' must be a Tensor of Bool"):
        ops.Select()(T(np.array([1, 0], np.int32)), T(x[0, :2]), T(x[1, :2]))


def test_isclose_and_allclose(backend):
    a = np.array([1.0, 1.0 + 1e-7, np.inf, np.inf, np.nan, 1.0, 2.0], np.float64)
    b = np.array([1.0, 1.0, np.inf, 1.0, np.nan, np.inf, 2.1], np.float64)
    for equal_nan in (False, True):
        np.testing.assert_array_equal(np_of(ops.isclose(T(a), T(b), equal_nan=equal_nan)),
                                      np.isclose(a, b, equal_nan=equal_nan))
    np.testing.assert_array_equal(np_of(ops.isclose(T(a), T(b), rtol=0.1)), np.isclose(a, b, rtol=0.1))
    assert bool(ops.allclose(T(a[:3]), T(b[:3])))
    assert not bool(ops.allclose(T(a), T(b)))


# ---- reductions -------------------------------------------------------------------------------------------
def test_max_min_return_value_and_index(backend):
    x = np.array([[0.0, 0.4, 0.6, 0.7, 0.1], [0.9, -1.0, 0.2, 0.9, 0.3]], np.float32)
    t = T(x)
    value, index = ops.max(t)
    assert value.dtype == ms.float32 and float(value) == pytest.approx(0.9)
    assert index.dtype == ms.int64 and int(index) == 0  # MindSpore's fixed index with axis=None
    values, indices = ops.max(t, 1)
    np.testing.assert_allclose(np_of(values), x.max(1))
    assert indices.dtype == ms.int64 and np_of(indices).tolist() == [3, 0]  # first index on ties
    values, indices = ops.min(t, axis=0, keepdims=True)
    assert values.shape == (1, 5) and np_of(indices).tolist() == [[0, 1, 1, 0, 0]]
    values, _ = ops.max(t, 1, initial=0.8)
    np.testing.assert_allclose(np_of(values), [0.8, 0.9])
    mask = T(np.array([[True, True, False, False, True]] * 2))
    values, indices = ops.max(t, 1, initial=-5.0, where=mask)
    np.testing.assert_allclose(np_of(values), [0.4, 0.9])
    assert np_of(indices).tolist() == [1, 0]
    np.testing.assert_allclose(np_of(ops.amax(t, 1, where=mask, initial=-5.0)), [0.4, 0.9])
    with pytest.raises(ValueError, match="initial"):
        ops.amax(t, where=mask)
    idx, val = ops.ArgMaxWithValue(axis=1)(t)
    assert idx.dtype == ms.int64 and np_of(idx).tolist() == [3, 0]


def test_argmax_dtypes_and_shapes(backend):
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    t = T(x)
    out = ops.argmax(t)
    assert out.dtype == ms.int64 and out.shape == () and int(out) == int(np.argmax(x))
    assert ops.argmax(t, 1).tolist() == np.argmax(x, 1).tolist()
    assert ops.argmax(t, 1, keepdim=True).shape == (3, 1)
    assert ops.argmax(t, keepdim=True).shape == (1, 1)
    assert ops.argmin(t, axis=0).tolist() == np.argmin(x, 0).tolist()
    prim_out = ops.Argmax()(t)
    assert prim_out.dtype == ms.int32 and prim_out.tolist() == np.argmax(x, -1).tolist()
    assert ops.Argmin(axis=0, output_type=ms.int64)(t).dtype == ms.int64
    with pytest.raises(TypeError, match="output_type"):
        ops.Argmax(output_type=ms.float32)


def test_reductions_match_numpy(backend):
    x = np.random.default_rng(1).uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32)
    t = T(x)
    for axis in (None, 0, -1, (0, 2)):
        np_axis = axis
        np.testing.assert_allclose(np_of(ops.sum(t, axis)), x.sum(np_axis), rtol=1e-5)
        np.testing.assert_allclose(np_of(ops.mean(t, axis)), x.mean(np_axis), rtol=1e-5)
        np.testing.assert_allclose(np_of(ops.prod(t, axis)), x.prod(np_axis), rtol=1e-5)
        np.testing.assert_allclose(np_of(ops.amax(t, axis, keepdims=True)), x.max(np_axis, keepdims=True))
        np.testing.assert_allclose(np_of(ops.amin(t, axis)), x.min(np_axis))
        b = x > 1.0
        np.testing.assert_array_equal(np_of(ops.all(T(b), axis)), b.all(np_axis))
        np.testing.assert_array_equal(np_of(ops.any(T(b), axis, keep_dims=True)), b.any(np_axis, keepdims=True))
    assert ops.sum(T(np.array([True, True, False]))).dtype == ms.int64
    assert int(ops.sum(T(np.array([True, True, False])))) == 2
    assert ops.prod(T(np.array([[1, 2], [3, 4]], np.int32)), 1).tolist() == [2, 12]


def test_cumulative(backend):
    x = np.random.default_rng(2).uniform(-2, 2, (3, 4)).astype(np.float32)
    np.testing.assert_allclose(np_of(ops.cumsum(T(x), 1)), np.cumsum(x, 1), rtol=1e-5)
    np.testing.assert_allclose(np_of(ops.cumprod(T(x), 0)), np.cumprod(x, 0), rtol=1e-5)
    assert ops.cumsum(T(np.array([1, 2, 3], np.int32)), 0, dtype=ms.float32).dtype == ms.float32
    ex = ops.CumSum(exclusive=True, reverse=True)(T(np.array([1, 2, 3, 4], np.int32)), 0)
    assert ex.dtype == ms.int32 and ex.tolist() == [9, 7, 4, 0]
    assert ops.CumProd(exclusive=True)(T(np.array([2, 3, 4], np.int64)), 0).tolist() == [1, 2, 6]


def test_statistics(backend):
    x = np.random.default_rng(3).standard_normal((3, 5)).astype(np.float32)
    t = T(x)
    for axis in (None, 0, 1, (0, 1)):
        for ddof in (0, 1):
            np.testing.assert_allclose(np_of(ops.var(t, axis, ddof)), x.var(axis, ddof=ddof), rtol=1e-5)
            np.testing.assert_allclose(np_of(ops.std(t, axis, ddof, keepdims=True)),
                                       x.std(axis, ddof=ddof, keepdims=True), rtol=1e-5)
    s, m = ops.std_mean(t, 1, ddof=True)
    np.testing.assert_allclose(np_of(s), x.std(1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(np_of(m), x.mean(1), rtol=1e-5)
    v, m = ops.var_mean(t, 0, keepdims=True)
    assert v.shape == m.shape == (1, 5)
    assert ops.std(T(np.array([1, 2, 3, 4], np.int32))).dtype == ms.float32


def test_logsumexp_is_stable(backend):
    x = np.array([[1000.0, 1000.0, 999.0], [-1.0, 0.0, 2.0], [-np.inf, -np.inf, -np.inf]], np.float32)
    out = np_of(ops.logsumexp(T(x), 1))
    m = np.array([1000.0, 2.0])
    ref = m + np.log(np.exp(x[:2] - m[:, None]).sum(1))
    np.testing.assert_allclose(out[:2], ref, rtol=1e-6)
    assert out[2] == -np.inf
    assert ops.logsumexp(T(x[:2]), (0, 1), keep_dims=True).shape == (1, 1)


def test_norms(backend):
    v = np.array([3.0, -4.0, 0.0, 1.0], np.float32)
    m = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(float(ops.norm(T(v))), np.linalg.norm(v), rtol=1e-6)
    for ord_ in (1, 2, 0, 3, np.inf, -np.inf):
        np.testing.assert_allclose(float(ops.norm(T(v), ord_)), np.linalg.norm(v, ord_), rtol=1e-5)
    for ord_ in ("fro", 1, -1, np.inf, -np.inf):
        np.testing.assert_allclose(float(ops.norm(T(m), ord_)), np.linalg.norm(m, ord_), rtol=1e-5)
    np.testing.assert_allclose(np_of(ops.norm(T(m), dim=1)), np.linalg.norm(m, axis=1), rtol=1e-5)
    np.testing.assert_allclose(np_of(ops.norm(T(m), 1, dim=0, keepdim=True)),
                               np.linalg.norm(m, 1, axis=0, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(float(ops.norm(T(np.ones((2, 3, 4), np.float32)))), math.sqrt(24), rtol=1e-6)
    for ord_ in ("nuc", 2, -2):  # from the singular values
        np.testing.assert_allclose(float(ops.norm(T(m), ord_)), np.linalg.norm(m, ord_), rtol=1e-5)
    with pytest.raises(ValueError, match="not supported"):
        ops.norm(T(m), 3)
    with pytest.raises(TypeError, match="float"):
        ops.norm(T(np.array([1, 2], np.int32)))


def test_addn_and_clip_by_global_norm(backend):
    a, b = np.float32([[1, 2], [3, 4]]), np.float32([[0.5, 0.5], [-1, 2]])
    np.testing.assert_allclose(np_of(ops.addn([T(a), T(b), T(a)])), a + b + a)
    with pytest.raises(ValueError, match="same shape"):
        ops.addn([T(a), T(b[0])])
    clipped = ops.clip_by_global_norm((T(a), T(b)), 2.0)
    g = math.sqrt((a ** 2).sum() + (b ** 2).sum())
    for c, ref in zip(clipped, (a, b)):
        np.testing.assert_allclose(np_of(c), ref * 2.0 / max(g, 2.0), rtol=1e-6)
    small = ops.clip_by_global_norm([T(a * 0.01)], 1.0)
    np.testing.assert_allclose(np_of(small[0]), a * 0.01, rtol=1e-6)


# ---- linear algebra ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                   ((5, 2, 3), (3, 4)), ((5, 2, 3), (1, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)),
                                   ((3,), (2, 3, 4)), ((2, 2, 3), (3,))])
def test_matmul_numpy_semantics(backend, sa, sb):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)
    out = ops.matmul(T(a), T(b))
    ref = np.matmul(a, b)
    assert out.shape == ref.shape
    np.testing.assert_allclose(np_of(out), ref, rtol=1e-5, atol=1e-6)


def test_matmul_family_errors_and_variants(backend):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    with pytest.raises(RuntimeError, match=r"shape1\[-1\] must be equal to shape2\[-2\], but got 3 and 4"):
        ops.matmul(T(a), T(b))
    with pytest.raises(ValueError, match="must be 3-D"):
        ops.bmm(T(a), T(b))
    x, y = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(np_of(ops.bmm(T(x), T(y))), x @ y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(ops.BatchMatMul(transpose_a=True)(T(x.transpose(0, 2, 1).copy()), T(y))),
                               x @ y, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="BatchMatMul"):
        ops.BatchMatMul()(T(x), T(x))
    with pytest.raises(TypeError, match="should be same"):
        ops.BatchMatMul()(T(x), T(y.astype(np.float64)))
    m = rng.standard_normal((3, 3)).astype(np.float32)
    np.testing.assert_allclose(float(ops.trace(T(m))), np.trace(m), rtol=1e-5)
    assert ops.trace(T(np.arange(6).reshape(2, 3))).tolist() == 4
    u, v = rng.standard_normal(3).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(np_of(ops.outer(T(u), T(v))), np.outer(u, v), rtol=1e-6)
    np.testing.assert_allclose(np_of(ops.inner(T(x), T(y.transpose(0, 2, 1).copy()))),
                               np.inner(x, y.transpose(0, 2, 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(ops.addmm(T(m), T(m), T(m), beta=0.5, alpha=2)), 0.5 * m + 2 * (m @ m),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_of(ops.addcmul(T(m), T(m), T(m), value=3)), m + 3 * m * m, rtol=1e-6)


# ---- gradients of composites (float64, numpy backend, central differences) ----------------------------------
def _check_grad(fn, *arrays, eps=1e-6, rtol=1e-5, atol=1e-7):
    use_backend("numpy")
    arrays = [np.array(a, np.float64) for a in arrays]  # copies: each is perturbed alone
    out = fn(*[T(a) for a in arrays])
    outs = out if isinstance(out, tuple) else (out,)
    rng = np.random.default_rng(11)
    cots = [rng.standard_normal(o.shape) if o.dtype == ms.float64 else None for o in outs]

    def scalar(*ts):
        res = fn(*ts)
        res = res if isinstance(res, tuple) else (res,)
        total = None
        for r, c in zip(res, cots):
            if c is not None:
                term = ops.sum(ops.mul(r, T(c)))
                total = term if total is None else total + term
        return total

    grads = ms.grad(scalar, grad_position=tuple(range(len(arrays))))(*[T(a) for a in arrays])
    grads = grads if isinstance(grads, tuple) else (grads,)  # MindSpore unwraps a one-element position tuple
    for i, (a, g) in enumerate(zip(arrays, grads)):
        numeric = np.zeros_like(a)
        flat = a.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            plus = float(scalar(*[T(x) for x in arrays]))
            flat[j] = old - eps
            minus = float(scalar(*[T(x) for x in arrays]))
            flat[j] = old
            numeric.reshape(-1)[j] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(np_of(g), numeric, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")


RNG = np.random.default_rng(12)


@pytest.mark.parametrize("name,fn,arrays", [
    ("std", lambda x: ops.std(x, 1, ddof=1), [RNG.standard_normal((3, 4))]),
    ("var-all", lambda x: ops.var(x), [RNG.standard_normal((2, 3))]),
    ("std_mean", lambda x: ops.std_mean(x, 0), [RNG.standard_normal((3, 2))]),
    ("logsumexp", lambda x: ops.logsumexp(x, 1), [RNG.standard_normal((3, 4)) * 3]),
    ("logsumexp-2axes", lambda x: ops.logsumexp(x, (0, 2), keep_dims=True), [RNG.standard_normal((2, 3, 2))]),
    ("norm-2", lambda x: ops.norm(x), [RNG.standard_normal((3, 4))]),
    ("norm-3", lambda x: ops.norm(x, 3, dim=1), [RNG.standard_normal((3, 4))]),
    ("norm-inf", lambda x: ops.norm(x, float("inf")), [RNG.standard_normal((2, 3))]),
    ("matmul-1d", lambda a, b: ops.matmul(a, b), [RNG.standard_normal(3), RNG.standard_normal((2, 3, 4))]),
    ("matmul-bcast", lambda a, b: ops.matmul(a, b), [RNG.standard_normal((2, 1, 2, 3)), RNG.standard_normal((3, 3, 2))]),
    ("trace", lambda x: ops.trace(x), [RNG.standard_normal((3, 3))]),
    ("inner", lambda a, b: ops.inner(a, b), [RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))]),
    ("clamp", lambda x: ops.clamp(x, -0.5, 0.5), [RNG.uniform(-1, 1, (3, 4))]),
    ("where", lambda x, y: ops.where(ops.gt(x, 0), x, y), [RNG.standard_normal((3, 4)), RNG.standard_normal(4)]),
    ("max-axis", lambda x: ops.max(x, 1)[0], [RNG.standard_normal((3, 4))]),
    ("min-initial", lambda x: ops.min(x, 0, initial=0.0)[0], [RNG.standard_normal((3, 4))]),
    ("amax", lambda x: ops.amax(x, (0, 1)), [RNG.standard_normal((3, 4))]),
    ("prod", lambda x: ops.prod(x, (0, 2)), [RNG.standard_normal((2, 3, 2))]),
    ("div-pow", lambda x, y: ops.pow(ops.div(x, y), 3), [RNG.standard_normal(4), RNG.uniform(1, 2, 4)]),
    ("isclose-masked", lambda x: ops.where(ops.isclose(x, 0.0), 0.0, ops.exp(x)), [RNG.standard_normal(4)]),
    ("addn", lambda a, b, c: ops.addn([a, ops.mul(b, b), c]), [RNG.standard_normal(3) for _ in range(3)]),
    ("clip_by_global_norm", lambda a, b: ops.clip_by_global_norm((a, b), 0.5),
     [RNG.standard_normal((2, 2)), RNG.standard_normal(3)]),
    ("cumprod", lambda x: ops.cumprod(x, 1), [RNG.uniform(0.5, 1.5, (2, 3))]),
])
def test_composite_gradients_match_finite_differences(name, fn, arrays):
    _check_grad(fn, *arrays)


def test_second_derivatives():
    use_backend("numpy")
    x = T(np.array([0.3, -1.2, 2.0]))
    d2 = ms.grad(ms.grad(lambda t: ops.sum(ops.tanh(t))))(x)
    th = np.tanh(np_of(x))
    np.testing.assert_allclose(np_of(d2), -2 * th * (1 - th ** 2), rtol=1e-10)
    d2 = ms.grad(ms.grad(lambda t: ops.sum(ops.sigmoid(t) * ops.erf(t))))(x)
    v = np_of(x)
    s = 1 / (1 + np.exp(-v))
    e = np.array([math.erf(a) for a in v])
    de = 2 / math.sqrt(math.pi) * np.exp(-v * v)
    ref = s * (1 - s) * (1 - 2 * s) * e + 2 * s * (1 - s) * de + s * de * (-2 * v)
    np.testing.assert_allclose(np_of(d2), ref, rtol=1e-9)
    # ReduceProd's first derivative is exact at a zero factor; its second derivative away from zeros
    y = T(np.array([0.5, 2.0, 3.0]))
    first = T(np.array([1.0, 0.0, 0.0]))
    hess_row = ms.grad(lambda t: ops.sum(ops.mul(ms.grad(lambda u: ops.prod(u))(t), first)))(y)
    np.testing.assert_allclose(np_of(hess_row), [0.0, 3.0, 2.0], atol=1e-12)
    g = ms.grad(lambda u: ops.prod(u))(T(np.array([0.0, 2.0, 3.0])))
    np.testing.assert_array_equal(np_of(g), [6.0, 0.0, 0.0])
