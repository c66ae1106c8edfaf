"""Graph-kernel fusion of the optimizer update: with fusion on, ForeachAdam runs as ForeachAdamOnePass (one pass
over memory by torch's fused Adam kernel, compiler/passes/graph_kernel_optimizer.py); its values agree with
ForeachAdam's to float32 rounding, the flags switch it off, and training losses stay within 1e-5."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.nn import cell as cell_module

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _fusion_off_afterwards():
    yield
    ms.set_context(enable_graph_kernel=False, graph_kernel_flags="", mode=ms.PYNATIVE_MODE)


def _adam_inputs(seed, shapes=((64, 32), (32,), (7, 5, 3))):
    rng = np.random.default_rng(seed)

    def group(positive=False):
        return tuple(torch.tensor(np.abs(a) if positive else a)
                     for a in (rng.standard_normal(s).astype(np.float32) for s in shapes))
    return group(), group(), group(positive=True), group()


@pytest.mark.parametrize("nesterov", [False, True])
def test_one_pass_adam_agrees_with_foreach_adam(nesterov):
    """Five steps of both kernels from the same state: the same values to float32 rounding (Nesterov, which the
    fused kernel does not do, falls back to ForeachAdam itself: bit for bit)."""
    one_pass, multi = ops.ForeachAdamOnePass(use_nesterov=nesterov), ops.ForeachAdam(use_nesterov=nesterov)
    a = _adam_inputs(0)
    b = tuple(tuple(t.clone() for t in g) for g in a)
    grads = _adam_inputs(1)[3]
    for t in range(1, 6):
        hyper = (0.9 ** t, 0.999 ** t, 1e-3, 0.9, 0.999, 1e-8)
        got = one_pass.torch(torch, a[0], a[1], a[2], *hyper, grads)
        want = multi.torch(torch, b[0], b[1], b[2], *hyper, grads)
        assert all(g is v for g, v in zip(got, a[0])), "the variables are updated in place and returned"
        for x, y in zip(got, want):
            if nesterov:
                assert torch.equal(x, y)
            else:
                torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)
    for x, y in zip(a[1] + a[2], b[1] + b[2]):  # m and v too
        torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)


def _net():
    ms.set_seed(0)
    return nn.SequentialCell(nn.Dense(16, 32), nn.Dense(32, 4))


def _train(flags, enable=True, steps=4):
    """Losses of `steps` Adam steps and the compiled graphs' primitive names. `--enable_cluster_ops_only=...`
    without elementwise ops keeps clusters (and their kernel compiles) out of these tests."""
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=enable, graph_kernel_flags=flags)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((8, 16), np.float32))
    y = ms.Tensor(rng.integers(0, 4, 8).astype(np.int32))
    net = _net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), learning_rate=1e-2))
    step.set_train()
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    runner = cell_module._graph_runner
    names = set()
    for cache in list(getattr(runner, "caches", {}).values()):
        if cache.last_entry is not None and getattr(cache.owner, "network", None) is step.network:
            names.update(n.op_name for n in cache.last_entry.graph.nodes if n.is_primitive)
    return losses, names


def test_fusion_runs_adam_in_one_pass_with_the_same_losses():
    off, off_names = _train("", enable=False)
    on, on_names = _train("--enable_cluster_ops_only=ForeachAdam")
    assert "ForeachAdam" in off_names and "ForeachAdamOnePass" not in off_names
    assert "ForeachAdamOnePass" in on_names and "ForeachAdam" not in on_names
    np.testing.assert_allclose(on, off, rtol=1e-5)


# the cross-entropy pattern is kept out too: its loss value (not its gradient) rounds ~1e-8 differently
@pytest.mark.parametrize("flags", ["--disable_cluster_ops=ForeachAdam,SparseSoftmaxCrossEntropyWithLogits",
                                   "--enable_cluster_ops_only=Add"])
def test_the_flags_keep_the_multi_tensor_adam(flags):
    off, _ = _train("", enable=False)
    on, names = _train(flags)
    assert "ForeachAdam" in names and "ForeachAdamOnePass" not in names
    assert on == off  # the same kernels: bit for bit
