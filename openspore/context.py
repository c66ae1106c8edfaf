"""set_context / get_context, the device and the seed. The only module that reads environment variables.

Keys follow MindSpore 2.x (facts §1.2). openspore adds `backend` ('torch' | 'numpy', env `OPENSPORE_BACKEND`),
`log_recompile` (env `OPENSPORE_LOG_RECOMPILE`) and `inference_engine` (env `OPENSPORE_INFERENCE_ENGINE`).
"""
import logging
import os
import re
import threading

from .common import generations

GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT, COMPATIBLE, LAX = 0, 1, 2

_DEVICE_TARGETS = ("CPU", "GPU", "Ascend")
_BACKENDS = ("torch", "numpy")
_INFERENCE_ENGINES = ("auto", "torch", "onnxruntime", "openvino", "off")


def _env_backend():
    value = os.environ.get("OPENSPORE_BACKEND", "torch").strip().lower()
    if value not in _BACKENDS:
        raise ValueError(f"OPENSPORE_BACKEND must be one of {_BACKENDS}, but got {value!r}.")
    return value


def _env_inference_engine():
    value = os.environ.get("OPENSPORE_INFERENCE_ENGINE", "auto").strip().lower() or "auto"
    if value not in _INFERENCE_ENGINES:
        raise ValueError(f"OPENSPORE_INFERENCE_ENGINE must be one of {_INFERENCE_ENGINES}, but got {value!r}.")
    return value


def _check_mode(v):
    if type(v) is not int or v not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError("For 'context.set_context', the argument 'mode' should be context.GRAPH_MODE (0) or "
                         f"context.PYNATIVE_MODE (1), but got {v}.")
    return v


def _check_choice(name, choices):
    def check(v):
        if v not in choices:
            raise ValueError(f"For 'context.set_context', the argument '{name}' should be one of {list(choices)}, but got {v!r}.")
        return v
    return check


def _check_type(name, types):
    def check(v):
        if not isinstance(v, types) or (isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,))):
            raise ValueError(f"For 'context.set_context', the argument '{name}' should be {types}, but got {v!r}.")
        return v
    return check


def _check_nonneg_int(name):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"For 'context.set_context', the argument '{name}' should be a non-negative int, but got {v!r}.")
        return v
    return check


def _any(v):
    return v


def _check_profiling_switch(v):
    # MindSpore's C++ context refuses a non-bool here with a RuntimeError, not the usual TypeError
    if not isinstance(v, bool):
        raise RuntimeError(f"For 'context.set_context', 'enable_profiling' must be a bool, but got {type(v)}.")
    return v


def _check_instance(name, kind, wording):
    """As `_check_type`, for the keys where MindSpore 2.10 raises a TypeError (not a ValueError), worded per key
    type ("must be a bool", "must be string")."""
    def check(v):
        if not isinstance(v, kind):
            raise TypeError(f"For 'context.set_context', the argument '{name}' must be {wording}, but got {type(v)}.")
        return v
    return check


def block_size_bytes(text):
    """'1GB' / '2.5GB' -> bytes (the `mempool_block_size` format: a number of GB, at least 1)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*GB\s*", text) if isinstance(text, str) else None
    if match is None or float(match.group(1)) < 1.0:
        raise ValueError("For 'context.set_context', the argument 'mempool_block_size' should be a string like "
                         f"'1GB' (a number of GB, at least 1GB), but got {text!r}.")
    return int(float(match.group(1)) * (1 << 30))


_UNITS = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


def memory_size_bytes(text, name="max_device_memory", where="context.set_context", allow_zero=False):
    """'1024GB' / '512MB' / '1.5GB' -> bytes (`max_device_memory`, `runtime.set_memory(max_size=...)`)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?B)\s*", text) if isinstance(text, str) else None
    if match is None or float(match.group(1)) < 0 or (float(match.group(1)) == 0 and not allow_zero):
        raise ValueError(f"For '{where}', the argument '{name}' should be a string like '1024GB' or '512MB' "
                         f"(a positive number of B, KB, MB, GB or TB), but got {text!r}.")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def _check_memory_size(v):
    memory_size_bytes(v)
    return v


def _check_block_size(v):
    block_size_bytes(v)
    return v


