"""CPU queries: the CPU backend is always there and counts as one device (as MindSpore counts it).

>>> from openspore.device_context.cpu import device
>>> device.is_available(), device.device_count()
(True, 1)
"""


def is_available():
    """Whether the CPU backend can run (always True)."""
    return True


def device_count():
    """The number of CPU devices MindSpore reports: 1."""
    return 1
