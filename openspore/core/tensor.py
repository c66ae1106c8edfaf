"""Tensor: a backend array plus its MindSpore dtype, and (only under a grad transform) autodiff links.

Construction and conversion live here; the math methods (`x.sum()`, `x + y`, indexing, …) are installed by
`openspore.ops.tensor_methods`, so this layer depends on nothing above `core`.
"""
import builtins

import numpy as np

from .. import backends
from ..common import dtype as mstype
from ..common.generations import WRITES
from .tensor_format import format_values


_SUPPORTED_ELEMENTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                       "float32", "float64", "bool_", "complex64", "complex128")


def _reject_unsupported_elements(array):
    """Structured (void) or object arrays: MindSpore's TypeError naming the element type it cannot hold."""
    supported = "\n".join(f"<class 'numpy.{name}'>" for name in _SUPPORTED_ELEMENTS)
    if array.dtype.kind == "V":
        index = (0,) * array.ndim
        raise TypeError(f"initializing tensor by numpy array failed, because the element type "
                        f"'{type(array[index]) if array.size else np.void}' of array is not supported.\n"
                        f"The element index in array: {index}, numpy array: {array}.\n"
                        f"The supported element type of ndarray as follow: \n{supported}")
    raise TypeError(f"initializing tensor by numpy array failed, numpy array: {array}, data type: object.\n"
                    f"The supported element type of ndarray as follow: \n{supported}")


def _infer_numpy(input_data):
    """Python data → numpy array with MindSpore's dtype inference (facts §1.4)."""
    if isinstance(input_data, np.ndarray):
        dtype = input_data.dtype
        # structured records and objects; ml_dtypes' bfloat16 is also of kind 'V' but is a number type
        if dtype.kind == "O" or (dtype.kind == "V" and (dtype.fields is not None or dtype.name.startswith("void"))):
            _reject_unsupported_elements(input_data)
        return input_data
    if isinstance(input_data, np.generic):
        return np.asarray(input_data)
    if isinstance(input_data, builtins.bool):
        return np.asarray(input_data, dtype=np.bool_)
    if isinstance(input_data, builtins.int):
        return np.asarray(input_data, dtype=np.int64)
    if isinstance(input_data, builtins.float):
        return np.asarray(input_data, dtype=np.float32)
    if isinstance(input_data, complex):
        return np.asarray(input_data, dtype=np.complex64)
    if isinstance(input_data, (list, tuple)):
        items = [x.asnumpy() if isinstance(x, Tensor) else x for x in input_data]
        try:
            arr = np.array(items)
        except ValueError:
            raise ValueError("For 'Tensor', a nested list/tuple must be rectangular (every row the same length), "
                             f"but got {_describe(input_data)}.") from None
        if arr.dtype == np.float64 and not _contains_float64(input_data):
            arr = arr.astype(np.float32)  # Python floats → float32, as MindSpore does
        elif arr.dtype == np.complex128 and not _contains_float64(input_data):
            arr = arr.astype(np.complex64)
        if arr.dtype == object:
            raise TypeError("For 'Tensor', the nested list/tuple must be rectangular and hold numbers only.")
        return arr
    raise TypeError(f"For 'Tensor', the type of input_data should be one of ['Tensor', 'ndarray', 'str_', 'list', "
                    f"'tuple', 'float', 'int', 'bool', 'complex'], but got {type(input_data).__name__}.")


def _describe(data, limit=60):
    text = repr(data)
    return text if len(text) <= limit else text[:limit] + "..."


