"""`device_context.ascend.op_debug`: operator execution timeout, debug options and aclInit's configuration.

>>> from openspore.device_context.ascend import op_debug
>>> try:
...     op_debug.execute_timeout("10")
... except TypeError as exc:
...     print(exc)
The parameter 'op_timeout' must be <class 'int'>, but got <class 'str'>
"""
from .. import _settings
from .device import is_available

# Setter name -> whether it has been set in this process (MindSpore's `function_status`).
function_status = _settings.function_status(
    "ascend.op_debug", ("execute_timeout", "debug_option", "aclinit_config"))

ACLINIT_KEYS = ("max_opqueue_num", "err_msg_mode", "dump")


def execute_timeout(op_timeout):
    """The longest an operator may run, in seconds (int >= 0; the framework's default 900), once per process."""
    _settings.check_type("op_timeout", op_timeout, int)
    if op_timeout < 0:
        raise ValueError(f"For 'mindspore.device_context.ascend.op_debug.execute_timeout', 'op_timeout' must be "
                         f">= 0, but got {op_timeout}.")
    _settings.record("ascend.op_debug.execute_timeout", op_timeout, is_available())


def debug_option(option_value):
    """Ascend operator debugging: "oom" (global-memory out-of-bounds checks) is the one option, once per
    process."""
    _settings.check_type("option_value", option_value, str)
    _settings.check_choice("ascend.op_debug.debug_option", option_value, ("oom",))
    _settings.record("ascend.op_debug.debug_option", option_value, is_available())


def aclinit_config(config):
    """aclInit's configuration: a dict with the documented keys "max_opqueue_num", "err_msg_mode" ("0" per
    thread, "1" per process) and "dump" ({"dump_scene": "lite_exception"} or "lite_exception:disable"),
    once per process."""
    _settings.check_type("config", config, dict)
    unknown = sorted(set(config) - set(ACLINIT_KEYS))
    if unknown:
        raise ValueError(f"For 'mindspore.device_context.ascend.op_debug.aclinit_config', the keys must be in "
                         f"{list(ACLINIT_KEYS)}, but got {unknown}.")
    if "err_msg_mode" in config:
        _settings.check_choice("ascend.op_debug.aclinit_config", config["err_msg_mode"], ("0", "1"))
    if "dump" in config:
        dump = config["dump"]
        if not isinstance(dump, dict) or set(dump) != {"dump_scene"}:
            raise ValueError("For 'mindspore.device_context.ascend.op_debug.aclinit_config', 'dump' must be a dict "
                             f"{{'dump_scene': ...}}, but got {dump!r}.")
        _settings.check_choice("ascend.op_debug.aclinit_config", dump["dump_scene"],
                               ("lite_exception", "lite_exception:disable"))
    _settings.record("ascend.op_debug.aclinit_config", dict(config), is_available())
