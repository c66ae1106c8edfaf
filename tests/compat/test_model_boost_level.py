"""Model(boost_level=...) as MindSpore 2.10 on a CPU: O1/O2 build a boost.BoostTrainOneStepCell whose AutoBoost
runs no algorithm, so the trained weights equal O0's (values recorded from MindSpore 2.10)."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore import Tensor, boost, nn
from openspore.train import Model

# fc0.weight[0] after 2 epochs of 2 batches (Momentum 0.1/0.9), the same for O0, O1 and O2 on MindSpore 2.10.
EXPECTED_ROW = [0.88066, 0.19824, 0.50718, 1.13085]


@pytest.mark.parametrize("level, cell", [("O0", nn.TrainOneStepCell), ("O1", boost.BoostTrainOneStepCell),
                                         ("O2", boost.BoostTrainOneStepCell)])
def test_boost_level_builds_the_boost_cell_and_trains_as_mindspore(level, cell):
    rng = np.random.RandomState(0)
    w1 = rng.randn(3, 4).astype(np.float32) * 0.5
    w2 = rng.randn(2, 3).astype(np.float32) * 0.5
    x = rng.randn(16, 4).astype(np.float32)
    y = (np.arange(16) % 2).astype(np.int32)
    net = nn.SequentialCell([nn.Dense(4, 3, weight_init=Tensor(w1), bias_init="zeros"), nn.ReLU(),
                             nn.Dense(3, 2, weight_init=Tensor(w2), bias_init="zeros")])
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9), boost_level=level)
    model.train(2, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8), dataset_sink_mode=False)
    assert type(model._train_network) is cell
    if level != "O0":
        assert model._train_network.auto_boost.level == "O0"
        assert not any(model._train_network.auto_boost.boost_config.values())
    np.testing.assert_allclose(net.trainable_params()[0].asnumpy()[0], EXPECTED_ROW, rtol=1e-5)
