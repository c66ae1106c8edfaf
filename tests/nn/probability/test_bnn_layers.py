"""nn.probability.bnn_layers: shapes, the KL term against its closed form, and training in both modes."""
import math

import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn
from openspore.nn.probability import bnn_layers


def _softplus(x):
    return np.log1p(np.exp(x))


def _kl_prior_to_posterior(mean, untransformed, prior_mean=0.0, prior_std=0.1):
    """KL(N(prior) || N(posterior)) summed, the direction MindSpore's layers use."""
    std = _softplus(untransformed.astype(np.float64))
    diff = prior_mean - mean.astype(np.float64)
    return np.sum(np.log(std / prior_std) + (prior_std ** 2 + diff ** 2) / (2 * std ** 2) - 0.5)


def test_dense_reparam_shapes_parameters_and_kl():
    layer = bnn_layers.DenseReparam(4, 3)
    names = [p.name for p in layer.trainable_params()]
    assert names == ["weight_posterior.mean", "weight_posterior.untransformed_std", "bias_posterior.mean",
                     "bias_posterior.untransformed_std"]
    out = layer(Tensor(np.ones((2, 4), np.float32)))
    assert out.shape == (2, 3)
    params = {p.name: p.asnumpy() for p in layer.trainable_params()}
    want = (_kl_prior_to_posterior(params["weight_posterior.mean"], params["weight_posterior.untransformed_std"])
            + _kl_prior_to_posterior(params["bias_posterior.mean"], params["bias_posterior.untransformed_std"]))
    np.testing.assert_allclose(layer.compute_kl_loss().asnumpy(), want, rtol=1e-4)


def test_local_reparam_output_law():
    layer = bnn_layers.DenseLocalReparam(3, 2, has_bias=False)
    layer.weight_posterior.untransformed_std.set_data(Tensor(np.full((2, 3), 0.5, np.float32)))
    x = np.array([[1.0, -2.0, 0.5]], np.float32)
    draws = np.stack([layer(Tensor(x)).asnumpy()[0] for _ in range(2000)])
    mean = x @ layer.weight_posterior.mean.asnumpy().T
    std = math.sqrt(float(np.sum(x ** 2)) * _softplus(0.5) ** 2)
    assert np.all(np.abs(draws.mean(0) - mean[0]) < 6 * std / math.sqrt(len(draws)))
    np.testing.assert_allclose(draws.std(0), std, rtol=0.1)


def test_conv_reparam_shapes_and_errors():
    layer = bnn_layers.ConvReparam(3, 4, 3, has_bias=True)
    assert layer(Tensor(np.ones((2, 3, 6, 6), np.float32))).shape == (2, 4, 6, 6)
    assert layer.weight_posterior.mean.shape == (4, 3, 3, 3)
    with pytest.raises(ValueError):
        bnn_layers.ConvReparam(3, 4, 3, group=2)
    with pytest.raises(TypeError):
        bnn_layers.DenseReparam(4, 3, weight_prior_fn=1.0)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_with_bnn_loss_cell_trains(mode):
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        ms.set_seed(1)
        backbone = nn.SequentialCell([bnn_layers.DenseReparam(4, 8, activation="relu"),
                                      bnn_layers.DenseLocalReparam(8, 1)])
        net = bnn_layers.WithBNNLossCell(backbone, nn.MSELoss(), dnn_factor=1.0, bnn_factor=1e-4)
        assert net.backbone_network is backbone
        x = np.random.RandomState(0).randn(64, 4).astype(np.float32)
        y = x.sum(axis=1, keepdims=True).astype(np.float32)
        step = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params(), learning_rate=0.05))
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(60)]
        assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:5])
    finally:
        ms.set_context(mode=old)
    with pytest.raises(TypeError):
        bnn_layers.WithBNNLossCell(backbone, nn.MSELoss(), dnn_factor="1")
