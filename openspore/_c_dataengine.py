"""`mindspore._c_dataengine`: the dataset engine's Tensor as MindSpore's own tests reach it (`cde.Tensor(array)`).

MindSpore's engine is C++ and this module is its binding; openspore's engine is Python and keeps numpy arrays, so
only the Tensor wrapper that user code builds directly is here: it holds one array and gives it back. As in
MindSpore, the wrapper shares memory with a C-contiguous input, and `as_array()` / `np.array(t, copy=False)` are
views of what it holds (writes through them are seen by the Tensor).

>>> import numpy as np
>>> import openspore._c_dataengine as cde
>>> t = cde.Tensor(np.array([[1, 2], [3, 4]], dtype=np.int32))
>>> print(t)
Tensor (shape: <2,2>, Type: int32)
[[1,2],[3,4]]
>>> t.as_array().tolist(), t.shape(), t.type()
([[1, 2], [3, 4]], <2,2>, int32)
>>> cde.Tensor(np.array(["ab", "c"])).type(), cde.Tensor(np.array([b"ab"])).type()
(string, bytes)
"""
import numpy as np

from .dataset.engine.checks import engine_dtype_name


class TensorShape:
    """A shape printed as MindSpore's engine prints it: `<2,2>`."""

    def __init__(self, dims):
        self._dims = tuple(int(d) for d in dims)

    def as_list(self):
        return list(self._dims)

    def is_known(self):
        """True when no dimension is unknown (-1)."""
        return all(d >= 0 for d in self._dims)

    def __eq__(self, other):
        return isinstance(other, TensorShape) and self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return "<" + ",".join(str(d) if d >= 0 else "*" for d in self._dims) + ">"


class DataType:
    """The engine's element type by name: numpy's names for numbers, `string` for str and `bytes` for bytes."""

    def __init__(self, name):
        self._name = name

    def __eq__(self, other):
        if isinstance(other, DataType):
            return self._name == other._name
        return self._name == other if isinstance(other, str) else NotImplemented

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return self._name


class Tensor:
    """One array in the engine's wrapper: `Tensor(numpy_array)`; `as_array()` gives the array back."""

    def __init__(self, array):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"For 'Tensor', the input must be a numpy.ndarray, but got {type(array).__name__}.")
        if array.dtype.kind not in "biufcUS":
            raise TypeError(f"For 'Tensor', the array's dtype {array.dtype} is not supported: numbers, bool, str or "
                            "bytes are.")
        self._array = np.ascontiguousarray(array)

    def as_array(self):
        """The held array itself (a view: writes to it change the Tensor)."""
        return self._array

    def __array__(self, dtype=None, copy=None):
        if copy is False and dtype is not None and np.dtype(dtype) != self._array.dtype:
            raise ValueError("Unable to avoid a copy while converting the Tensor to another dtype.")
        out = self._array if dtype is None else self._array.astype(dtype, copy=False)
        return out.copy() if copy else out

    def as_python(self):
        """The held values as Python lists and scalars."""
        return self._array.tolist()

    def shape(self):
        return TensorShape(self._array.shape)

    def type(self):
        return DataType(engine_dtype_name(self._array))

    def __str__(self):
        values = str(self._array.tolist()).replace(" ", "")
        return f"Tensor (shape: {self.shape()!r}, Type: {self.type()!r})\n{values}"
