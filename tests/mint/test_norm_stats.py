"""mint.batch_norm_stats / batch_norm_gather_stats_with_counts / batch_norm_elemt against float64 NumPy formulas
(torch has these on CUDA only, and MindSpore 2.10 on Ascend only), conv_tbc against torch's conv1d on the permuted
layout, and the in-place addr_."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import mint

RNG = np.random.default_rng(5)


def _channel_view(x):
    """(C, everything else) of an (N, C, ...) array."""
    return np.moveaxis(x, 1, 0).reshape(x.shape[1], -1).astype(np.float64)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 4, 3, 5)])
def test_batch_norm_stats(shape):
    x = RNG.standard_normal(shape).astype(np.float32) * 3 + 1
    mean, invstd = mint.batch_norm_stats(ms.Tensor(x), 1e-3)
    flat = _channel_view(x)
    np.testing.assert_allclose(mean.asnumpy(), flat.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(flat.var(1) + 1e-3), rtol=1e-5)


def test_gathered_stats_equal_the_whole_batch_and_update_running_stats():
    x = RNG.standard_normal((5, 3, 4)).astype(np.float32)
    parts = [x[:1], x[1:4], x[4:]]  # three "devices" of unequal batch sizes
    stats = [mint.batch_norm_stats(ms.Tensor(p), 1e-5) for p in parts]
    counts = ms.Tensor(np.array([p.shape[0] * p.shape[2] for p in parts], np.float32))
    running_mean = ms.Parameter(ms.Tensor(np.full(3, 0.5, np.float32)), name="running_mean")
    running_var = ms.Tensor(np.ones(3, np.float32))
    mean, invstd = mint.batch_norm_gather_stats_with_counts(
        ms.Tensor(x), ms.ops.stack([s[0] for s in stats]), ms.ops.stack([s[1] for s in stats]), running_mean,
        running_var, 0.2, 1e-5, counts)
    flat = _channel_view(x)
    np.testing.assert_allclose(mean.asnumpy(), flat.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(flat.var(1) + 1e-5), rtol=1e-4)
    np.testing.assert_allclose(running_mean.asnumpy(), 0.8 * 0.5 + 0.2 * flat.mean(1), rtol=1e-5)
    np.testing.assert_allclose(running_var.asnumpy(), 0.8 + 0.2 * flat.var(1, ddof=1), rtol=1e-4)
    with pytest.raises(ValueError, match="'counts'"):
        mint.batch_norm_gather_stats_with_counts(ms.Tensor(x), stats[0][0][None], stats[0][1][None])


def test_batch_norm_elemt():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    w, b = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    mean, invstd = RNG.standard_normal(3).astype(np.float32), RNG.uniform(0.5, 2, 3).astype(np.float32)
    out = mint.batch_norm_elemt(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b), ms.Tensor(mean), ms.Tensor(invstd), 1e-5)
    want = (x - mean[:, None]) * invstd[:, None] * w[:, None] + b[:, None]
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    bare = mint.batch_norm_elemt(ms.Tensor(x), None, None, ms.Tensor(mean), ms.Tensor(invstd))
    np.testing.assert_allclose(bare.asnumpy(), (x - mean[:, None]) * invstd[:, None], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pad", [0, 2])
def test_conv_tbc_matches_conv1d_on_the_permuted_layout(pad):
    x = RNG.standard_normal((9, 2, 3)).astype(np.float32)  # (time, batch, in)
    w = RNG.standard_normal((4, 3, 5)).astype(np.float32)  # (kernel, in, out)
    b = RNG.standard_normal(5).astype(np.float32)
    out = mint.conv_tbc(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b), pad)
    want = torch.nn.functional.conv1d(torch.from_numpy(x).permute(1, 2, 0), torch.from_numpy(w).permute(2, 1, 0),
                                      torch.from_numpy(b), padding=pad).permute(2, 0, 1).numpy()
    assert out.shape == (9 + 2 * pad - 3, 2, 5)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="input channels"):
        mint.conv_tbc(ms.Tensor(x), ms.Tensor(w[:, :2]), ms.Tensor(b))


def test_addr_is_in_place():
    m = ms.Tensor(np.ones((2, 3), np.float32))
    out = mint.addr_(m, ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 0.0, -1.0]), beta=2, alpha=3)
    assert out is m
    np.testing.assert_array_equal(m.asnumpy(), 2 + 3 * np.outer([1.0, 2.0], [1.0, 0.0, -1.0]))
