"""nn layers added for issue 19 that tests/compat/recorded/nn_extra_layers.py does not pin to MindSpore's output:
PSNR and SSIM (numpy references), SyncBatchNorm on one device, ParameterUpdate, MicroBatchInterleaved,
GradAccumulationCell, EmbeddingLookup's max_norm, TimeDistributed's values, BiDense's gradient."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn

RS = np.random.RandomState(0)


def T(a):
    return ms.Tensor(np.asarray(a, np.float32))


def _ssim_ref(x, y, size=11, sigma=1.5, max_val=1.0):
    c = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-c ** 2 / (2 * sigma ** 2))
    g /= g.sum()
    win = np.outer(g, g)

    def filt(a):
        h, w = a.shape
        return np.array([[(a[i:i + size, j:j + size] * win).sum() for j in range(w - size + 1)]
                         for i in range(h - size + 1)])

    out = []
    for n in range(x.shape[0]):
        vals = []
        for ch in range(x.shape[1]):
            a, b = x[n, ch].astype(np.float64), y[n, ch].astype(np.float64)
            m1, m2 = filt(a), filt(b)
            v1, v2, cv = filt(a * a) - m1 ** 2, filt(b * b) - m2 ** 2, filt(a * b) - m1 * m2
            c1, c2 = (0.01 * max_val) ** 2, (0.03 * max_val) ** 2
            vals.append(((2 * m1 * m2 + c1) * (2 * cv + c2)) / ((m1 ** 2 + m2 ** 2 + c1) * (v1 + v2 + c2)))
        out.append(np.mean(vals))
    return np.array(out)


def test_psnr_and_ssim_match_numpy():
    x = RS.rand(2, 3, 14, 13).astype(np.float32)
    y = np.clip(x + RS.normal(0, 0.1, x.shape), 0, 1).astype(np.float32)
    mse = ((x - y) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(nn.PSNR()(T(x), T(y)).asnumpy(), 10 * np.log10(1 / mse), rtol=1e-5)
    np.testing.assert_allclose(nn.SSIM()(T(x), T(y)).asnumpy(), _ssim_ref(x, y), rtol=1e-4, atol=1e-5)
    assert np.allclose(nn.SSIM()(T(x), T(x)).asnumpy(), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="filter_size"):
        nn.SSIM()(T(x[:, :, :5, :5]), T(y[:, :, :5, :5]))


def test_sync_batch_norm_on_one_device_is_batch_norm():
    x = T(RS.rand(4, 3, 5, 5))
    sync, plain = nn.SyncBatchNorm(3), nn.BatchNorm2d(3)
    sync.set_train()
    plain.set_train()
    np.testing.assert_allclose(sync(x).asnumpy(), plain(x).asnumpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sync.moving_mean.asnumpy(), plain.moving_mean.asnumpy(), rtol=1e-6)


def test_parameter_update_assigns():
    p = ms.Parameter(T([1.0, 2.0]), name="p")
    nn.ParameterUpdate(p)(T([5.0, 6.0]))
    assert p.asnumpy().tolist() == [5.0, 6.0]


def test_micro_batches_add_up_and_accumulate():
    net = nn.Dense(3, 1)
    x = T(RS.rand(6, 3))
    whole = net(x).asnumpy()
    out = nn.MicroBatchInterleaved(nn.Dense(3, 1, T(net.weight.asnumpy()), T(net.bias.asnumpy())), 3)(x).asnumpy()
    np.testing.assert_allclose(out, whole[0:2] + whole[2:4] + whole[4:6], rtol=1e-6)
    loss = nn.WithLossCell(net, nn.MSELoss())
    y = T(RS.rand(6, 1))
    acc = nn.GradAccumulationCell(loss, 2)
    g_acc = ms.grad(acc, None, net.trainable_params())(x, y)
    g_halves = [ms.grad(loss, None, net.trainable_params())(x[i:i + 3], y[i:i + 3]) for i in (0, 3)]
    for a, b, c in zip(g_acc, *g_halves):
        np.testing.assert_allclose(a.asnumpy(), (b.asnumpy() + c.asnumpy()) / 2, rtol=1e-5)
    with pytest.raises(ValueError, match="divisible"):
        nn.MicroBatchInterleaved(net, 4)(x)


def test_embedding_lookup_caps_row_norms():
    table = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    emb = nn.EmbeddingLookup(2, 2, param_init=T(table), max_norm=1.0)
    out = emb(ms.Tensor(np.array([0, 1, 0], np.int32))).asnumpy()
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]], rtol=1e-5)
    assert emb.embedding_table.name == "embedding_table"


def test_time_distributed_applies_the_layer_per_step():
    dense = nn.Dense(3, 2)
    x = RS.rand(2, 4, 3).astype(np.float32)
    out = nn.TimeDistributed(dense, time_axis=1)(T(x)).asnumpy()
    for t in range(4):
        np.testing.assert_allclose(out[:, t], dense(T(x[:, t])).asnumpy(), rtol=1e-6)
    out0 = nn.TimeDistributed(dense, time_axis=0, reshape_with_axis=1)(T(x.transpose(1, 0, 2))).asnumpy()
    np.testing.assert_allclose(out0, out.transpose(1, 0, 2), rtol=1e-6)


def test_bidense_values_and_gradient():
    w = RS.rand(2, 3, 4).astype(np.float32)
    layer = nn.BiDense(3, 4, 2, weight_init=T(w), has_bias=False)
    a, b = RS.rand(5, 3).astype(np.float32), RS.rand(5, 4).astype(np.float32)
    np.testing.assert_allclose(layer(T(a), T(b)).asnumpy(), np.einsum("ni,kij,nj->nk", a, w, b), rtol=1e-5)
    (gw,) = ms.grad(lambda x, y: layer(x, y).sum(), None, [layer.weight])(T(a), T(b))
    np.testing.assert_allclose(gw.asnumpy(), np.einsum("ni,nj->ij", a, b)[None].repeat(2, 0), rtol=1e-5)
