"""`mindspore.device_context.ascend`: the Ascend backend's queries and settings (`op_precision`, `op_tuning`,
`op_debug`). openspore has no Ascend backend: `is_available()` is False, `device_count()` raises RuntimeError
as MindSpore does without the device, and the setters check their argument, log, and do nothing."""
from .device import device_count, is_available  # noqa: F401
from . import op_debug, op_precision, op_tuning  # noqa: F401

__all__ = ["device_count", "is_available"]
