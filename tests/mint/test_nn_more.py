"""mint.nn layers and mint.nn.functional functions under PyTorch's names, against torch.nn."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore.mint import nn as mnn
from openspore.mint.nn import functional as F

RNG = np.random.default_rng(9)
X4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
X5 = RNG.standard_normal((1, 2, 4, 6, 6)).astype(np.float32)
X3 = RNG.standard_normal((2, 3, 5)).astype(np.float32) * 4

LAYERS = [  # (mint.nn layer, torch.nn layer, input)
    (lambda: mnn.Hardshrink(0.7), lambda: torch.nn.Hardshrink(0.7), X3),
    (mnn.Hardsigmoid, torch.nn.Hardsigmoid, X3),
    (mnn.Hardswish, torch.nn.Hardswish, X3),
    (mnn.SELU, torch.nn.SELU, X3),
    (lambda: mnn.ZeroPad1d((1, 2)), lambda: torch.nn.ZeroPad1d((1, 2)), X3),
    (lambda: mnn.ZeroPad3d(1), lambda: torch.nn.ZeroPad3d(1), X5),
    (lambda: mnn.AdaptiveAvgPool3d((2, 3, 2)), lambda: torch.nn.AdaptiveAvgPool3d((2, 3, 2)), X5),
    (lambda: mnn.UpsamplingNearest2d(scale_factor=2), lambda: torch.nn.UpsamplingNearest2d(scale_factor=2), X4),
    (lambda: mnn.UpsamplingBilinear2d(size=(7, 9)), lambda: torch.nn.UpsamplingBilinear2d(size=(7, 9)), X4),
]


@pytest.mark.parametrize("ours,theirs,x", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_layers_match_torch(ours, theirs, x):
    got = ours()(ms.Tensor(x)).asnumpy()
    want = theirs()(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_max_unpool2d_layer_and_function_invert_max_pool():
    pooled, idx = torch.nn.functional.max_pool2d(torch.from_numpy(X4), 2, return_indices=True)
    want = torch.nn.functional.max_unpool2d(pooled, idx, 2, output_size=(4, 5)).numpy()
    args = (ms.Tensor(pooled.numpy()), ms.Tensor(idx.numpy()))
    np.testing.assert_allclose(F.max_unpool2d(*args, 2, output_size=(4, 5)).asnumpy(), want)
    np.testing.assert_allclose(mnn.MaxUnpool2d(2)(*args, output_size=(4, 5)).asnumpy(), want)


FUNCTIONS = [  # (mint.nn.functional call, torch.nn.functional call, input)
    (lambda t: F.upsample(t, scale_factor=2, mode="bilinear", align_corners=False),
     lambda t: torch.nn.functional.interpolate(t, scale_factor=2, mode="bilinear", align_corners=False), X4),
    (lambda t: F.adaptive_avg_pool3d(t, 2), lambda t: torch.nn.functional.adaptive_avg_pool3d(t, 2), X5),
    (lambda t: F.avg_pool3d(t, 2), lambda t: torch.nn.functional.avg_pool3d(t, 2), X5),
    (lambda t: F.avg_pool3d(t, (1, 2, 3), (1, 2, 1), padding=(0, 1, 1), count_include_pad=False),
     lambda t: torch.nn.functional.avg_pool3d(t, (1, 2, 3), (1, 2, 1), (0, 1, 1), False, False), X5),
    (lambda t: F.avg_pool3d(t, 2, divisor_override=3), lambda t: torch.nn.functional.avg_pool3d(t, 2,
                                                                                              divisor_override=3), X5),
    (lambda t: F.grid_sample(t, ms.Tensor(np.tanh(X4[:, :2].transpose(0, 2, 3, 1)).copy()), align_corners=True),
     lambda t: torch.nn.functional.grid_sample(t, torch.from_numpy(np.tanh(X4[:, :2].transpose(0, 2, 3, 1)).copy()),
                                               align_corners=True), X4),
]


@pytest.mark.parametrize("ours,theirs,x", FUNCTIONS, ids=[str(i) for i in range(len(FUNCTIONS))])
def test_functions_match_torch(ours, theirs, x):
    np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), theirs(torch.from_numpy(x)).numpy(), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name,args", [("relu_", ()), ("sigmoid_", ()), ("elu_", (0.5,)), ("hardtanh_", (-2.0, 3.0)),
                                       ("threshold_", (1.0, -7.0))])
def test_in_place_functions_write_into_their_input(name, args):
    t = ms.Tensor(X3.copy())
    out = getattr(F, name)(t, *args)
    reference = getattr(torch.nn.functional, name, None) or getattr(torch, name)  # torch.sigmoid_ only
    want = reference(torch.from_numpy(X3.copy()), *args).numpy()
    assert out is t
    np.testing.assert_allclose(t.asnumpy(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,x_shape,w_shape,kwargs", [
    ("conv1d", (2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv2d", (1, 3, 6, 7), (4, 3, 3, 2), {"padding": (1, 2), "dilation": (2, 1)}),
    ("conv2d", (1, 3, 6, 7), (4, 3, 3, 3), {"padding": "same"}),
    ("conv3d", (1, 2, 5, 6, 4), (3, 2, 3, 3, 3), {"padding": (1, 0, 2), "stride": (1, 2, 1)}),
])
def test_convolution_functions_take_pytorch_arguments(name, x_shape, w_shape, kwargs):
    x, w = RNG.standard_normal(x_shape).astype(np.float32), RNG.standard_normal(w_shape).astype(np.float32)
    b = RNG.standard_normal(w_shape[0]).astype(np.float32)
    got = getattr(F, name)(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b), **kwargs).asnumpy()
    want = getattr(torch.nn.functional, name)(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                                              **kwargs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert ms.mint.conv2d is F.conv2d
