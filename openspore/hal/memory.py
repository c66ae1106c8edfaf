"""`mindspore.hal.memory`: the runtime's device-memory statistics under their `hal` path."""
from ..runtime.device_memory import (empty_cache, max_memory_allocated, max_memory_reserved,  # noqa: F401
                                     memory_allocated, memory_reserved, memory_stats, memory_summary,
                                     reset_max_memory_allocated, reset_max_memory_reserved, reset_peak_memory_stats)
