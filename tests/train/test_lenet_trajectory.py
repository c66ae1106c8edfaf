"""Acceptance: five training steps of LeNet5 reproduce real MindSpore 2.10's trajectory (fixtures README).

TrainOneStepCell(WithLossCell(LeNet5(), SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')),
Momentum(params, learning_rate=0.05, momentum=0.9)) from `lenet5_init.ckpt` on `lenet5_train_x/y.npy` must give
the losses in `lenet5_train_losses.npy` and the weights in `lenet5_after5.ckpt` (relative error <= 1e-5), on both
backends; the train cell's checkpoint holds the network's tags, then the optimizer's state.
"""
import json
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.ops import operations as P
from tests.nn.fixture_nets import LeNet5

STEPS = 5


class _Momentum(nn.Cell):
    """MindSpore's Momentum (ApplyMomentum per parameter; state named global_step, learning_rate, momentum,
    moments.<param>), used until `nn.Momentum` exists."""

    def __init__(self, params, learning_rate, momentum):
        super().__init__(auto_prefix=False)
        self.parameters = ms.ParameterTuple(params)
        self.global_step = ms.Parameter(ms.Tensor([0], ms.int32), name="global_step")
        self.learning_rate = ms.Parameter(ms.Tensor(learning_rate, ms.float32), name="learning_rate")
        self.momentum = ms.Parameter(ms.Tensor(momentum, ms.float32), name="momentum")
        self.moments = self.parameters.clone("moments", "zeros")
        self.apply_momentum = P.ApplyMomentum()

    def construct(self, grads):
        for p, m, g in zip(self.parameters, self.moments, grads):
            self.apply_momentum(p, m, self.learning_rate, g, self.momentum)
        ops.assign_add(self.global_step, ms.Tensor([1], ms.int32))
        return True


def _momentum(params, learning_rate, momentum):
    cls = getattr(nn, "Momentum", None) or _Momentum
    return cls(params, learning_rate=learning_rate, momentum=momentum)


def _train_five_steps(fixtures_dir):
    manifest = json.load(open(os.path.join(fixtures_dir, "MANIFEST.json")))["lenet5_train"]
    net = LeNet5()
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    assert not_loaded == []
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = _momentum(net.trainable_params(), manifest["lr"], manifest["momentum"])
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    train.set_train()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")))
    losses = [float(train(x, y).asnumpy()) for _ in range(STEPS)]
    return net, train, np.array(losses), manifest


def _rel_err(actual, expected):
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    return float(np.max(np.abs(actual - expected)) / max(float(np.max(np.abs(expected))), 1e-30))


def test_lenet5_five_steps_match_mindspore(backend, fixtures_dir):
    net, _, losses, manifest = _train_five_steps(fixtures_dir)
    expected = np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy"))
    assert manifest["steps"] == STEPS and expected.shape == (STEPS,)
    np.testing.assert_allclose(losses, expected, rtol=1e-5, atol=0)
    np.testing.assert_allclose(losses, manifest["losses"], rtol=1e-5, atol=0)
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    params = dict((p.name, p) for p in net.get_parameters())
    assert sorted(params) == sorted(after)
    for name, value in after.items():
        got, want = params[name].asnumpy(), value.asnumpy()
        assert got.shape == want.shape and got.dtype == want.dtype, name
        assert _rel_err(got, want) <= 1e-5, (name, _rel_err(got, want))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_lenet5_train_checkpoint_tags(fixtures_dir, tmp_path):
    net, train, _, manifest = _train_five_steps(fixtures_dir)
    path = os.path.join(tmp_path, "train.ckpt")
    ms.save_checkpoint(train, path)
    saved = ms.load_checkpoint(path)
    reference = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    network_tags = list(reference)  # the fixture holds the network's parameters only, in MindSpore's order
    expected = network_tags + ["global_step", "learning_rate", "momentum"] + [f"moments.{t}" for t in network_tags]
    assert list(saved) == expected
    for tag in network_tags:
        np.testing.assert_allclose(saved[tag].asnumpy(), reference[tag].asnumpy(), rtol=1e-5, atol=1e-6)
    assert saved["global_step"].asnumpy().tolist() == [STEPS]
    assert saved["global_step"].dtype == ms.int32
    assert saved["learning_rate"].shape == ()
    assert float(saved["learning_rate"].asnumpy()) == pytest.approx(manifest["lr"])
    assert float(saved["momentum"].asnumpy()) == pytest.approx(manifest["momentum"])
    assert saved["moments.fc3.bias"].shape == (10,)
    # the network's checkpoint alone has exactly the fixture's tags
    ms.save_checkpoint(net, os.path.join(tmp_path, "net.ckpt"))
    assert list(ms.load_checkpoint(os.path.join(tmp_path, "net.ckpt"))) == network_tags
