"""`ms.jit` and GRAPH_MODE semantics: decorator forms, the compile cache and its key, recompile logging, MS_JIT=0,
save_graphs, JitConfig, mutable, and calls under autodiff."""
import importlib
import logging
import os

import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.runtime.jit import JitFunction
from tests.conftest import child_env


def _t(*shape, fill=None, dtype=np.float32):
    if fill is not None:
        return ms.Tensor(np.full(shape, fill, dtype))
    return ms.Tensor(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) / 7)


def _entries(fn):
    cache = fn.graph_cache
    return 0 if cache is None else len(cache.entries)


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return ops.mul(x, self.w) + 1


class Twice(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Scale()

    @ms.jit
    def construct(self, x):
        return self.inner(x) * 2


# ---- decorator forms --------------------------------------------------------------------------------
def test_decorator_forms_compile_and_match_python():
    def f(x, y):
        return ops.exp(x) * y - x

    x, y = _t(2, 3), _t(2, 3, fill=0.5)
    ref = f(x, y).asnumpy()
    forms = [ms.jit(f), ms.jit()(f), ms.jit(jit_level="O0")(f), ms.jit(fn=f), ms.jit(f, mode="PSJit"),
             ms.jit(f, input_signature=None, hash_args=None, compile_once=False),
             ms.jit(f, jit_config=ms.JitConfig(jit_level="O1")), ms.jit(f, capture_mode="bytecode", dynamic=1)]
    for jf in forms:
        assert isinstance(jf, JitFunction)
        np.testing.assert_allclose(jf(x, y).asnumpy(), ref, rtol=1e-6, atol=1e-6)
        assert _entries(jf) == 1
        assert jf.compile_time is not None and jf.compile_time > 0

    @ms.jit
    def g(x):
        return x + 1

    np.testing.assert_array_equal(g(x).asnumpy(), x.asnumpy() + 1)
    assert g.__name__ == "g"


def test_jit_on_cell_method_and_on_cell_instance():
    net = Twice()
    x = _t(3)
    ref = (x.asnumpy() * np.array([1, 2, 3], np.float32) + 1) * 2
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-6)
    assert len(net.construct.graph_cache.entries) == 1  # compiled in PyNative: jit ignores the global mode
    compiled = ms.jit(Scale())
    np.testing.assert_allclose(compiled(x).asnumpy(), x.asnumpy() * np.array([1, 2, 3], np.float32) + 1, rtol=1e-6)
    assert len(compiled.graph_cache.entries) == 1
    other = Twice()  # another instance has its own cache (its own Parameters)
    other.inner.w.set_data(ms.Tensor(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(other(x).asnumpy(), np.full(3, 2, np.float32))
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-6)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(lambda x: x, capture_mode="magic")
    with pytest.raises(ValueError, match="jit_level"):
        ms.jit(lambda x: x, jit_level="O7")
    with pytest.raises(TypeError, match="function"):
        ms.jit(3)
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="fast")
    with pytest.raises(ValueError, match="exc_mode"):
        ms.JitConfig(exc_mode="never")


# ---- the cache key ----------------------------------------------------------------------------------
def test_recompiles_on_shape_dtype_and_python_values_only():
    @ms.jit
    def f(x, k):
        return x * k

    f(_t(2, 3), 2)
    f(_t(2, 3, fill=5.0), 2)            # new tensor values: same graph
    assert _entries(f) == 1
    f(_t(4, 3), 2)                      # new shape
    assert _entries(f) == 2
    f(_t(4, 3, dtype=np.float64), 2)    # new dtype
    assert _entries(f) == 3
    out = f(_t(4, 3), 3)                # new Python scalar: a constant of the graph
    assert _entries(f) == 4
    np.testing.assert_allclose(out.asnumpy(), _t(4, 3).asnumpy() * 3, rtol=1e-6)


