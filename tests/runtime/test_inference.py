"""The inference path (runtime/inference.py): eval-mode graphs with BatchNorm folded, fused convolutions and the
ONNX Runtime / OpenVINO hand-off, against the unoptimised path and MindSpore's own outputs."""
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.compiler.passes.fold_batchnorm import folded_values
from openspore.nn import cell as cell_module
from openspore.runtime import engines, inference
from tests.conftest import FIXTURES as CONFTEST_FIXTURES

FIXTURES = CONFTEST_FIXTURES if os.path.isdir(CONFTEST_FIXTURES) else None
NAMES = ["mlp", "lenet5", "resblock", "encoder", "branchy"]
ENGINES = ["torch", "onnxruntime", "openvino", "auto"]


def _engine_or_skip(engine):
    if engine in ("onnxruntime", "openvino") and engine not in engines.available():
        pytest.skip(f"{engine} is not installed (pip install 'openspore[infer]')")


def _entry(cell):
    cache = cell_module._graph_runner.caches.get(cell)
    return cache.last_entry if cache is not None else None


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 16, 3, 2, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.SequentialCell(nn.Conv2d(8, 16, 1, 2), nn.BatchNorm2d(16))
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Dense(16, 4)

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)) + self.down(x))
        return self.fc(self.pool(y).reshape(x.shape[0], -1)), y


def _block():
    ms.set_seed(3)
    net = Block()
    rng = np.random.default_rng(5)
    for p in net.get_parameters():
        if "moving_variance" in p.name or "gamma" in p.name:
            p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
        elif "moving_mean" in p.name or "beta" in p.name:
            p.set_data(ms.Tensor(rng.uniform(-0.3, 0.3, p.shape).astype(np.float32)))
    net.set_train(False)
    return net, ms.Tensor(rng.standard_normal((2, 8, 12, 12)).astype(np.float32))


def test_folded_values_match_conv_then_batchnorm():
    rng = np.random.default_rng(0)
    w, bias = rng.standard_normal((3, 2, 1, 1)), rng.standard_normal(3)
    gamma, beta, mean, var = rng.uniform(0.5, 2, 3), rng.standard_normal(3), rng.standard_normal(3), rng.uniform(.5, 2, 3)
    x = rng.standard_normal((4, 2))
    conv = x @ w[:, :, 0, 0].T + bias
    want = (conv - mean) / np.sqrt(var + 1e-3) * gamma + beta
    fw, fb = folded_values(w, gamma, beta, mean, var, 1e-3, bias)
    np.testing.assert_allclose(x @ fw[:, :, 0, 0].T + fb, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_eval_network_matches_the_unoptimised_path(engine):
    _engine_or_skip(engine)
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="off")
    want = [o.asnumpy() for o in net(x)]
    ms.set_context(inference_engine=engine)
    got = [o.asnumpy() for o in net(x)]
    tol = 1e-5 if engine == "torch" else 1e-4
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
    entry = _entry(net)
    assert entry.frozen is not None
    if engine == "auto":  # every installed engine measured against the torch path; the fastest kept
        report = ms.runtime.inference_report(net)
        assert report["setting"] == "auto" and not report["rejected"]
        assert set(report["timings_ms"]) == set(inference.auto_candidates())
        assert entry.engine == min(report["timings_ms"], key=report["timings_ms"].get)
    else:
        assert entry.engine == engine
    ops = {n.op_name for n in entry.graph.nodes if n.is_primitive}
    assert "BatchNorm" not in ops  # folded into the convolutions
    if engine == "torch":
        assert "Conv2DFused" in ops and "Conv2D" not in ops and "ReLU" not in ops


def test_new_weights_recompile_the_frozen_graph():
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="torch")
    before = net(x)[0].asnumpy()
    gamma = net.bn1.gamma
    gamma.set_data(ms.Tensor(np.full(gamma.shape, 2.0, np.float32)))
    after = net(x)[0].asnumpy()
    ms.set_context(inference_engine="off")
    np.testing.assert_allclose(after, net(x)[0].asnumpy(), rtol=1e-5, atol=1e-5)
    assert not np.allclose(before, after)


