"""grid_sample / GridSampler2D and adaptive_avg_pool3d against torch (values and gradients); crop_and_resize
against a numpy transcription of TensorFlow's documented sampling (MindSpore 2.10 agreed while written)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
G = RNG.uniform(-1.2, 1.2, (2, 4, 3, 2)).astype(np.float32)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_matches_torch(backend, mode, padding, align):
    want = tf.grid_sample(torch.from_numpy(X), torch.from_numpy(G), mode, padding, align).numpy()
    np.testing.assert_allclose(ops.grid_sample(Tensor(X), Tensor(G), mode, padding, align).asnumpy(), want,
                               atol=1e-5)
    np.testing.assert_allclose(ops.GridSampler2D(mode, padding, align)(Tensor(X), Tensor(G)).asnumpy(), want,
                               atol=1e-5)


def test_grid_sample_gradients_match_torch():
    x, g = torch.from_numpy(X.astype(np.float64)).requires_grad_(True), torch.from_numpy(G.astype(np.float64))
    g.requires_grad_(True)
    (tf.grid_sample(x, g, "bilinear", "zeros", False) ** 2).sum().backward()
    gx, gg = ms.grad(lambda a, b: (ops.grid_sample(a, b) ** 2).sum(), grad_position=(0, 1))(
        Tensor(X.astype(np.float64)), Tensor(G.astype(np.float64)))
    np.testing.assert_allclose(gx.asnumpy(), x.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(gg.asnumpy(), g.grad.numpy(), atol=1e-9)


def test_adaptive_avg_pool3d_matches_torch(backend):
    v = RNG.standard_normal((2, 3, 7, 5, 6)).astype(np.float32)
    for size in [(3, 2, 4), (1, 1, 1), (7, 5, 6)]:
        np.testing.assert_allclose(ops.adaptive_avg_pool3d(Tensor(v), size).asnumpy(),
                                   tf.adaptive_avg_pool3d(torch.from_numpy(v), size).numpy(), atol=1e-6)
    np.testing.assert_allclose(ops.AdaptiveAvgPool3D(2)(Tensor(v[0])).asnumpy(),
                               tf.adaptive_avg_pool3d(torch.from_numpy(v[0]), 2).numpy(), atol=1e-6)


def _np_crop(img, boxes, idx, size, method, extrapolation):
    n, h, w, c = img.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, c), np.float32)
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float32)):
        for i in range(ch):
            y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 else 0.5 * (y1 + y2) * (h - 1)
            for j in range(cw):
                x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 else 0.5 * (x1 + x2) * (w - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[b, i, j] = extrapolation
                elif method == "nearest":
                    out[b, i, j] = img[idx[b], int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
                else:
                    y0, x0 = int(np.floor(y)), int(np.floor(x))
                    y1_, x1_ = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
                    dy, dx = y - y0, x - x0
                    top = img[idx[b], y0, x0] * (1 - dx) + img[idx[b], y0, x1_] * dx
                    bottom = img[idx[b], y1_, x0] * (1 - dx) + img[idx[b], y1_, x1_] * dx
                    out[b, i, j] = top * (1 - dy) + bottom * dy
    return out


@pytest.mark.parametrize("method, size", [("bilinear", (4, 5)), ("bilinear", (1, 3)), ("nearest", (3, 2))])
def test_crop_and_resize(method, size):
    img = RNG.standard_normal((2, 6, 7, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 1.2, 0.5], [0.3, 0.3, 0.3, 0.3], [0.9, 0.8, 0.1, 0.2]],
                     np.float32)
    idx = np.array([0, 1, 1, 0], np.int32)
    got = ops.CropAndResize(method, -1.0)(Tensor(img), Tensor(boxes), Tensor(idx), size).asnumpy()
    np.testing.assert_allclose(got, _np_crop(img, boxes, idx, size, method, -1.0), atol=1e-5)
