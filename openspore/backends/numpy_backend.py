"""The numpy backend: the complete reference and the lite runtime's engine. Never imports torch."""
import numpy as np

from ..common import dtype as mstype
from .base import Backend


class NumpyBackend(Backend):
    name = "numpy"
    xp = np
    device = "cpu"

    def is_native(self, arr):
        return type(arr) is np.ndarray

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
