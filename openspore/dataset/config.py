"""`mindspore.dataset.config`: global settings of the data pipeline (facts §1.17).

The seed drives every random choice the pipeline makes (shuffles, random samplers, random transforms).
Until `set_seed` is called the pipeline draws fresh entropy each run, as MindSpore does with its
default seed; after it, every run of the same pipeline yields the same rows in the same order.
"""
import os

import numpy as np

_DEFAULT_SEED = 5489  # std::mt19937::default_seed, what MindSpore's get_seed reports before set_seed

_state = {
    "seed": _DEFAULT_SEED,
    "seed_set": False,
    "num_parallel_workers": min(8, os.cpu_count() or 1),
    "prefetch_size": 16,
    "enable_shared_mem": True,
    "debug_mode": False,
    "debug_hooks": [],
    "multiprocessing_timeout_interval": 300,
    "enable_watchdog": True,
    "callback_timeout": 60,
    "monitor_sampling_interval": 1000,
    "auto_num_workers": False,
    "numa_enable": False,
    "enable_fusion": True,
    "enable_reduced_decode": False,
    "enable_op_timing": False,
    "enable_autotune": False,
    "autotune_filepath_prefix": None,
    "autotune_interval": 0,
}
# One generator for eager and in-process random transforms; worker processes re-seed their copy.
_op_rng = [np.random.default_rng()]
_op_row = [None]  # keys of the pending per-row stream (seeded workers), see _reseed_ops_for_row


def _check_int(name, value, low, high=2 ** 31 - 1):
    # MindSpore: a value that is not an int (bool included) is a TypeError, an int out of range a ValueError
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{name}', the input must be of type int, but got {type(value).__name__}.")
    if not low <= value <= high:
        raise ValueError(f"For '{name}', the input must be an int in [{low}, {high}], but got {value!r}.")
    return int(value)


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the input must be of type bool, but got {type(value).__name__}.")
    return value


def set_seed(seed):
    """`set_seed(seed)`: seed the pipeline's shuffles, random samplers and random transforms."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError("seed isn't of type int.")
    if not 0 <= seed <= 2 ** 32 - 1:
        raise ValueError("seed given is not within the required range [0, UINT32_MAX(4294967295)].")
    seed = int(seed)
    _state["seed"] = seed
    _state["seed_set"] = True
    _op_rng[0] = np.random.default_rng([seed, 0x5EED])


def _on_global_seed(key, value):
    """`mindspore.set_seed(n)` also sets the pipeline seed (MindSpore's `ds.config.get_seed()` reports n after it),
    so a seeded script shuffles and augments the same way each run."""
    if key == "seed" and 0 <= value <= 2 ** 32 - 1:
        set_seed(value)


def get_seed():
    """`get_seed()`: the seed set by `set_seed`, else MindSpore's default 5489."""
    return _state["seed"]


def set_num_parallel_workers(num):
    """`set_num_parallel_workers(num)`: default worker count of ops that run in parallel."""
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)):
        raise TypeError("num isn't of type int.")
    if not 0 < num <= 2 ** 31 - 1:
        raise ValueError("Number of parallel workers given is not within the required range (0, INT32_MAX(2147483647)].")
    _state["num_parallel_workers"] = _check_int("set_num_parallel_workers", num, 1, 1024)


def get_num_parallel_workers():
    """`get_num_parallel_workers()`: default worker count (min(8, CPU count) until set)."""
    return _state["num_parallel_workers"]


