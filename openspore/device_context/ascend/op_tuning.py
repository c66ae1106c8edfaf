"""`device_context.ascend.op_tuning`: online compilation, AOE tuning and the aclnn cache.

>>> from openspore.device_context.ascend import op_tuning
>>> try:
...     op_tuning.aoe_job_type("3")
... except ValueError as exc:
...     print(str(exc)[-24:].strip())
in ['1', '2'] but got 3.
"""
from .. import _settings
from .device import is_available

# Setter name -> whether it has been set in this process (MindSpore's `function_status`).
function_status = _settings.function_status(
    "ascend.op_tuning", ("op_compile", "aoe_tune_mode", "aoe_job_type", "aclnn_cache"))


def op_compile(value):
    """Prefer online operator compilation (True) or prebuilt operator binaries (False), once per process."""
    _settings.check_type("value", value, bool)
    _settings.record("ascend.op_tuning.op_compile", value, is_available())


def aoe_tune_mode(tune_mode):
    """Turn on the Ascend Optimization Engine: "online" is the documented mode, once per process."""
    _settings.check_choice("ascend.op_tuning.aoe_tune_mode", tune_mode, ("online",))
    _settings.record("ascend.op_tuning.aoe_tune_mode", tune_mode, is_available())


def aoe_job_type(config):
    """AOE's tuning type: "1" subgraph tuning, "2" (the default) operator tuning, once per process."""
    _settings.check_choice("ascend.op_tuning.aoe_job_type", config, ("1", "2"))
    _settings.record("ascend.op_tuning.aoe_job_type", config, is_available())


def aclnn_cache(enable_global_cache=False, cache_queue_length=10000):
    """aclnn operator cache: a global cache (bool) and the cache queue's length (int >= 0), once per process."""
    _settings.check_type("enable_global_cache", enable_global_cache, bool)
    _settings.check_type("cache_queue_length", cache_queue_length, int)
    if cache_queue_length < 0:
        raise ValueError(f"For 'mindspore.device_context.ascend.op_tuning.aclnn_cache', 'cache_queue_length' "
                         f"must be >= 0, but got {cache_queue_length}.")
    _settings.record("ascend.op_tuning.aclnn_cache", (enable_global_cache, cache_queue_length), is_available())
