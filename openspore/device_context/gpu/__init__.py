"""`mindspore.device_context.gpu`: the GPU backend's queries and its settings (`op_precision`, `op_tuning`)."""
from .device import device_count, is_available  # noqa: F401
from . import op_precision, op_tuning  # noqa: F401

__all__ = ["device_count", "is_available"]
