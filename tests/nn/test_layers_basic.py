"""Basic layers and activations: MindSpore signatures, defaults, parameter names, reprs, numerics vs torch."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import openspore as ms
from openspore import nn, ops
from tests.nn.layer_helpers import close, ms_t


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---- Dense ------------------------------------------------------------------------------------------
def test_dense_parameters_repr_and_default_init():
    net = nn.Dense(400, 30)
    names = [(k, p.name, tuple(p.shape)) for k, p in net.parameters_and_names()]
    assert names == [("weight", "weight", (30, 400)), ("bias", "bias", (30,))]
    assert repr(net) == "Dense(input_channels=400, output_channels=30, has_bias=True)"
    assert repr(nn.Dense(4, 3, has_bias=False)) == "Dense(input_channels=4, output_channels=3)"
    assert "bias" not in dict(nn.Dense(4, 3, has_bias=False).parameters_and_names())
    # HeUniform(sqrt(5)) on fan_in 400: bound = sqrt(6 / ((1 + 5) * 400)) = 1/sqrt(400); bias Uniform(1/sqrt(400))
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    bound = 1 / math.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.8 * bound


def test_dense_init_reproducible_under_set_seed():
    ms.set_seed(7)
    a = nn.Dense(5, 4)
    ms.set_seed(7)
    b = nn.Dense(5, 4)
    np.testing.assert_array_equal(a.weight.asnumpy(), b.weight.asnumpy())
    np.testing.assert_array_equal(a.bias.asnumpy(), b.bias.asnumpy())
    assert not np.array_equal(a.weight.asnumpy(), nn.Dense(5, 4).weight.asnumpy())


def test_dense_explicit_inits_and_errors():
    net = nn.Dense(3, 2, weight_init="ones", bias_init=0.5)
    np.testing.assert_array_equal(net.weight.asnumpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(net.bias.asnumpy(), [0.5, 0.5])
    net = nn.Dense(3, 2, weight_init=ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert net.weight.asnumpy()[1, 2] == 5
    with pytest.raises(ValueError, match="the shape of the initial Tensor must be"):
        nn.Dense(3, 2, weight_init=ms.Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(ValueError, match="For 'Dense', the 'in_channels' must be a positive int"):
        nn.Dense(0, 2)
    with pytest.raises(TypeError, match="the 'activation' must be str or Cell or Primitive"):
        nn.Dense(3, 2, activation=3)
    with pytest.raises(TypeError, match="For 'MatMul'"):
        nn.Dense(3, 2)(ms.Tensor(np.ones((1, 3), np.int32)))


def test_dense_matches_torch_linear_and_reshapes_higher_rank(backend):
    t = torch.nn.Linear(6, 4)
    net = nn.Dense(6, 4, weight_init=ms_t(t.weight), bias_init=ms_t(t.bias))
    x = rand(2, 3, 6)
    out = net(ms.Tensor(x))
    assert out.shape == (2, 3, 4)
    close(out, t(torch.from_numpy(x)))
    close(net(ms.Tensor(x[0])), t(torch.from_numpy(x[0])))


def test_dense_activation_and_gradient(backend):
    net = nn.Dense(3, 2, activation="relu", weight_init="ones", bias_init=-4.0)
    assert repr(net).split("\n")[1].strip() == "input_channels=3, output_channels=2, has_bias=True, activation=ReLU()"
    x = ms.Tensor(np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), [[0, 0], [2, 2]])
    grads = ms.grad(lambda inp: net(inp).sum(), None, net.trainable_params())(x)
    np.testing.assert_allclose(grads[0].asnumpy(), [[2, 2, 2], [2, 2, 2]])
    np.testing.assert_allclose(grads[1].asnumpy(), [1, 1])


def test_to_float_gives_float16_outputs(backend):
    x = ms.Tensor(rand(2, 4))
    dense = nn.Dense(4, 3)
    expected = dense(x).asnumpy()
    out = dense.to_float(ms.float16)(x)
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), expected, atol=1e-2)
    assert dense.weight.dtype == ms.float32
    conv = nn.Conv2d(2, 3, 3, has_bias=True).to_float(ms.float16)
    assert conv(ms.Tensor(rand(1, 2, 5, 5))).dtype == ms.float16


# ---- Flatten / Identity ----------------------------------------------------------------------------
def test_flatten_and_identity():
    x = ms.Tensor(rand(2, 3, 4, 5))
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 1)(x).shape == (6, 4, 5)
    assert nn.Flatten(start_dim=-2)(x).shape == (2, 3, 20)
    assert nn.Flatten()(ms.Tensor(rand(2, 3, 4))).shape == (2, 12)
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    with pytest.raises(ValueError, match="'start_dim' must not come after 'end_dim'"):
        nn.Flatten(2, 1)(x)
    assert nn.Identity()(x) is x


# ---- Dropout -----------------------------------------------------------------------------------------
def test_dropout_arguments_and_repr():
    assert repr(nn.Dropout()) == "Dropout(p=0.5)"
    assert repr(nn.Dropout(p=0.2)) == "Dropout(p=0.2)"
    assert repr(nn.Dropout(keep_prob=0.7)) == "Dropout(keep_prob=0.7)"
    assert nn.Dropout(keep_prob=0.7).p == pytest.approx(0.3)
    with pytest.raises(ValueError, match="For 'Dropout', the 'p' must be in range \\[0.0, 1.0\\)"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match="the 'keep_prob' must be in range \\(0.0, 1.0\\]"):
        nn.Dropout(keep_prob=0.0)


def test_dropout_identity_in_eval_and_scaled_mask_in_training(backend):
    x = ms.Tensor(np.ones((100, 100), np.float32))
    drop = nn.Dropout(p=0.3)
    assert drop(x) is x  # fresh cells are in eval mode
    drop.set_train()
    out = drop(x).asnumpy()
    kept = out != 0
    assert 0.6 < kept.mean() < 0.8
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    assert nn.Dropout(p=0.0).set_train()(x) is x
    ms.set_seed(3)
    a = drop(x).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(a, drop(x).asnumpy())


def test_dropout2d_drops_whole_channels():
    x = ms.Tensor(np.ones((4, 50, 3, 3), np.float32))
    out = nn.Dropout2d(p=0.5).set_train()(x).asnumpy()
    per_channel = out.reshape(4, 50, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    out1 = nn.Dropout1d(p=0.5).set_train()(ms.Tensor(np.ones((4, 50, 6), np.float32))).asnumpy()
    assert np.all((out1 == 0).all(-1) | (out1 == 2).all(-1))


# ---- padding and patches -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,np_mode", [("CONSTANT", "constant"), ("REFLECT", "reflect"),
                                          ("SYMMETRIC", "symmetric")])
def test_pad_modes_match_numpy(backend, mode, np_mode):
    x = rand(2, 3, 4)
    paddings = ((0, 0), (1, 2), (2, 1))
    out = nn.Pad(paddings, mode=mode)(ms.Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), np.pad(x, paddings, mode=np_mode))


def test_pad_symmetric_gradient():
    x = ms.Tensor(rand(4, 3))
    g = ms.grad(lambda t: nn.Pad(((1, 2), (0, 0)), "SYMMETRIC")(t).sum())(x).asnumpy()
    np.testing.assert_array_equal(g[:, 0], [2, 1, 2, 2])


def test_zero_pad2d_matches_torch(backend):
    x = rand(1, 2, 3, 4)
    close(nn.ZeroPad2d((1, 2, 0, 3))(ms.Tensor(x)), F.pad(torch.from_numpy(x), (1, 2, 0, 3)))
    assert nn.ZeroPad2d(2)(ms.Tensor(x)).shape == (1, 2, 7, 8)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_unfold_extracts_patches_row_column_channel(backend, padding):
    x = rand(2, 3, 6, 5)
    net = nn.Unfold([1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], padding=padding)
    out = net(ms.Tensor(x)).asnumpy()
    kh, kw, sh, sw, dh, dw = 2, 3, 2, 1, 1, 2
    xp = x
    if padding == "same":
        oh, ow = -(-6 // sh), -(-5 // sw)
        ph = max(0, (oh - 1) * sh + dh * (kh - 1) + 1 - 6)
        pw = max(0, (ow - 1) * sw + dw * (kw - 1) + 1 - 5)
        xp = np.pad(x, ((0, 0), (0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2)))
    else:
        oh, ow = (6 - 2) // 2 + 1, (5 - 5) // 1 + 1
    assert out.shape == (2, kh * kw * 3, oh, ow)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
            np.testing.assert_array_equal(out[:, :, i, j], patch.transpose(0, 2, 3, 1).reshape(2, -1))


# ---- activations -------------------------------------------------------------------------------------
ACTIVATIONS = [
    (nn.ReLU(), F.relu), (nn.ReLU6(), F.relu6), (nn.Sigmoid(), torch.sigmoid), (nn.Tanh(), torch.tanh),
    (nn.SiLU(), F.silu), (nn.SeLU(), F.selu), (nn.HSwish(), F.hardswish), (nn.HSigmoid(), F.hardsigmoid),
    (nn.Mish(), F.mish), (nn.Softsign(), F.softsign), (nn.LogSigmoid(), F.logsigmoid),
    (nn.Tanhshrink(), F.tanhshrink), (nn.GELU(), lambda t: F.gelu(t, approximate="tanh")),
    (nn.GELU(approximate=False), F.gelu), (nn.LeakyReLU(), lambda t: F.leaky_relu(t, 0.2)),
    (nn.LeakyReLU(0.1), lambda t: F.leaky_relu(t, 0.1)), (nn.ELU(), F.elu), (nn.CELU(0.5), lambda t: F.celu(t, 0.5)),
    (nn.Softplus(), F.softplus), (nn.Softplus(2, 3), lambda t: F.softplus(t, 2, 3)),
    (nn.Hardtanh(-0.5, 0.7), lambda t: F.hardtanh(t, -0.5, 0.7)), (nn.HShrink(0.3), lambda t: F.hardshrink(t, 0.3)),
    (nn.SoftShrink(0.3), lambda t: F.softshrink(t, 0.3)), (nn.Softmax(), lambda t: F.softmax(t, -1)),
    (nn.Softmax(axis=0), lambda t: F.softmax(t, 0)), (nn.LogSoftmax(), lambda t: F.log_softmax(t, -1)),
    (nn.Softmin(), lambda t: F.softmin(t, -1)), (nn.GLU(), lambda t: F.glu(t, -1)),
    (nn.PReLU(), lambda t: F.prelu(t, torch.tensor([0.25]))),
]


@pytest.mark.parametrize("layer,reference", ACTIVATIONS, ids=lambda v: type(v).__name__ if isinstance(v, nn.Cell)
                         else "")
def test_activations_match_torch(backend, layer, reference):
    x = rand(3, 4) * 3
    close(layer(ms.Tensor(x)), reference(torch.from_numpy(x)), rtol=1e-5, atol=1e-6)


def test_activation_defaults_and_get_activation():
    assert repr(nn.LeakyReLU()) == "LeakyReLU(alpha=0.2)"
    assert repr(nn.Softmax()) == "Softmax(axis=-1)"
    assert nn.GELU().approximate is True
    assert isinstance(nn.get_activation("gelu"), nn.GELU)
    assert nn.get_activation("relu") is not nn.get_activation("relu")
    assert nn.get_activation(None) is None
    with pytest.raises(KeyError, match="the 'name' must be one of"):
        nn.get_activation("nope")


def test_prelu_parameter_per_channel(backend):
    net = nn.PReLU(channel=3, w=[0.1, 0.2, 0.3])
    assert [(k, p.name, tuple(p.shape)) for k, p in net.parameters_and_names()] == [("w", "a", (3,))]
    x = -np.ones((2, 3, 2), np.float32)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy()[0, :, 0], [-0.1, -0.2, -0.3], rtol=1e-6)
    g = ms.grad(lambda t: net(t).sum(), None, [net.w])(ms.Tensor(x))
    np.testing.assert_allclose(g[0].asnumpy(), [-4, -4, -4])


def test_layers_work_inside_sequential_and_under_grad(backend):
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dropout(p=0.0), nn.Dense(8, 2), nn.LogSoftmax())
    x = ms.Tensor(rand(5, 4))
    loss_fn = lambda inp: ops.neg(net(inp)).mean()  # noqa: E731
    grads = ms.grad(loss_fn, None, net.trainable_params())(x)
    assert [tuple(g.shape) for g in grads] == [(8, 4), (8,), (2, 8), (2,)]
    assert all(np.isfinite(g.asnumpy()).all() for g in grads)
