"""Resize Primitive classes (checked against real MindSpore 2.10 while written; here against torch and numpy
references of each coordinate convention) and the gradient hooks HookBackward / InsertGradientOf."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import openspore as ms
from openspore import Tensor, ops

X = np.random.default_rng(0).standard_normal((1, 2, 3, 5)).astype(np.float32)


def _np_nearest(x, size, rule):
    out = x
    for axis, n_out in zip((2, 3), size):
        n_in = out.shape[axis]
        idx = np.clip([rule(d, n_in, n_out) for d in range(n_out)], 0, n_in - 1).astype(int)
        out = np.take(out, idx, axis=axis)
    return out


def test_resize_nearest_neighbor_conventions(backend):
    got = ops.ResizeNearestNeighbor((5, 7))(Tensor(X)).asnumpy()
    np.testing.assert_array_equal(got, tf.interpolate(torch.from_numpy(X), (5, 7), mode="nearest").numpy())
    got = ops.ResizeNearestNeighbor((5, 7), align_corners=True)(Tensor(X)).asnumpy()
    want = _np_nearest(X, (5, 7), lambda d, i, o: np.floor(d * (i - 1) / (o - 1) + 0.5))
    np.testing.assert_array_equal(got, want)
    got = ops.ResizeNearestNeighborV2(False, True)(Tensor(X), Tensor(np.array([2, 8], np.int32))).asnumpy()
    want = _np_nearest(X, (2, 8), lambda d, i, o: np.floor((d + 0.5) * i / o))
    np.testing.assert_array_equal(got, want)


def test_resize_bilinear_and_linear1d(backend):
    t = torch.from_numpy(X)
    np.testing.assert_allclose(ops.ResizeBilinearV2(True)(Tensor(X), (5, 7)).asnumpy(),
                               tf.interpolate(t, (5, 7), mode="bilinear", align_corners=True).numpy(), atol=1e-6)
    np.testing.assert_allclose(ops.ResizeBilinearV2(False, True)(Tensor(X), (2, 9)).asnumpy(),
                               tf.interpolate(t, (2, 9), mode="bilinear", align_corners=False).numpy(), atol=1e-6)
    # the legacy (asymmetric) convention: source = d · in / out, blended with the next pixel, clamped at the edge
    src = np.arange(7) * 5 / 7
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, 4)
    cols = X[..., lo] + (X[..., hi] - X[..., lo]) * (src - lo)
    got = ops.ResizeBilinearV2()(Tensor(X), Tensor(np.array([3, 7], np.int32))).asnumpy()
    np.testing.assert_allclose(got, cols, atol=1e-6)
    x1 = X[0]
    np.testing.assert_allclose(ops.ResizeLinear1D()(Tensor(x1), (9,)).asnumpy(),
                               tf.interpolate(torch.from_numpy(x1), 9, mode="linear", align_corners=True).numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(ops.ResizeLinear1D("half_pixel")(Tensor(x1), Tensor([4])).asnumpy(),
                               tf.interpolate(torch.from_numpy(x1), 4, mode="linear", align_corners=False).numpy(),
                               atol=1e-6)
    with pytest.raises(ValueError, match="3-D"):
        ops.ResizeLinear1D()(Tensor(X), (4,))
    with pytest.raises(ValueError, match="both"):
        ops.ResizeBilinearV2(True, True)(Tensor(X), (2, 2))


def test_resize_gradient_and_jit():
    t = torch.from_numpy(X).requires_grad_(True)
    tf.interpolate(t, (5, 7), mode="bilinear", align_corners=True).pow(2).sum().backward()
    g = ms.grad(lambda x: (ops.ResizeBilinearV2(True)(x, (5, 7)) ** 2).sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)
    got = ms.jit(lambda x: ops.ResizeNearestNeighbor((6, 10))(x))(Tensor(X))
    np.testing.assert_array_equal(got.asnumpy(), np.repeat(np.repeat(X, 2, 2), 2, 3))


def test_hook_backward_sees_and_replaces_gradients():
    seen = []
    hook = ops.HookBackward(lambda grad: seen.append(tuple(float(g.asnumpy()) for g in grad)))

    def f(x, y):
        z = hook(x * y)
        return z * y
    grads = ms.grad(f, grad_position=(0, 1))(Tensor(1.0), Tensor(2.0))  # MindSpore's documented example
    assert [float(g.asnumpy()) for g in grads] == [4.0, 4.0] and seen == [(2.0,)]
    double = ops.HookBackward(lambda grad: (grad[0] * 2,))
    g = ms.grad(lambda x: double(x * 3).sum())(Tensor([1.0, 1.0]))
    assert g.asnumpy().tolist() == [6.0, 6.0]
    assert float(ops.HookBackward(print)(Tensor(5.0)).asnumpy()) == 5.0  # forward unchanged
    with pytest.raises(TypeError, match="hook_fn"):
        ops.HookBackward(3)
    with pytest.raises(TypeError, match="Tensor"):
        double(1.0)


def test_insert_gradient_of_clips():
    clip = ops.InsertGradientOf(lambda g: ops.clamp(g, -1.0, 1.0))
    g = ms.grad(lambda x: (clip(x) * Tensor([5.0, -0.5, -3.0])).sum())(Tensor([1.0, 1.0, 1.0]))
    assert g.asnumpy().tolist() == [1.0, -0.5, -1.0]
