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
from openspore import nn
from tests.nn.fixture_nets import LeNet5

STEPS = 5


def _train_five_steps(fixtures_dir):
    manifest = json.load(open(os.path.join(fixtures_dir, "MANIFEST.json")))["lenet5_train"]
    net = LeNet5()
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    assert not_loaded == []
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=manifest["lr"], momentum=manifest["momentum"])
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


def test_lenet5_traced_train_cell_matches_mindspore(fixtures_dir):
    """The same five steps with the TrainOneStepCell captured as one graph (forward, backward, Momentum)."""
    from openspore.compiler.frontend import flatten_args, trace
    from openspore.ir.interpret import run_graph
    net = LeNet5()
    ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                                opt)
    train.set_train()
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")))
    traced = trace(train, (x, y))
    ops_in_graph = [n.op_name for n in traced.graph.nodes]
    # one multi-tensor update of every parameter (exported as MindSpore's ApplyMomentum per parameter)
    update = [n for n in traced.graph.nodes if n.op_name == "ForeachApplyMomentum"]
    assert len(update) == 1 and len(update[0].inputs[0].inputs) == len(net.trainable_params())
    assert "SparseSoftmaxCrossEntropyWithLogits" in ops_in_graph
    leaves, _ = flatten_args((x, y))
    losses = [float(run_graph(traced.graph, leaves).asnumpy()) for _ in range(STEPS)]
    np.testing.assert_allclose(losses, np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy")), rtol=1e-5)
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    for p in net.trainable_params():
        assert _rel_err(p.asnumpy(), after[p.name].asnumpy()) <= 1e-5, p.name
    assert opt.global_step.asnumpy().tolist() == [STEPS]