# key -> (default, validator). Keys MindSpore accepts but openspore does not act on are kept so scripts run.
_SPEC = {
    "mode": (PYNATIVE_MODE, _check_mode),
    "device_target": ("CPU", _check_choice("device_target", _DEVICE_TARGETS)),
    "device_id": (0, _check_nonneg_int("device_id")),
    "backend": (None, _check_choice("backend", _BACKENDS)),
    "deterministic": ("OFF", _check_choice("deterministic", ("ON", "OFF"))),
    "max_call_depth": (1000, _check_nonneg_int("max_call_depth")),
    "save_graphs": (0, _check_choice("save_graphs", (0, 1, 2, 3, True, False))),
    "save_graphs_path": (".", _check_type("save_graphs_path", str)),
    "jit_syntax_level": (LAX, _check_choice("jit_syntax_level", (STRICT, COMPATIBLE, LAX))),
    "jit_level": ("O0", _check_choice("jit_level", ("O0", "O1", "O2"))),
    "jit_config": ({}, _check_type("jit_config", dict)),
    "runtime_num_threads": (30, _check_nonneg_int("runtime_num_threads")),
    "log_recompile": (False, _check_type("log_recompile", (bool, int))),
    "pynative_synchronize": (False, _check_type("pynative_synchronize", bool)),
    "enable_compile_cache": (False, _check_type("enable_compile_cache", bool)),
    "compile_cache_path": ("", _check_type("compile_cache_path", str)),
    "memory_optimize_level": ("O0", _check_choice("memory_optimize_level", ("O0", "O1"))),
    "max_device_memory": ("1024GB", _check_memory_size),
    "mempool_block_size": ("1GB", _check_block_size),
    "variable_memory_max_size": ("", _check_type("variable_memory_max_size", str)),
    "op_timeout": (900, _check_nonneg_int("op_timeout")),
    "print_file_path": ("", _check_type("print_file_path", str)),
    "enable_reduce_precision": (True, _check_type("enable_reduce_precision", bool)),
    "check_bprop": (False, _check_type("check_bprop", bool)),
    "inter_op_parallel_num": (0, _check_nonneg_int("inter_op_parallel_num")),
    "disable_format_transform": (False, _check_type("disable_format_transform", bool)),
    "exec_order": ("bfs", _check_choice("exec_order", ("bfs", "dfs", "gpto"))),
    "debug_level": ("RELEASE", _check_choice("debug_level", ("RELEASE", "DEBUG"))),
    "ascend_config": ({}, _check_type("ascend_config", dict)),
    "gpu_config": ({}, _check_type("gpu_config", dict)),
    "enable_graph_kernel": (False, _check_type("enable_graph_kernel", bool)),
    "graph_kernel_flags": ("", _check_type("graph_kernel_flags", str)),
    "env_config_path": ("", _check_type("env_config_path", str)),
    "aoe_tune_mode": ("", _check_type("aoe_tune_mode", str)),
    "aoe_config": ({}, _check_type("aoe_config", dict)),
    # openspore: the inference path of eval-mode graphs (runtime/inference.py, docs/inference.md)
    "inference_engine": ("auto", _check_choice("inference_engine", _INFERENCE_ENGINES)),
    # profiler and naming switches MindSpore 2.10 still stores and returns (openspore's profiler and scope
    # names do not read them)
    "enable_profiling": (False, _check_profiling_switch),
    "profiling_options": ("training_trace", _check_instance("profiling_option", str, "string")),
    "reserve_class_name_in_scope": (True, _check_instance("reserve_class_name_in_scope", bool, "a bool")),
    "support_binary": (False, _check_instance("support_binary", bool, "a bool")),
}

# Keys MindSpore 2.10 still accepts with a deprecation warning but neither stores nor returns (get_context raises
# for them), so old scripts and MindSpore's own older tests keep running.
_DEPRECATED_WRITE_ONLY = ("enable_sparse", "auto_tune_mode", "enable_auto_mixed_precision")
# Keys MindSpore 2.10 has removed, with the reason its error gives.
_REMOVED = {"grad_for_scalar": "Please use the tensor derivative instead."}

_lock = threading.RLock()
_values = {k: d for k, (d, _) in _SPEC.items()}
_values["backend"] = _env_backend()
_values["log_recompile"] = os.environ.get("OPENSPORE_LOG_RECOMPILE", "0") not in ("", "0", "false", "False")
_values["inference_engine"] = _env_inference_engine()
_listeners = []  # callables(key, value) notified on change (the backend module listens)


