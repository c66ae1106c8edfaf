"""PyNative == Graph: every primitive sample of the op table inside `@ms.jit`, on both backends, and the models
the tests use (forward, a LeNet5 training trajectory, BatchNorm statistics, dropout under set_seed)."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.compiler.frontend import GraphCaptureError
from tests.nn import fixture_nets
from tests.ops.op_harness import all_samples, as_tuple, to_args

SAMPLES = all_samples()


def _call(prim, *args):
    return prim(*args)


def _jit_call(prim, args):
    """The primitive inside a jitted function, its tensors as graph inputs; where the primitive needs a tensor's
    value at compile time (a shape, a range), MindSpore needs a constant too: the tensors are then captured
    from the enclosing scope, so they enter the graph as constants."""
    try:
        return ms.jit(_call)(prim, *args)
    except GraphCaptureError as exc:
        assert "value is not known while the graph is being compiled" in str(exc)

    def closed():
        return prim(*args)
    return ms.jit(closed)()


def _compare(graph_out, py_out, what):
    g, p = as_tuple(graph_out), as_tuple(py_out)
    assert len(g) == len(p), what
    for a, b in zip(g, p):
        assert isinstance(a, ms.Tensor) and a.dtype == b.dtype and a.shape == b.shape, (what, a, b)
        x, y = a.asnumpy(), b.asnumpy()
        if x.dtype.kind in "fc":
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(x, y, err_msg=what)


@pytest.mark.parametrize("name,k,cls,sample", SAMPLES, ids=[f"{s[0]}-{s[1]}" for s in SAMPLES])
def test_primitive_sample_graph_equals_pynative(backend, name, k, cls, sample):
    ms.set_seed(1234)
    py_out = cls(**sample.attrs)(*to_args(sample.args))
    ms.set_seed(1234)
    graph_out = _jit_call(cls(**sample.attrs), to_args(sample.args))
    _compare(graph_out, py_out, f"{name} sample {k} on {backend}")


# ---- models --------------------------------------------------------------------------------------
def _run_modes(make, inputs, train=False):
    outs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = make().set_train(train)
        outs[mode] = (net, net(*inputs))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return outs


@pytest.mark.parametrize("name,shape,dtype", [("mlp", (4, 20), np.float32), ("lenet5", (2, 1, 32, 32), np.float32),
                                              ("resblock", (2, 8, 16, 16), np.float32),
                                              ("encoder", (2, 7), np.int32)])
def test_fixture_networks_forward(backend, name, shape, dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, shape).astype(dtype) if dtype == np.int32 else rng.standard_normal(shape).astype(dtype)
    outs = _run_modes(fixture_nets.FIXTURE_NETS[name], [ms.Tensor(x)])
    _compare(outs[ms.GRAPH_MODE][1], outs[ms.PYNATIVE_MODE][1], name)


def test_batchnorm_running_statistics_match(backend):
    x = ms.Tensor(np.random.default_rng(1).standard_normal((2, 8, 16, 16)).astype(np.float32))
    outs = _run_modes(fixture_nets.ResBlock, [x], train=True)
    (py_net, py_out), (g_net, g_out) = outs[ms.PYNATIVE_MODE], outs[ms.GRAPH_MODE]
    _compare(g_out, py_out, "resblock train forward")
    ms.set_context(mode=ms.GRAPH_MODE)
    g_net(x)  # a second step updates the moving statistics again
    ms.set_context(mode=ms.PYNATIVE_MODE)
    py_net(x)
    for (name, a), (_, b) in zip(g_net.parameters_and_names(), py_net.parameters_and_names()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6, err_msg=name)
    assert np.abs(g_net.bn1.moving_mean.asnumpy()).max() > 0


class DropNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 16)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.fc(x)) + self.drop(x)


def test_dropout_under_set_seed_matches(backend):
    x = ms.Tensor(np.random.default_rng(2).standard_normal((8, 16)).astype(np.float32))
    outs = _run_modes(DropNet, [x], train=True)
    _compare(outs[ms.GRAPH_MODE][1], outs[ms.PYNATIVE_MODE][1], "dropout")
    assert (outs[ms.GRAPH_MODE][1].asnumpy() == 0).any()


def test_lenet5_training_trajectory(fixtures_dir, backend):
    """TrainOneStepCell(WithLossCell(LeNet5), Momentum) in GRAPH_MODE reproduces MindSpore's 5-step losses."""
    x = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")))
    y = ms.Tensor(np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")))
    expected = np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy"))
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    trajectories = {}
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        net = fixture_nets.LeNet5()
        ms.load_param_into_net(net, ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_init.ckpt")))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        train.set_train()
        losses = [float(train(x, y).asnumpy()) for _ in range(5)]
        trajectories[mode] = (losses, {p.name: p.asnumpy() for p in net.get_parameters()})
    ms.set_context(mode=ms.PYNATIVE_MODE)
    g_losses, g_params = trajectories[ms.GRAPH_MODE]
    p_losses, p_params = trajectories[ms.PYNATIVE_MODE]
    np.testing.assert_allclose(g_losses, p_losses, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(g_losses, expected, rtol=1e-4, atol=1e-5)
    for name, value in g_params.items():
        np.testing.assert_allclose(value, p_params[name], rtol=1e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(value, after[name].asnumpy(), rtol=1e-3, atol=1e-4, err_msg=name)