def _contains_float64(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            if _contains_float64(x):
                return True
        elif isinstance(x, (np.floating, np.ndarray)) and getattr(x, "dtype", None) in (np.float64, np.complex128):
            return True
        elif isinstance(x, Tensor) and x.dtype in (mstype.float64, mstype.complex128):
            return True
    return False


_new = object.__new__


class Tensor:
    """`Tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None)`.

    >>> import openspore as ms
    >>> ms.Tensor([[1., 2.], [3., 4.]]).shape
    (2, 2)
    """

    # _shape caches tuple(_data.shape): shape checks read it thousands of times per training step. Every
    # assignment of _data resets it (there are no in-place shape changes).
    __slots__ = ("_data", "_dtype", "_nodes", "_init", "_shape_hint", "_shape", "__weakref__", "__dict__")
    __array_priority__ = 100  # numpy defers to our operators (np.float32(2) * t → Tensor)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
        self._shape = None
        self._nodes = None
        self._init = None
        self._shape_hint = None
        if dtype is not None:
            dtype = mstype.to_dtype(dtype, "Tensor")
        if init is not None:
            if dtype is None or shape is None:
                raise TypeError("For 'Tensor', 'dtype' and 'shape' must be set when 'init' is given.")
            self._init, self._dtype, self._data = init, dtype, None
            self._shape_hint = tuple(shape)
            return
        if input_data is None:
            if dtype is None:
                raise TypeError("For 'Tensor', input_data is None: give 'shape' and 'dtype' (a placeholder tensor).")
            # a placeholder (core/symbol.py): None, -1 or a Symbol marks a dynamic axis, shape=None any rank
            declared = None if shape is None else tuple(shape)
            if declared is None or any(not isinstance(s, int) or s == -1 for s in declared):
                self.__dict__["_dynamic_shape"] = declared
            shape = () if declared is None else tuple(0 if not isinstance(s, int) or s == -1 else s
                                                      for s in declared)
            input_data = np.zeros(shape, dtype.np_dtype)
        backend = backends.current()
        if isinstance(input_data, Tensor):
            data = backend.adopt(input_data.data_ref())
            if dtype is not None and dtype is not input_data.dtype:
                data = backend.adopt(backend.to_numpy(data).astype(dtype.np_dtype))
            self._data = data
            self._dtype = dtype or input_data.dtype
            return
        if not isinstance(input_data, np.ndarray) and hasattr(input_data, "__array__") and not isinstance(input_data, (list, tuple)):
            if backend.is_native(input_data) or type(input_data).__module__ == "torch":
                data = backend.adopt(input_data)
                # A Tensor owns its buffer: adopting may share memory with the caller's array, so copy.
                data = data.clone() if hasattr(data, "clone") else data.copy()
                self._data = data
                self._dtype = backend.dtype_of(data)
                if dtype is not None and dtype is not self._dtype:
                    self._data = backend.adopt(backend.to_numpy(data).astype(dtype.np_dtype))
                    self._dtype = dtype
                return
            input_data = np.asarray(input_data)
        array = _infer_numpy(input_data)
        if array.dtype.kind in "US":
            raise TypeError("For 'Tensor', string data is not supported.")
        if dtype is not None:
            array = array.astype(dtype.np_dtype)
        self._data = backend.from_numpy(array, copy=True)
        self._dtype = dtype or mstype.nptype_to_dtype(array.dtype)
        declared = self.__dict__.get("_dynamic_shape", ())
        if declared != ():  # MindSpore reports a dynamic axis as -1 and an unknown rank as [-2]
            self._shape = (-2,) if declared is None else tuple(s if isinstance(s, int) else -1 for s in declared)
        elif shape is not None and tuple(shape) != tuple(array.shape):
            raise ValueError(f"For 'Tensor', the shape {tuple(shape)} does not match the data's shape {array.shape}.")

    # --- internal construction -------------------------------------------------------------------
    @staticmethod
    def _wrap(data, dtype=None):
        """Wrap a native backend array without copying (the hot path of every op)."""
        t = _new(Tensor)
        t._data = data
        t._shape = None
        t._dtype = dtype if dtype is not None else backends.current().dtype_of(data)
        t._nodes = None
        t._init = None
        return t

    def data_ref(self):
        """The native array in the active backend (materializes lazy init; converts across backends)."""
        data = self._data
        if data is None:
            self.init_data()
            data = self._data
        backend = backends.current()
        if not backend.is_native(data):
            data = self._data = backend.adopt(data)
            WRITES[0] += 1  # a new array object: frozen copies of the old one are stale (common/generations.py)
        return data

    def _alias(self):
        """A new Tensor object over the same data (graph tracing's symbolic tensors alias their IR node)."""
        return Tensor._wrap(self.data_ref(), self._dtype)

    def _rebind(self, other):
        """Make this tensor hold `other`'s value (in-place APIs over functional ops; autodiff links move along)."""
        self._set_data_ref(other.data_ref(), other.dtype)
        self._nodes = other._nodes

    def _set_data_ref(self, data, dtype=None):
        self._data = data
        self._shape = None
        self._dtype = dtype if dtype is not None else backends.current().dtype_of(data)
        WRITES[0] += 1  # announced after the write (common/generations.py)

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        if self._data is None and self._init is not None:
            from ..common.initializer import materialize  # lazy: initializer sits above core
            array = materialize(self._init, self._shape_hint, self._dtype)
            self._data = backends.current().from_numpy(array, copy=False)
            WRITES[0] += 1
        return self

    @property
    def has_init(self):
        return self._data is None and self._init is not None

    @property
    def init(self):
        return self._init

    # --- properties ------------------------------------------------------------------------------
    @property
    def shape(self):
        shape = self._shape
        if shape is None:
            data = self._data
            if data is None:
                return self._shape_hint
            shape = self._shape = tuple(data.shape)
        return shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def strides(self):
        shape, strides, acc = self.shape, [], self.itemsize
        for s in reversed(shape):
            strides.append(acc)
            acc *= s
        return tuple(reversed(strides))

    @property
    def device(self):
        return str(getattr(backends.current(), "device", "cpu"))

    # --- conversion ------------------------------------------------------------------------------
    def register_hook(self, hook_fn):
        """A hook on this tensor's gradient (core/tensor_hooks.py): `hook_fn(grad)` may return a replacement."""
        from .tensor_hooks import register_hook
        return register_hook(self, hook_fn)

    def asnumpy(self):
        """A numpy copy-or-view of the data (bfloat16 comes back as ml_dtypes.bfloat16)."""
        return backends.current().to_numpy(self.data_ref())

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        arr = self.asnumpy()
        return arr.astype(dtype) if dtype is not None else arr

    def item(self, index=None):
        arr = self.asnumpy()
        if index is None and arr.size != 1:
            raise ValueError("The tensor should have only one element, but got "
                             f"{arr.size} elements (shape {arr.shape}); pass an index to item().")
        value = arr.item() if index is None else arr.item(index)
        return float(value) if self._dtype is mstype.bfloat16 else value

    def tolist(self):
        arr = self.asnumpy()
        if self._dtype is mstype.bfloat16:
            arr = arr.astype(np.float32)
        return arr.tolist()

    def _scalar(self, kind):
        if self.size != 1:
            raise ValueError("Only one element tensors can be converted to Python scalars "
                             f"(this one has shape {self.shape}).")
        return kind(self.asnumpy().reshape(()).item())

    def __bool__(self):
        return self._scalar(builtins.bool)

    def __int__(self):
        return self._scalar(builtins.int)

    def __float__(self):
        return self._scalar(builtins.float)

    def __index__(self):
        # MindSpore: a ValueError (not numpy's TypeError) for float and multi-element tensors alike
        if self._dtype.kind not in ("int", "uint", "bool") or self.size != 1:
            raise ValueError("Only integer tensors of a single element can be converted to an index.")
        return self._scalar(builtins.int)

    def __complex__(self):
        return self._scalar(complex)

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor is not defined.")
        return shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]

    def __hash__(self):
        return id(self)

    def __reduce__(self):
        return (_rebuild, (self.asnumpy(), self._dtype))

    def __deepcopy__(self, memo):
        out = Tensor(self.asnumpy().copy(), dtype=self._dtype)
        memo[id(self)] = out
        return out

    def __repr__(self):
        if self._data is None:
            return f"Tensor(shape={list(self.shape)}, dtype={self._dtype}, value=\n<uninitialized>)"
        arr = self.asnumpy()
        if self._dtype is mstype.bfloat16:
            arr = arr.astype(np.float32)
        if arr.ndim == 0:
            value = arr.item()
            if isinstance(value, builtins.float):
                value = f"{value:g}"  # MindSpore prints scalars like a C++ stream: 28, 2.5, 3.14159
            return f"Tensor(shape=[], dtype={self._dtype}, value= {value})"
        body = format_values(arr)
        if arr.ndim == 1:  # MindSpore keeps a vector on the header line; an empty one prints nothing
            return f"Tensor(shape={list(self.shape)}, dtype={self._dtype}, value= {body if arr.size else ''})"
        return f"Tensor(shape={list(self.shape)}, dtype={self._dtype}, value=\n{body})"

    def __str__(self):
        if self._data is None:
            return repr(self)
        arr = self.asnumpy()
        if self._dtype is mstype.bfloat16:
            arr = arr.astype(np.float32)
        return str(arr)

    def __format__(self, spec):
        if self.size == 1 and spec:
            return format(self.item(), spec)
        return str(self) if not spec else format(str(self), spec)

    @staticmethod
    def from_numpy(array):
        """Zero-copy where the backend allows (C-contiguous numpy on CPU)."""
        backend = backends.current()
        data = backend.from_numpy(np.asarray(array), copy=False)
        return Tensor._wrap(data)

    def is_contiguous(self):
        return True

    def contiguous(self):
        return self


def _rebuild(array, dtype):
    return Tensor(array, dtype=dtype)


def is_tensor(x):
    return isinstance(x, Tensor)


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
    """`mindspore.tensor(...)`: same as `Tensor(...)`."""
    return Tensor(input_data, dtype, shape, init, const_arg, device)


def from_numpy(array):
    return Tensor.from_numpy(array)
