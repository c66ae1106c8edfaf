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

_LIBS = {"found": None}
_LOCK = threading.Lock()


def _blas_controllers():
    """(get, set) thread-count functions of each BLAS library numpy loaded (found once; empty without
    threadpoolctl). For OpenBLAS on pthreads they are the library's own C functions, resolved once: threadpoolctl's
    methods look the symbol up and (set) take a lock and check the controlling thread at every call, which
    cost several microseconds per predict at batch 1."""
    if _LIBS["found"] is None:
        with _LOCK:
            if _LIBS["found"] is None:
                try:
                    import numpy  # noqa: F401  (its BLAS must be loaded before the libraries are listed)
                    from threadpoolctl import ThreadpoolController
                    libs = [_functions(c) for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
                except Exception:  # threadpoolctl is optional: without it the BLAS default stays
                    libs = []
                _LIBS["found"] = libs
    return _LIBS["found"]


def _functions(lib):
    symbol = getattr(lib, "_get_symbol", None)  # threadpoolctl's (private) lookup with the library's affixes
    if symbol is not None and lib.internal_api == "openblas" and getattr(lib, "threading_layer", "") != "openmp":
        get, put = symbol("openblas_get_num_threads"), symbol("openblas_set_num_threads")
        if get is not None and put is not None:
            return get, put
    return lib.get_num_threads, lib.set_num_threads


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

    def __enter__(self):
        changed = []
        n = self.n
        for get, put in self.libs:
            before = get()
            if before != n:
                put(n)
                changed.append((put, before))
        saved = self._saved
        try:
            saved.stack.append(changed)
        except AttributeError:
            saved.stack = [changed]
        return self

    def __exit__(self, *exc):
        for put, before in self._saved.stack.pop():
            put(before)
        return False


def set_blas_threads(n):
    """Set every BLAS library's thread count to n now (a kernel's burst inside a call that runs at one thread and
    sets it back; the call's BlasThreads restores the process's count after)."""
    for _, put in _blas_controllers():
        put(n)
