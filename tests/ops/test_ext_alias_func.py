"""The *_ext aliases, tensor_range, mirror_pad/MirrorPad (values matched against MindSpore 2.10), LerpScalar,
ConjugateTranspose, NuclearNorm and Dropout3D."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_mirror_pad_modes(backend):
    x = ms.Tensor(X)
    got = ops.mirror_pad(x, ms.Tensor([[1, 1], [2, 0]]), "REFLECT").asnumpy()
    np.testing.assert_array_equal(got, np.pad(X, ((1, 1), (2, 0)), mode="reflect"))
    got = ops.MirrorPad("SYMMETRIC")(x, ms.Tensor([[1, 0], [0, 2]])).asnumpy()
    np.testing.assert_array_equal(got, np.pad(X, ((1, 0), (0, 2)), mode="symmetric"))
    g = ms.grad(lambda a: ops.mirror_pad(a, ms.Tensor([[0, 0], [1, 1]]), "SYMMETRIC").sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), np.tile([2.0, 1.0, 1.0, 2.0], (3, 1)))
    with pytest.raises(ValueError, match="at most 3"):
        ops.mirror_pad(x, ms.Tensor([[0, 0], [4, 0]]), "REFLECT")
    with pytest.raises(ValueError, match="mode"):
        ops.mirror_pad(x, ms.Tensor([[0, 0], [1, 0]]), "EDGE")


def test_ext_aliases_forward_to_their_functions(backend):
    x = ms.Tensor(X)
    np.testing.assert_array_equal(ops.diff_ext(x, dim=0).asnumpy(), np.diff(X, axis=0))
    assert ops.isnan_ext(ms.Tensor([1.0, float("nan")])).asnumpy().tolist() == [False, True]
    np.testing.assert_allclose(ops.float_power_ext(x, 2).asnumpy(), X.astype(np.float64) ** 2)
    assert float(ops.mse_loss_ext(x, x + 2)) == 4.0
    ones = ms.Tensor(np.ones((1, 2, 2), np.float32))
    np.testing.assert_array_equal(ops.baddbmm_ext(ones, ones, ones, beta=2, alpha=3).asnumpy(), np.full((1, 2, 2), 8.0))
    np.testing.assert_allclose(ops.einsum_ext("ij->j", x).asnumpy(), X.sum(0))
    assert ops.adaptive_avg_pool2d_ext(ms.Tensor(np.ones((1, 1, 4, 4), np.float32)), 2).shape == (1, 1, 2, 2)
    assert ops.tensor_range(0, 5, 2).asnumpy().tolist() == [0, 2, 4]


def test_small_classes(backend):
    x = ms.Tensor(X)
    np.testing.assert_allclose(ops.LerpScalar()(x, x * 2, 0.5).asnumpy(), 1.5 * X)
    z = ops.Complex()(x, x)
    np.testing.assert_array_equal(ops.ConjugateTranspose()(z, (1, 0)).asnumpy(), np.conj((X + 1j * X).T))
    np.testing.assert_allclose(float(ops.NuclearNorm()(x)), np.linalg.norm(X, "nuc"), rtol=1e-5)
    batch = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    got = ops.NuclearNorm(dim=(0, 2), keepdim=True)(ms.Tensor(batch)).asnumpy()
    want = np.linalg.norm(np.transpose(batch, (1, 0, 2)), "nuc", axis=(1, 2))
    np.testing.assert_allclose(got.reshape(-1), want, rtol=1e-5)
    assert got.shape == (1, 3, 1)


def test_dropout3d_drops_whole_channels(backend):
    y, mask = ops.Dropout3D(0.5)(ms.Tensor(np.ones((4, 6, 2, 3, 2), np.float32)))
    m = mask.asnumpy()
    assert mask.dtype == ms.bool_ and m.shape == (4, 6, 2, 3, 2)
    per_channel = m.reshape(4, 6, -1)
    assert (per_channel.all(-1) | ~per_channel.any(-1)).all()
    np.testing.assert_array_equal(y.asnumpy(), m * 2.0)
