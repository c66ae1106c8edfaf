"""The channels-last convolution kernel with a fused max pool (kernels/nhwc.py) against the NCHW convolution
followed by a reference max pool, and the lite ReduceMean against the primitive's kernel."""
import numpy as np
import pytest

from openspore.core.primitive import PRIMITIVES
from openspore.lite import kernels
from openspore.lite.kernels.nhwc import make_conv
from openspore.lite.kernels.nn import _conv_prim, conv2d
from openspore.lite.program import Op


def _max_pool(y, ph, pw):
    n, o, h, w = y.shape
    qh, qw = h // ph, w // pw
    return y[:, :, :qh * ph, :qw * pw].reshape(n, o, qh, ph, qw, pw).max(axis=(3, 5))


@pytest.mark.parametrize("c, hw, kernel, pad, pool, act, bias", [
    (1, 12, 5, 0, (2, 2), "relu", True),     # few channels: K-major columns, the pool after the GEMM
    (2, 11, 3, 1, (2, 2), "relu6", False),   # odd size: the last row and column are dropped by the pool
    (6, 14, 5, 0, (2, 2), "relu", True),     # column rows ordered by window offset, one max-reduction
    (5, 13, 3, 1, (3, 2), None, True),       # non-square window, odd size
])
def test_fused_pool_matches_conv_then_pool(c, hw, kernel, pad, pool, act, bias):
    rng = np.random.default_rng(c)
    o = 4
    attrs = {"kernel_size": (kernel, kernel), "pad_mode": "pad" if pad else "valid", "pad": (pad,) * 4,
             "out_channel": o, "activation": act, "has_bias": bias}
    x = rng.standard_normal((2, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((o, c, kernel, kernel)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    want = _max_pool(conv2d(_conv_prim(Op("LiteConv2D", attrs, [0, 1], [2])), x, w, b if bias else None, act),
                     *pool)
    conv = make_conv(Op("LiteConv2D", dict(attrs, layout="NHWC", pool=pool), [0, 1], [2]))
    packed = np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, o))
    args = (packed, b) if bias else (packed,)
    for _ in range(2):  # the second call reuses the plan and its buffers
        got = conv(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), *args)
        np.testing.assert_allclose(got.transpose(0, 3, 1, 2), want, rtol=1e-5, atol=1e-5)


def test_fused_pool_refuses_a_residual():
    with pytest.raises(ValueError, match="fused pool"):
        make_conv(Op("LiteConv2D", {"kernel_size": (3, 3), "out_channel": 2, "layout": "NHWC", "pool": (2, 2),
                                    "has_residual": True}, [0, 1, 2], [3], name="c"))


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize("shape, axis", [((1, 6, 4, 4), (2, 3)), ((2, 3, 4), (1,)), ((2, 3, 4), -1),
                                         ((2, 3, 4), ()), ((5, 7), (0, 1))])
def test_reduce_mean_matches_the_primitive(keep, shape, axis):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    prim = PRIMITIVES["ReduceMean"](keep_dims=keep)
    want = type(prim).numpy(prim, np, x, axis)
    got = kernels.make(Op("ReduceMean", {"keep_dims": keep}, [0, None], [1]))(x, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("c, stride, residual", [(3, 1, True), (2, 2, False), (8, 1, True), (8, 2, False)])
def test_compiled_serial_call_matches_nchw(c, stride, residual):
    """The compiled serial call (kernels/nhwc_serial.py) for few-channel (K-major, NHWC output) and pixel-major
    columns, with bias, a residual and ReLU, against the NCHW convolution; repeated calls, a new weight array
    and a new input shape recompile it."""
    rng = np.random.default_rng(c + stride)
    o = 5
    attrs = {"kernel_size": (3, 3), "pad_mode": "pad", "pad": (1,) * 4, "out_channel": o, "activation": "relu",
             "has_bias": True, "stride": (1, 1, stride, stride)}
    conv = make_conv(Op("LiteConv2D", dict(attrs, layout="NHWC", has_residual=residual),
                        [0, 1, 2, 3] if residual else [0, 1, 2], [4]))
    prim = _conv_prim(Op("LiteConv2D", attrs, [0, 1], [2]))
    w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    for hw, new_weight in ((9, False), (9, True), (12, False)):
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        if new_weight:
            w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
        b = rng.standard_normal(o).astype(np.float32)
        want = conv2d(prim, x, w, b, None)
        r = rng.standard_normal(want.shape).astype(np.float32)
        want = np.maximum(want + r, 0) if residual else np.maximum(want, 0)
        packed = np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, o))
        args = (packed, b, np.ascontiguousarray(r.transpose(0, 2, 3, 1))) if residual else (packed, b)
        for _ in range(2):
            got = conv(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), *args)
            assert got.flags.c_contiguous
            np.testing.assert_allclose(got.transpose(0, 3, 1, 2), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias, residual, act", [(True, True, "relu"), (False, True, None), (True, False, "relu6"),
                                                 (False, False, None)])
