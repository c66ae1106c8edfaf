"""Small mindspore.ops names (compat_misc_func.py, composite_primitives_compat.py) against numpy/torch references,
with gradients by finite differences where they differentiate."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor


def _fd_grad(fn, x, eps=1e-3):
    base = x.astype(np.float64)
    g = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        up, dn = base.copy(), base.copy()
        up[i] += eps
        dn[i] -= eps
        g[i] = (fn(up) - fn(dn)) / (2 * eps)
    return g


def test_augassign_and_scalar_helpers():
    x = T(np.array([7.0, -3.0], np.float32))
    assert ops.augassign_add(x, 1.0).asnumpy().tolist() == [8.0, -2.0]
    assert ops.augassign_sub(x, 1.0).asnumpy().tolist() == [6.0, -4.0]
    assert ops.augassign_mul(x, 2.0).asnumpy().tolist() == [14.0, -6.0]
    assert ops.augassign_div(x, 2.0).asnumpy().tolist() == [3.5, -1.5]
    assert ops.augassign_floordiv(x, 2.0).asnumpy().tolist() == [3.0, -2.0]
    assert ops.augassign_mod(x, 2.0).asnumpy().tolist() == [1.0, 1.0]   # Python's sign rule
    assert (ops.augassign_add(2, 3), ops.augassign_mod(-7, 3)) == (5, 2)
    assert ops.tensor_muls(x, 3.0).asnumpy().tolist() == [21.0, -9.0]
    assert ops.pows(T(np.array([2.0, 3.0], np.float32)), 2.0).asnumpy().tolist() == [4.0, 9.0]
    assert ops.scalar_to_array(2.5).dtype == ms.float32 and ops.scalar_to_array(3).dtype == ms.int64
    assert ops.tail((1, 2, 3)) == (2, 3) and ops.tail([4]) == []
    assert ops.isconstant((1, "a", None)) and not ops.isconstant((1, x))
    y = ops.deepcopy(x)
    y.add_(1.0)
    assert x.asnumpy().tolist() == [7.0, -3.0]
    assert ops.typeof(x) == ms.float32 and ops.hastype(x, ms.float32) and ops.hastype(3, ms.number)
    assert ops.switch(T(True), "a", "b") == "a" and ops.switch(False, "a", "b") == "b"
    assert ops.switch_layer(T(np.array(1, np.int32)), [abs, len]) is len
    with pytest.raises(ValueError, match="index"):
        ops.switch_layer(2, [abs])


def test_shape_helpers():
    assert ops.reduced_shape((2, 3, 4), (0, -1)) == (1, 3, 1) and ops.reduced_shape((2, 3), ()) == (1, 1)
    for xs, ys in [((2, 1, 3), (4, 3)), ((5,), (2, 5)), ((1,), (3, 1)), ((2, 3), (2, 3))]:
        rx, ry = ops.broadcast_gradient_args(xs, ys)
        out = np.broadcast_shapes(xs, ys)
        # summing the broadcast gradient over rx (then reshaping) gives x's shape back
        gx = np.ones(out).sum(axis=rx).reshape(xs) if rx else np.ones(out).reshape(xs)
        gy = np.ones(out).sum(axis=ry).reshape(ys) if ry else np.ones(out).reshape(ys)
        assert gx.shape == xs and gy.shape == ys
    with pytest.raises(ValueError, match="broadcast"):
        ops.broadcast_gradient_args((2,), (3,))
    out = ops.padding(T(np.array([[8.0], [10.0]], np.float32)), 4).asnumpy()
    np.testing.assert_array_equal(out, [[8, 0, 0, 0], [10, 0, 0, 0]])


def test_cond_matches_numpy_and_differentiates():
    a = np.array([[2.0, 1.0, 0.3], [0.5, 3.0, 1.0], [0.1, 0.2, 1.5]], np.float32)
    for p in (None, 1, float("inf"), "fro", -2):
        want = np.linalg.cond(a.astype(np.float64), p)
        np.testing.assert_allclose(float(ops.cond(T(a), p).asnumpy()), want, rtol=1e-4)
    g = ms.grad(lambda m: ops.cond(m, "fro"))(T(a.astype(np.float64))).asnumpy()
    np.testing.assert_allclose(g, _fd_grad(lambda m: np.linalg.cond(m, "fro"), a), rtol=1e-4, atol=1e-5)


def test_fused_norms_and_rotary_embedding_match_torch():
    rng = np.random.default_rng(0)
    x1, x2 = rng.standard_normal((2, 3, 8)).astype(np.float32), rng.standard_normal((2, 3, 8)).astype(np.float32)
    gamma, beta = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    y, mean, rstd, x = ops.add_layer_norm(T(x1), T(x2), T(gamma), T(beta), 1e-5, True)
    ref = torch.nn.functional.layer_norm(torch.tensor(x1 + x2), (8,), torch.tensor(gamma), torch.tensor(beta), 1e-5)
    np.testing.assert_allclose(y.asnumpy(), ref.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x.asnumpy(), x1 + x2)
    y, rstd, _ = ops.add_rms_norm(T(x1), T(x2), T(gamma))
    s = x1 + x2
    np.testing.assert_allclose(y.asnumpy(), s / np.sqrt((s ** 2).mean(-1, keepdims=True) + 1e-6) * gamma, rtol=1e-5)
    cos, sin = rng.standard_normal((3, 8)).astype(np.float32), rng.standard_normal((3, 8)).astype(np.float32)
    half = np.concatenate([-x1[..., 4:], x1[..., :4]], -1)
    np.testing.assert_allclose(ops.rotary_position_embedding(T(x1), T(cos), T(sin), 0).asnumpy(),
                               x1 * cos + half * sin, rtol=1e-5)
    pairs = np.stack([-x1[..., 1::2], x1[..., 0::2]], -1).reshape(x1.shape)
    np.testing.assert_allclose(ops.rotary_position_embedding(T(x1), T(cos), T(sin), 1).asnumpy(),
                               x1 * cos + pairs * sin, rtol=1e-5)
    g = ms.grad(lambda v: (ops.rotary_position_embedding(v, T(cos), T(sin), 0) ** 2).sum())(T(x1)).asnumpy()
    fd = _fd_grad(lambda v: ((v * cos + np.concatenate([-v[..., 4:], v[..., :4]], -1) * sin) ** 2).sum(), x1[:1])
    np.testing.assert_allclose(g[:1], fd, rtol=1e-3, atol=1e-3)


def test_misc_function_helpers():
    a = T(np.array([[1.0, 2.0]], np.float32))
    out, jvp_fn = ops.linearize(lambda v: v * v, (a,))
    assert out.asnumpy().tolist() == [[1.0, 4.0]]
    assert jvp_fn(T(np.ones((1, 2), np.float32))).asnumpy().tolist() == [[2.0, 4.0]]
    cast = ops.mixed_precision_cast(ms.float16, (a, T(np.array([1])), {"k": [a]}, 3))
    assert cast[0].dtype == ms.float16 and cast[1].dtype == ms.int64 and cast[2]["k"][0].dtype == ms.float16
    assert ops.move_to(a, "CPU").asnumpy().tolist() == [[1.0, 2.0]]
    s = T(np.array([0.0], np.float32))
    assert ops.inplace_sigmoid(s) is s and s.asnumpy().tolist() == [0.5]


def test_print_primitive(capsys):
    # PyNative Print writes a Tensor as its repr, 0-d ones included (MindSpore 2.10)
    ops.Print()("value:", T(np.array([1.0, 2.0], np.float32)))
    ops.print_(T(3))
    assert capsys.readouterr().out.split("\n")[:3] == [
        "value:", "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])",
        "Tensor(shape=[], dtype=Int64, value= 3)"]


def test_python_function_primitives():
    a, b = T(np.array([1.0, 2.0], np.float32)), T(np.array([3.0, 4.0], np.float32))
    mul = ops.Custom(lambda x, y: x * y, lambda x, y: x, lambda x, y: x, "pyfunc",
                     bprop=lambda x, y, out, dout: (dout * y, dout * x))
    assert mul(a, b).asnumpy().tolist() == [3.0, 8.0]
    ga, gb = ms.grad(lambda x, y: mul(x, y).sum(), (0, 1))(a, b)
    assert ga.asnumpy().tolist() == [3.0, 4.0] and gb.asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="compiler"):
        ops.Custom(lambda x: x, func_type="aot")
    out = ops.PyFunc(lambda x: (x * 2, x.sum()), [ms.float32], [[2]], [ms.float32, ms.float64], [[2], []])(a)
    assert out[0].asnumpy().tolist() == [2.0, 4.0] and out[1].dtype == ms.float64
    assert ops.Morph(lambda x: x * 3, None, None)(a).asnumpy().tolist() == [3.0, 6.0]
    np.testing.assert_allclose(ops.LogSoftmaxExt()(a).asnumpy(), torch.log_softmax(torch.tensor([1.0, 2.0]), 0))


def test_3d_resize_pool_unpool_match_torch():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    tx = torch.tensor(x)
    for align in (False, True):
        got = ops.UpsampleTrilinear3D(align_corners=align)(T(x), (5, 7, 6)).asnumpy()
        ref = torch.nn.functional.interpolate(tx, (5, 7, 6), mode="trilinear", align_corners=align).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    got = ops.UpsampleNearest3D()(T(x), None, (2.0, 1.5, 2.0)).asnumpy()
    ref = torch.nn.functional.interpolate(tx, scale_factor=(2.0, 1.5, 2.0), mode="nearest").numpy()
    np.testing.assert_allclose(got, ref)
    out, idx = ops.AdaptiveMaxPool3D()(T(x), (2, 3, 2))
    ref, ref_idx = torch.nn.functional.adaptive_max_pool3d(tx, (2, 3, 2), return_indices=True)
    np.testing.assert_allclose(out.asnumpy(), ref.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), ref_idx.numpy())
    pooled, pidx = torch.nn.functional.max_pool3d(torch.tensor(x[:, :, :2, :4, :4]), 2, 2, return_indices=True)
    ref = torch.nn.functional.max_unpool3d(pooled, pidx, 2, 2).numpy()
    np.testing.assert_allclose(ops.max_unpool3d(T(pooled.numpy()), T(pidx.numpy()), 2).asnumpy(), ref)
    np.testing.assert_allclose(ops.MaxUnpool3D(ksize=2, strides=2)(T(pooled.numpy()), T(pidx.numpy())).asnumpy(), ref)
    g = ms.grad(lambda v: (ops.UpsampleTrilinear3D()(v, (4, 5, 6)) ** 2).sum())(T(x)).asnumpy()
    txg = tx.clone().requires_grad_(True)
    (torch.nn.functional.interpolate(txg, (4, 5, 6), mode="trilinear") ** 2).sum().backward()
    np.testing.assert_allclose(g, txg.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_bookkeeping_ops():
    assert ops.FloatStatus()(T(np.array([1.0, np.inf], np.float32))).asnumpy().tolist() == [1.0]
    assert ops.FloatStatus()(T(np.array([1.0, 2.0], np.float32))).asnumpy().tolist() == [0.0]
    res, idx = ops.SubAndFilter()(T(np.array([1, 3, 5, 8, 9], np.int32)), 5, 2)
    assert res.asnumpy().tolist() == [1, 3] and idx.asnumpy().tolist() == [1, 2]
    banned = ops.NoRepeatNGram(2)(T(np.array([[1, 2, 1, 2, 1]], np.int32)), T(np.zeros((1, 4), np.float32)))
    assert (banned.asnumpy()[0] < -1e38).tolist() == [False, False, True, False]
    cm = ops.ConfusionMatrix(3)(T(np.array([0, 1, 1, 2])), T(np.array([0, 1, 2, 2])))
    np.testing.assert_array_equal(cm.asnumpy(), [[1, 0, 0], [0, 1, 1], [0, 0, 1]])
    x = np.random.default_rng(2).standard_normal((2, 16)).astype(np.float32)
    np.testing.assert_array_equal(ops.CompareAndBitpack()(T(x), T(np.float32(0.1))).asnumpy(),
                                  np.packbits(x > 0.1, axis=-1))
    splits, values = ops.RaggedRange(ms.int64)(T(np.array([2, 5, 8], np.int32)), T(np.array([3, 5, 12], np.int32)),
                                               T(np.array([1, 1, 1], np.int32)))
    assert splits.asnumpy().tolist() == [0, 1, 1, 5] and values.asnumpy().tolist() == [2, 8, 9, 10, 11]
    hist = ops.HistogramFixedWidth(5)(T(np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], np.float32)),
                                      T(np.array([0.0, 5.0], np.float32)))
    assert hist.asnumpy().tolist() == [2, 1, 1, 0, 2]
    sup, main, sub = (np.random.default_rng(3).standard_normal((1, 4)).astype(np.float32) for _ in range(3))
    rhs = np.random.default_rng(4).standard_normal((4, 3)).astype(np.float32)
    dense = np.diag(main[0]) + np.diag(sup[0, :-1], 1) + np.diag(sub[0, 1:], -1)
    np.testing.assert_allclose(ops.TridiagonalMatMul()(T(sup), T(main), T(sub), T(rhs)).asnumpy(), dense @ rhs,
                               rtol=1e-5, atol=1e-6)
    q = ops.Quantile(dim=1)(T(x), T(np.array([0.25, 0.5], np.float32))).asnumpy()
    np.testing.assert_allclose(q, np.quantile(x, [0.25, 0.5], axis=1), rtol=1e-5)


def test_depthwise_conv_matches_torch():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 3, 6, 6)).astype(np.float32), rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    got = ops.DepthwiseConv2dNative(2, 3, pad_mode="pad", pad=1, stride=2)(T(x), T(w)).asnumpy()
    tw = torch.tensor(w).permute(1, 0, 2, 3).reshape(6, 1, 3, 3)  # output channel c·multiplier + k
    ref = torch.nn.functional.conv2d(torch.tensor(x), tw, stride=2, padding=1, groups=3).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_view_primitives():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(ops.TransposeView()(T(x), (2, 0, 1)).asnumpy(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.TransposeExtView()(T(x), 0, 2).asnumpy(), x.swapaxes(0, 2))
    np.testing.assert_array_equal(ops.SelectView()(T(x), 1, 2).asnumpy(), x[:, 2])
    dst = T(np.zeros((2, 3), np.float32))
    assert ops.CopyWithSlice()(dst, T(np.array([1.0, 2.0, 3.0], np.float32))) is dst
    np.testing.assert_array_equal(dst.asnumpy(), [[1, 2, 3], [1, 2, 3]])
