"""`mindspore.DeviceCtx(name, device_id=None)`: run a block on another device, then return to the previous one.

The name is one of 'CPU', 'GPU', 'Ascend', 'meta' (checked on entry, as MindSpore does); entering sets the
context's device as `set_device(name, device_id)` would (device_id defaults to 0) and the exit restores the
device that was current before, even when the block raises. Contexts nest; each thread keeps its own stack.
openspore has no Ascend or meta device, so entering one raises the ValueError `set_device` gives.

>>> import openspore as ms
>>> with ms.DeviceCtx("CPU", 0):
...     ms.get_current_device()
('CPU', 0)
"""
import threading

from .. import context

__all__ = ["DeviceCtx"]

_VALID = ["CPU", "GPU", "Ascend", "meta"]
_local = threading.local()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


class DeviceCtx:
    """See the module text."""

    def __init__(self, name: str, device_id=None):
        self.name = name
        self.device_id = device_id

    def __enter__(self):
        if self.name not in _VALID:
            raise ValueError(f"For DeviceCtx, the name must be one of {_VALID}, but got {self.name}.")
        if self.device_id is not None and self.device_id < 0:
            raise ValueError("For DeviceCtx, the device_id must be greater than or equal to 0.")
        if self.name == "meta":
            raise ValueError("For DeviceCtx, the 'meta' device (shape-only tensors) is not supported in openspore.")
        previous = context.get_current_device()
        context.set_device(self.name, 0 if self.device_id is None else self.device_id)
        _stack().append(previous)
        return self

    def __exit__(self, *exc):
        target, device_id = _stack().pop()
        context.set_device(target, device_id)
        return False
