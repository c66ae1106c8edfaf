"""Conv3d/Conv3dTranspose, 3-D pooling, MaxUnpool1d/2d/3d, LRN, the *Ext layers, the special-function cells and
MultilabelMarginLoss / L1LossExt: values against torch (float64 where it matters), gradients against torch autograd
or finite differences."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import openspore as ms
from openspore import nn

RNG = np.random.default_rng(0)
X5 = RNG.standard_normal((2, 3, 5, 6, 7)).astype(np.float32)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a.asnumpy() if hasattr(a, "asnumpy") else a), np.asarray(b), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("kwargs,torch_kwargs", [
    ({"stride": 2, "pad_mode": "pad", "padding": 1}, {"stride": 2, "padding": 1}),
    ({"pad_mode": "valid", "dilation": 2}, {"dilation": 2}),
])
def test_conv3d_matches_torch_with_gradients(kwargs, torch_kwargs):
    conv = nn.Conv3d(3, 4, 3, has_bias=True, **kwargs)
    w, b = torch.tensor(conv.weight.asnumpy(), requires_grad=True), torch.tensor(conv.bias.asnumpy())
    tx = torch.tensor(X5, requires_grad=True)
    ref = tf.conv3d(tx, w, b, **torch_kwargs)
    _close(conv(ms.Tensor(X5)), ref.detach().numpy())
    ref.sum().backward()
    gx, gw = ms.grad(lambda x: conv(x).sum(), grad_position=0, weights=[conv.weight])(ms.Tensor(X5))
    _close(gx, tx.grad.numpy(), 1e-4)
    _close(gw[0], w.grad.numpy(), 1e-4)


def test_conv3d_same_default_and_argument_errors():
    assert nn.Conv3d(3, 2, (2, 3, 3))(ms.Tensor(X5)).shape == (2, 2, 5, 6, 7)
    assert nn.Conv3d(3, 2, 3, stride=2)(ms.Tensor(X5)).shape == (2, 2, 3, 3, 4)
    with pytest.raises(ValueError, match="padding"):
        nn.Conv3d(3, 2, 3, padding=1)
    with pytest.raises(ValueError, match="group"):
        nn.Conv3d(3, 2, 3, group=2)
    with pytest.raises(ValueError, match="5-D"):
        nn.Conv3d(3, 2, 3)(ms.Tensor(X5[0]))


def test_conv3d_transpose_matches_torch():
    conv = nn.Conv3dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, has_bias=True)
    ref = tf.conv_transpose3d(torch.tensor(X5), torch.tensor(conv.weight.asnumpy()), torch.tensor(conv.bias.asnumpy()),
                              stride=2, padding=1, output_padding=1)
    _close(conv(ms.Tensor(X5)), ref.numpy())
    assert nn.Conv3dTranspose(3, 2, 2, stride=2)(ms.Tensor(X5)).shape == (2, 2, 10, 12, 14)


def test_max_pool3d_values_indices_and_unpool_round_trip():
    out, idx = nn.MaxPool3d(3, 2, pad_mode="pad", padding=1, return_indices=True)(ms.Tensor(X5))
    tout, tidx = tf.max_pool3d(torch.tensor(X5), 3, 2, 1, return_indices=True)
    _close(out, tout.numpy())
    assert (idx.asnumpy() == tidx.numpy()).all()
    _close(nn.MaxPool3d(3, 2, pad_mode="pad", padding=1)(ms.Tensor(X5)), tout.numpy())
    assert nn.MaxPool3d(2, 2, pad_mode="same")(ms.Tensor(X5)).shape == (2, 3, 3, 3, 4)
    back = nn.MaxUnpool3d(3, 2, 1)(out, idx, (5, 6, 7))
    _close(back, tf.max_unpool3d(tout, tidx, 3, 2, 1, output_size=(5, 6, 7)).numpy())
    with pytest.raises(ValueError, match="ceil_mode"):
        nn.MaxPool3d(2, ceil_mode=True)


def test_max_pool3d_indices_path_gradient_by_finite_differences():
    x = RNG.standard_normal((1, 1, 3, 3, 3))
    pool = nn.MaxPool3d(2, 1, return_indices=True)
    w = RNG.standard_normal((1, 1, 2, 2, 2))

    def f(a):
        return (pool(a)[0] * ms.Tensor(w)).sum()

    g = ms.grad(f)(ms.Tensor(x)).asnumpy()
    num = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = 1e-6
        num[i] = (float(f(ms.Tensor(x + d)).asnumpy()) - float(f(ms.Tensor(x - d)).asnumpy())) / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool3d_matches_torch(count_include_pad):
    pool = nn.AvgPool3d(3, 2, pad_mode="pad", padding=1, count_include_pad=count_include_pad)
    _close(pool(ms.Tensor(X5)), tf.avg_pool3d(torch.tensor(X5), 3, 2, 1, count_include_pad=count_include_pad).numpy())
    _close(nn.AvgPool3d(2, 2, divisor_override=3)(ms.Tensor(X5)),
           tf.avg_pool3d(torch.tensor(X5), 2, 2, divisor_override=3).numpy())


def test_avg_pool3d_same_counts_the_padding_as_mindspore():
    # MindSpore 2.10 gives [6.5, 4.0, 5.5, 3.125, 10.0, 5.375, 6.125, 3.25] (zero padding at the tail, divided by 8)
    x = ms.Tensor(np.arange(27, dtype=np.float32).reshape(1, 1, 3, 3, 3))
    _close(nn.AvgPool3d(2, 2, pad_mode="same")(x).asnumpy().ravel(), [6.5, 4.0, 5.5, 3.125, 10.0, 5.375, 6.125, 3.25])


def test_adaptive_pool3d_match_torch():
    out, idx = nn.AdaptiveMaxPool3d((2, 4, 3), return_indices=True)(ms.Tensor(X5))
    tout, tidx = tf.adaptive_max_pool3d(torch.tensor(X5), (2, 4, 3), return_indices=True)
    _close(out, tout.numpy())
    assert (idx.asnumpy() == tidx.numpy()).all() and idx.dtype == ms.int32
    _close(nn.AdaptiveMaxPool3d(2)(ms.Tensor(X5[0])), tf.adaptive_max_pool3d(torch.tensor(X5[0]), 2).numpy())
    _close(nn.AdaptiveAvgPool3d((None, 2, 5))(ms.Tensor(X5)), tf.adaptive_avg_pool3d(torch.tensor(X5), (None, 2, 5)).numpy())


def test_max_unpool_1d_2d():
    x = torch.tensor(RNG.standard_normal((2, 3, 8, 8)).astype(np.float32))
    out, idx = tf.max_pool2d(x, 2, return_indices=True)
    _close(nn.MaxUnpool2d(2)(ms.Tensor(out.numpy()), ms.Tensor(idx.numpy())), tf.max_unpool2d(out, idx, 2).numpy())
    out1, idx1 = tf.max_pool1d(x[:, :, 0], 2, return_indices=True)
    _close(nn.MaxUnpool1d(2)(ms.Tensor(out1.numpy()), ms.Tensor(idx1.numpy())), tf.max_unpool1d(out1, idx1, 2).numpy())


def test_lrn_matches_the_formula():
    x = RNG.standard_normal((2, 7, 3, 3)).astype(np.float32)
    out = nn.LRN(depth_radius=2, bias=1.5, alpha=0.3, beta=0.75)(ms.Tensor(x)).asnumpy()
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (2, 2), (0, 0), (0, 0)))
    window = sum(sq[:, i:i + 7] for i in range(5))
    _close(out, x / (1.5 + 0.3 * window) ** 0.75)


def test_ext_layers_match_torch():
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    tx = torch.tensor(x)
    _close(nn.AvgPool2dExt(3, 2, 1, count_include_pad=False)(ms.Tensor(x)),
           tf.avg_pool2d(tx, 3, 2, 1, count_include_pad=False).numpy())
    _close(nn.AvgPool1dExt(2)(ms.Tensor(x[:, :, 0])), tf.avg_pool1d(tx[:, :, 0], 2).numpy())
    _close(nn.AvgPool3dExt(2)(ms.Tensor(X5)), tf.avg_pool3d(torch.tensor(X5), 2).numpy())
    out, idx = nn.MaxPool2dExt(3, 2, 1, return_indices=True)(ms.Tensor(x))
    tout, tidx = tf.max_pool2d(tx, 3, 2, 1, return_indices=True)
    _close(out, tout.numpy())
    assert (idx.asnumpy() == tidx.numpy()).all()
    _close(nn.LogSoftmaxExt()(ms.Tensor(x)), torch.log_softmax(tx, 1).numpy())
    _close(nn.LogSoftmaxExt(-1)(ms.Tensor(x)), torch.log_softmax(tx, -1).numpy())
    norm = nn.LayerNormExt((8, 8), eps=1e-6)
    assert [p.name for p in norm.get_parameters()] == ["weight", "bias"]
    _close(norm(ms.Tensor(x)), tf.layer_norm(tx, (8, 8), eps=1e-6).numpy(), 1e-4)
    prelu = nn.PReLUExt(3, 0.1)
    _close(prelu(ms.Tensor(x)), tf.prelu(tx, torch.full((3,), 0.1)).numpy())
    emb = nn.EmbeddingExt(10, 4, padding_idx=2)
    assert (emb.weight.asnumpy()[2] == 0).all() and emb.weight.shape == (10, 4)
    ids = np.array([[1, 2], [9, 0]], np.int32)
    _close(emb(ms.Tensor(ids)), emb.weight.asnumpy()[ids])


def test_dropout_ext_training_and_eval():
    x = ms.Tensor(np.ones((4, 6, 5, 5), np.float32))
    drop = nn.DropoutExt(0.4)
    drop.set_train(False)
    _close(drop(x), x.asnumpy())
    drop.set_train(True)
    values = np.unique(drop(x).asnumpy())
    assert len(values) == 2 and values[0] == 0.0 and abs(values[1] - 1 / 0.6) < 1e-6
    drop2 = nn.Dropout2dExt(0.5)
    drop2.set_train(True)
    out = drop2(x).asnumpy()
    per_channel = out.reshape(4, 6, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1)).all()
    with pytest.raises(ValueError):
        nn.DropoutExt(1.5)


def test_special_function_cells():
    x = np.array([0.5, 1.5, 3.2], np.float32)
    y = np.array([2.0, 0.7, 1.1], np.float32)
    tx, ty = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    _close(nn.DiGamma()(ms.Tensor(x)), torch.digamma(tx).numpy())
    _close(nn.LGamma()(ms.Tensor(x)), torch.lgamma(tx).numpy())
    _close(nn.IGamma()(ms.Tensor(x), ms.Tensor(y)), torch.special.gammainc(tx, ty).numpy())
    _close(nn.LBeta()(ms.Tensor(x), ms.Tensor(y)), (torch.lgamma(tx) + torch.lgamma(ty) - torch.lgamma(tx + ty)).numpy())
    a = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    _close(nn.MatDet()(ms.Tensor(a)), np.linalg.det(a.astype(np.float64)), 1e-4)
    # LBeta's gradient by finite differences
    g = ms.grad(lambda u: nn.LBeta()(u, ms.Tensor(y.astype(np.float64))).sum())(ms.Tensor(x.astype(np.float64)))
    f = lambda u: (torch.lgamma(u) + torch.lgamma(ty) - torch.lgamma(u + ty)).sum().item()  # noqa: E731
    num = [(f(tx + 1e-6 * torch.eye(3, dtype=torch.float64)[i]) - f(tx - 1e-6 * torch.eye(3, dtype=torch.float64)[i]))
           / 2e-6 for i in range(3)]
    _close(g, num, 1e-5)


def test_multilabel_margin_and_l1_ext_losses():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    target = np.array([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]], np.int64)
    for reduction in ("none", "mean", "sum"):
        ref = tf.multilabel_margin_loss(torch.tensor(x), torch.tensor(target), reduction=reduction)
        _close(nn.MultilabelMarginLoss(reduction)(ms.Tensor(x), ms.Tensor(target)), ref.numpy())
    _close(nn.L1LossExt("sum")(ms.Tensor(x), ms.Tensor(x * 2)), np.abs(x).sum(), 1e-4)
    with pytest.raises(ValueError, match="reduction"):
        nn.L1LossExt("avg")
