"""Per-model BLAS threads: `Context.cpu.thread_num` applies to the calls of the model built with that context.

numpy's BLAS (OpenBLAS, MKL, BLIS) keeps one thread count for the whole process, so a model cannot own a
thread pool of its own; instead each call of a model (predict, a training step, evaluation) runs inside
`BlasThreads(n)`, which sets the count to n for the duration of the call and restores the previous count after.
Two models with different `thread_num` therefore each run with their own count, and the process default is left
as it was. Setting costs a few microseconds, and nothing is set when the count already matches. Concurrent
calls from different Python threads share the one process-wide setting (ModelParallelRunner's workers share
their context, so they agree).

>>> import numpy as np
>>> scope = BlasThreads(1)
>>> with scope:
...     inside = scope.current()
>>> inside in (1, None)      # None: no controllable BLAS library was found
True
"""
import threading

from ..common.blas import blas_libraries

_CONTROLLERS = []


def _blas_controllers():
    """(get, set) thread-count functions of each BLAS library numpy loaded (common/blas.py finds them once)."""
    if not _CONTROLLERS:
        _CONTROLLERS.append([(lib.get, lib.put) for lib in blas_libraries()])
    return _CONTROLLERS[0]


class BlasThreads:
    """A context manager running its block with `n` BLAS threads (n = 0: the process's count, untouched)."""

    __slots__ = ("n", "libs", "_saved")

    def __init__(self, n):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"thread_num must be an int >= 0, but got {n!r}.")
        self.n = n
        self.libs = _blas_controllers() if n else []
        self._saved = threading.local()

    def current(self):
        """The thread count of the first BLAS library, or None when there is none to control."""
        return self.libs[0][0]() if self.libs else None

    def enter(self):
        """Set the count to n where it differs; returns what `restore` needs to set it back (an empty tuple when
        nothing changed). The per-call form of the context manager: no per-thread stack to keep."""
        n = self.n
        changed = ()
        for get, put in self.libs:
            before = get()
            if before != n:
                put(n)
                changed += ((put, before),)
        return changed

    @staticmethod
    def restore(changed):
        for put, before in changed:
            put(before)

    def __enter__(self):
        changed = self.enter()
        saved = self._saved
        try:
            saved.stack.append(changed)
        except AttributeError:
            saved.stack = [changed]
        return self

    def __exit__(self, *exc):
        self.restore(self._saved.stack.pop())
        return False


def set_blas_threads(n):
    """Set every BLAS library's thread count to n now (a kernel's burst inside a call that runs at one thread and
    sets it back; the call's BlasThreads restores the process's count after)."""
    for _, put in _blas_controllers():
        put(n)