def test_a_network_trained_in_eval_mode_leaves_the_path():
    """MindSpore's Cells start with training=False: a custom loop that never calls set_train must not freeze
    (and recompile) its weights at every step. Differentiated calls never take the path; a cache whose frozen
    weights changed twice compiles for training from then on."""
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="torch")
    optimizer = nn.SGD(net.trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(lambda inputs: net(inputs)[0].sum(), None, optimizer.parameters)
    for _ in range(2):
        _, grads = grad_fn(x)
        optimizer(grads)
        assert _entry(net).frozen is None  # differentiated: weights stayed Parameters
    net(x)
    assert _entry(net).frozen is not None  # a plain eval call still takes the path ...
    for _ in range(2):
        optimizer(grad_fn(x)[1])
        net(x)
    assert _entry(net).frozen is None  # ... until its weights have changed under it twice
    compiled = len(cell_module._graph_runner.caches.get(net).entries)
    for _ in range(3):
        optimizer(grad_fn(x)[1])
        net(x)
    assert len(cell_module._graph_runner.caches.get(net).entries) == compiled  # no recompiles per step


def test_training_mode_and_off_do_not_take_the_path():
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="torch")
    net.set_train(True)
    net(x)
    assert _entry(net).frozen is None
    net.set_train(False)
    ms.set_context(inference_engine="off")
    net(x)
    assert _entry(net).frozen is None


def test_bad_engine_name_is_refused():
    with pytest.raises(ValueError, match="inference_engine"):
        ms.set_context(inference_engine="tensorrt")


@pytest.mark.skipif(not FIXTURES, reason="set OPENSPORE_FIXTURES to the MindSpore fixtures directory")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
def test_fixture_graphcells_reproduce_mindspore(name, engine):
    _engine_or_skip(engine)
    ms.set_context(inference_engine=engine)
    x = np.load(os.path.join(FIXTURES, f"{name}_input0.npy"))
    want = np.load(os.path.join(FIXTURES, f"{name}_output.npy"))
    cell = nn.GraphCell(ms.load(os.path.join(FIXTURES, f"{name}.mindir")))
    got = cell(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    again = cell(ms.Tensor(x)).asnumpy()  # a repeated call: the cache's fast path where the path was taken
    np.testing.assert_allclose(again, want, rtol=1e-4, atol=1e-5)
    entry = _entry(cell)
    if name == "branchy":  # control flow: the interpreter, as before
        assert entry is None
    else:
        assert entry.frozen is not None
        if engine in ("onnxruntime", "openvino"):
            assert entry.engine == engine


def test_serving_context_option_is_checked():
    from openspore.serving.server import register
    assert register.Context(inference_engine="torch").options == {"inference_engine": "torch"}
    with pytest.raises(RuntimeError, match="inference_engine"):
        register.Context(inference_engine="tensorrt")


@pytest.mark.skipif(not FIXTURES, reason="set OPENSPORE_FIXTURES to the MindSpore fixtures directory")
def test_serving_model_runs_on_the_declared_engine():
    from openspore.serving.server import register
    from openspore.serving.server.register.model import ModelDecl
    from openspore.serving.server.worker.model_loader import LoadedModel
    decl = ModelDecl("resblock", ["resblock.mindir"], "MindIR", True, (), register.Context(inference_engine="torch"),
                     None, None, None)
    loaded = LoadedModel(decl, FIXTURES)
    assert ms.get_context("inference_engine") == "torch"
    x = np.load(os.path.join(FIXTURES, "resblock_input0.npy"))
    got = loaded.subgraphs[0].run([x])[0]
    np.testing.assert_allclose(got, np.load(os.path.join(FIXTURES, "resblock_output.npy")), rtol=1e-4, atol=1e-5)