def _environ_lookup(name):
    """A zero-argument function reading `os.environ[name]` (None when unset) with one dict lookup.

    `os.environ.get` runs three Python functions (Mapping.get, _Environ.__getitem__, the key's encoding), which
    on a Cell's every GRAPH_MODE call was a measurable part of the inference path's overhead. `os.environ` keeps
    its variables in a plain dict (`_data`, encoded keys and values) that every assignment through it updates,
    so reading that dict sees exactly what `os.environ.get` sees; where an interpreter lacks it, the public way."""
    environ = os.environ
    data, encode_key, decode = (getattr(environ, a, None) for a in ("_data", "encodekey", "decodevalue"))
    if type(data) is not dict or encode_key is None or decode is None:
        return lambda: environ.get(name)
    key = encode_key(name)

    def lookup():
        value = data.get(key)
        return None if value is None else decode(value)
    return lookup


_ms_jit_value = _environ_lookup("MS_JIT")


def jit_disabled():
    """`MS_JIT=0` turns GRAPH_MODE into PyNative for Cells (facts §1.2)."""
    return _ms_jit_value() == "0"


def simulation_level():
    """MindSpore's dry-run level `MS_SIMULATION_LEVEL` (0: off), read at call time (utils.dryrun.mock)."""
    value = os.environ.get("MS_SIMULATION_LEVEL", "0").strip() or "0"
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"MS_SIMULATION_LEVEL must be an integer, but got {value!r}.") from None


def graph_kernel_env_flags():
    """The graph-kernel flags MindSpore takes from the environment, read at call time: `MS_GRAPH_KERNEL_FLAGS`
    (1.x) then `MS_DEV_GRAPH_KERNEL_FLAGS` (2.x; later in the string, so it wins on a conflict)."""
    env = os.environ
    return " ".join(f for f in (env.get("MS_GRAPH_KERNEL_FLAGS", ""), env.get("MS_DEV_GRAPH_KERNEL_FLAGS", "")) if f)


def kernel_cache_dir():
    """Where compiled fused kernels are kept across processes: `OPENSPORE_KERNEL_CACHE`, else
    `$XDG_CACHE_HOME/openspore/kernels` (default `~/.cache/openspore/kernels`)."""
    env = os.environ
    return env.get("OPENSPORE_KERNEL_CACHE") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "openspore", "kernels")


def debugger_env():
    """The dump and debugger settings MindSpore takes from the environment, read at call time:
    MINDSPORE_DUMP_CONFIG, MS_DIAGNOSTIC_DATA_PATH, ENABLE_MS_DEBUGGER, MS_DEBUGGER_HOST, MS_DEBUGGER_PORT and
    the rank id (RANK_ID, else RANK)."""
    env = os.environ
    return {"dump_config": env.get("MINDSPORE_DUMP_CONFIG", ""),
            "diagnostic_data_path": env.get("MS_DIAGNOSTIC_DATA_PATH", ""),
            "enable_debugger": env.get("ENABLE_MS_DEBUGGER", "") in ("1", "true", "True", "TRUE"),
            "debugger_host": env.get("MS_DEBUGGER_HOST", ""), "debugger_port": env.get("MS_DEBUGGER_PORT", ""),
            "rank_id": env.get("RANK_ID", env.get("RANK", ""))}


def set_context(**kwargs):
    """Set context keys, e.g. `set_context(mode=GRAPH_MODE, device_target="CPU")`. Unknown keys raise ValueError."""
    with _lock:
        checked = {}
        for key, value in kwargs.items():
            if key in _DEPRECATED_WRITE_ONLY:
                logging.getLogger(__name__).warning(
                    "For 'context.set_context', '%s' parameter is deprecated, and will be removed in the next "
                    "version.", key)
                continue
            if key in _REMOVED:
                raise ValueError(f"For 'context.set_context', the parameter '{key}' has been removed since "
                                 f"MindSpore 2.10 version. {_REMOVED[key]}")
            if key not in _SPEC:
                raise ValueError(f"For 'context.set_context', the keyword argument {key} is not recognized! "
                                 f"For detailed usage of 'set_context', please refer to the MindSpore official website.")
            checked[key] = _SPEC[key][1](value)
        if checked.get("device_target") == "Ascend":
            raise ValueError("For 'context.set_context', device_target 'Ascend' is not available in openspore; "
                             "use 'CPU' or 'GPU'.")
        previous = {key: _values[key] for key in checked}
        _values.update(checked)
        try:
            _notify(checked)
        except Exception:
            # A listener refused the change (e.g. no CUDA device for device_target='GPU'): keep the old context.
            _values.update(previous)
            _notify(previous)
            raise
        finally:
            generations.changed()  # compiled-call fast paths look again (runtime/cache.py)


