"""The BLAS libraries numpy loaded, found once, with fast thread-count functions.

Both lite's per-model thread scopes (lite/threads.py) and the torch backend's choice of numpy's OpenBLAS for large
products (backends/host_gemm.py) ask numpy's BLAS for its thread count on hot paths. For OpenBLAS on pthreads the
functions here are the library's own C functions, resolved once: threadpoolctl's methods look the symbol up and (set)
take a lock and check the controlling thread at every call, several microseconds each.

>>> libs = blas_libraries()
>>> all(lib.get() >= 1 for lib in libs)   # empty without threadpoolctl
True
"""
import threading
from collections import namedtuple

BlasLibrary = namedtuple("BlasLibrary", "get put internal_api filepath threading_layer symbol")

_FOUND = {"libs": None}
_LOCK = threading.Lock()


def blas_libraries():
    """Each BLAS library numpy loaded, as a `BlasLibrary` (found once; empty without threadpoolctl)."""
    if _FOUND["libs"] is None:
        with _LOCK:
            if _FOUND["libs"] is None:
                try:
                    import numpy  # noqa: F401  (its BLAS must be loaded before the libraries are listed)
                    from threadpoolctl import ThreadpoolController
                    libs = [_library(c) for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
                except Exception:  # noqa: BLE001 (threadpoolctl is optional: without it the BLAS default stays)
                    libs = []
                _FOUND["libs"] = libs
    return _FOUND["libs"]


def _library(lib):
    layer = getattr(lib, "threading_layer", "")
    get, put = lib.get_num_threads, lib.set_num_threads
    symbol = getattr(lib, "_get_symbol", None)  # threadpoolctl's (private) lookup with the library's affixes
    if symbol is not None and lib.internal_api == "openblas" and layer != "openmp":
        c_get, c_put = symbol("openblas_get_num_threads"), symbol("openblas_set_num_threads")
        if c_get is not None and c_put is not None:
            get, put = c_get, c_put
    return BlasLibrary(get, put, lib.internal_api, lib.filepath or "", layer, symbol)
