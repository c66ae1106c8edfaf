"""`mindspore.hal` device queries: which targets this installation can run, how many devices, their names and
properties, and whether a target has been initialized (has run a kernel).

"CPU" is always available. "GPU" is available when the torch backend finds a CUDA device; then the counts,
names, capabilities and properties are torch's view of that device. "Ascend" is never available here. As in
MindSpore, a CPU has no device name properties: `get_device_properties`, `get_device_capability` and
`get_arch_list` answer None for it.

>>> from openspore import hal
>>> hal.is_available("CPU"), hal.device_count("CPU"), hal.get_device_name(0, "CPU")
(True, 1, 'CPU')
>>> print(hal.get_device_properties(0, "CPU"))
None
"""
import collections

from .. import backends, context

__all__ = ["is_initialized", "is_available", "device_count", "get_device_capability", "get_device_properties",
           "get_device_name", "get_arch_list"]

_TARGETS = ("CPU", "GPU", "Ascend")

GpuDeviceProperties = collections.namedtuple(
    "GpuDeviceProperties", "name major minor is_multi_gpu_board is_integrated multi_processor_count total_memory "
                           "warp_size")


def _target(where, device_target):
    if device_target is None:
        return context.get_context("device_target")
    if device_target not in _TARGETS:
        raise ValueError(f"For 'hal.{where}', the argument 'device_target' must be one of {list(_TARGETS)}, but "
                         f"got {device_target}.")
    return device_target


def _cuda():
    """torch.cuda when torch is installed and sees a CUDA device, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda if torch.cuda.is_available() else None


def _require(where, target):
    if not is_available(target):
        raise ValueError(f"For 'hal.{where}', the {target} backend is not available on this machine; call "
                         f"hal.is_available('{target}') to check.")


def _device_id(where, device_id):
    if isinstance(device_id, bool) or not isinstance(device_id, int):
        raise TypeError(f"For 'hal.{where}', the argument 'device_id' must be an int, but got "
                        f"{type(device_id).__name__}.")
    if device_id < 0:
        raise ValueError(f"For 'hal.{where}', the argument 'device_id' must not be negative, but got {device_id}.")
    return device_id


def is_available(device_target):
    """Whether this installation can run on `device_target` ("CPU", "GPU" or "Ascend")."""
    target = _target("is_available", device_target)
    if target == "CPU":
        return True
    if target == "GPU":
        return _cuda() is not None
    return False


def is_initialized(device_target):
    """Whether `device_target` has been set up to run work: its backend exists and has run a kernel (setting
    the context alone initializes nothing, as in MindSpore)."""
    target = _target("is_initialized", device_target)
    backend = backends._state["backend"]
    if backend is None or not backend._kernels:
        return False
    device = getattr(getattr(backend, "device", None), "type", "cpu")
    return {"cpu": "CPU", "cuda": "GPU"}.get(device) == target


def device_count(device_target=None):
    """The number of devices of `device_target` (the context's target by default): 1 for the CPU."""
    target = _target("device_count", device_target)
    _require("device_count", target)
    return 1 if target == "CPU" else _cuda().device_count()


def get_device_name(device_id, device_target=None):
    """The device's name: 'CPU' for the CPU, the CUDA device name for a GPU."""
    target = _target("get_device_name", device_target)
    _device_id("get_device_name", device_id)
    _require("get_device_name", target)
    return "CPU" if target == "CPU" else _cuda().get_device_name(device_id)


def get_device_capability(device_id, device_target=None):
    """(major, minor) compute capability of a GPU; None for the CPU."""
    target = _target("get_device_capability", device_target)
    _device_id("get_device_capability", device_id)
    _require("get_device_capability", target)
    return None if target == "CPU" else tuple(_cuda().get_device_capability(device_id))


def get_device_properties(device_id, device_target=None):
    """A GPU's properties (name, major, minor, is_multi_gpu_board, is_integrated, multi_processor_count,
    total_memory, warp_size); None for the CPU."""
    target = _target("get_device_properties", device_target)
    _device_id("get_device_properties", device_id)
    _require("get_device_properties", target)
    if target == "CPU":
        return None
    p = _cuda().get_device_properties(device_id)
    return GpuDeviceProperties(p.name, p.major, p.minor, int(getattr(p, "is_multi_gpu_board", 0)),
                               int(getattr(p, "is_integrated", 0)), p.multi_processor_count, p.total_memory,
                               getattr(p, "warp_size", 32))


def get_arch_list(device_target=None):
    """The CUDA architectures this build supports (for "GPU"); None for the CPU."""
    target = _target("get_arch_list", device_target)
    if target != "GPU" or not is_available("GPU"):
        return None
    return list(_cuda().get_arch_list())
