"""Ascend queries: openspore has no Ascend backend.

>>> from openspore.device_context.ascend import device
>>> device.is_available()
False
"""


def is_available():
    """Whether an Ascend NPU can be used (never, in openspore)."""
    return False


def device_count():
    """The number of Ascend NPUs; RuntimeError, as there is none."""
    raise RuntimeError("Device Ascend not exist.")
