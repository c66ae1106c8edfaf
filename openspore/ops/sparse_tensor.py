"""MindSpore's sparse tensor classes: `COOTensor`, `CSRTensor`, `RowTensor` and the 1.x `SparseTensor`.

Each is an immutable record of Tensors plus a dense `shape`, and a namedtuple underneath: the compiler's call
signatures and graph inputs/outputs already flatten namedtuples into their Tensor leaves (runtime/signature.py,
compiler/frontend/spec.py), so sparse tensors pass into and out of Cells in PyNative and GRAPH_MODE alike, and a
graph keyed on them recompiles only when a leaf's shape or dtype (or the dense shape) changes. Their methods are
the `coo_*` / `csr_*` functions (ops/function/sparse_func.py), written with primitives, so gradients reach
`values`.

>>> import openspore as ms
>>> from openspore import Tensor, COOTensor
>>> x = COOTensor(Tensor([[0, 1], [1, 2]], dtype=ms.int32), Tensor([1, 2], dtype=ms.float32), (3, 4))
>>> print(x.values)
[1. 2.]
>>> x.to_dense().asnumpy().tolist()
[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.tensor import Tensor

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor"]


class _Functions:
    """The sparse functions by name; their modules build these classes, so they are imported on first use."""

    def __getattr__(self, name):
        from .function import sparse_func, sparse_unary_func
        return getattr(sparse_func, name, None) or getattr(sparse_unary_func, name)


_FUNCTIONS = _Functions()


def _f():
    return _FUNCTIONS


def _tensor(cls, name, value, kinds=None, rank=None):
    if not (isinstance(value, Tensor) or (hasattr(value, "shape") and hasattr(value, "dtype"))):
        raise TypeError(f"For '{cls}', the '{name}' must be a Tensor, but got {type(value).__name__}.")
    if kinds is not None and value.dtype.kind not in kinds:
        raise TypeError(f"For '{cls}', the '{name}' must be an int16/int32/int64 Tensor, but got "
                        f"Tensor[{value.dtype}].")
    if rank is not None and len(value.shape) != rank:
        raise ValueError(f"For '{cls}', the '{name}' must be a {rank}-D Tensor, but got shape {list(value.shape)}.")
    return value


def _dense_shape(cls, name, shape):
    if isinstance(shape, Tensor):
        shape = tuple(shape.asnumpy().tolist())
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0 for d in shape):
        raise TypeError(f"For '{cls}', the '{name}' must be a tuple of positive ints, but got {shape!r}.")
    return tuple(int(d) for d in shape)


def _same(a, b):
    """Sizes agree, where -1 (a value-dependent size in a graph) agrees with anything."""
    return a == b or a < 0 or b < 0


def _show(kind, shape, dtype, parts):
    inner = ", ".join(f"{name}={value!r}" for name, value in parts)
    return f"{kind}(shape={list(shape)}, dtype={dtype}, {inner})"


class _Sparse(tuple):
    """Shared members: immutable fields by name, dtype/size/ndim, repr, and tuple semantics kept out of sight."""

    __slots__ = ()
    _fields = ()

    def __getnewargs__(self):
        return tuple(self)

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def size(self):
        """Number of stored values (elements of `values`)."""
        return self.values.size

    @property
    def itemsize(self):
        return np.dtype(mstype.dtype_to_nptype(self.dtype)).itemsize

    @property
    def ndim(self):
        return len(self.shape)

    def to_tuple(self):
        return tuple(self)

    def __repr__(self):
        return _show(type(self).__name__, self.shape, self.dtype,
                     [(n, v) for n, v in zip(self._fields, self) if n not in ("shape", "dense_shape")])

    __str__ = __repr__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__

    def __bool__(self):
        return True


class COOTensor(_Sparse):
    """`COOTensor(indices=None, values=None, shape=None, coo_tensor=None)`: the values `values[i]` at
    `indices[i]` (an [N, ndims] int Tensor) of a dense tensor of `shape`; other entries are zero. Duplicate
    coordinates are kept (they add up in `to_dense`; `coalesce()` merges them)."""

    __slots__ = ()
    _fields = ("indices", "values", "shape")

    def __new__(cls, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"For 'COOTensor', the 'coo_tensor' must be a COOTensor, but got "
                                f"{type(coo_tensor).__name__}.")
            return tuple.__new__(cls, tuple(coo_tensor))
        _tensor("COOTensor", "indices", indices, ("int", "uint"), 2)
        _tensor("COOTensor", "values", values, None, 1)
        shape = _dense_shape("COOTensor", "shape", shape)
        if not _same(indices.shape[0], values.shape[0]):
            raise ValueError(f"For 'COOTensor', the 'values' must have one entry per row of 'indices' "
                             f"({indices.shape[0]}), but got shape {list(values.shape)}.")
        if indices.shape[1] != len(shape):
            raise ValueError(f"For 'COOTensor', the 'shape' {shape} must have one size per column of 'indices' "
                             f"({indices.shape[1]}).")
        return tuple.__new__(cls, (indices, values, shape))

    indices = property(lambda self: tuple.__getitem__(self, 0), doc="[N, ndims] int Tensor of coordinates")
    values = property(lambda self: tuple.__getitem__(self, 1), doc="[N] Tensor of the stored values")
    shape = property(lambda self: tuple.__getitem__(self, 2), doc="the dense shape (tuple of ints)")

    def to_dense(self):
        return _f().coo_to_dense(self)

    def to_csr(self):
        return _f().coo_to_csr(self)

    def coalesce(self):
        return _f().coo_coalesce(self)

    def astype(self, dtype):
        return COOTensor(self.indices, self.values.astype(dtype), self.shape)

    def abs(self):
        return _f().coo_abs(self)

    def add(self, other, thresh):
        return _f().coo_add(self, other, thresh)

    def __neg__(self):
        return _f().coo_neg(self)

    def __add__(self, other):
        if isinstance(other, COOTensor):
            return _f().coo_add(self, other, 0)
        return _f().coo_dense_add(self, other)

    def __sub__(self, other):
        return self + (-other)

    def __mul__(self, other):
        return _f().coo_mul_dense(self, other)

    def __truediv__(self, other):
        return _f().coo_div_dense(self, other)

    __div__ = __truediv__


class CSRTensor(_Sparse):
    """`CSRTensor(indptr=None, indices=None, values=None, shape=None, csr_tensor=None)`: compressed sparse rows.
    Row r holds the column indices `indices[indptr[r]:indptr[r+1]]` and their `values`; `values` may have
    trailing dims (`values.shape[1:] == shape[2:]`)."""

    __slots__ = ()
    _fields = ("indptr", "indices", "values", "shape")

    def __new__(cls, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"For 'CSRTensor', the 'csr_tensor' must be a CSRTensor, but got "
                                f"{type(csr_tensor).__name__}.")
            return tuple.__new__(cls, tuple(csr_tensor))
        _tensor("CSRTensor", "indptr", indptr, ("int", "uint"), 1)
        _tensor("CSRTensor", "indices", indices, ("int", "uint"), 1)
        _tensor("CSRTensor", "values", values)
        shape = _dense_shape("CSRTensor", "shape", shape)
        if len(shape) < 2:
            raise ValueError(f"For 'CSRTensor', the 'shape' must have at least 2 sizes, but got {shape}.")
        if not _same(indptr.shape[0], shape[0] + 1):
            raise ValueError(f"For 'CSRTensor', the 'indptr' must have shape[0] + 1 = {shape[0] + 1} entries, but "
                             f"got shape {list(indptr.shape)}.")
        if len(values.shape) < 1 or not _same(values.shape[0], indices.shape[0]):
            raise ValueError(f"For 'CSRTensor', the 'values' must have one entry per element of 'indices' "
                             f"({indices.shape[0]}), but got shape {list(values.shape)}.")
        if tuple(values.shape[1:]) != shape[2:]:
            raise ValueError(f"For 'CSRTensor', the trailing dims of 'values' {list(values.shape[1:])} must equal "
                             f"shape[2:] = {list(shape[2:])}.")
        return tuple.__new__(cls, (indptr, indices, values, shape))

    indptr = property(lambda self: tuple.__getitem__(self, 0), doc="[rows + 1] int Tensor of row starts")
    indices = property(lambda self: tuple.__getitem__(self, 1), doc="[N] int Tensor of column indices")
    values = property(lambda self: tuple.__getitem__(self, 2), doc="[N, ...] Tensor of the stored values")
    shape = property(lambda self: tuple.__getitem__(self, 3), doc="the dense shape (tuple of ints)")

    def to_dense(self):
        return _f().csr_to_dense(self)

    def to_coo(self):
        return _f().csr_to_coo(self)

    def astype(self, dtype):
        return CSRTensor(self.indptr, self.indices, self.values.astype(dtype), self.shape)

    def abs(self):
        return _f().csr_abs(self)

    def add(self, b, alpha, beta):
        return _f().csr_add(self, b, alpha, beta)

    def mv(self, dense_vector):
        return _f().csr_mv(self, dense_vector)

    def mm(self, matrix):
        if isinstance(matrix, CSRTensor):
            return _f().csr_mm(self, matrix)
        return _f().csr_mm_dense(self, matrix)

    def sum(self, axis):
        return _f().csr_reduce_sum(self, axis)

    def __neg__(self):
        return _f().csr_neg(self)

    def __add__(self, other):
        if isinstance(other, CSRTensor):
            one = Tensor(np.ones((), mstype.dtype_to_nptype(self.dtype)))
            return _f().csr_add(self, other, one, one)
        return self.to_dense() + other

    def __sub__(self, other):
        return self + (-other)

    def __mul__(self, other):
        return _f().csr_mul(self, other)

    def __truediv__(self, other):
        return _f().csr_div(self, other)

    __div__ = __truediv__


class RowTensor(_Sparse):
    """`RowTensor(indices=None, values=None, shape=None, row_tensor=None)`: the rows `values[i]` of a dense
    tensor of `shape` (read back as `dense_shape`) at row `indices[i]`; other rows are zero: the gradient of a
    gather or an embedding lookup. `dense_shape=` is accepted for `shape` (the 1.x keyword)."""

    __slots__ = ()
    _fields = ("indices", "values", "dense_shape")

    def __new__(cls, indices=None, values=None, shape=None, row_tensor=None, dense_shape=None):
        dense_shape = shape if dense_shape is None else dense_shape
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"For 'RowTensor', the 'row_tensor' must be a RowTensor, but got "
                                f"{type(row_tensor).__name__}.")
            return tuple.__new__(cls, tuple(row_tensor))
        _tensor("RowTensor", "indices", indices, ("int", "uint"), 1)
        _tensor("RowTensor", "values", values)
        dense_shape = _dense_shape("RowTensor", "dense_shape", dense_shape)
        if len(values.shape) != len(dense_shape) or not _same(values.shape[0], indices.shape[0]) \
                or tuple(values.shape[1:]) != dense_shape[1:]:
            raise ValueError(f"For 'RowTensor', the 'values' must have shape [len(indices)] + dense_shape[1:] = "
                             f"{[indices.shape[0]] + list(dense_shape[1:])}, but got {list(values.shape)}.")
        return tuple.__new__(cls, (indices, values, dense_shape))

    indices = property(lambda self: tuple.__getitem__(self, 0), doc="[N] int Tensor of row numbers")
    values = property(lambda self: tuple.__getitem__(self, 1), doc="[N, ...] Tensor of rows")
    dense_shape = property(lambda self: tuple.__getitem__(self, 2), doc="the dense shape (tuple of ints)")
    shape = dense_shape

    def to_dense(self):
        return _f().row_tensor_to_dense(self)


class SparseTensor(_Sparse):
    """`SparseTensor(indices, values, shape)`: MindSpore 1.x's COO sparse tensor (kept for old scripts; prefer
    COOTensor): `values[i]` at `indices[i]`."""

    __slots__ = ()
    _fields = ("indices", "values", "shape")

    def __new__(cls, indices, values, shape):
        _tensor("SparseTensor", "indices", indices, ("int", "uint"), 2)
        _tensor("SparseTensor", "values", values, None, 1)
        shape = _dense_shape("SparseTensor", "shape", shape)
        if indices.shape[1] != len(shape) or not _same(indices.shape[0], values.shape[0]):
            raise ValueError(f"For 'SparseTensor', 'indices' {list(indices.shape)}, 'values' "
                             f"{list(values.shape)} and 'shape' {shape} do not fit: indices is [N, len(shape)] "
                             "and values is [N].")
        return tuple.__new__(cls, (indices, values, shape))

    indices = property(lambda self: tuple.__getitem__(self, 0))
    values = property(lambda self: tuple.__getitem__(self, 1))
    shape = property(lambda self: tuple.__getitem__(self, 2))
