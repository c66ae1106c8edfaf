"""`mindspore.hal`: device queries (`hal.device`), streams and events (`hal.stream`, `hal.event`) and device
memory statistics (`hal.memory`). Streams, events and memory figures are the runtime's (openspore.runtime);
this package gives them MindSpore's `hal` paths.

>>> from openspore import hal
>>> hal.is_available("CPU"), hal.memory_allocated() >= 0
(True, True)
"""
from ..runtime.device_memory import (empty_cache, max_memory_allocated, max_memory_reserved, memory_allocated,
                                     memory_reserved, memory_stats, memory_summary, reset_max_memory_allocated,
                                     reset_max_memory_reserved, reset_peak_memory_stats)
from ..runtime.streams import (Event, Stream, StreamCtx, communication_stream, current_stream, default_stream,
                               set_cur_stream, synchronize)
from . import device, event, memory, stream
from .device import (device_count, get_arch_list, get_device_capability, get_device_name, get_device_properties,
                     is_available, is_initialized)

__all__ = ["Event", "Stream", "StreamCtx", "communication_stream", "current_stream", "default_stream",
           "device_count", "empty_cache", "get_arch_list", "get_device_capability", "get_device_name",
           "get_device_properties", "is_available", "is_initialized", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "memory_summary", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "reset_peak_memory_stats", "set_cur_stream", "synchronize",
           "device", "event", "memory", "stream"]
