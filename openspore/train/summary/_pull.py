"""The input batch read by the summary writer process straight from the training process's memory ("pulled").

A collecting step's snapshot has two parts. The weights must be copied by the training thread: the next step
updates them in place. The input batch need not: the dataset's batch operation makes a new array for every batch
and nothing writes into it afterwards, so the collector holds the batch (`SharedRing.collect`'s `keep`) and the
writer process reads it from this process with `process_vm_readv(2)` when it packs the collection, then releases
it with the rest of the collection. On LeNet that is 128 KiB of the 160 KiB a collection copied, and the copy's
~30 us were the biggest part of what a collecting step cost the training thread: the batch had left the caches
during the step.

Reading another process's memory needs ptrace rights over it: the same user, and where Yama's restricted mode is on
(a child may not read its parent) the training process names its writer process as the one allowed to (`allow`,
`prctl(PR_SET_PTRACER)`; no other process gains anything). The writer process tries once at its start: the
training process passes the address of 16 random bytes of its own (`probe`), and the writer says "ready pull" only
when it read them back (`check`). Everywhere else (not Linux, a sandbox that forbids the call) the collector
copies the batch into the ring as before; the files are the same bytes either way.

    >>> import numpy as np
    >>> batch = np.arange(6, dtype=np.float32).reshape(2, 3)
    >>> local(batch.ctypes.data, "<f4", (2, 3)).tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
"""
import ctypes
import os
import sys

import numpy as np


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def _find_readv():
    if not sys.platform.startswith("linux"):
        return None
    try:
        call = ctypes.CDLL(None, use_errno=True).process_vm_readv
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.POINTER(_IoVec), ctypes.c_ulong, ctypes.POINTER(_IoVec), ctypes.c_ulong,
                     ctypes.c_ulong]
    call.restype = ctypes.c_ssize_t
    return call


_readv = _find_readv()
_token = None  # 16 random bytes of this process, kept for its life: a writer process reads them back (`check`)


def read_into(pid, address, out):
    """Fill the C-contiguous array `out` with `out.nbytes` bytes read at `address` in process `pid`."""
    if _readv is None:
        raise OSError("process_vm_readv is not available on this system")
    nbytes, done, target = out.nbytes, 0, out.ctypes.data
    while done < nbytes:
        here = _IoVec(target + done, nbytes - done)
        there = _IoVec(address + done, nbytes - done)
        n = _readv(pid, ctypes.byref(here), 1, ctypes.byref(there), 1, 0)
        if n <= 0:
            err = ctypes.get_errno()
            raise OSError(err, f"reading {nbytes} bytes at {address:#x} of process {pid}: "
                               f"{os.strerror(err) if err else 'nothing read'}")
        done += n
    return out


def pull(pid, address, dtype, shape):
    """A new array of `dtype` and `shape`, read at `address` in process `pid`."""
    return read_into(pid, address, np.empty(shape, np.dtype(dtype)))


def local(address, dtype, shape):
    """`pull` from this process (the writer thread packing a pulled collection itself, its writer process gone):
    a copy, so that the batch it came from may be let go."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    return np.frombuffer(bytes_at(address, count * dtype.itemsize), dtype, count).reshape(shape).copy()


def bytes_at(address, nbytes):
    """A writable bytes memoryview of `nbytes` of this process's memory at `address` (which the caller keeps
    alive)."""
    return memoryview((ctypes.c_char * nbytes).from_address(address)).cast("B")


def probe():
    """"pid:address:hex" of this process's 16 random bytes for a new writer process's command line (`check`), or
    "-" where pulling cannot work."""
    global _token
    if _readv is None:
        return "-"
    if _token is None:
        _token = ctypes.create_string_buffer(os.urandom(16), 16)
    return f"{os.getpid()}:{ctypes.addressof(_token)}:{_token.raw.hex()}"


def allow(pid):
    """Let process `pid` (this process's new writer process) read this one where Yama's restricted ptrace mode
    would not; nothing where there is no Yama or no Linux."""
    if _readv is None:
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_ALLOW_PTRACE_BY, ctypes.c_ulong(pid), 0, 0, 0)
    except (OSError, AttributeError):
        pass


_PR_ALLOW_PTRACE_BY = 0x59616D61  # prctl option PR_SET_PTRACER (linux/prctl.h)


def check(token):
    """In the writer process: the training process's pid when its `probe` bytes read back right, else None."""
    if not token or token == "-" or _readv is None:
        return None
    try:
        pid, address, expected = token.split(":")
        pid, address = int(pid), int(address)
        got = read_into(pid, address, np.empty(len(expected) // 2, np.uint8)).tobytes()
    except (ValueError, OSError):
        return None
    return pid if got.hex() == expected else None
