"""`mindspore.device_context.cpu`: the CPU backend's queries (`is_available`, `device_count`) and
`op_tuning.threads_num`."""
from .device import device_count, is_available  # noqa: F401
from . import op_tuning  # noqa: F401

__all__ = ["device_count", "is_available", "threads_num"]
from .op_tuning import threads_num  # noqa: E402,F401
