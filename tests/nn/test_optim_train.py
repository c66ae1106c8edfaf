"""End to end: five Momentum steps of LeNet5 from MindSpore's initial checkpoint reproduce MindSpore 2.10's losses
and weights (fixtures `lenet5_init.ckpt` → `lenet5_after5.ckpt`, lr 0.05, momentum 0.9)."""
import json
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops

KEYS = ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]


class LeNet5(nn.Cell):
    """The fixture's LeNet5 written with functional ops; parameters carry the checkpoint names."""

    def __init__(self, weights):
        super().__init__()
        for key in KEYS:
            self.insert_param_to_cell(key.replace(".", "_"), ms.Parameter(weights[key].asnumpy(), name=key))

    def construct(self, x):
        p = self._params
        x = ops.max_pool2d(ops.relu(ops.conv2d(x, p["conv1_weight"])), 2, 2)
        x = ops.max_pool2d(ops.relu(ops.conv2d(x, p["conv2_weight"])), 2, 2)
        x = ops.flatten(x)
        x = ops.relu(ops.matmul(x, p["fc1_weight"].T) + p["fc1_bias"])
        x = ops.relu(ops.matmul(x, p["fc2_weight"].T) + p["fc2_bias"])
        return ops.matmul(x, p["fc3_weight"].T) + p["fc3_bias"]


def test_lenet5_momentum_trajectory_matches_mindspore(backend, fixtures_dir):
    path = lambda name: os.path.join(fixtures_dir, name)  # noqa: E731
    net = LeNet5(ms.load_checkpoint(path("lenet5_init.ckpt")))
    x = ms.Tensor(np.load(path("lenet5_train_x.npy")))
    y = ms.Tensor(np.load(path("lenet5_train_y.npy")).astype(np.int64))
    manifest = json.load(open(path("MANIFEST.json")))["lenet5_train"]
    opt = nn.Momentum(net.trainable_params(), learning_rate=manifest["lr"], momentum=manifest["momentum"])
    grad_fn = ms.value_and_grad(lambda a, b: ops.cross_entropy(net(a), b), None, opt.parameters)
    losses = []
    for _ in range(manifest["steps"]):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss))
    np.testing.assert_allclose(losses, np.load(path("lenet5_train_losses.npy")), rtol=1e-5)
    after = ms.load_checkpoint(path("lenet5_after5.ckpt"))
    for key in KEYS:
        param = net.parameters_dict()[key]
        np.testing.assert_allclose(param.asnumpy(), after[key].asnumpy(), rtol=1e-4, atol=1e-6, err_msg=key)
    assert opt.global_step.asnumpy().tolist() == [manifest["steps"]]
    assert [p.name for p in opt.moments] == [f"moments.{k}" for k in KEYS]


@pytest.mark.parametrize("name", ["Adam", "SGD", "AdamWeightDecay", "RMSProp", "Adagrad", "Lamb"])
def test_every_optimizer_lowers_the_lenet5_loss(fixtures_dir, name):
    net = LeNet5(ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")).astype(np.int64))
    lr = {"SGD": 0.05, "RMSProp": 0.02, "Adagrad": 0.05}.get(name, 0.002)
    opt = getattr(nn, name)(net.trainable_params(), learning_rate=lr)
    grad_fn = ms.value_and_grad(lambda a, b: ops.cross_entropy(net(a), b), None, opt.parameters)
    first = None
    for _ in range(8):
        loss, grads = grad_fn(x, y)
        opt(grads)
        first = float(loss) if first is None else first
    assert float(grad_fn(x, y)[0]) < first - 0.01
