"""Memory switches: `max_device_memory` enforced at compile time, `runtime.set_memory`, `Cell.recompute()`
(same gradients, lower planned peak)."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops, runtime
from openspore.nn import cell as cell_module


@pytest.fixture
def memory_settings():
    yield
    ms.set_context(memory_optimize_level="O0", max_device_memory="1024GB")


def _step(seed=0):
    ms.set_seed(seed)
    net = nn.SequentialCell(nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 10))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.standard_normal((32, 64), np.float32))
    y = ms.Tensor(rng.standard_normal((32, 10), np.float32))
    return net, step, x, y


def test_max_device_memory_refuses_before_anything_runs(memory_settings):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, step, x, y = _step()
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    ms.set_context(max_device_memory="16KB")
    with pytest.raises(MemoryError, match=r"needs \d+ bytes .* but max_device_memory allows 16384 bytes"):
        step(x, y)
    after = [p.asnumpy() for p in net.trainable_params()]
    assert all(np.array_equal(a, b) for a, b in zip(before, after))  # nothing half-updated
    moments = [p.asnumpy() for p in step.optimizer.moments]
    assert all(not m.any() for m in moments)
    runtime.set_memory(max_size="64MB")  # enough: the same step now compiles and trains
    loss = step(x, y)
    assert np.isfinite(loss.asnumpy()) and not np.array_equal(before[0], net.trainable_params()[0].asnumpy())


def test_memory_size_strings_are_checked(memory_settings):
    with pytest.raises(ValueError, match="'max_device_memory' should be a string like '1024GB'"):
        ms.set_context(max_device_memory="1024")
    with pytest.raises(ValueError, match="For 'set_memory', the argument 'optimize_level'"):
        runtime.set_memory(optimize_level="O2")
    runtime.set_memory(optimize_level="O1", max_size="512MB", init_size="1GB")
    assert runtime.get_memory()["init_size"] == "1GB"
    assert ms.get_context("memory_optimize_level") == "O1" and ms.get_context("max_device_memory") == "512MB"


class _Layer(nn.Cell):
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2, self.ln = nn.Dense(d, 4 * d), nn.Dense(4 * d, d), nn.LayerNorm((d,))

    def construct(self, x):
        return x + self.fc2(ops.gelu(self.fc1(self.ln(x))))


class _Stack(nn.Cell):
    def __init__(self, d=32, layers=3):
        super().__init__()
        self.layers = nn.CellList([_Layer(d) for _ in range(layers)])
        self.head = nn.Dense(d, 10)

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x.mean(axis=1))


def _train_stack(mode, recompute, steps=2):
    ms.set_context(mode=mode)
    ms.set_seed(3)
    net = _Stack()
    if recompute:
        for layer in net.layers:
            layer.recompute()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), 1e-2))
    step.set_train()
    rng = np.random.default_rng(4)
    x = ms.Tensor(rng.standard_normal((16, 12, 32), np.float32))
    y = ms.Tensor(rng.integers(0, 10, 16).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    plan = None
    if mode == ms.GRAPH_MODE:
        (entry,) = cell_module._graph_runner.caches[step].entries.values()
        plan = entry.memory_plan[0] if entry.memory_plan else None
    return losses, [p.asnumpy() for p in net.trainable_params()], plan


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_recompute_gives_the_same_training(mode, memory_settings):
    ms.set_context(memory_optimize_level="O1")
    base_losses, base_params, base_plan = _train_stack(mode, False)
    rc_losses, rc_params, rc_plan = _train_stack(mode, True)
    np.testing.assert_allclose(rc_losses, base_losses, rtol=1e-6)
    for a, b in zip(rc_params, base_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    if mode == ms.GRAPH_MODE:
        # the layers keep only their inputs for the backward: the planned activation peak falls
        assert rc_plan.peak < 0.8 * base_plan.peak, (rc_plan.summary(), base_plan.summary())
        assert rc_plan.ratio <= 1.05


def test_recompute_refuses_unknown_options():
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['bogus'\\]"):
        nn.Dense(2, 2).recompute(bogus=True)
