"""Bicubic/area resizes, 3-D grid sampling and pooling, volume patches, col2im and stft against torch and numpy."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor
rng = np.random.default_rng(0)


def test_resize_bicubic_matches_torch_with_aligned_corners_and_keeps_constants():
    x = rng.random((1, 2, 5, 6)).astype(np.float32)
    got = ops.ResizeBicubic(align_corners=True)(T(x), (8, 9)).asnumpy()
    ref = torch.nn.functional.interpolate(torch.tensor(x), (8, 9), mode="bicubic", align_corners=True).numpy()
    np.testing.assert_allclose(got, ref, atol=1e-5)
    flat = np.full((1, 1, 4, 4), 3.0, np.float32)
    for kwargs in ({}, {"half_pixel_centers": True}):
        np.testing.assert_allclose(ops.ResizeBicubic(**kwargs)(T(flat), (7, 3)).asnumpy(), 3.0, rtol=1e-6)
    g = ms.grad(lambda v: ops.ResizeBicubic(True)(v, (8, 9)).sum())(T(x)).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.interpolate(tx, (8, 9), mode="bicubic", align_corners=True).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_resize_area_averages_covered_pixels():
    x = rng.random((2, 6, 9, 3)).astype(np.float32)
    got = ops.ResizeArea()(T(x), T(np.array([3, 3], np.int32))).asnumpy()
    ref = torch.nn.functional.avg_pool2d(torch.tensor(x).permute(0, 3, 1, 2), (2, 3)).permute(0, 2, 3, 1).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    # a non-integer ratio: output pixel 0 of 3 → 2 covers input 0 fully and half of input 1
    one = ops.ResizeArea()(T(np.array([1.0, 2.0, 4.0], np.float32).reshape(1, 1, 3, 1)), (1, 2)).asnumpy().ravel()
    np.testing.assert_allclose(one, [(1.0 + 0.5 * 2.0) / 1.5, (0.5 * 2.0 + 4.0) / 1.5], rtol=1e-6)


@pytest.mark.parametrize("mode,padding,align", [("bilinear", "zeros", False), ("bilinear", "border", True),
                                                ("nearest", "zeros", True)])
def test_grid_sampler_3d_matches_torch(mode, padding, align):
    v = rng.standard_normal((2, 3, 3, 4, 5)).astype(np.float32)
    g = (rng.random((2, 2, 3, 4, 3)).astype(np.float32) * 2.4 - 1.2)
    got = ops.GridSampler3D(mode, padding, align)(T(v), T(g)).asnumpy()
    ref = torch.nn.functional.grid_sample(torch.tensor(v), torch.tensor(g), mode=mode, padding_mode=padding,
                                          align_corners=align).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_max_pool3d_with_argmax_and_volume_patches():
    v = rng.standard_normal((1, 2, 5, 5, 6)).astype(np.float32)
    out, idx = ops.MaxPool3DWithArgmax(ksize=(2, 3, 2), strides=(1, 2, 2), pads=(1, 1, 0))(T(v))
    ref, ridx = torch.nn.functional.max_pool3d(torch.tensor(v), (2, 3, 2), (1, 2, 2), (1, 1, 0), return_indices=True)
    np.testing.assert_allclose(out.asnumpy(), ref.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), ridx.numpy())
    assert idx.dtype == ms.int64
    patches = ops.ExtractVolumePatches((1, 1, 2, 2, 3), (1, 1, 2, 1, 3), "VALID")(T(v)).asnumpy()
    assert patches.shape == (1, 2 * 12, 2, 4, 2)
    np.testing.assert_allclose(patches[0, :12, 1, 2, 1], v[0, 0, 2:4, 2:4, 3:6].reshape(-1))


def test_col2im_is_fold():
    cols = rng.standard_normal((1, 2, 4, 9)).astype(np.float32)
    got = ops.col2im(T(cols), T(np.array([4, 4], np.int32)), (2, 2), (1, 1), (0, 0), (1, 1)).asnumpy()
    ref = torch.nn.functional.fold(torch.tensor(cols.reshape(1, 8, 9)), (4, 4), 2).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_stft_matches_torch():
    s = rng.standard_normal((2, 64)).astype(np.float32)
    w = torch.hann_window(16)
    ref = torch.stft(torch.tensor(s), 16, 4, 16, w, center=True, pad_mode="reflect", return_complex=True).numpy()
    got = ops.stft(T(s), 16, 4, 16, T(w.numpy()), return_complex=True).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    real = ops.stft(T(s[0]), 16, 8, normalized=True, center=False, return_complex=False).asnumpy()
    ref = torch.view_as_real(torch.stft(torch.tensor(s[0]), 16, 8, normalized=True, center=False,
                                        window=torch.ones(16), return_complex=True)).numpy()
    np.testing.assert_allclose(real, ref, rtol=1e-4, atol=1e-4)
    prim = ops.STFT(16, 4, 16, False, True, True)(T(s), T(w.numpy())).asnumpy()
    ref = torch.stft(torch.tensor(s), 16, 4, 16, w, center=False, return_complex=True).numpy()
    np.testing.assert_allclose(prim, ref, rtol=1e-4, atol=1e-4)
