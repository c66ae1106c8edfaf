"""mindspore.numpy bitwise/integer helpers, promotion, NaN reductions, calculus and polynomials: values against
NumPy, dtypes and errors as MindSpore 2.10 gives them (checked against the real MindSpore on CPU)."""
import numpy as np
import pytest

import openspore as ms
import openspore.numpy as mnp

T = ms.Tensor
I32 = np.array([12, 7, -8], np.int32)
J32 = np.array([10, 3, 6], np.int32)
NANS = np.array([[1.0, np.nan, 2.5], [3.0, 4.0, -1.0]], np.float32)


def check(got, want, dtype):
    assert isinstance(got, ms.Tensor)
    assert got.dtype == dtype, (got.dtype, dtype)
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name, ref", [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                                       ("bitwise_xor", np.bitwise_xor), ("gcd", np.gcd), ("lcm", np.lcm)])
def test_integer_binaries(name, ref):
    check(getattr(mnp, name)(T(I32), T(J32)), ref(I32, J32), ms.int32)
    # a Python int is an int32 Tensor first, then promotion: int16 & int -> int32 (MindSpore's rule)
    check(getattr(mnp, name)(T(I32.astype(np.int16)), 3), ref(I32, 3), ms.int32)
    check(getattr(mnp, name)(T(I32.astype(np.int64)), T(J32)), ref(I32, J32), ms.int64)


