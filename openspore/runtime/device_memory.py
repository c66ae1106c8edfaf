"""Device-memory statistics (`mindspore.runtime.memory_allocated`, ..., also at the top level).

They describe the accelerator's memory pool. Under the torch backend on a CUDA device they are torch's CUDA
allocator figures; on the CPU there is no device pool, and every figure is 0, as MindSpore reports on its CPU
target.

>>> from openspore import runtime
>>> runtime.memory_stats()["total_allocated_memory"] >= 0
True
>>> print(runtime.memory_summary().splitlines()[1])
|               Memory summary                |
"""


def _cuda():
    """torch.cuda when a CUDA device is in use, else None (no device pool)."""
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda if torch.cuda.is_available() and torch.cuda.is_initialized() else None


def memory_allocated():
    """Bytes of device memory held by tensors now."""
    cuda = _cuda()
    return int(cuda.memory_allocated()) if cuda else 0


def max_memory_allocated():
    """The peak of memory_allocated() since the start or the last reset."""
    cuda = _cuda()
    return int(cuda.max_memory_allocated()) if cuda else 0


def memory_reserved():
    """Bytes of device memory the pool holds (allocated plus idle)."""
    cuda = _cuda()
    return int(cuda.memory_reserved()) if cuda else 0


def max_memory_reserved():
    """The peak of memory_reserved() since the start or the last reset."""
    cuda = _cuda()
    return int(cuda.max_memory_reserved()) if cuda else 0


def empty_cache():
    """Give the pool's idle device memory back to the device."""
    cuda = _cuda()
    if cuda:
        cuda.empty_cache()


def reset_peak_memory_stats():
    """Restart both peaks from the current figures."""
    cuda = _cuda()
    if cuda:
        cuda.reset_peak_memory_stats()


def reset_max_memory_allocated():
    """Restart the allocated-memory peak (the device allocator keeps one peak set, so both restart)."""
    reset_peak_memory_stats()


def reset_max_memory_reserved():
    """Restart the reserved-memory peak (the device allocator keeps one peak set, so both restart)."""
    reset_peak_memory_stats()


def memory_stats():
    """The pool's figures as a dict (MindSpore's keys)."""
    reserved, allocated = memory_reserved(), memory_allocated()
    return {"total_reserved_memory": reserved, "total_allocated_memory": allocated,
            "total_idle_memory": reserved - allocated, "total_eager_free_memory": 0,
            "max_reserved_memory": max_memory_reserved(), "max_allocated_memory": max_memory_allocated(),
            "common_mem_pool_stats": {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}},
            "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}}}


def _size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:6d} {unit}" if unit == "B" else f"{n:6.2f} {unit}"
        n /= 1024
    return f"{n} GB"


def memory_summary():
    """memory_stats() as MindSpore's text table."""
    stats = memory_stats()
    rule, heavy = "|" + "-" * 45 + "|", "|" + "=" * 45 + "|"
    lines = [heavy, "|" + " " * 15 + "Memory summary" + " " * 16 + "|", heavy, f"| {'Metric':<20} | {'Data':<20} |"]
    for label, key in (("Reserved memory", "total_reserved_memory"), ("Allocated memory", "total_allocated_memory"),
                       ("Idle memory", "total_idle_memory"), ("Eager free memory", "total_eager_free_memory"),
                       ("Max reserved memory", "max_reserved_memory"),
                       ("Max allocated memory", "max_allocated_memory")):
        lines += [rule, f"| {label:<20} | {_size(stats[key]):<20} |"]
    return "\n".join(lines + [heavy, ""])
