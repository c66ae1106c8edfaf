"""Pluggable device allocators and memory recycling (`mindspore.runtime.PluggableAllocator`, `MemPool`,
`use_mem_pool`, `memory_replay`; `mindspore.ms_memory_recycle`; also at the top level).

A `PluggableAllocator` loads a shared library and looks up its allocation and free functions, exactly as
MindSpore does (a missing library raises OSError, a missing symbol AttributeError). Routing tensor memory
through it (`use_mem_pool`) and replaying a recorded allocation trace (`memory_replay`) act on Ascend's device
memory pool, which openspore does not have: its tensors live in numpy or torch memory, so these two raise a
RuntimeError that says so, as MindSpore's CPU target fails on them too.

>>> import ctypes.util, openspore as ms
>>> allocator = ms.runtime.PluggableAllocator(ctypes.util.find_library("c"), "malloc", "free")
>>> allocator.alloc_fn_ptr != 0 and allocator.free_fn_ptr != 0
True
>>> ms.runtime.MemPool(allocator).allocator is allocator
True
"""
import contextlib
import ctypes
import gc

from .device_memory import empty_cache

__all__ = ["PluggableAllocator", "MemPool", "use_mem_pool", "memory_replay", "ms_memory_recycle"]


class PluggableAllocator:
    """`PluggableAllocator(path_to_so_file, alloc_fn_name, free_fn_name)`: a device allocator from a shared
    library; `alloc_fn_ptr` / `free_fn_ptr` are the two functions' addresses."""

    def __init__(self, path_to_so_file: str, alloc_fn_name: str, free_fn_name: str):
        for name, value in (("path_to_so_file", path_to_so_file), ("alloc_fn_name", alloc_fn_name),
                            ("free_fn_name", free_fn_name)):
            if not isinstance(value, str):
                raise TypeError(f"For 'PluggableAllocator', '{name}' must be a str, but got {type(value).__name__}.")
        library = ctypes.CDLL(path_to_so_file)          # OSError when the library cannot be loaded
        self._alloc_fn = getattr(library, alloc_fn_name)  # AttributeError: undefined symbol
        self._free_fn = getattr(library, free_fn_name)
        self.alloc_fn_ptr = ctypes.cast(self._alloc_fn, ctypes.c_void_p).value
        self.free_fn_ptr = ctypes.cast(self._free_fn, ctypes.c_void_p).value


class MemPool:
    """`MemPool(allocator)`: a memory pool served by a `PluggableAllocator`."""

    def __init__(self, allocator):
        self._allocator = allocator

    @property
    def allocator(self):
        return self._allocator


def _no_device_pool(what):
    return RuntimeError(f"{what} acts on the Ascend device memory pool, which openspore does not have: its tensors "
                        "live in numpy or torch memory on the CPU (or torch's CUDA allocator on a GPU). Not "
                        "supported in openspore.")


@contextlib.contextmanager
def use_mem_pool(pool):
    """`with use_mem_pool(pool):` would allocate the block's tensors from `pool`; raises (see the module text)."""
    if not isinstance(pool, MemPool):
        raise TypeError(f"For 'use_mem_pool', 'pool' must be a MemPool, but got {type(pool).__name__}.")
    raise _no_device_pool("use_mem_pool")
    yield  # pragma: no cover  (a generator, so that the error comes at `with`, as in MindSpore)


def memory_replay(file_path):
    """Replay an allocation trace recorded on Ascend; raises (see the module text)."""
    if not isinstance(file_path, str):
        raise TypeError(f"For 'memory_replay', 'file_path' must be a str, but got {type(file_path).__name__}.")
    raise _no_device_pool("memory_replay")


def ms_memory_recycle():
    """Give back memory cached for finished models: unreachable tensors are collected and the device allocator's
    idle blocks (torch on CUDA) are released. Call it between training two models in one process.

    >>> import openspore as ms
    >>> ms.ms_memory_recycle()
    """
    gc.collect()
    empty_cache()
