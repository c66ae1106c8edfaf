"""Repeated inference calls (runtime/cache.py's fast path, common/generations.py) stay correct: every way of
changing a weight, the mode, the context, the inputs or the cell after the fast path was taken is honoured; and
`inference_engine="auto"` keeps the fastest engine that agrees with the torch path (runtime/inference.py)."""
import subprocess
import sys

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.common import generations
from openspore.nn import cell as cell_module
from openspore.runtime import engines, inference
from tests.conftest import child_env
from tests.runtime.test_inference import _block


def _cache(cell):
    return cell_module._graph_runner.caches.get(cell)


def _frozen_entries(cell):
    return sum(e.frozen is not None for e in _cache(cell).entries.values())


def _warm(net, x, engine="torch"):
    """Two calls: the second takes the fast path (asserted, so the tests below start from it)."""
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine=engine)
    net(x)
    first = [o.asnumpy() for o in net(x)]
    fast = _cache(net)._fast
    assert fast is not None and fast.entry.frozen is not None and fast.entry_for((x,)) is fast.entry
    return first


def _unoptimised(net, x):
    """The graph-mode executor as for training (Parameters read at call time): the reference."""
    saved = ms.get_context("inference_engine")
    ms.set_context(inference_engine="off")
    try:
        return [o.asnumpy() for o in net(x)]
    finally:
        ms.set_context(inference_engine=saved)


def _check(net, x, before, changed=True):
    got = [o.asnumpy() for o in net(x)]
    for g, w in zip(got, _unoptimised(net, x)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    if changed:
        assert not np.allclose(got[0], before[0])
    return got


# Each takes the network and returns the write, made ready beforehand: building an optimizer or a jitted function
# sets attributes on Cells, which alone would send the next call down the general path.
def _write_set_data(net):
    return lambda: net.fc.weight.set_data(ms.Tensor(np.full(net.fc.weight.shape, 0.25, np.float32)))


def _write_assign_eagerly(net):
    return lambda: ops.assign(net.bn1.gamma, ms.Tensor(np.full(net.bn1.gamma.shape, 2.0, np.float32)))


def _write_assign_in_graph(net):
    @ms.jit
    def scale(p):
        return ops.assign(p, p * 3.0)
    return lambda: scale(net.conv2.weight)


def _write_load_param_into_net(net):
    values = {p.name: ms.Tensor(p.asnumpy() * 0.5) for p in net.get_parameters() if "fc." in p.name}
    return lambda: ms.load_param_into_net(net, values)


def _write_setitem(net):
    def write():
        net.fc.bias[0] = 5.0
    return write


def _write_optimizer_step(net):
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    grads = tuple(ms.Tensor(np.ones(p.shape, np.float32)) for p in net.trainable_params())
    return lambda: optimizer(grads)


WRITES = [_write_set_data, _write_assign_eagerly, _write_assign_in_graph, _write_load_param_into_net,
          _write_setitem, _write_optimizer_step]


@pytest.mark.parametrize("make_write", WRITES, ids=lambda f: f.__name__[len("_write_"):])
def test_a_weight_written_after_the_fast_path_is_honoured(make_write):
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE)
    write = make_write(net)
    before = _warm(net, x)
    changes = generations.CHANGES[0]
    write()
    assert generations.CHANGES[0] == changes  # only the weight-write count tells the fast path
    got = _check(net, x, before)
    np.testing.assert_array_equal(net(x)[0].asnumpy(), got[0])
    assert _cache(net).last_entry.frozen is not None  # recompiled for inference, not left in training form


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino", "auto"])
def test_an_engine_sees_new_weights_too(engine):
    if engine != "auto" and engine not in engines.available():
        pytest.skip(f"{engine} is not installed (pip install 'openspore[infer]')")
    net, x = _block()
    before = _warm(net, x, engine)
    _write_set_data(net)()
    got = [o.asnumpy() for o in net(x)]
    for g, w in zip(got, _unoptimised(net, x)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    assert not np.allclose(got[0], before[0])


def test_nothing_written_keeps_the_fast_path_and_its_result():
    net, x = _block()
    before = _warm(net, x)
    fast = _cache(net)._fast
    ms.Tensor(np.ones(3, np.float32)) + 1  # other work that writes no weight
    again = [o.asnumpy() for o in net(x)]
    np.testing.assert_array_equal(again[0], before[0])
    assert _cache(net)._fast is fast and fast.writes == generations.WRITES[0]


def test_a_written_tensor_that_is_not_a_weight_costs_one_full_check():
    net, x = _block()
    _warm(net, x)
    fast = _cache(net)._fast
    other = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="elsewhere")
    other.set_data(ms.Tensor(np.ones(2, np.float32)))
    assert fast.entry_for((x,)) is fast.entry  # compared in full, found current
    assert fast.writes == generations.WRITES[0]


