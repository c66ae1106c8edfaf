"""Convolution and pooling layers: MindSpore defaults (pad_mode 'same', no bias), parameter shapes, numerics vs
torch with copied weights, on both backends."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openspore as ms
from openspore import nn
from tests.nn.layer_helpers import close


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---- convolutions -------------------------------------------------------------------------------------
def test_conv2d_defaults_parameters_and_same_padding():
    net = nn.Conv2d(3, 8, 3)
    assert [(k, tuple(p.shape)) for k, p in net.parameters_and_names()] == [("weight", (8, 3, 3, 3))]
    assert net(ms.Tensor(rand(1, 3, 10, 10))).shape == (1, 8, 10, 10)
    assert net.pad_mode == "same" and net.has_bias is False
    assert repr(net).startswith("Conv2d(input_channels=3, output_channels=8, kernel_size=(3, 3), stride=(1, 1), "
                                "pad_mode=same, padding=0, dilation=(1, 1), group=1, has_bias=False")
    grouped = nn.Conv2d(4, 6, (3, 2), group=2, has_bias=True)
    assert grouped.weight.shape == (6, 2, 3, 2) and grouped.bias.shape == (6,)
    bound = 1 / math.sqrt(2 * 3 * 2)
    assert np.abs(grouped.weight.asnumpy()).max() <= bound
    assert np.abs(grouped.bias.asnumpy()).max() <= bound


def test_conv2d_argument_errors():
    with pytest.raises(ValueError, match="must be 0 when 'pad_mode' is not 'pad'"):
        nn.Conv2d(3, 4, 3, padding=1)
    with pytest.raises(ValueError, match="the 'pad_mode' must be one of"):
        nn.Conv2d(3, 4, 3, pad_mode="full")
    with pytest.raises(ValueError, match="must both be divisible by 'group'"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="Conv2D"):
        nn.Conv2d(3, 4, 3)(ms.Tensor(rand(3, 5, 5)))


@pytest.mark.parametrize("kwargs,torch_kwargs", [
    (dict(pad_mode="valid"), dict()),
    (dict(pad_mode="pad", padding=1, stride=2), dict(padding=1, stride=2)),
    (dict(pad_mode="pad", padding=(1, 0, 2, 1), dilation=2), None),
    (dict(pad_mode="valid", group=2, has_bias=True), dict(groups=2)),
    (dict(pad_mode="same", stride=2), None),
])
def test_conv2d_matches_torch(backend, kwargs, torch_kwargs):
    net = nn.Conv2d(4, 6, 3, **kwargs)
    x = rand(2, 4, 7, 8)
    w = torch.from_numpy(net.weight.asnumpy())
    b = torch.from_numpy(net.bias.asnumpy()) if net.has_bias else None
    xt = torch.from_numpy(x)
    if torch_kwargs is None:  # asymmetric padding: pad explicitly, then a valid convolution
        if kwargs["pad_mode"] == "same":
            need_h = max(0, (math.ceil(7 / 2) - 1) * 2 + 3 - 7)
            need_w = max(0, (math.ceil(8 / 2) - 1) * 2 + 3 - 8)
            xt = F.pad(xt, (need_w // 2, need_w - need_w // 2, need_h // 2, need_h - need_h // 2))
            expected = F.conv2d(xt, w, b, stride=2)
        else:
            xt = F.pad(xt, (2, 1, 1, 0))
            expected = F.conv2d(xt, w, b, dilation=2)
    else:
        expected = F.conv2d(xt, w, b, **torch_kwargs)
    close(net(ms.Tensor(x)), expected)


def test_conv2d_gradients_match_torch(backend):
    net = nn.Conv2d(2, 3, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
    x = rand(2, 2, 6, 6)
    tw = torch.tensor(net.weight.asnumpy(), requires_grad=True)
    tb = torch.tensor(net.bias.asnumpy(), requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    (F.conv2d(tx, tw, tb, stride=2, padding=1) ** 2).sum().backward()
    gx, (gw, gb) = ms.grad(lambda t: (net(t) ** 2).sum(), 0, [net.weight, net.bias])(ms.Tensor(x))
    close(gx, tx.grad, rtol=1e-4, atol=1e-4)
    close(gw, tw.grad, rtol=1e-4, atol=1e-4)
    close(gb, tb.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kwargs,torch_kwargs", [
    (dict(pad_mode="valid", has_bias=True), dict()),
    (dict(pad_mode="pad", padding=2, stride=2, dilation=2), dict(padding=2, stride=2, dilation=2)),
    (dict(pad_mode="valid", group=2), dict(groups=2)),
])
def test_conv1d_matches_torch(backend, kwargs, torch_kwargs):
    net = nn.Conv1d(4, 6, 3, **kwargs)
    assert net.weight.shape == (6, 4 // kwargs.get("group", 1), 3)
    x = rand(2, 4, 9)
    b = torch.from_numpy(net.bias.asnumpy()) if net.has_bias else None
    expected = F.conv1d(torch.from_numpy(x), torch.from_numpy(net.weight.asnumpy()), b, **torch_kwargs)
    close(net(ms.Tensor(x)), expected)
    assert nn.Conv1d(4, 6, 3, stride=2)(ms.Tensor(x)).shape == (2, 6, 5)


@pytest.mark.parametrize("kwargs,torch_kwargs", [
    (dict(pad_mode="valid", stride=2, has_bias=True), dict(stride=2)),
    (dict(pad_mode="pad", padding=1, stride=2, output_padding=1), dict(padding=1, stride=2, output_padding=1)),
    (dict(pad_mode="valid", group=2, dilation=2), dict(groups=2, dilation=2)),
])
def test_conv2d_transpose_matches_torch(backend, kwargs, torch_kwargs):
    net = nn.Conv2dTranspose(4, 6, 3, **kwargs)
    assert net.weight.shape == (4, 6 // kwargs.get("group", 1), 3, 3)
    x = rand(2, 4, 5, 4)
    b = torch.from_numpy(net.bias.asnumpy()) if net.has_bias else None
    expected = F.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(net.weight.asnumpy()), b, **torch_kwargs)
    close(net(ms.Tensor(x)), expected)


def test_conv_transpose_same_shape_and_1d(backend):
    assert nn.Conv2dTranspose(3, 2, 3, stride=2)(ms.Tensor(rand(1, 3, 4, 5))).shape == (1, 2, 8, 10)
    net = nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
    assert net.weight.shape == (3, 2, 3)
    x = rand(2, 3, 6)
    expected = F.conv_transpose1d(torch.from_numpy(x), torch.from_numpy(net.weight.asnumpy()),
                                  torch.from_numpy(net.bias.asnumpy()), stride=2, padding=1)
    close(net(ms.Tensor(x)), expected)


# ---- pooling ----------------------------------------------------------------------------------------------
def test_pool_defaults():
    x = ms.Tensor(rand(1, 2, 5, 5))
    assert nn.MaxPool2d(2, 2)(x).shape == (1, 2, 2, 2)
    assert nn.MaxPool2d()(x).shape == (1, 2, 5, 5)
    assert nn.AvgPool2d(3, 2, pad_mode="same")(x).shape == (1, 2, 3, 3)
    assert nn.MaxPool2d(2, 2)(ms.Tensor(rand(2, 5, 5))).shape == (2, 2, 2)
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d(kernel_size=(2, 2), stride=(2, 2), pad_mode=VALID)"
    with pytest.raises(ValueError, match="must be 0 unless 'pad_mode' is 'pad'"):
        nn.MaxPool2d(2, padding=1)


@pytest.mark.parametrize("layer,reference", [
    (nn.MaxPool2d(3, 2), lambda t: F.max_pool2d(t, 3, 2)),
    (nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True), lambda t: F.max_pool2d(t, 3, 2, 1,
                                                                                           ceil_mode=True)),
    (nn.MaxPool2d(2, 1, pad_mode="pad", dilation=2), lambda t: F.max_pool2d(t, 2, 1, dilation=2)),
    (nn.AvgPool2d(2, 2), lambda t: F.avg_pool2d(t, 2, 2)),
    (nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False),
     lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False)),
    (nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True, divisor_override=4),
     lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, divisor_override=4)),
    (nn.AdaptiveAvgPool2d((2, 3)), lambda t: F.adaptive_avg_pool2d(t, (2, 3))),
    (nn.AdaptiveAvgPool2d((None, 2)), lambda t: F.adaptive_avg_pool2d(t, (None, 2))),
    (nn.AdaptiveMaxPool2d(3), lambda t: F.adaptive_max_pool2d(t, 3)),
], ids=lambda v: repr(v) if isinstance(v, nn.Cell) else "")
def test_pool2d_matches_torch(backend, layer, reference):
    x = rand(2, 3, 7, 8)
    close(layer(ms.Tensor(x)), reference(torch.from_numpy(x)))


def test_max_pool_indices(backend):
    x = rand(2, 3, 6, 6)
    out, idx = nn.MaxPool2d(2, 2, return_indices=True)(ms.Tensor(x))
    t_out, t_idx = F.max_pool2d(torch.from_numpy(x), 2, 2, return_indices=True)
    close(out, t_out)
    np.testing.assert_array_equal(idx.asnumpy(), t_idx.numpy())
    out, idx = nn.AdaptiveMaxPool2d((2, 2), return_indices=True)(ms.Tensor(x))
    np.testing.assert_array_equal(idx.asnumpy(), F.adaptive_max_pool2d(torch.from_numpy(x), 2, True)[1].numpy())


@pytest.mark.parametrize("layer,reference", [
    (nn.MaxPool1d(3, 2), lambda t: F.max_pool1d(t, 3, 2)),
    (nn.MaxPool1d(3, 1, pad_mode="pad", padding=1), lambda t: F.max_pool1d(t, 3, 1, 1)),
    (nn.AvgPool1d(2, 2), lambda t: F.avg_pool1d(t, 2, 2)),
    (nn.AvgPool1d(3, 2, pad_mode="pad", padding=1, count_include_pad=False),
     lambda t: F.avg_pool1d(t, 3, 2, 1, count_include_pad=False)),
    (nn.AdaptiveAvgPool1d(3), lambda t: F.adaptive_avg_pool1d(t, 3)),
    (nn.AdaptiveMaxPool1d(4), lambda t: F.adaptive_max_pool1d(t, 4)),
], ids=lambda v: repr(v) if isinstance(v, nn.Cell) else "")
def test_pool1d_matches_torch(backend, layer, reference):
    x = rand(2, 3, 9)
    close(layer(ms.Tensor(x)), reference(torch.from_numpy(x)))
    close(layer(ms.Tensor(x[0])), reference(torch.from_numpy(x[0])))


def test_pool_gradients_match_torch(backend):
    x = rand(1, 2, 6, 6)
    for layer, reference in ((nn.MaxPool2d(2, 2), lambda t: F.max_pool2d(t, 2, 2)),
                             (nn.AvgPool2d(3, 1, pad_mode="pad", padding=1), lambda t: F.avg_pool2d(t, 3, 1, 1)),
                             (nn.AdaptiveAvgPool2d(1), lambda t: F.adaptive_avg_pool2d(t, 1))):
        tx = torch.tensor(x, requires_grad=True)
        (reference(tx) ** 2).sum().backward()
        close(ms.grad(lambda t: (layer(t) ** 2).sum())(ms.Tensor(x)), tx.grad)