@pytest.mark.parametrize("k, stride", [(3, 1), (3, 2), (1, 2)])
def test_gemms_accumulated_by_blas_match_nchw(dtype, bias, residual, act, k, stride):
    """Pixel-major convolutions through numpy's BLAS with β = 1 (kernels/cblas.py): 3×3 stride-1 row columns (kh
    GEMMs per image into one output), 3×3 stride-2 im2col, 1×1 stride-2 (the subsampled input copied); each
    combination of the output's prefill (bias + residual, one of them, none) and activation, batch 2, float32 and
    float64, against the NCHW convolution."""
    from openspore.lite.kernels import cblas
    rng = np.random.default_rng(7)
    c, o, n, hw = 8, 6, 2, 8
    attrs = {"kernel_size": (k, k), "pad_mode": "pad", "pad": ((k - 1) // 2,) * 4, "out_channel": o,
             "activation": act, "has_bias": bias, "stride": (1, 1, stride, stride)}
    inputs = [0, 1] + ([2] if bias else []) + ([3] if residual else [])
    conv = make_conv(Op("LiteConv2D", dict(attrs, layout="NHWC", has_residual=residual), inputs, [4]))
    prim = _conv_prim(Op("LiteConv2D", attrs, [0, 1], [2]))
    x = rng.standard_normal((n, c, hw, hw)).astype(dtype)
    w = rng.standard_normal((o, c, k, k)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype)
    want = conv2d(prim, x, w, b if bias else None, None)
    r = rng.standard_normal(want.shape).astype(dtype)
    if residual:
        want = want + r
    if act is not None:
        want = np.clip(want, 0, 6 if act == "relu6" else None)
    packed = np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, o))
    args = [packed] + ([b] if bias else []) + ([np.ascontiguousarray(r.transpose(0, 2, 3, 1))] if residual else [])
    for _ in range(3):  # the compiled call reuses its output buffer: every call starts from the prefill again
        got = conv(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), *args)
        np.testing.assert_allclose(got.transpose(0, 3, 1, 2), want, rtol=1e-5, atol=1e-5)
    if cblas.gemm(dtype) is not None:
        assert hasattr(conv.plans.last.go, "keep")  # the accumulated path ran, not numpy's matmul


def test_cblas_gemm_refuses_operands_without_contiguous_rows():
    from openspore.lite.kernels import cblas
    gemm = cblas.gemm(np.float32)
    if gemm is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS with cblas_sgemm")
    a, b, c = np.ones((4, 3), np.float32), np.ones((3, 2), np.float32), np.zeros((4, 2), np.float32)
    with pytest.raises(ValueError, match="operand 'a'"):
        gemm.prepare(a.T.copy().T, b, c, beta=0.0)
    with pytest.raises(ValueError, match="do not match"):
        gemm.prepare(a, b, np.zeros((4, 3), np.float32), beta=0.0)
    call = gemm.prepare(a, b, c, beta=0.0)
    call()
    call()  # β = 0: the product again, not accumulated
    np.testing.assert_array_equal(c, np.full((4, 2), 3, np.float32))
