"""`Tensor`: a named, typed host buffer that models read inputs from and write outputs into (mindspore_lite.Tensor).

>>> import numpy as np
>>> from openspore.lite import Tensor
>>> t = Tensor(np.ones((2, 3), np.float32))
>>> t.shape, t.dtype.name, t.element_num, t.data_size
([2, 3], 'FLOAT32', 6, 24)
"""
import numpy as np

from .types import DataType, Format, from_numpy_dtype, to_numpy_dtype

_NCHW = Format.NCHW  # (an enum member looked up through its class: ~0.3 µs per predict output on Python 3.11)


class Tensor:
    """Tensor(tensor=None, shape=None, dtype=None, device=None): wraps a numpy array (given as `tensor`) or
    allocates zeros of `shape` and `dtype` (a DataType)."""

    def __init__(self, tensor=None, shape=None, dtype=None, device=None, name="", format=Format.NCHW):
        if tensor is not None and not isinstance(tensor, np.ndarray):
            if isinstance(tensor, Tensor):
                tensor = tensor.get_data_to_numpy()
            else:
                raise TypeError(f"Tensor: 'tensor' must be a numpy.ndarray or a Tensor, but got "
                                f"{type(tensor).__name__}.")
        if tensor is None:
            dtype = DataType.FLOAT32 if dtype is None else dtype
            if not isinstance(dtype, DataType):
                raise TypeError(f"Tensor: 'dtype' must be a DataType, but got {type(dtype).__name__}.")
            tensor = np.zeros(tuple(shape or ()), to_numpy_dtype(dtype))
        self._data = tensor
        self.name = name
        self.format = format
        self.device = device or "cpu"

    @classmethod
    def _wrap(cls, array, name):
        """A Tensor over `array` (a numpy array, taken as is): the runtime's per-call output wrapper."""
        t = cls.__new__(cls)
        t._data, t.name, t.format, t.device = array, name, _NCHW, "cpu"
        return t

    # ---- MindSpore Lite's properties -----------------------------------------------------------------
    @property
    def shape(self):
        return list(self._data.shape)

    @shape.setter
    def shape(self, dims):
        dims = tuple(int(d) for d in dims)
        if dims != self._data.shape:
            self._data = np.zeros(dims, self._data.dtype)

    @property
    def dtype(self):
        return from_numpy_dtype(self._data.dtype)

    @property
    def element_num(self):
        return int(self._data.size)

    @property
    def data_size(self):
        return int(self._data.nbytes)

    def get_data_to_numpy(self):
        """A copy of the data as a numpy array."""
        return np.array(self._data, copy=True)

    def set_data_from_numpy(self, numpy_obj):
        """Copy `numpy_obj` in; its dtype must match and its element count must fit this tensor's."""
        if not isinstance(numpy_obj, np.ndarray):
            raise TypeError(f"set_data_from_numpy: expected a numpy.ndarray, but got {type(numpy_obj).__name__}.")
        if numpy_obj.dtype != self._data.dtype:
            raise TypeError(f"set_data_from_numpy: tensor '{self.name}' holds {self.dtype.name}, but the array is "
                            f"{numpy_obj.dtype}; cast it first (e.g. arr.astype(np.{self._data.dtype})).")
        if numpy_obj.size != self._data.size:
            raise RuntimeError(f"set_data_from_numpy: tensor '{self.name}' has shape {self.shape} "
                               f"({self.element_num} elements), but the array has shape {list(numpy_obj.shape)} "
                               f"({numpy_obj.size} elements); call Model.resize first.")
        self._data = np.ascontiguousarray(numpy_obj).reshape(self._data.shape).copy()

    def array(self):
        """The data without a copy (what the runtime reads)."""
        return self._data

    def __repr__(self):
        return f"Tensor(name={self.name!r}, shape={self.shape}, dtype={self.dtype.name})"
