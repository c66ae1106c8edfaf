"""The numpy backend: the complete reference and the lite runtime's engine. Never imports torch."""
import numpy as np

from ..common import dtype as mstype
from .base import Backend


class NumpyBackend(Backend):
    name = "numpy"
    xp = np
    device = "cpu"
    native_type = np.ndarray

    def kernel(self, prim):
        fn = self._kernels.get(type(prim))
        if fn is None:
            raw = super().kernel(prim)

            def fn(p, xp, *arrays):
                # IEEE results (inf, nan) are the answer, as on torch: no RuntimeWarnings from numpy
                with np.errstate(all="ignore"):
                    out = raw(p, xp, *arrays)
                if isinstance(out, tuple):
                    return tuple(np.asarray(o) if isinstance(o, np.generic) else o for o in out)
                return np.asarray(out) if isinstance(out, np.generic) else out
            self._kernels[type(prim)] = fn
        return fn

    def is_native(self, arr):
        return type(arr) is np.ndarray

    def byte_buffer(self, nbytes):
        return np.empty(nbytes, np.uint8)

    def view_bytes(self, buffer, offset, shape, dtype):
        count = int(np.prod(shape, dtype=np.int64))
        return buffer[offset:offset + count * dtype.itemsize].view(dtype.np_dtype).reshape(tuple(shape))

    def copy_into(self, view, value):
        if value is view or type(value) is not np.ndarray or value.dtype != view.dtype or value.shape != view.shape:
            return value
        np.copyto(view, value)
        return view

    def in_buffer(self, buffer, arr):
        return type(arr) is np.ndarray and np.may_share_memory(arr, buffer)

    def from_numpy(self, array, dtype=None, copy=True):
        array = np.array(array, copy=copy) if copy else np.asarray(array)
        if dtype is not None and array.dtype != dtype.np_dtype:
            array = array.astype(dtype.np_dtype)
        return array

    def to_numpy(self, arr):
        return arr

    def dtype_of(self, arr):
        return mstype.nptype_to_dtype(arr.dtype)

    def native_dtype(self, dtype):
        return dtype.np_dtype
