"""`ms.runtime.set_memory(...)`: MindSpore 2.x's memory settings, mapped onto the context keys the compiler reads.

* `optimize_level` -> `memory_optimize_level`: 'O1' plans every compiled graph's memory statically
  (compiler/memory, SOMAS); 'O0' (default) leaves the reuse to reference counting at run time.
* `max_size` -> `max_device_memory`: a compiled graph whose Parameters, inputs and planned activations need more
  raises MemoryError at compile time, before anything runs (runtime/cache.py `check_memory_cap`).
* `init_size`, `increase_size`, `huge_page_reserve_size`: memory-pool sizing of MindSpore's device runtime;
  checked and kept (`get_memory()`), the host allocator here has no pool to size.

>>> from openspore import runtime
>>> runtime.set_memory(optimize_level="O1", max_size="2GB")
>>> import openspore as ms
>>> ms.get_context("memory_optimize_level"), ms.get_context("max_device_memory")
('O1', '2GB')
>>> runtime.set_memory(optimize_level="O0", max_size="1024GB")
"""
from .. import context

_pool = {"init_size": "2GB", "increase_size": "2GB", "huge_page_reserve_size": "0GB"}


def set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
               huge_page_reserve_size="0GB"):
    """set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
    huge_page_reserve_size="0GB"): see the module docstring. Sizes are strings like "1024GB" or "512MB"."""
    for name, value in (("init_size", init_size), ("increase_size", increase_size), ("max_size", max_size),
                        ("huge_page_reserve_size", huge_page_reserve_size)):
        context.memory_size_bytes(value, name=name, where="set_memory", allow_zero=name != "max_size")
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"For 'set_memory', the argument 'optimize_level' should be 'O0' or 'O1', "
                         f"but got {optimize_level!r}.")
    context.set_context(memory_optimize_level=optimize_level, max_device_memory=max_size)
    _pool.update(init_size=init_size, increase_size=increase_size, huge_page_reserve_size=huge_page_reserve_size)


def get_memory():
    """The settings `set_memory` made, as a dict."""
    return dict(_pool, max_size=context.get_context("max_device_memory"),
                optimize_level=context.get_context("memory_optimize_level"))