def set_prefetch_size(size):
    """`set_prefetch_size(size)`: rows kept in flight ahead of the consumer by parallel ops."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError("size isn't of type int.")
    if not 0 < size <= 2 ** 31 - 1:
        raise ValueError("size is not within the required range (0, INT32_MAX(2147483647)].")
    _state["prefetch_size"] = int(size)


def get_prefetch_size():
    """`get_prefetch_size()`: default 16."""
    return _state["prefetch_size"]


def set_enable_shared_mem(enable):
    """`set_enable_shared_mem(enable)`: pass worker results through shared memory instead of pipes."""
    _state["enable_shared_mem"] = _check_bool("set_enable_shared_mem", enable)


def get_enable_shared_mem():
    """`get_enable_shared_mem()`: default True."""
    return _state["enable_shared_mem"]


def set_debug_mode(debug_mode_flag, debug_hook_list=None):
    """`set_debug_mode(debug_mode_flag, debug_hook_list=None)`: run every op in this process, in order.

    Each hook is called as `hook(op, inputs, outputs)` after each map operation while debug mode is on.
    """
    _check_bool("set_debug_mode", debug_mode_flag)
    hooks = list(debug_hook_list or [])
    for hook in hooks:
        if not callable(hook):
            raise TypeError(f"For 'set_debug_mode', each debug hook must be callable, but got {type(hook).__name__}.")
    _state["debug_mode"] = debug_mode_flag
    _state["debug_hooks"] = hooks


def get_debug_mode():
    """`get_debug_mode()`: whether debug mode is on."""
    return _state["debug_mode"]


def set_multiprocessing_timeout_interval(interval):
    """`set_multiprocessing_timeout_interval(interval)`: seconds a worker may spend on one row before the watchdog
    warns (and again after each further interval)."""
    _state["multiprocessing_timeout_interval"] = _check_int("set_multiprocessing_timeout_interval", interval, 1)


def get_multiprocessing_timeout_interval():
    """`get_multiprocessing_timeout_interval()`: default 300 seconds."""
    return _state["multiprocessing_timeout_interval"]


def set_enable_watchdog(enable):
    """`set_enable_watchdog(enable)`: watch the worker processes (default True): the consumer warns every
    `get_multiprocessing_timeout_interval()` seconds, naming the worker and the row, while a worker is stuck on
    one row. Workers end with their parent whatever this says (a worker whose parent died exits on its own).

    >>> import openspore.dataset as ds
    >>> ds.config.set_enable_watchdog(True)
    """
    _state["enable_watchdog"] = _check_bool("set_enable_watchdog", enable)


def get_enable_watchdog():
    """`get_enable_watchdog()`: default True."""
    return _state["enable_watchdog"]


def set_callback_timeout(timeout):
    """`set_callback_timeout(timeout)`: kept for API compatibility with sync_wait callbacks."""
    _state["callback_timeout"] = _check_int("set_callback_timeout", timeout, 1)


def get_callback_timeout():
    """`get_callback_timeout()`: default 60 seconds."""
    return _state["callback_timeout"]


def set_monitor_sampling_interval(interval):
    """`set_monitor_sampling_interval(interval)`: profiler sampling interval in milliseconds."""
    _state["monitor_sampling_interval"] = _check_int("set_monitor_sampling_interval", interval, 0)


def get_monitor_sampling_interval():
    """`get_monitor_sampling_interval()`: default 1000 ms."""
    return _state["monitor_sampling_interval"]


def set_auto_num_workers(enable):
    """`set_auto_num_workers(enable)`: let parallel ops size their own worker counts."""
    _state["auto_num_workers"] = _check_bool("set_auto_num_workers", enable)


def get_auto_num_workers():
    """`get_auto_num_workers()`: default False."""
    return _state["auto_num_workers"]


def set_numa_enable(numa_enable):
    """`set_numa_enable(numa_enable)`: accepted for compatibility; one NUMA node is assumed."""
    _state["numa_enable"] = _check_bool("set_numa_enable", numa_enable)


def get_numa_enable():
    """`get_numa_enable()`: default False."""
    return _state["numa_enable"]


def set_enable_fusion(enable):
    """`set_enable_fusion(enable)`: let `map` run Decode → Resize → CenterCrop → Normalize → HWC2CHW → TypeCast runs
    as one fused operation (same results; fewer passes over memory). Default True."""
    _state["enable_fusion"] = _check_bool("set_enable_fusion", enable)


def get_enable_fusion():
    """`get_enable_fusion()`: default True."""
    return _state["enable_fusion"]


def set_enable_reduced_decode(enable):
    """`set_enable_reduced_decode(enable)`: in a fused Decode → Resize, decode JPEGs at 1/2, 1/4 or 1/8 scale (DCT
    scaling) when the resize target still fits, then resize. Faster, but the pixels are those of a smoother
    downscale, not of the full decode, so this is off by default."""
    _state["enable_reduced_decode"] = _check_bool("set_enable_reduced_decode", enable)


def get_enable_reduced_decode():
    """`get_enable_reduced_decode()`: default False."""
    return _state["enable_reduced_decode"]


def set_enable_op_timing(enable):
    """`set_enable_op_timing(enable)`: time every map operation (in workers too); read the figures with
    `openspore.dataset.profiling.report(dataset)` after iterating. Default False (no cost when off)."""
    _state["enable_op_timing"] = _check_bool("set_enable_op_timing", enable)


def get_enable_op_timing():
    """`get_enable_op_timing()`: default False."""
    return _state["enable_op_timing"]


def set_enable_autotune(enable, filepath_prefix=None):
    """`set_enable_autotune(enable, filepath_prefix=None)`: let each `map` without an explicit worker count measure
    its first rows and choose its worker count (and so its prefetch window); the choices are written as JSON to
    `<filepath_prefix>_0.json` when a prefix is given."""
    _check_bool("set_enable_autotune", enable)
    if filepath_prefix is not None and not isinstance(filepath_prefix, str):
        raise TypeError(f"For 'set_enable_autotune', 'filepath_prefix' must be a str or None, but got "
                        f"{type(filepath_prefix).__name__}.")
    if enable and filepath_prefix is not None:  # checked now, as MindSpore 2.10 does (not when the JSON is written)
        _check_autotune_path(filepath_prefix)
    _state["enable_autotune"] = enable
    _state["autotune_filepath_prefix"] = filepath_prefix


def _check_autotune_path(filepath_prefix):
    """MindSpore's RuntimeError for a prefix that is empty, names a directory, or whose directory does not exist."""
    if filepath_prefix == "":
        raise RuntimeError("The value of json_filepath cannot be the empty string.")
    if os.path.isdir(filepath_prefix):
        raise RuntimeError(f"Invalid json_filepath parameter. <{filepath_prefix.rstrip('/') or '/'}> is a directory, "
                           "not filename.")
    directory = os.path.dirname(filepath_prefix)
    if directory and not os.path.isdir(directory):
        raise RuntimeError(f"Invalid json_filepath parameter.  Directory <{directory}> does not exist.")


