"""conv3d / Conv3D (a sum of Conv2D over the kernel depth) against torch's conv3d, forward and gradients, on both
backends (the `backend` fixture); the strided/grouped/dilated case and its gradients were also matched against
MindSpore 2.10."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 5, 6, 7)).astype(np.float32)
W = RNG.standard_normal((6, 2, 3, 2, 3)).astype(np.float32)


def _torch_conv3d(x, w, **kw):
    return torch.nn.functional.conv3d(torch.from_numpy(x), torch.from_numpy(w), **kw)


def test_pad_mode_pad_with_stride_dilation_groups(backend):
    got = ops.conv3d(ms.Tensor(X), ms.Tensor(W), stride=(2, 1, 2), pad_mode="pad", padding=(1, 0, 1),
                     dilation=(1, 2, 1), groups=2).asnumpy()
    want = _torch_conv3d(X, W, stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_same_valid_bias_and_six_pads(backend):
    b = np.arange(6, dtype=np.float32)
    same = ops.conv3d(ms.Tensor(X), ms.Tensor(W), ms.Tensor(b), pad_mode="same", groups=2).asnumpy()
    assert same.shape == (2, 6, 5, 6, 7)
    # 'same' with odd totals puts the leftover at the tail: pad explicitly and compare
    xp = np.pad(X, ((0, 0), (0, 0), (1, 1), (0, 1), (1, 1)))
    np.testing.assert_allclose(same, _torch_conv3d(xp, W, bias=torch.from_numpy(b), groups=2).numpy(),
                               rtol=1e-4, atol=1e-4)
    six = ops.conv3d(ms.Tensor(X), ms.Tensor(W), pad_mode="pad", padding=(1, 0, 0, 2, 1, 1), groups=2).asnumpy()
    xp = np.pad(X, ((0, 0), (0, 0), (1, 0), (0, 2), (1, 1)))
    np.testing.assert_allclose(six, _torch_conv3d(xp, W, groups=2).numpy(), rtol=1e-4, atol=1e-4)
    cls = ops.Conv3D(6, (3, 2, 3), group=2)(ms.Tensor(X), ms.Tensor(W)).asnumpy()
    np.testing.assert_allclose(cls, _torch_conv3d(X, W, groups=2).numpy(), rtol=1e-4, atol=1e-4)


def test_gradients_match_torch():
    xt, wt = torch.from_numpy(X).requires_grad_(), torch.from_numpy(W).requires_grad_()
    cot = RNG.standard_normal((2, 6, 3, 4, 4)).astype(np.float32)
    (torch.nn.functional.conv3d(xt, wt, stride=2, padding=1, groups=2) * torch.from_numpy(cot)).sum().backward()
    gx, gw = ms.grad(lambda a, b: (ops.conv3d(a, b, stride=2, pad_mode="pad", padding=1, groups=2)
                                   * ms.Tensor(cot)).sum(), (0, 1))(ms.Tensor(X), ms.Tensor(W))
    np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.asnumpy(), wt.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_bad_arguments():
    with pytest.raises(ValueError, match="5-D"):
        ops.conv3d(ms.Tensor(X[0]), ms.Tensor(W))
    with pytest.raises(ValueError, match="pad_mode"):
        ops.conv3d(ms.Tensor(X), ms.Tensor(W), pad_mode="full")
    with pytest.raises(ValueError, match="padding"):
        ops.conv3d(ms.Tensor(X), ms.Tensor(W), padding=1)
    with pytest.raises(ValueError, match="kernel_size"):
        ops.Conv3D(6, 3)(ms.Tensor(X), ms.Tensor(W))


XT = RNG.standard_normal((2, 4, 3, 4, 5)).astype(np.float32)
WT = RNG.standard_normal((4, 3, 3, 2, 3)).astype(np.float32)


def test_transpose_matches_torch(backend):
    got = ops.conv3d_transpose(ms.Tensor(XT), ms.Tensor(WT), "pad", 1, (2, 1, 2), (1, 2, 1), 2,
                               output_padding=(1, 0, 1)).asnumpy()
    want = torch.nn.functional.conv_transpose3d(torch.from_numpy(XT), torch.from_numpy(WT), stride=(2, 1, 2),
                                                padding=1, output_padding=(1, 0, 1), groups=2,
                                                dilation=(1, 2, 1)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    valid = ops.Conv3DTranspose(4, 3, (3, 2, 3))(ms.Tensor(XT), ms.Tensor(WT)).asnumpy()
    np.testing.assert_allclose(valid, torch.nn.functional.conv_transpose3d(
        torch.from_numpy(XT), torch.from_numpy(WT)).numpy(), rtol=1e-4, atol=1e-4)
    same = ops.Conv3DTranspose(4, 3, (3, 2, 3), pad_mode="same", stride=2)(ms.Tensor(XT), ms.Tensor(WT))
    assert same.shape == (2, 3, 6, 8, 10)


def test_transpose_is_the_adjoint_of_conv3d():
    """<conv3d(y, w), x> == <y, conv3d_transpose(x, w)> for any x, y: the defining property."""
    w = RNG.standard_normal((3, 4, 3, 2, 3)).astype(np.float32)  # conv3d: 4 → 3 channels
    y = RNG.standard_normal((1, 4, 7, 5, 9)).astype(np.float32)
    conv = ops.conv3d(ms.Tensor(y), ms.Tensor(w), stride=2, pad_mode="pad", padding=1).asnumpy()
    x = RNG.standard_normal(conv.shape).astype(np.float32)
    back = ops.conv3d_transpose(ms.Tensor(x), ms.Tensor(w), "pad", 1, 2, output_padding=(0, 1, 0)).asnumpy()
    assert back.shape == y.shape
    np.testing.assert_allclose((conv * x).sum(), (y * back).sum(), rtol=1e-4)
    g = ms.grad(lambda a: (ops.conv3d_transpose(a, ms.Tensor(w), "pad", 1, 2, output_padding=(0, 1, 0))
                           * ms.Tensor(y)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), conv, rtol=1e-4, atol=1e-4)
