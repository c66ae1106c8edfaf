"""setup_virtual_batch(m, lr, momentum): the momentum reaches the training BatchNorm's moving averages."""
import numpy as np
import pytest

import openspore as ms
from openspore import lite as mslite
from openspore import nn
from openspore.lite.lower import lower_graph, numpy_scope
from openspore.lite.passes import TRAINING_PASSES, run_passes
from openspore.lite.training import describe
from openspore.serialization.export_graph import capture
from openspore.serialization.mindir_write_ops import supported


class BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)  # momentum 0.9: the batch statistics weigh 0.1
        self.flat = nn.Flatten()
        self.fc = nn.Dense(3 * 4 * 4, 5)

    def construct(self, x):
        return self.fc(self.flat(self.bn(x)))


@pytest.fixture()
def data():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((8, 3, 4, 4)) + np.arange(3).reshape(1, 3, 1, 1) + 1).astype(np.float32)
    return x, rng.integers(0, 5, 8).astype(np.int32)


def _model(x, y):
    """The training step captured from openspore and lowered straight to a lite program (openspore's MindIR writer
    has no BatchNormGrad encoding, so the file route is closed for BatchNorm training graphs)."""
    ms.set_seed(0)
    net = BNNet()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    captured = capture(step, (ms.Tensor(x), ms.Tensor(y)), "export", supported)
    with numpy_scope():
        program = describe(run_passes(lower_graph(captured.graph), TRAINING_PASSES))
    model = mslite.Model()
    model.build_from_program(program, train_cfg=mslite.TrainCfg())
    return model


def _step(model, x, y):
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    inputs[1].set_data_from_numpy(y)
    model.run_step(inputs)
    return _stats(model)


def _stats(model):
    maps = {t.name: t.get_data_to_numpy() for t in model.get_feature_maps()}
    return maps["bn.moving_mean"], maps["bn.moving_variance"]


def test_default_momentum_then_virtual_batch_momentum(data):
    x, y = data
    batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3), ddof=1)
    model = _model(x, y)
    mean0, var0 = _stats(model)
    # building ran the step once on zeros to learn the shapes: it must not have moved the statistics
    np.testing.assert_array_equal(mean0, np.zeros(3, np.float32))
    np.testing.assert_array_equal(var0, np.ones(3, np.float32))
    mean, var = _step(model, x, y)  # the layer's own factor, 0.1
    np.testing.assert_allclose(mean, 0.9 * mean0 + 0.1 * batch_mean, rtol=1e-5)
    np.testing.assert_allclose(var, 0.9 * var0 + 0.1 * batch_var, rtol=1e-5)

    model.setup_virtual_batch(2, momentum=0.5)
    mean2, var2 = _step(model, x, y)
    np.testing.assert_allclose(mean2, 0.5 * mean + 0.5 * batch_mean, rtol=1e-5)
    np.testing.assert_allclose(var2, 0.5 * var + 0.5 * batch_var, rtol=1e-5)

    model.resize(model.get_inputs(), [[4, 3, 4, 4], [4]])  # the factor survives rebuilding the step
    half_mean = x[:4].mean(axis=(0, 2, 3))
    mean3, _ = _step(model, x[:4], y[:4])
    np.testing.assert_allclose(mean3, 0.5 * mean2 + 0.5 * half_mean, rtol=1e-5)

    model.setup_virtual_batch(1)  # normal steps: the layer's own momentum again
    mean4, _ = _step(model, x[:4], y[:4])
    np.testing.assert_allclose(mean4, 0.9 * mean3 + 0.1 * half_mean, rtol=1e-5)
    with pytest.raises(ValueError, match="momentum"):
        model.setup_virtual_batch(2, momentum=1.5)