def get_enable_autotune():
    """`get_enable_autotune()`: default False."""
    return _state["enable_autotune"]


def set_autotune_interval(interval):
    """`set_autotune_interval(interval)`: steps between autotune checks (0: once per epoch, the default)."""
    _state["autotune_interval"] = _check_int("set_autotune_interval", interval, 0)


def get_autotune_interval():
    """`get_autotune_interval()`: default 0."""
    return _state["autotune_interval"]


def _rng(*keys):
    """A generator for one pipeline decision: reproducible from the seed and `keys` once a seed is set."""
    if _state["seed_set"]:
        return np.random.default_rng([_state["seed"], *[int(k) & 0xFFFFFFFF for k in keys]])
    return np.random.default_rng()


def _fixed_rng(*keys):
    """Like `_rng` but reproducible even without `set_seed` (shards in separate processes must agree)."""
    return np.random.default_rng([_state["seed"], *[int(k) & 0xFFFFFFFF for k in keys]])


def _op_random():
    """The generator random transforms draw from."""
    if _op_row[0] is not None:  # a seeded worker started a row: its stream, made only when a transform draws
        _op_rng[0] = _rng(0x0B5, *_op_row[0])
        _op_row[0] = None
    return _op_rng[0]


def _reseed_ops(*keys):
    """Give this process (a worker) its own transform stream: reproducible when a seed is set."""
    _op_row[0] = None
    _op_rng[0] = _rng(0x0B5, *keys)


def _reseed_ops_for_row(*keys):
    """A seeded worker's next row draws from a stream of its own keys (the row number among them), so its draws
    do not depend on which worker runs it or in which chunk; the stream is made lazily, on the first draw."""
    _op_row[0] = keys


def _snapshot():
    return dict(_state, debug_hooks=list(_state["debug_hooks"]))


def _restore(snapshot):
    _state.clear()
    _state.update(snapshot)
    if _state["seed_set"]:
        _op_rng[0] = np.random.default_rng([_state["seed"], 0x5EED])


def _follow_global_seed():
    from .. import context
    context.add_listener(_on_global_seed)
    if context.get_seed() is not None:  # the global seed was set before the data pipeline was imported
        _on_global_seed("seed", context.get_seed())


_follow_global_seed()