def test_mutable_scalars_are_graph_inputs():
    @ms.jit
    def f(x, k):
        return x * k

    x = _t(2, 2)
    for k in (2, 3, 7):
        np.testing.assert_allclose(f(x, ms.mutable(k)).asnumpy(), x.asnumpy() * k, rtol=1e-6)
    assert _entries(f) == 1
    for k in (0.5, 1.5):
        np.testing.assert_allclose(f(x, ms.mutable(k)).asnumpy(), x.asnumpy() * k, rtol=1e-6)
    assert _entries(f) == 2
    with pytest.raises(TypeError, match="mutable"):
        ms.mutable("text")

    @ms.jit
    def g(pair):
        return pair[0] + pair[1]

    for a, b in ((1, 2), (5, 9)):
        assert int(g(ms.mutable((ms.Tensor(np.int32(a)), ms.Tensor(np.int32(b))))).asnumpy()) == a + b
    assert _entries(g) == 1


def test_new_parameter_values_do_not_recompile_but_are_seen():
    net = Scale()
    compiled = ms.jit(net)
    x = _t(3, fill=1.0)
    np.testing.assert_array_equal(compiled(x).asnumpy(), [2, 3, 4])
    net.w.set_data(ms.Tensor(np.array([10, 20, 30], np.float32)))
    np.testing.assert_array_equal(compiled(x).asnumpy(), [11, 21, 31])
    ops.assign(net.w, ms.Tensor(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(compiled(x).asnumpy(), [1, 1, 1])
    assert len(compiled.graph_cache.entries) == 1


def test_log_recompile_names_the_reason(caplog):
    @ms.jit
    def step(x, scale):
        return x * scale

    ms.set_context(log_recompile=True)
    try:
        with caplog.at_level(logging.WARNING, logger="openspore.jit"):
            step(_t(2, 3), 2)
            step(_t(4, 3), 2)
            step(_t(4, 3), 5)
            step(_t(4, 3), 5)
    finally:
        ms.set_context(log_recompile=False)
    messages = [r.getMessage() for r in caplog.records if r.name == "openspore.jit"]
    assert len(messages) == 2, messages
    assert "recompiling" in messages[0] and "step" in messages[0]
    assert "input 0 shape (2, 3) -> (4, 3)" in messages[0]
    assert "input 1 value 2 -> 5" in messages[1]


def test_ms_jit_0_runs_python(monkeypatch):
    calls = []

    @ms.jit
    def f(x):
        calls.append(1)  # Python side effect: runs on every call only without compilation
        return x + 1

    monkeypatch.setenv("MS_JIT", "0")
    for _ in range(3):
        np.testing.assert_array_equal(f(_t(2)).asnumpy(), _t(2).asnumpy() + 1)
    assert len(calls) == 3 and _entries(f) == 0
    monkeypatch.delenv("MS_JIT")
    f(_t(2))
    f(_t(2))
    # traced once, then the graph runs; the list the trace appended to keeps its contents (MindSpore 2.10's graphs
    # do not change a Python list outside them either)
    assert len(calls) == 3 and _entries(f) == 1


def test_save_graphs_writes_ir_after_each_pass(tmp_path):
    @ms.jit
    def dumped(x):
        return ops.relu(x * 2.0) + 0.0

    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        dumped(_t(2, 2))
    finally:
        ms.set_context(save_graphs=False, save_graphs_path=".")
    files = sorted(os.listdir(tmp_path))
    plans = [f for f in files if f.endswith("_memory_plan.txt")]  # the memory plan is dumped beside the IR
    files = [f for f in files if f not in plans]
    assert files and all(f.endswith(".ir") for f in files)
    assert files[0].endswith("_00_trace.ir") and len(files) >= 2
    text = (tmp_path / files[-1]).read_text()
    assert text.startswith("graph @") and "ReLU" in text
    assert len(plans) == 1 and "lower bound" in (tmp_path / plans[0]).read_text()


def test_compile_is_timed_and_logged(caplog):
    @ms.jit
    def timed(x):
        return ops.tanh(x)

    with caplog.at_level(logging.DEBUG, logger="openspore.jit"):
        timed(_t(3))
    entry = timed.graph_cache.last_entry
    assert set(entry.times) == {"frontend", "passes", "codegen"}
    assert entry.compile_time == pytest.approx(sum(entry.times.values()))
    assert "def graph" in entry.compiled.source
    assert any("compiled" in r.getMessage() and "timed" in r.getMessage() for r in caplog.records)


# ---- GRAPH_MODE cells -------------------------------------------------------------------------------
class Drop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = Scale()

    def construct(self, x):
        y = self.scale(x)
        if self.training:
            y = y * 10
        return y


def _runner_cache(cell):
    from openspore.nn import cell as cell_module
    return cell_module._graph_runner.caches.get(cell)


def test_graph_mode_compiles_cells_and_recompiles_on_set_train():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Drop()
    x = _t(3, fill=1.0)
    np.testing.assert_array_equal(net(x).asnumpy(), [2, 3, 4])
    cache = _runner_cache(net)
    assert cache is not None and len(cache.entries) == 1
    assert _runner_cache(net.scale) is None  # sub-cells are inlined into their caller's graph
    net.set_train(True)
    np.testing.assert_array_equal(net(x).asnumpy(), [20, 30, 40])
    net.set_train(False)
    np.testing.assert_array_equal(net(x).asnumpy(), [2, 3, 4])
    assert len(cache.entries) == 2


def test_graph_mode_replaced_parameter_recompiles(caplog):
    ms.set_context(mode=ms.GRAPH_MODE, log_recompile=True)
    try:
        net = Drop()
        x = _t(3, fill=1.0)
        net(x)
        net.scale.w = ms.Parameter(ms.Tensor(np.full(3, 5, np.float32)), name="w")
        with caplog.at_level(logging.WARNING, logger="openspore.jit"):
            np.testing.assert_array_equal(net(x).asnumpy(), [6, 6, 6])
    finally:
        ms.set_context(log_recompile=False)
    assert any("Parameter" in r.getMessage() for r in caplog.records)


@pytest.fixture
def keep_jit_level():
    jit_module = importlib.import_module("openspore.runtime.jit")  # the package's `jit` is the function
    saved = ms.get_context("jit_level"), dict(jit_module._user_level)
    yield
    ms.set_context(jit_level=saved[0])
    jit_module._user_level.update(saved[1])


def test_graph_mode_jit_config_level_is_part_of_the_key(keep_jit_level):
    ms.set_context(mode=ms.GRAPH_MODE, jit_level="O1")
    net = Scale()
    x = _t(3)
    net(x)
    net.set_jit_config(ms.JitConfig(jit_level="O0"))
    net(x)
    cache = _runner_cache(net)
    assert sorted(k[3] for k in cache.entries) == ["O0", "O1"]


def test_default_level_is_o1_until_the_context_names_one(keep_jit_level):
    jit_module = importlib.import_module("openspore.runtime.jit")
    jit_module._user_level["set"] = False

    @ms.jit
    def f(x):
        return x + 1

    f(_t(2))
    assert f.graph_cache.last_key[3] == jit_module.DEFAULT_LEVEL == "O1"
    ms.set_context(jit_level="O0")
    f(_t(2))
    assert f.graph_cache.last_key[3] == "O0" and _entries(f) == 2


def test_nested_jit_is_inlined():
    @ms.jit
    def inner(x):
        return x * 3

    @ms.jit
    def outer(x):
        return inner(x) + 1

    np.testing.assert_allclose(outer(_t(2)).asnumpy(), _t(2).asnumpy() * 3 + 1, rtol=1e-6)
    assert _entries(outer) == 1 and _entries(inner) == 0


def test_tuple_and_python_outputs_keep_their_structure():
    @ms.jit
    def f(x):
        return x + 1, (x * 2, 7), "tag"

    a, (b, seven), tag = f(_t(2))
    assert isinstance(a, ms.Tensor) and isinstance(b, ms.Tensor)
    assert seven == 7 and tag == "tag"
    np.testing.assert_allclose(b.asnumpy(), _t(2).asnumpy() * 2, rtol=1e-6)


def test_keyword_arguments():
    @ms.jit
    def f(x, *, bias=None, scale=1.0):
        y = x * scale
        return y if bias is None else y + bias

    x = _t(3)
    np.testing.assert_allclose(f(x, scale=2.0).asnumpy(), x.asnumpy() * 2, rtol=1e-6)
    np.testing.assert_allclose(f(x, bias=_t(3, fill=1.0)).asnumpy(), x.asnumpy() + 1, rtol=1e-6)
    assert _entries(f) == 2


# ---- autodiff --------------------------------------------------------------------------------------
def test_jitted_function_inside_grad_is_one_compiled_node():
    @ms.jit
    def square_sum(x):
        return (ops.sin(x) * x).sum()

    x = _t(3)
    grad = ms.grad(lambda v: square_sum(v) * 2)(x)
    xs = x.asnumpy()
    np.testing.assert_allclose(grad.asnumpy(), 2 * (np.cos(xs) * xs + np.sin(xs)), rtol=1e-5, atol=1e-6)
    entry = square_sum.graph_cache.last_entry
    assert len(square_sum.graph_cache.entries) == 1 and entry.vjp is not None  # forward and backward compiled
    assert len(entry.vjp.entries) == 1
    ms.grad(lambda v: square_sum(v) * 2)(x)
    assert len(entry.vjp.entries) == 1  # the backward graph is reused
    # second order: the backward runs op by op under the outer transform, so it is differentiable again
    second = ms.grad(ms.grad(square_sum))(x)
    np.testing.assert_allclose(second.asnumpy(), 2 * np.cos(xs) - xs * np.sin(xs), rtol=1e-5, atol=1e-6)


def test_grad_through_graph_mode_cell_reaches_its_weights():
    net = Scale()
    x = _t(3)

    def loss(v):
        return (net(v) ** 2).sum()

    ref_x, ref_w = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    got_x, got_w = ms.grad(loss, grad_position=0, weights=net.trainable_params())(x)
    assert len(_runner_cache(net).entries) == 1
    np.testing.assert_allclose(got_x.asnumpy(), ref_x.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(got_w[0].asnumpy(), ref_w[0].asnumpy(), rtol=1e-6)


def test_random_graph_under_grad_runs_op_by_op():
    @ms.jit
    def noisy(x):
        return (ops.dropout(x, p=0.5) * x).sum()

    x = _t(64, fill=1.0)
    ms.set_seed(5)
    value, grad = ms.value_and_grad(noisy)(x)
    kept = grad.asnumpy() != 0
    # the mask of the gradient is the forward's: the draws were not repeated
    np.testing.assert_allclose(value.asnumpy(), 2.0 * kept.sum(), rtol=1e-6)
    np.testing.assert_allclose(grad.asnumpy()[kept], 4.0, rtol=1e-6)
    assert _entries(noisy) == 1 and noisy.graph_cache.last_entry.vjp is None


def test_grad_inside_jit_is_compiled():
    def loss(x, w):
        return (ops.tanh(x * w) ** 2).sum()

    @ms.jit
    def step(x, w):
        return ms.value_and_grad(loss, grad_position=1)(x, w)

    x, w = _t(4), _t(4, fill=0.3)
    ref_value, ref_grad = ms.value_and_grad(loss, grad_position=1)(x, w)
    value, g = step(x, w)
    np.testing.assert_allclose(value.asnumpy(), ref_value.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), ref_grad.asnumpy(), rtol=1e-6)


# ---- compatibility decorators ----------------------------------------------------------------------
def test_jit_class_lazy_inline_no_inline():
    @ms.jit_class
    class Config:
        def __init__(self):
            self.k = 3

    assert Config().k == 3
    with pytest.raises(TypeError, match="jit_class"):
        ms.jit_class(Scale)
    with pytest.raises(TypeError):
        ms.jit_class(lambda: 0)

    def init(self):
        return None

    assert ms.lazy_inline(init) is init and ms.lazy_inline()(init) is init
    assert ms.no_inline(init) is init and ms.no_inline()(init) is init
    from openspore.common.api import jit
    assert jit is ms.jit


def test_import_installs_the_runner_and_env_turns_on_recompile_logs():
    import subprocess
    import sys
    code = ("import numpy as np, openspore as ms\n"
            "from openspore.nn import cell\n"
            "assert cell._graph_runner is not None\n"
            "f = ms.jit(lambda x: x + 1)\n"
            "f(ms.Tensor(np.ones(2, np.float32))); f(ms.Tensor(np.ones(3, np.float32)))\n")
    env = child_env(OPENSPORE_LOG_RECOMPILE="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "recompiling" in proc.stderr and "input 0 shape (2,) -> (3,)" in proc.stderr
