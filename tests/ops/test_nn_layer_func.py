"""Functional NN layers: MindSpore semantics (pad modes, shapes, running statistics), agreement with
torch.nn.functional as an independent reference (forward and gradients), and second derivatives."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openspore as ms
from openspore import ops
from tests.device import use_backend

RNG = np.random.default_rng(42)


def rand(*shape):
    return RNG.uniform(-1, 1, size=shape)


def T(a, dtype=np.float64):
    return ms.Tensor(np.asarray(a, dtype))


def tt(a):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=True)


def close(a, b, rtol=1e-6, atol=1e-8):
    a = a.asnumpy() if hasattr(a, "asnumpy") else a
    b = b.detach().numpy() if hasattr(b, "detach") else b
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rtol, atol=atol)


def grads_vs_torch(ms_fn, torch_fn, arrays, rtol=1e-6, atol=1e-8):
    """Forward values and the gradients of sum(out * cot) agree with torch autograd (float64)."""
    out = ms_fn(*[T(a) for a in arrays])
    cot = RNG.standard_normal(out.shape)
    g = ms.grad(lambda *xs: (ms_fn(*xs) * T(cot)).sum(), grad_position=tuple(range(len(arrays))))(
        *[T(a) for a in arrays])
    g = g if isinstance(g, tuple) else (g,)  # MindSpore unwraps a one-element position tuple
    ts = [tt(a) for a in arrays]
    ref = torch_fn(*ts)
    close(out, ref, rtol, atol)
    (ref * torch.tensor(cot)).sum().backward()
    for mine, t in zip(g, ts):
        close(mine, t.grad, rtol, atol)


# ---- convolution -----------------------------------------------------------------------------------------
def test_conv2d_pad_mode_shapes(backend):
    x = T(np.ones((1, 3, 10, 10)), np.float32)
    w = T(np.ones((8, 3, 3, 3)), np.float32)
    assert ops.conv2d(x, w, pad_mode="same").shape == (1, 8, 10, 10)
    assert ops.conv2d(x, w, pad_mode="same", stride=2).shape == (1, 8, 5, 5)
    assert ops.conv2d(x, w).shape == (1, 8, 8, 8)
    assert ops.conv2d(x, w, pad_mode="pad", padding=(1, 0, 2, 0)).shape == (1, 8, 9, 10)
    assert ops.Conv2D(8, 3, pad_mode="same", stride=(1, 1, 2, 2))(x, w).shape == (1, 8, 5, 5)
    assert ops.conv2d(T(np.ones((1, 3, 11, 11)), np.float32), w, pad_mode="same", stride=2, dilation=2).shape == \
        (1, 8, 6, 6)


@pytest.mark.parametrize("kw", [
    dict(stride=1, padding=0, dilation=1, groups=1),
    dict(stride=2, padding=1, dilation=1, groups=1),
    dict(stride=(1, 2), padding=(2, 1), dilation=(2, 1), groups=2),
])
def test_conv2d_matches_torch(backend, kw):
    x, w, b = rand(2, 4, 7, 6), rand(6, 4 // kw["groups"], 3, 3), rand(6)
    pad = kw["padding"] if isinstance(kw["padding"], tuple) else (kw["padding"],) * 2

    def mine(x, w, b):
        return ops.conv2d(x, w, b, kw["stride"], "pad" if any(pad) else "valid",
                          (pad[0], pad[0], pad[1], pad[1]), kw["dilation"], kw["groups"])

    grads_vs_torch(mine, lambda x, w, b: F.conv2d(x, w, b, kw["stride"], pad, kw["dilation"], kw["groups"]), [x, w, b])


def test_conv2d_same_is_tensorflow_style(backend):
    # stride 2 on 6 columns: output 3, one pixel of padding, placed at the right.
    x, w = rand(1, 2, 5, 6), rand(3, 2, 3, 3)
    grads_vs_torch(lambda x, w: ops.conv2d(x, w, pad_mode="same", stride=2),
                   lambda x, w: F.conv2d(F.pad(x, (0, 1, 1, 1)), w, stride=2), [x, w])


def test_conv1d_and_transpose_match_torch(backend):
    x, w = rand(2, 4, 9), rand(6, 2, 3)
    grads_vs_torch(lambda x, w: ops.conv1d(x, w, stride=2, pad_mode="pad", padding=1, groups=2),
                   lambda x, w: F.conv1d(x, w, stride=2, padding=1, groups=2), [x, w])
    x, w, b = rand(1, 4, 4, 5), rand(4, 3, 3, 2), rand(6)
    grads_vs_torch(lambda x, w, b: ops.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
                   lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
                   [x, w, b])
    grads_vs_torch(lambda x, w: ops.conv_transpose2d(x, w, stride=(1, 2), dilation=2),
                   lambda x, w: F.conv_transpose2d(x, w, stride=(1, 2), dilation=2), [rand(1, 4, 3, 3), rand(4, 2, 2, 2)])


def test_unfold_fold_match_torch(backend):
    kw = dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    grads_vs_torch(lambda x: ops.unfold(x, **kw), lambda x: F.unfold(x, **kw), [rand(2, 3, 5, 6)])
    cols = rand(2, 3 * 6, 3 * 6)
    grads_vs_torch(lambda c: ops.fold(c, (5, 6), **kw), lambda c: F.fold(c, (5, 6), **kw), [cols])


def test_conv_errors():
    x = T(np.ones((3, 5, 5)), np.float32)
    w = T(np.ones((2, 3, 3, 3)), np.float32)
    with pytest.raises(ValueError, match=r"For primitive\[Conv2D\], the x shape size must be equal to 4, but got 3"):
        ops.Conv2D(2, 3)(x, w)
    with pytest.raises(ValueError, match="'pad' must be zero when 'pad_mode' is not 'pad'"):
        ops.Conv2D(2, 3, pad_mode="same", pad=1)
    with pytest.raises(ValueError, match="'C_in' of input 'x'"):
        ops.Conv2D(2, 3)(T(np.ones((1, 4, 5, 5)), np.float32), w)
    with pytest.raises(ValueError, match="pad_mode"):
        ops.Conv2D(2, 3, pad_mode="full")


def test_bias_add_formats(backend):
    x, b = rand(2, 3, 2, 2), rand(3)
    close(ops.bias_add(T(x), T(b)), x + b[None, :, None, None])
    close(ops.BiasAdd(data_format="NHWC")(T(x.transpose(0, 2, 3, 1)), T(b)), x.transpose(0, 2, 3, 1) + b)
    g = ms.grad(lambda b: (ops.bias_add(T(x), b) * 2).sum())(T(b))
    close(g, np.full(3, 16.0))


# ---- pooling ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [
    dict(kernel_size=2, stride=None, padding=0, dilation=1, ceil_mode=False),
    dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), dilation=(2, 1), ceil_mode=False),
])
def test_max_pool2d_matches_torch(backend, kw):
    x = rand(2, 2, 7, 8)
    out, idx = ops.max_pool2d(T(x), return_indices=True, **kw)
    ref, ref_idx = F.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    close(out, ref)
    assert idx.dtype == ms.int64
    np.testing.assert_array_equal(idx.asnumpy(), ref_idx.numpy())
    grads_vs_torch(lambda x: ops.max_pool2d(x, **kw), lambda x: F.max_pool2d(x, **kw), [x])


def test_max_pool_ties_route_to_one_element(backend):
    x = np.ones((1, 1, 4, 4))
    g = ms.grad(lambda x: ops.max_pool2d(x, 2, 1).sum())(T(x)).asnumpy()
    t = tt(x)
    F.max_pool2d(t, 2, 1).sum().backward()
    assert g.sum() == 9.0  # nine windows, each gives its gradient to exactly one element
    np.testing.assert_array_equal(g, t.grad.numpy())


def test_classic_max_and_avg_pool_same_mode(backend):
    x = rand(1, 1, 5, 6)
    # 'same' with stride 2: output 3x3; rows padded (1, 1), columns (0, 1).
    out = ops.MaxPool(kernel_size=3, strides=2, pad_mode="same")(T(x))
    close(out, F.max_pool2d(F.pad(torch.tensor(x), (0, 1, 1, 1), value=-np.inf), 3, 2))
    avg = ops.AvgPool(kernel_size=3, strides=2, pad_mode="same")(T(x))
    assert avg.shape == (1, 1, 3, 3)
    close(avg.asnumpy()[0, 0, 0, 0], x[0, 0, :2, :3].mean())  # padding is not counted
    close(avg.asnumpy()[0, 0, 2, 2], x[0, 0, 3:, 4:].mean())
    out, mask = ops.MaxPoolWithArgmax(kernel_size=2, strides=2)(T(x))
    assert mask.dtype == ms.int32 and out.shape == (1, 1, 2, 3)
    np.testing.assert_array_equal(np.take(x.reshape(-1), mask.asnumpy().reshape(-1)), out.asnumpy().reshape(-1))


@pytest.mark.parametrize("kw", [
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=False, count_include_pad=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, stride=2, padding=0, ceil_mode=True, count_include_pad=True, divisor_override=3),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True, count_include_pad=True),
])
def test_avg_pool2d_matches_torch(backend, kw):
    x = rand(2, 2, 7, 6)
    tkw = dict(kw, divisor_override=kw.get("divisor_override") or None)
    grads_vs_torch(lambda x: ops.avg_pool2d(x, **kw), lambda x: F.avg_pool2d(x, **tkw), [x])


def test_pool1d_variants_match_torch(backend):
    x = rand(2, 3, 9)
    grads_vs_torch(lambda x: ops.avg_pool1d(x, 3, 2, 1), lambda x: F.avg_pool1d(x, 3, 2, 1), [x])
    grads_vs_torch(lambda x: ops.max_pool1d(x, 3, 2, 1, ceil_mode=True),
                   lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True), [x])
    grads_vs_torch(lambda x: ops.adaptive_avg_pool1d(x, 4), lambda x: F.adaptive_avg_pool1d(x, 4), [x])
    grads_vs_torch(lambda x: ops.adaptive_max_pool1d(x, 4), lambda x: F.adaptive_max_pool1d(x, 4), [x])
    _, idx = ops.max_pool1d(T(x), 2, return_indices=True)
    np.testing.assert_array_equal(idx.asnumpy(), F.max_pool1d(torch.tensor(x), 2, return_indices=True)[1].numpy())


@pytest.mark.parametrize("size", [(3, 4), (1, 1), (5, None)])
def test_adaptive_pools_match_torch(backend, size):
    x = rand(2, 3, 5, 7)
    tsize = tuple(s if s is not None else 7 for s in size)
    grads_vs_torch(lambda x: ops.adaptive_avg_pool2d(x, size), lambda x: F.adaptive_avg_pool2d(x, tsize), [x])
    grads_vs_torch(lambda x: ops.adaptive_max_pool2d(x, size), lambda x: F.adaptive_max_pool2d(x, tsize), [x])
    _, idx = ops.adaptive_max_pool2d(T(x), size, return_indices=True)
    np.testing.assert_array_equal(idx.asnumpy(), F.adaptive_max_pool2d(torch.tensor(x), tsize, True)[1].numpy())


# ---- normalization -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 3, 2)])
def test_batch_norm_training_matches_torch(backend, shape):
    x, w, b = rand(*shape), RNG.uniform(0.5, 2, 3 if len(shape) == 2 else 2), rand(3 if len(shape) == 2 else 2)
    c = w.shape[0]
    rm, rv = ms.Parameter(T(np.zeros(c)), name="rm"), ms.Parameter(T(np.ones(c)), name="rv")
    trm, trv = torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64)
    out = ops.batch_norm(T(x), rm, rv, T(w), T(b), training=True, momentum=0.2)
    close(out, F.batch_norm(torch.tensor(x), trm, trv, torch.tensor(w), torch.tensor(b), True, 0.2))
    close(rm, trm)
    close(rv, trv)  # unbiased batch variance enters the running variance
    grads_vs_torch(lambda x, w, b: ops.BatchNorm(is_training=True)(x, w, b, T(np.zeros(c)), T(np.ones(c)))[0],
                   lambda x, w, b: F.batch_norm(x, None, None, w, b, True), [x, w, b])


def test_batch_norm_inference_and_stats(backend):
    x, w, b, m, v = rand(2, 3, 2, 2), RNG.uniform(0.5, 2, 3), rand(3), rand(3), RNG.uniform(0.5, 2, 3)
    y, bm, bv = ops.BatchNorm()(T(x), T(w), T(b), T(m), T(v))
    close(bm, m)
    close(bv, v)
    grads_vs_torch(lambda x, w, b, m, v: ops.batch_norm(x, m, v, w, b),
                   lambda x, w, b, m, v: (x - m[:, None, None]) / torch.sqrt(v[:, None, None] + 1e-5)
                   * w[:, None, None] + b[:, None, None], [x, w, b, m, v])
    _, bm, bv = ops.BatchNorm(is_training=True)(T(x), T(w), T(b), T(m), T(v))
    close(bm, x.mean(axis=(0, 2, 3)))
    close(bv, x.var(axis=(0, 2, 3)))  # the biased variance is returned (it normalized the batch)


def test_layer_and_group_norm_match_torch(backend):
    x, w, b = rand(2, 3, 4), rand(3, 4), rand(3, 4)
    grads_vs_torch(lambda x, w, b: ops.layer_norm(x, (3, 4), w, b), lambda x, w, b: F.layer_norm(x, (3, 4), w, b),
                   [x, w, b])
    y, mean, variance = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)(T(x), T(w[0]), T(b[0]))
    assert mean.shape == (2, 3, 1) and variance.shape == (2, 3, 1)
    close(variance, x.var(axis=-1, keepdims=True))  # MindSpore 2.10 returns the biased variance, not rstd
    x, w, b = rand(2, 4, 3, 2), rand(4), rand(4)
    grads_vs_torch(lambda x, w, b: ops.group_norm(x, 2, w, b), lambda x, w, b: F.group_norm(x, 2, w, b), [x, w, b])


# ---- dropout -----------------------------------------------------------------------------------------------
def test_dropout_same_mask_on_both_backends_and_scaling():
    x = np.ones((200, 50), np.float32)
    outs = []
    for backend in ("numpy", "torch"):
        use_backend(backend)
        ms.set_seed(7)
        outs.append(ops.dropout(ms.Tensor(x), p=0.3).asnumpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    kept = outs[0] != 0
    np.testing.assert_allclose(outs[0][kept], 1 / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.02
    assert ops.dropout(ms.Tensor(x), p=0.3, training=False) is not None
    np.testing.assert_array_equal(ops.dropout(ms.Tensor(x), p=0.3, training=False).asnumpy(), x)
    np.testing.assert_array_equal(ops.dropout(ms.Tensor(x), p=1.0).asnumpy(), np.zeros_like(x))


def test_dropout_gradient_uses_mask_and_seeded_streams_advance(backend):
    x = T(np.ones((6, 8)))
    ms.set_seed(3)
    out, mask = ops.Dropout(keep_prob=0.5)(x)
    ms.set_seed(3)
    g = ms.grad(lambda x: ops.Dropout(keep_prob=0.5)(x)[0].sum())(x)
    close(g, mask.asnumpy() * 2)
    first = ops.dropout(x, p=0.5, seed=11).asnumpy()
    second = ops.dropout(x, p=0.5, seed=11).asnumpy()
    assert not np.array_equal(first, second)
    ms.set_seed(3)  # restarts op-seeded streams
    np.testing.assert_array_equal(ops.dropout(x, p=0.5, seed=11).asnumpy(), first)
    y = ops.dropout2d(T(np.ones((2, 6, 3, 3))), p=0.5).asnumpy()
    assert np.all((y == 0).all(axis=(2, 3)) | (y == 2).all(axis=(2, 3)))
    with pytest.raises(ValueError, match="'p' must be"):
        ops.dropout(x, p=1.5)


# ---- resizing ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [
    dict(size=(5, 7), mode="nearest"),
    dict(scale_factor=(2.0, 1.5), mode="nearest"),
    dict(size=(6, 3), mode="bilinear", align_corners=False),
    dict(size=(6, 9), mode="bilinear", align_corners=True),
    dict(scale_factor=1.7, mode="bilinear"),
    dict(size=(2, 3), mode="area"),
])
def test_interpolate_matches_torch(backend, kw):
    x = rand(2, 2, 4, 5)
    grads_vs_torch(lambda x: ops.interpolate(x, **kw), lambda x: F.interpolate(x, **kw), [x])


def test_interpolate_1d_and_errors(backend):
    x = rand(2, 3, 5)
    grads_vs_torch(lambda x: ops.interpolate(x, size=8, mode="linear"),
                   lambda x: F.interpolate(x, size=8, mode="linear"), [x])
    grads_vs_torch(lambda x: ops.upsample(x, scale_factor=2, mode="nearest"),
                   lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), [x])
    with pytest.raises(ValueError, match="exactly one of 'size' and 'scale_factor'"):
        ops.interpolate(T(x), size=4, scale_factor=2.0)
    with pytest.raises(ValueError, match="'align_corners' can only be set"):
        ops.interpolate(T(x), size=4, align_corners=True)
    with pytest.raises(ValueError, match="not supported"):
        ops.interpolate(T(x), size=4, mode="bicubic")


# ---- second derivatives ------------------------------------------------------------------------------------
def _second_order(fn, arrays, eps=1e-6, rtol=1e-5, atol=1e-7):
    """d/dargs of <grad_x0 f, v> equals the finite differences of that inner product (numpy backend, float64)."""
    use_backend("numpy")
    v = RNG.standard_normal(np.shape(arrays[0]))

    def inner(*xs):
        g = ms.grad(lambda *ys: fn(*ys), grad_position=0)(*xs)
        return (g * T(v)).sum()

    analytic = ms.grad(inner, grad_position=tuple(range(len(arrays))))(*[T(a) for a in arrays])
    analytic = analytic if isinstance(analytic, tuple) else (analytic,)  # MindSpore unwraps a one-element position tuple
    for k, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for i in range(a.size):
            plus, minus = [b.copy() for b in arrays], [b.copy() for b in arrays]
            plus[k].reshape(-1)[i] += eps
            minus[k].reshape(-1)[i] -= eps
            numeric.reshape(-1)[i] = (float(inner(*[T(b) for b in plus]).asnumpy())
                                      - float(inner(*[T(b) for b in minus]).asnumpy())) / (2 * eps)
        np.testing.assert_allclose(analytic[k].asnumpy(), numeric, rtol=rtol, atol=atol, err_msg=f"input {k}")


def test_second_derivatives():
    _second_order(lambda x, w: _sq(ops.conv2d(x, w, pad_mode="same", stride=2)).sum(),
                  [rand(1, 2, 4, 5), rand(2, 2, 3, 3)])
    _second_order(_bn_loss, [rand(3, 2, 2), RNG.uniform(0.5, 2, 2)])
    _second_order(lambda x, g: _sq(ops.layer_norm(x, (4,), g)).sum(), [rand(2, 4), rand(4)])
    _second_order(lambda x: _sq(ops.max_pool2d(x * x, 2, 1)).sum(), [rand(1, 1, 3, 3)])
    _second_order(lambda x: _sq(ops.avg_pool2d(x * x, 2, 1, ceil_mode=True)).sum(), [rand(1, 1, 3, 3)])
    _second_order(lambda x: _sq(ops.adaptive_avg_pool2d(x * x, (2, 2))).sum(), [rand(1, 1, 3, 3)])


def _sq(t):
    return t * t


def _bn_loss(x, w):
    c = w.shape[0]
    y = ops.BatchNorm(is_training=True)(x, w, T(np.zeros(c)), T(np.zeros(c)), T(np.ones(c)))[0]
    return (_sq(y) * T(np.linspace(0.5, 2, y.size).reshape(y.shape))).sum()