def _notify(changes):
    for key, value in changes.items():
        for listener in list(_listeners):
            listener(key, value)


def default(attr_key):
    """The default value of a context key (what `set_context` starts from)."""
    return _SPEC[attr_key][0]


def get_context(attr_key):
    if attr_key not in _values:
        raise ValueError(f"For 'context.get_context', the argument {attr_key} is not recognized! "
                         f"For detailed usage of 'get_context', please refer to the MindSpore official website.")
    return _values[attr_key]


def set_recursion_limit(recursion_limit=1000):
    """How deep graph code may call (functions, cells, `if` branches) while a graph compiles; deeper raises
    RuntimeError. The same limit as `set_context(max_call_depth=...)`, as in MindSpore 2.10.

    >>> import openspore as ms
    >>> ms.set_recursion_limit(2000); ms.get_context("max_call_depth")
    2000
    >>> ms.set_recursion_limit()
    """
    if isinstance(recursion_limit, bool) or not isinstance(recursion_limit, int):
        raise TypeError(f"The input value must be int, but got '{type(recursion_limit).__name__}'")
    if recursion_limit <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{recursion_limit}' with type 'int'.")
    set_context(max_call_depth=recursion_limit)
    import sys
    if sys.getrecursionlimit() < 4 * recursion_limit:  # tracing a deep call chain recurses in Python too
        sys.setrecursionlimit(4 * recursion_limit)


def set_device(device_target, device_id=None):
    """MindSpore 2.x: `set_device('CPU')`, `set_device('GPU', 0)`."""
    kwargs = {"device_target": device_target}
    if device_id is not None:
        kwargs["device_id"] = device_id
    set_context(**kwargs)


def get_current_device():
    return (_values["device_target"], _values["device_id"])


def add_listener(fn):
    _listeners.append(fn)


# ---- seed ---------------------------------------------------------------------------------------
_seed = {"global": None}


def set_seed(seed):
    """Global seed for random ops, initializers, `numpy.random` and the data pipeline (a non-negative int).

    >>> import numpy as np
    >>> set_seed(3); a = np.random.rand()
    >>> set_seed(3); a == np.random.rand()
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"For 'set_seed', the argument 'seed' must be int, but got {type(seed).__name__}.")
    if seed < 0:
        raise ValueError(f"For 'set_seed', the argument 'seed' must be a non-negative int, but got {seed}.")
    _seed["global"] = seed
    # MindSpore's global seed also seeds numpy's legacy global stream (user code and Python transforms draw from
    # it) and, through a listener, the data pipeline's seed (shuffles, samplers, random transforms).
    import numpy as np
    np.random.seed(seed % 2 ** 32)
    for listener in list(_listeners):
        listener("seed", seed)


def get_seed():
    return _seed["global"]


class ParallelMode:
    """The parallel modes of `set_auto_parallel_context(parallel_mode=...)`."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


def _bool_value(key):
    def check(value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'set_auto_parallel_context', '{key}' must be a bool, but got {value!r}.")
        return value
    return check


def _int_value(key, low, high):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"For 'set_auto_parallel_context', '{key}' must be an int in [{low}, {high}], "
                             f"but got {value!r}.")
        return value
    return check


def _parallel_mode(value):
    if not isinstance(value, str) or value.lower() not in ParallelMode.MODE_LIST:
        raise ValueError(f"For 'set_auto_parallel_context', 'parallel_mode' must be one of "
                         f"{ParallelMode.MODE_LIST}, but got {value!r}.")
    return value.lower()


def _fusion_indices(value):
    if not isinstance(value, (list, tuple)) or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0
                                                   for v in value) or list(value) != sorted(set(value)):
        raise ValueError("For 'set_auto_parallel_context', 'all_reduce_fusion_config' must be an increasing list "
                         f"of positive parameter indices at which gradient buckets split, but got {value!r}.")
    return list(value)


def _any(value):
    return value