def test_other_inputs_take_the_general_path():
    net, x = _block()
    before = _warm(net, x)
    x2 = ms.Tensor(np.random.default_rng(1).standard_normal((3, 8, 12, 12)).astype(np.float32))
    assert _cache(net)._fast.entry_for((x2,)) is None
    _check(net, x2, before, changed=False)  # a second inference graph, for this shape
    assert _frozen_entries(net) == 2
    np.testing.assert_array_equal(net(x)[0].asnumpy(), before[0])  # the first shape again: no recompile
    assert _frozen_entries(net) == 2
    assert _cache(net)._fast.entry_for((x.astype(ms.float16),)) is None
    assert _cache(net)._fast.entry_for((x, x)) is None


def test_training_mode_and_gradients_never_take_the_fast_path():
    net, x = _block()
    before = _warm(net, x)
    net.set_train(True)
    out = net(x)[0].asnumpy()
    assert _cache(net).last_entry.frozen is None and not np.allclose(out, before[0])  # batch statistics
    net.set_train(False)
    _warm(net, x)
    weights = ms.ParameterTuple(net.trainable_params())
    grads = ms.grad(lambda inputs: net(inputs)[0].sum(), None, weights)(x)
    assert _cache(net).last_entry.frozen is None  # differentiated: the traced graph, weights as Parameters
    assert any(float(np.abs(g.asnumpy()).max()) > 0 for g in grads)


def test_a_setting_changed_after_the_fast_path_is_honoured():
    net, x = _block()
    _warm(net, x)
    ms.set_context(inference_engine="off")
    net(x)
    assert _cache(net).last_entry.frozen is None


def test_a_replaced_parameter_or_a_new_hook_is_honoured():
    net, x = _block()
    before = _warm(net, x)
    net.fc.weight = ms.Parameter(ms.Tensor(np.full(net.fc.weight.shape, -1.0, np.float32)), name="fc.weight")
    before = _check(net, x, before)
    _warm(net, x)
    net.register_forward_hook(lambda cell, inputs, output: (output[0] * 2, output[1]))
    got = net(x)[0].asnumpy()
    np.testing.assert_allclose(got, before[0] * 2, rtol=1e-5, atol=1e-5)


def test_auto_reports_its_measured_choice(caplog):
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="auto")
    with caplog.at_level("INFO", logger="openspore.inference"):
        net(x)
    report = ms.runtime.inference_report(net)
    candidates = set(inference.auto_candidates())
    if len(candidates) == 1:
        assert report["engine"] == "torch"
        return
    assert set(report["timings_ms"]) == candidates and all(t > 0 for t in report["timings_ms"].values())
    assert report["engine"] == min(report["timings_ms"], key=report["timings_ms"].get)
    assert any("chosen by measurement" in r.getMessage() for r in caplog.records)


def test_auto_leaves_out_an_engine_that_disagrees(monkeypatch):
    if not engines.available():
        pytest.skip("no inference engine installed (pip install 'openspore[infer]')")
    monkeypatch.setattr(inference, "AGREEMENT", -1.0)  # no result can agree: every engine is left out
    net, x = _block()
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="auto")
    got = [o.asnumpy() for o in net(x)]
    report = ms.runtime.inference_report(net)
    assert report["engine"] == "torch" and set(report["rejected"]) == set(inference.auto_candidates()) - {"torch"}
    for g, w in zip(got, _unoptimised(net, x)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_report_is_none_off_the_path():
    net, x = _block()
    assert ms.runtime.inference_report(net) is None
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine="off")
    net(x)
    assert ms.runtime.inference_report(net) is None
    ms.set_context(inference_engine="torch")
    net(x)
    assert ms.runtime.inference_report(net) == {"setting": "torch", "engine": "torch", "timings_ms": {},
                                                "rejected": {}}


