"""set_context / get_context, set_device, set_seed and backend switching (facts §1.2)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import openspore as ms
from openspore import context
from openspore.core import random as ms_random

from ..conftest import assert_close, child_env

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _restore_every_key():
    saved = dict(context._values)
    seed = ms.get_seed()
    # these tests are about the context itself, from its defaults: they run on the CPU even in a GPU run
    ms.set_context(device_target="CPU")
    yield
    ms.set_context(**saved)
    if seed is not None:
        ms.set_seed(seed)


def test_mode_constants():
    assert (ms.GRAPH_MODE, ms.PYNATIVE_MODE) == (0, 1)
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    assert context.GRAPH_MODE == 0 and context.PYNATIVE_MODE == 1
    from openspore.context import get_context, set_context  # the 1.x path
    assert set_context is ms.set_context and get_context is ms.get_context


def test_defaults():
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.get_context("device_target") == "CPU"
    assert ms.get_context("device_id") == 0
    assert ms.get_context("jit_syntax_level") == ms.LAX
    assert ms.get_context("max_call_depth") == 1000
    assert ms.get_context("op_timeout") == 900
    assert ms.get_context("runtime_num_threads") == 30
    assert ms.get_context("deterministic") == "OFF"
    assert ms.get_context("save_graphs") == 0
    assert ms.get_current_device() == ("CPU", 0)


DOCUMENTED_KEYS = ["mode", "device_id", "device_target", "deterministic", "max_call_depth", "variable_memory_max_size",
                   "mempool_block_size", "memory_optimize_level", "max_device_memory", "pynative_synchronize",
                   "compile_cache_path", "inter_op_parallel_num", "disable_format_transform", "jit_syntax_level",
                   "jit_config", "exec_order", "op_timeout", "aoe_tune_mode", "aoe_config", "runtime_num_threads",
                   "save_graphs", "save_graphs_path", "enable_compile_cache", "ascend_config", "print_file_path",
                   "enable_reduce_precision", "check_bprop", "env_config_path", "gpu_config", "jit_level",
                   "debug_level", "backend"]


@pytest.mark.parametrize("key", DOCUMENTED_KEYS)
def test_every_documented_key_reads_back(key):
    value = ms.get_context(key)
    ms.set_context(**{key: value})
    assert ms.get_context(key) == value


@pytest.mark.parametrize("key,value", [("mode", ms.GRAPH_MODE), ("max_call_depth", 50), ("save_graphs", 1),
                                       ("save_graphs_path", "/tmp/graphs"), ("jit_syntax_level", ms.STRICT),
                                       ("deterministic", "ON"), ("pynative_synchronize", True),
                                       ("runtime_num_threads", 4), ("jit_config", {"jit_level": "O1"}),
                                       ("ascend_config", {"precision_mode": "allow_fp32_to_fp16"}),
                                       ("memory_optimize_level", "O1"), ("jit_level", "O1")])
def test_set_then_get(key, value):
    ms.set_context(**{key: value})
    assert ms.get_context(key) == value


def test_set_several_keys_at_once():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU", max_call_depth=77)
    assert (ms.get_context("mode"), ms.get_context("max_call_depth")) == (ms.GRAPH_MODE, 77)


def test_unknown_key_in_set_context():
    with pytest.raises(ValueError, match=r"For 'context.set_context', the keyword argument nonexistent is not recognized!"):
        ms.set_context(nonexistent=1)


def test_unknown_key_in_get_context():
    with pytest.raises(ValueError, match=r"For 'context.get_context', the argument nonexistent is not recognized!"):
        ms.get_context("nonexistent")


def test_a_rejected_call_changes_nothing():
    with pytest.raises(ValueError):
        ms.set_context(mode=ms.GRAPH_MODE, nonexistent=1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    with pytest.raises(ValueError):
        ms.set_context(max_call_depth=5, mode=7)
    assert ms.get_context("max_call_depth") == 1000


def test_bad_mode_message_matches_mindspore():
    with pytest.raises(ValueError) as info:
        ms.set_context(mode=5)
    assert str(info.value) == ("For 'context.set_context', the argument 'mode' should be context.GRAPH_MODE (0) or "
                               "context.PYNATIVE_MODE (1), but got 5.")
    for bad in (True, "GRAPH", 0.0, None):
        with pytest.raises(ValueError, match="'mode' should be context.GRAPH_MODE"):
            ms.set_context(mode=bad)


@pytest.mark.parametrize("kwargs", [{"device_target": "TPU"}, {"device_target": "cpu"}, {"device_id": -1},
                                    {"device_id": 1.5}, {"max_call_depth": "x"}, {"deterministic": "MAYBE"},
                                    {"jit_syntax_level": 3}, {"backend": "jax"}, {"save_graphs_path": 3},
                                    {"jit_config": "O1"}])
def test_bad_values_are_rejected_naming_the_key(kwargs):
    key = next(iter(kwargs))
    before = ms.get_context(key)
    with pytest.raises(ValueError, match=f"'{key}'"):
        ms.set_context(**kwargs)
    assert ms.get_context(key) == before


def test_ascend_is_refused():
    with pytest.raises(ValueError, match="Ascend"):
        ms.set_context(device_target="Ascend")
    with pytest.raises(ValueError, match="Ascend"):
        ms.set_device("Ascend")
    assert ms.get_context("device_target") == "CPU"


def test_set_device():
    ms.set_device("CPU")
    assert ms.get_current_device() == ("CPU", 0)
    ms.set_device("CPU", 0)
    assert ms.get_context("device_id") == 0
    with pytest.raises(ValueError, match="device_target"):
        ms.set_device("NPU")


def _cuda():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.skipif(_cuda(), reason="this machine has CUDA: the refusal cannot be observed")
def test_gpu_without_cuda_is_refused_and_the_context_is_kept():
    ms.set_context(backend="torch")
    with pytest.raises(RuntimeError, match="CUDA"):
        ms.set_device("GPU")
    assert ms.get_current_device() == ("CPU", 0)
    assert_close(ms.Tensor([1.0]) + 1, [2.0])  # the backend still works


def test_gpu_on_the_numpy_backend_is_refused():
    ms.set_context(backend="numpy")
    with pytest.raises(ValueError, match="numpy"):
        ms.set_device("GPU")
    assert ms.get_context("device_target") == "CPU"


@pytest.mark.skipif(not _cuda(), reason="needs a CUDA device")
def test_gpu_runs_ops_and_grads_on_cuda():
    ms.set_context(backend="torch")
    x_host = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    ms.set_device("GPU", 0)
    assert ms.get_current_device() == ("GPU", 0)
    x = x_host * 2
    assert "cuda" in x.device
    w = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="w")
    loss, (gw,) = ms.value_and_grad(lambda t: ms.ops.matmul(t, w).sum(), None, [w])(x)
    assert float(loss) == pytest.approx(60.0)
    assert_close(gw, np.repeat(np.array([[6.0], [10.0], [14.0]]), 2, axis=1))
    ms.ops.assign(w, gw)
    assert_close(w, gw)
    ms.set_device("CPU")
    assert_close(x, np.arange(6).reshape(2, 3) * 2)  # a CUDA tensor is readable back on CPU


# ---- seed -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["1", 1.5, True, None])
def test_set_seed_type(bad):
    with pytest.raises(TypeError, match="'seed' must be int"):
        ms.set_seed(bad)


def test_set_seed_value():
    with pytest.raises(ValueError, match="non-negative"):
        ms.set_seed(-1)


def test_set_seed_makes_the_stream_reproducible():
    ms.set_seed(123)
    assert ms.get_seed() == 123
    a = ms_random.default_generator().random(5)
    ms.set_seed(123)
    b = ms_random.default_generator().random(5)
    ms.set_seed(124)
    c = ms_random.default_generator().random(5)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


# ---- backends -------------------------------------------------------------------------------------------
def test_switching_backends_keeps_tensors_usable():
    ms.set_context(backend="numpy")
    a = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    b = a * 2
    ms.set_context(backend="torch")
    c = a + b
    d = ms.Tensor(np.array([1.0, 1.0], np.float32))
    ms.set_context(backend="numpy")
    e = c * d
    assert_close(e, [[3.0, 6.0], [9.0, 12.0]])
    assert type(e.data_ref()) is np.ndarray
    ms.set_context(backend="torch")
    assert_close(ms.ops.matmul(a, e), [[21.0, 30.0], [45.0, 66.0]])
    assert ms.get_context("backend") == "torch"


def test_in_place_update_of_a_parameter_across_backends():
    ms.set_context(backend="numpy")
    w = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="w")
    ms.set_context(backend="torch")
    ms.ops.assign_add(w, ms.Tensor(np.ones(3, np.float32)))
    ms.set_context(backend="numpy")
    ms.ops.assign_add(w, 2.0)
    ms.set_context(backend="torch")
    assert_close(w, [3.0, 3.0, 3.0])
    assert isinstance(w, ms.Parameter) and w.name == "w"


def _run(code, **env):
    full_env = child_env(**env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env, cwd=REPO,
                          timeout=120)


def test_environment_variables_are_read_at_import():
    res = _run("import openspore as ms; print(ms.get_context('backend'), ms.get_context('log_recompile'))",
               OPENSPORE_BACKEND="numpy", OPENSPORE_LOG_RECOMPILE="1")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["numpy", "True"]
    bad = _run("import openspore", OPENSPORE_BACKEND="tpu")
    assert bad.returncode != 0
    assert "OPENSPORE_BACKEND" in bad.stderr


def test_ms_jit_kill_switch(monkeypatch):
    monkeypatch.setenv("MS_JIT", "0")
    assert context.jit_disabled()
    monkeypatch.setenv("MS_JIT", "1")
    assert not context.jit_disabled()