# key -> (default, validator). Keys MindSpore has that openspore stores without acting on are listed with _any.
_AUTO_PARALLEL_KEYS = {
    "parallel_mode": (ParallelMode.STAND_ALONE, _parallel_mode),
    "device_num": (1, _int_value("device_num", 1, 4096)),
    "global_rank": (0, _int_value("global_rank", 0, 4095)),
    "gradients_mean": (False, _bool_value("gradients_mean")),
    "gradient_fp32_sync": (True, _bool_value("gradient_fp32_sync")),
    "loss_repeated_mean": (True, _bool_value("loss_repeated_mean")),
    "parameter_broadcast": (False, _bool_value("parameter_broadcast")),
    "all_reduce_fusion_config": ([], _fusion_indices),
    "full_batch": (False, _bool_value("full_batch")),
    "pipeline_stages": (1, _int_value("pipeline_stages", 1, 4096)),
    "enable_parallel_optimizer": (False, _bool_value("enable_parallel_optimizer")),
    "enable_alltoall": (False, _bool_value("enable_alltoall")),
    "search_mode": ("recursive_programming", _any), "dataset_strategy": ("data_parallel", _any),
    "strategy_ckpt_load_file": ("", _any), "strategy_ckpt_save_file": ("", _any), "strategy_ckpt_config": ({}, _any),
    "parallel_optimizer_config": ({}, _any), "pipeline_config": ({}, _any), "comm_fusion": ({}, _any),
    "pipeline_result_broadcast": (False, _any), "force_fp32_communication": (False, _any),
    "auto_parallel_search_mode": ("recursive_programming", _any), "group_ckpt_save_file": ("", _any),
    "auto_pipeline": (False, _any),
}
_auto_parallel = {k: (list(d) if isinstance(d, list) else dict(d) if isinstance(d, dict) else d)
                  for k, (d, _) in _AUTO_PARALLEL_KEYS.items()}


def set_auto_parallel_context(**kwargs):
    """Set distributed-training options (MindSpore's keys; unknown keys are refused, naming the known ones).

    >>> import openspore as ms
    >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    >>> ms.get_auto_parallel_context("parallel_mode")
    'data_parallel'
    >>> ms.reset_auto_parallel_context()
    """
    checked = {}
    for key, value in kwargs.items():
        if key not in _AUTO_PARALLEL_KEYS:
            raise ValueError(f"For 'set_auto_parallel_context', the key {key!r} is not supported; the keys are "
                             f"{sorted(_AUTO_PARALLEL_KEYS)}.")
        checked[key] = _AUTO_PARALLEL_KEYS[key][1](value)
    _auto_parallel.update(checked)


def get_auto_parallel_context(key):
    if key not in _AUTO_PARALLEL_KEYS:
        raise ValueError(f"For 'get_auto_parallel_context', the key {key!r} is not supported; the keys are "
                         f"{sorted(_AUTO_PARALLEL_KEYS)}.")
    return _auto_parallel[key]


def reset_auto_parallel_context():
    for key, (default, _) in _AUTO_PARALLEL_KEYS.items():
        _auto_parallel[key] = list(default) if isinstance(default, list) else \
            dict(default) if isinstance(default, dict) else default


def log_config():
    """MindSpore's logging settings from the environment (`GLOG_v`, `GLOG_logtostderr`, ...), read for `openspore.log`."""
    config = {"GLOG_v": os.environ.get("GLOG_v", "2"), "GLOG_logtostderr": os.environ.get("GLOG_logtostderr", "1")}
    for key in ("GLOG_log_dir", "GLOG_stderrthreshold", "logger_maxBytes", "logger_backupCount"):
        if key in os.environ:
            config[key] = os.environ[key]
    return config


# `mindspore.context.set_ps_context` & co. (the parameter-server keys live in their own small module).
from .common.ps_context import set_ps_context, get_ps_context, reset_ps_context  # noqa: E402,F401


def train_callback_env():
    """Environment settings two training callbacks read: MA_LOG_DIR (where FlopsUtilizationCollector writes its
    ModelArts logs) and MS_ENABLE_TFT (TrainFaultTolerance's switches, e.g. '{TTP:1,UCE:1}')."""
    return {"ma_log_dir": os.environ.get("MA_LOG_DIR", "./"), "enable_tft": os.environ.get("MS_ENABLE_TFT", "")}