def test_the_environment_sets_the_engine():
    code = "import openspore as ms; print(ms.get_context('inference_engine'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=child_env(OPENSPORE_INFERENCE_ENGINE="torch"))
    assert out.returncode == 0 and out.stdout.strip() == "torch", out.stderr
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=child_env(OPENSPORE_INFERENCE_ENGINE="tensorrt"))
    assert bad.returncode != 0 and "OPENSPORE_INFERENCE_ENGINE" in bad.stderr


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_an_input_buffer_reused_or_replaced_is_read_afresh(engine):
    """OpenVINO keeps an input bound while the same array comes back: values written into it in place, and a
    different tensor, are both read."""
    if engine not in engines.available():
        pytest.skip(f"{engine} is not installed (pip install 'openspore[infer]')")
    net, x = _block()
    _warm(net, x, engine)
    x.data_ref().mul_(-2.0)  # the same torch tensor, new values
    got = net(x)[0].asnumpy()
    np.testing.assert_allclose(got, _unoptimised(net, x)[0], rtol=1e-4, atol=1e-4)
    ms.set_context(inference_engine=engine)
    y = ms.Tensor(np.random.default_rng(9).standard_normal(x.shape).astype(np.float32))
    np.testing.assert_allclose(net(y)[0].asnumpy(), _unoptimised(net, y)[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(net(x)[0].asnumpy(), got, rtol=1e-6, atol=1e-6)


def test_host_views_remember_only_views_that_share_the_input():
    """The engine's input views (runtime/engines.py `_HostViews`): the same torch tensor object gets the same
    numpy view, which sees in-place writes; a non-contiguous tensor's copy and a caller's numpy array are never
    remembered."""
    import torch
    views = engines._HostViews()
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    host = views(t)
    assert views(t) is host
    t.mul_(2.0)
    np.testing.assert_array_equal(host, t.numpy())
    transposed = t.t()
    copy = views(transposed)
    assert copy.flags.c_contiguous and views(transposed) is not copy
    np.testing.assert_array_equal(copy, transposed.numpy())
    assert views(t) is host  # a copy never displaces the remembered view
    array = np.ones((2, 2), np.float32)
    assert views(array) is array and views.last[0] is not array


@pytest.mark.parametrize("engine", ["onnxruntime", "openvino"])
def test_a_one_output_network_reads_each_input_afresh(engine):
    """One Tensor in, one out (the entry's list-free call, which remembers the last input array): in-place
    writes, another Tensor, and a Tensor whose array was replaced are all read; outputs are fresh tensors."""
    if engine not in engines.available():
        pytest.skip(f"{engine} is not installed (pip install 'openspore[infer]')")
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])
    net.set_train(False)
    x = ms.Tensor(np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32))
    ms.set_context(mode=ms.GRAPH_MODE, inference_engine=engine)
    net(x)
    first = net(x)
    assert _cache(net)._fast is not None and _cache(net)._fast.entry.frozen is not None

    def reference(inp):
        ms.set_context(inference_engine="off")
        try:
            return net(inp).asnumpy()
        finally:
            ms.set_context(inference_engine=engine)
    kept = first.asnumpy().copy()
    x.data_ref().mul_(-3.0)
    second = net(x)
    np.testing.assert_allclose(second.asnumpy(), reference(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(first.asnumpy(), kept)  # the earlier output is not overwritten
    y = ms.Tensor(np.random.default_rng(4).standard_normal((2, 4)).astype(np.float32))
    np.testing.assert_allclose(net(y).asnumpy(), reference(y), rtol=1e-4, atol=1e-4)
    x._data = x.asnumpy() + 1.0  # a new (non-native) array under the same Tensor: adopted on the next call
    np.testing.assert_allclose(net(x).asnumpy(), reference(x), rtol=1e-4, atol=1e-4)
