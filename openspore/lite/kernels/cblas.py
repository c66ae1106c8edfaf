"""numpy's own OpenBLAS GEMM called directly (`cblas_sgemm` / `cblas_dgemm` through ctypes) for compiled kernels.

Why: numpy's matmul computes C = A·B into C, never C += A·B, so a convolution made of kh row GEMMs (kernels/nhwc.py)
writes kh partial products and adds them, then adds the bias and the residual: five passes over the output besides
the GEMMs. The BLAS's β = 1 accumulates each GEMM into the output in place, so the output is written once with
bias + residual and the GEMMs add onto it (ResNet20's 3×3 layers: 8-10 % faster per layer here). The library is
the one numpy loaded (found by common/blas.py), so the thread count lite sets applies, and no dependency is added.

A `gemm(dtype)` call is prepared once (`Call`): the operands are fixed buffers owned by a compiled kernel, so every
argument is converted to its ctypes value once and a call is one foreign call without conversions (ctypes
releases the GIL during it, as numpy does around its own BLAS calls). Where no OpenBLAS with `cblas_?gemm` is found
(another BLAS, no threadpoolctl), `gemm` returns None and kernels keep their numpy path.

>>> import numpy as np
>>> fn = gemm(np.float32)
>>> a, b = np.ones((2, 3), np.float32), np.full((3, 4), 2, np.float32)
>>> c = np.ones((2, 4), np.float32)
>>> if fn is not None:
...     fn.prepare(a, b, c, beta=1.0)()
... else:
...     c += a @ b
>>> c[0]
array([7., 7., 7., 7.], dtype=float32)
"""
import ctypes

import numpy as np

from ...common.blas import blas_libraries

_ROW_MAJOR, _NO_TRANS = 101, 111
_FOUND = {}


class Gemm:
    """cblas_?gemm of one dtype: `prepare(a, b, c, beta)` returns the zero-argument call C = A·B + β·C."""

    __slots__ = ("fn", "int_t", "scalar_t", "dtype")

    def __init__(self, fn, int_t, scalar_t, dtype):
        self.fn, self.int_t, self.scalar_t, self.dtype = fn, int_t, scalar_t, dtype

    def prepare(self, a, b, c, beta):
        """a (m, k), b (k, n), c (m, n): numpy arrays of this dtype whose rows are each contiguous (a row stride of
        at least the row's length); the call reads and writes them in place, so they must outlive it."""
        for name, arr in (("a", a), ("b", b), ("c", c)):
            if arr.dtype != self.dtype or arr.ndim != 2 or arr.strides[1] != arr.itemsize \
                    or arr.strides[0] % arr.itemsize or arr.strides[0] // arr.itemsize < arr.shape[1]:
                raise ValueError(f"cblas gemm: operand '{name}' must be a 2-D {self.dtype} array "
                                 f"with contiguous rows, got shape {arr.shape}, strides {arr.strides}, "
                                 f"dtype {arr.dtype}.")
        (m, k), (k2, n) = a.shape, b.shape
        if k2 != k or c.shape != (m, n):
            raise ValueError(f"cblas gemm: shapes {a.shape} @ {b.shape} -> {c.shape} do not match.")
        i, s = self.int_t, self.scalar_t
        ld = lambda arr: i(arr.strides[0] // arr.itemsize)  # noqa: E731
        args = (i(_ROW_MAJOR), i(_NO_TRANS), i(_NO_TRANS), i(m), i(n), i(k), s(1.0),
                ctypes.c_void_p(a.ctypes.data), ld(a), ctypes.c_void_p(b.ctypes.data), ld(b), s(beta),
                ctypes.c_void_p(c.ctypes.data), ld(c))
        fn = self.fn
        return lambda: fn(*args)


def gemm(dtype):
    """The Gemm of numpy's OpenBLAS for float32 or float64, or None (another BLAS, or none found)."""
    dtype = np.dtype(dtype)
    if dtype not in _FOUND:
        _FOUND[dtype] = _find(dtype)
    return _FOUND[dtype]


def _find(dtype):
    names = {np.dtype(np.float32): ("cblas_sgemm", ctypes.c_float), np.dtype(np.float64): ("cblas_dgemm", ctypes.c_double)}
    if dtype not in names:
        return None
    name, scalar_t = names[dtype]
    for lib in blas_libraries():
        if lib.internal_api != "openblas" or lib.symbol is None:
            continue
        fn, config = lib.symbol(name), lib.symbol("openblas_get_config")
        if fn is None or config is None:
            continue
        config.restype = ctypes.c_char_p
        # the integer width the library was built with (numpy's wheels: 64-bit, "USE64BITINT")
        int_t = ctypes.c_int64 if b"USE64BITINT" in (config() or b"") else ctypes.c_int
        fn.restype = None
        return Gemm(fn, int_t, scalar_t, dtype)
    return None