def test_bitwise_bool_dtype_and_errors():
    a, b = np.array([True, False, True]), np.array([True, True, False])
    check(mnp.bitwise_xor(T(a), T(b)), a ^ b, ms.bool_)
    check(mnp.bitwise_and(T(I32), T(J32), dtype=ms.float32), I32 & J32, ms.float32)
    check(mnp.invert(T(I32.astype(np.int16))), ~I32.astype(np.int16), ms.int16)
    check(mnp.bitwise_not(T(np.array([12, 7], np.uint8))), ~np.array([12, 7], np.uint8), ms.uint8)
    with pytest.raises(TypeError, match="integer"):
        mnp.bitwise_and(T(np.ones(2, np.float32)), T(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="integer"):
        mnp.invert(T(a))  # MindSpore's Invert rejects bool


def test_gcd_lcm_float_and_divmod_cbrt():
    check(mnp.gcd(T(np.array([12.0, 20.0], np.float32)), T(np.array([18.0, 15.0], np.float32))), [6, 5], ms.float32)
    check(mnp.lcm([4, 0], 6), [12, 0], ms.int32)
    q, r = mnp.divmod(T(np.array([7.0, -7.5], np.float32)), T(np.array([2.0, 2.0], np.float32)))
    check(q, [3.0, -4.0], ms.float32)
    check(r, [1.0, 0.5], ms.float32)
    q, r = mnp.divmod(T(np.array([7, -7], np.int32)), 3)
    check(q, np.floor_divide([7, -7], 3), ms.int32)
    check(r, np.remainder([7, -7], 3), ms.int32)
    x = np.array([-8.0, 27.0, 2.0])
    check(mnp.cbrt(T(x.astype(np.float32))), np.cbrt(x), ms.float32)
    check(mnp.cbrt(T(x.astype(np.float16))), np.cbrt(x), ms.float32)  # MindSpore computes float16 in float32
    check(mnp.cbrt(T(np.array([-8, 27], np.int32))), [-2.0, 3.0], ms.float32)
    check(mnp.cbrt(T(x)), np.cbrt(x), ms.float64)


def test_promote_types_and_result_type():
    assert mnp.promote_types(mnp.float32, mnp.int64) == ms.float32  # NumPy would say float64
    assert mnp.promote_types("float16", "int8") == ms.float16
    assert mnp.promote_types(mnp.int8, mnp.uint8) == ms.int16
    assert mnp.promote_types(mnp.bool_, mnp.int8) == ms.int8
    assert mnp.promote_types(np.float32, mnp.int64) == ms.float32
    with pytest.raises(TypeError, match="dtype"):
        mnp.promote_types(1, 2)
    assert mnp.result_type(T(np.array([1], np.int32)), T(np.array([1.0], np.float16))) == ms.float16
    assert mnp.result_type(T(np.array([1], np.int8)), 3) == ms.int32
    assert mnp.result_type(1, 2.0) == ms.float32
    assert mnp.result_type(True, 2) == ms.int32
    assert mnp.result_type("int32", "float64") == ms.float64
    with pytest.raises(TypeError, match="dtype"):
        mnp.result_type([1, 2])


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions_match_numpy(axis):
    x = T(NANS)
    check(mnp.nanmax(x, axis=axis), np.nanmax(NANS, axis=axis), ms.float32)
    check(mnp.nanmin(x, axis=axis, keepdims=True), np.nanmin(NANS, axis=axis, keepdims=True), ms.float32)
    check(mnp.nanvar(x, axis=axis), np.nanvar(NANS, axis=axis), ms.float32)
    check(mnp.nanstd(x, axis=axis, ddof=1), np.nanstd(NANS, axis=axis, ddof=1), ms.float32)
    want = np.nancumsum(NANS, axis=axis)
    check(mnp.nancumsum(x, axis=axis), want, ms.float32)


def test_nan_reductions_dtypes_and_edges():
    ints = T(np.array([[1, 2], [3, 4]], np.int32))
    check(mnp.nanmax(ints, axis=0), [3, 4], ms.int32)
    check(mnp.nanstd(ints, axis=1), [0.5, 0.5], ms.float32)
    check(mnp.nanvar(ints, axis=1, dtype=ms.float16), [0.25, 0.25], ms.float16)
    check(mnp.nancumsum(T(np.array([1, 2], np.int8))), [1, 3], ms.int32)
    f64 = NANS.astype(np.float64)
    check(mnp.nanvar(T(f64), axis=0), np.nanvar(f64, axis=0), ms.float32)  # MindSpore returns float32 here
    check(mnp.nanmax(T(f64), axis=0), np.nanmax(f64, axis=0), ms.float64)
    # one value and ddof=1 leaves no degrees of freedom: NaN
    check(mnp.nanvar(T(np.array([[1.0, np.nan], [3.0, 4.0]], np.float32)), axis=1, ddof=1), [np.nan, 0.5],
          ms.float32)
    # an all-NaN slice has no extreme: NaN like NumPy (MindSpore returns a fill value there)
    check(mnp.nanmax(T(np.array([[np.nan, np.nan], [3.0, 4.0]], np.float32)), axis=1), [np.nan, 4.0], ms.float32)


def test_gradient_unwrap_interp():
    y = np.array([1.0, 2.0, 4.0, 7.0, 11.0], np.float32)
    check(mnp.gradient(T(y)), np.gradient(y), ms.float32)
    check(mnp.gradient(T(y.astype(np.int32)), 2.0), np.gradient(y, 2.0), ms.float32)
    m = np.array([[1.0, 2.0, 6.0], [3.0, 4.0, 5.0]], np.float32)
    for got, want in zip(mnp.gradient(T(m), 2.0, 3.0), np.gradient(m, 2.0, 3.0)):
        check(got, want, ms.float32)
    check(mnp.gradient(T(m), axis=1), np.gradient(m, axis=1), ms.float32)
    with pytest.raises(NotImplementedError):
        mnp.gradient(T(y), T(np.array([0.0, 1.0, 1.5, 3.5, 4.0], np.float32)))
    with pytest.raises(NotImplementedError):
        mnp.gradient(T(y), edge_order=2)
    with pytest.raises(ValueError, match="at least 2"):
        mnp.gradient(T(np.array([1.0], np.float32)))
    with pytest.raises(TypeError, match="spacings"):
        mnp.gradient(T(m), 1.0, 2.0, 3.0)
    p = np.array([0.0, 0.78, 5.49, 6.28, 3.0, 9.9], np.float32)
    check(mnp.unwrap(T(p)), np.unwrap(p), ms.float32)
    check(mnp.unwrap(T(np.array([0, 4, 8, 1], np.int32)), discont=2), np.unwrap([0, 4, 8, 1], discont=2), ms.float32)
    q = np.array([[0.0, 7.0], [3.0, 0.1]], np.float32)
    check(mnp.unwrap(T(q), axis=0), np.unwrap(q, axis=0), ms.float32)
    with pytest.raises(ValueError, match="at least 2"):
        mnp.unwrap(T(np.array([1.0], np.float32)))
    x = np.array([0.0, 1.5, 2.72, 3.14, 5.0], np.float32)
    check(mnp.interp(T(x), [1, 2, 3], [3, 2, 0]), np.interp(x, [1, 2, 3], [3, 2, 0]), ms.float32)
    check(mnp.interp(T(x), [1, 2, 3], [3, 2, 0], left=-1, right=9), np.interp(x, [1, 2, 3], [3, 2, 0], -1, 9),
          ms.float32)
    check(mnp.interp(T(np.array([0, 2], np.int32)), [1, 2, 3], [3, 2, 0]), [3.0, 2.0], ms.float32)
    check(mnp.interp(T(x.astype(np.float64)), T(np.array([1.0, 2.0, 3.0])), T(np.array([3.0, 2.0, 0.0]))),
          np.interp(x, [1, 2, 3], [3, 2, 0]), ms.float64)
    with pytest.raises(ValueError, match="same length"):
        mnp.interp(T(x), [1, 2, 3], [3, 2])


def test_convolve_correlate():
    a, v = [1.0, 2.0, 3.0], [0.0, 1.0, 0.5]
    for mode in ("full", "same", "valid"):
        check(mnp.convolve(a, v, mode=mode), np.convolve(a, v, mode), ms.float32)
        check(mnp.correlate(a, v, mode=mode), np.correlate(a, v, mode), ms.float32)
    check(mnp.convolve([1, 2], [0, 1, 0.5, 3], mode="valid"), np.convolve([1, 2], [0, 1, 0.5, 3], "valid"),
          ms.float32)
    check(mnp.correlate([1, 2], [0, 1, 0.5, 3], mode="full"), np.correlate([1, 2], [0, 1, 0.5, 3], "full"),
          ms.float32)
    ia, iv = T(np.array([1, 2, 3], np.int32)), T(np.array([0, 1, 2], np.int32))
    check(mnp.convolve(ia, iv), np.convolve([1, 2, 3], [0, 1, 2]), ms.int32)
    check(mnp.correlate(ia, iv, mode="full"), np.correlate([1, 2, 3], [0, 1, 2], "full"), ms.float32)
    with pytest.raises(ValueError, match="mode"):
        mnp.convolve(a, v, mode="xx")
    with pytest.raises(ValueError, match="1-D"):
        mnp.convolve([[1, 2, 3]], v)
    with pytest.raises(ValueError, match="empty"):
        mnp.convolve([], v)


def test_polynomials():
    check(mnp.polyadd([1, 2], [9, 5, 4]), np.polyadd([1, 2], [9, 5, 4]), ms.int32)
    check(mnp.polyadd(T(np.array([1.0, 2.0], np.float32)), T(np.array([9, 5, 4], np.int32))), [9, 6, 6], ms.float32)
    check(mnp.polysub([2, 10, -2], [3, 10, -4]), np.polysub([2, 10, -2], [3, 10, -4]), ms.int32)
    check(mnp.polymul([3.0, 1.0, 2.0], [2.0, 5.0]), np.polymul([3, 1, 2], [2, 5]), ms.float32)
    check(mnp.polyder(T(np.array([1, 1, 1, 1], np.int32)), m=2), np.polyder([1, 1, 1, 1], 2), ms.int32)
    assert mnp.polyder(T(np.ones(4, np.float32)), m=5).shape == (0,)
    check(mnp.polyint(T(np.array([1, 1, 1], np.int32)), m=2), np.polyint([1, 1, 1], 2), ms.float32)
    check(mnp.polyint(T(np.ones(3, np.float32)), m=2, k=[3, 5]), np.polyint([1, 1, 1], 2, [3, 5]), ms.float32)
    check(mnp.polyint(T(np.ones(3, np.float32)), m=2, k=3), np.polyint([1, 1, 1], 2, 3), ms.float32)
    check(mnp.polyval([3, 0, 1], 5), np.polyval([3, 0, 1], 5), ms.float32)
    check(mnp.polyval(T(np.array([3, 0, 1], np.int32)), T(np.array([5, 2], np.int32))), [76, 13], ms.float32)
    with pytest.raises(ValueError, match="non-negative"):
        mnp.polyder(T(np.ones(4, np.float32)), m=-1)
    with pytest.raises(ValueError, match="1-D"):
        mnp.polyval([[3.0, 0.0, 1.0]], 5.0)
