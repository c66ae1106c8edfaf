"""The checks and the settable-once record behind `device_context`'s setters.

MindSpore's device settings are process-wide and may be set once: a second call raises RuntimeError (as
`cpu.op_tuning.threads_num` does). Arguments are checked before anything is recorded, with MindSpore's messages:
a wrong type is a TypeError naming the parameter and both types, a value outside a documented set is a
ValueError listing the set. A setting for a device this machine does not have is checked, logged and ignored
(MindSpore logs "... device is not supported" and returns None there too).

>>> from openspore.device_context import _settings
>>> _settings.check_type("value", 1, bool)
Traceback (most recent call last):
  ...
TypeError: The parameter 'value' must be <class 'bool'>, but got <class 'int'>
"""
import logging

_log = logging.getLogger("openspore.device_context")

# "gpu.op_tuning.conv_fprop_algo" -> the value set, for what a later call (or a test) reads back.
_recorded = {}
# "gpu.op_tuning" -> that module's `function_status` dict (setter name -> set yet?), as MindSpore exposes it.
_status = {}


def function_status(module, names):
    """The `function_status` dict of a settings module: each setter's name -> whether it has been set."""
    return _status.setdefault(module, {name: False for name in names})


def check_type(param, value, expected):
    """TypeError unless `value` is an `expected` (bool is not an int here, as in MindSpore's checks)."""
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if not ok:
        raise TypeError(f"The parameter '{param}' must be {expected}, but got {type(value)}")
    return value


def check_choice(where, value, choices):
    """ValueError unless `value` is one of `choices` (the documented set, in the documented order)."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"For 'mindspore.device_context.{where}', the argument must be in {list(choices)} "
                         f"but got {value}.")
    return value


def record(where, value, device_available=True):
    """Record `value` for the setting `where` ("gpu.op_tuning.conv_fprop_algo"), once per process.

    Returns True when the setting applies (its device is present); False when it was only checked."""
    name = where.rpartition(".")[2]
    if where in _recorded:
        raise RuntimeError(f"The '{name}' can not be set repeatedly.")
    if not device_available:
        device = where.partition(".")[0]
        _log.warning("mindspore.device_context.%s: no %s device on this machine; the setting is checked and "
                     "ignored.", where, device.upper() if device == "gpu" else device.capitalize())
        return False
    _recorded[where] = value
    module = where.rpartition(".")[0]
    if module in _status:
        _status[module][name] = True
    return True


def get(where, default=None):
    """The value recorded for `where`, or `default` when it was never set."""
    return _recorded.get(where, default)
