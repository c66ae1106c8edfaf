"""Sparse tensor functions (`ops.csr_mv`, `ops.coo_add`, `ops.csr2coo`, `ops.dense_to_sparse_csr`, ...): the
conversions, products and reductions behind COOTensor / CSRTensor, written with primitives (SparseToDense,
Coalesce, gathers and segment sums), so gradients reach the `values` of every sparse operand.

Sizes that depend on index values (the entries of a sum of two sparse tensors, the nonzeros of a dense tensor)
are read in PyNative; a graph needs them fixed, so those few functions are PyNative-only and say so.

>>> import openspore as ms
>>> from openspore import Tensor, CSRTensor
>>> csr = CSRTensor(Tensor([0, 1, 2], ms.int32), Tensor([0, 1], ms.int32), Tensor([2., 1.]), (2, 4))
>>> print(ms.ops.csr_mv(csr, Tensor([[1.], [1.], [1.], [1.]])))
[[2.]
 [1.]]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import PRIMITIVES
from ...core.tensor import Tensor
from ..sparse_tensor import COOTensor, CSRTensor


class _Functional:
    """The whole functional API by name (`F.unsorted_segment_sum`, ...), looked up on use: this module is
    imported by the package that defines those names."""

    def __getattr__(self, name):
        from .. import function
        return getattr(function, name)


F = _Functional()

__all__ = ["csr2coo", "coo2csr", "csr_to_coo", "csr_to_dense", "coo_to_dense", "coo_to_csr", "coalesce",
           "dense_to_sparse_coo", "dense_to_sparse_csr", "csr_mv", "csr_mm", "csr_reduce_sum", "csr_gather",
           "csr_mul", "csr_div", "csr_add", "csr_softmax", "coo_add", "coo_concat", "sparse_segment_mean"]


def _sparse(op, name, value, kind):
    if not isinstance(value, kind):
        raise TypeError(f"For '{op}', the '{name}' must be a {kind.__name__}, but got {type(value).__name__}.")
    return value


def _tensor(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, but got {type(value).__name__}.")
    return value


def _concrete(op, what, tensor):
    """The numpy value of a Tensor whose values decide a size; a traced (graph) value cannot."""
    try:
        return tensor.asnumpy()
    except Exception as exc:
        raise RuntimeError(f"For '{op}', the result's size depends on the values of {what}, which a graph does "
                           "not know when it is built: call it in PyNative mode.") from exc


def _column(x, k):
    return F.reshape(F.gather(x, Tensor(np.array([k], np.int64)), 1), (-1,))


# ---- index conversions -------------------------------------------------------------------------------
def csr2coo(indptr, length):
    """The row index of each of the `length` stored entries of a CSR tensor with row pointers `indptr`.

    >>> import openspore as ms
    >>> ms.ops.csr2coo(ms.Tensor([0, 2, 2, 3], ms.int32), 3).asnumpy().tolist()
    [0, 0, 2]
    """
    _tensor("csr2coo", "indptr", indptr)
    if len(indptr.shape) != 1 or indptr.dtype.kind not in ("int", "uint"):
        raise ValueError(f"For 'csr2coo', the 'indptr' must be a 1-D int Tensor, but got Tensor[{indptr.dtype}] of "
                         f"shape {list(indptr.shape)}.")
    length = int(length)
    rows = indptr.shape[0] - 1
    # entry k belongs to the number of rows r >= 1 whose start indptr[r] <= k: mark each start, then cumsum
    starts = F.reshape(F.clamp(F.cast(indptr[1:rows], mstype.int32), 0, length), (-1, 1))
    marks = F.tensor_scatter_add(F.zeros((length + 1,), mstype.int32), starts,
                                 F.ones((max(rows - 1, 0),), mstype.int32))
    return F.cast(F.cumsum(marks, 0)[:length], indptr.dtype)


def coo2csr(row_indices, height):
    """Row pointers (length height + 1) of the row-sorted row indices of a COO tensor.

    >>> import openspore as ms
    >>> ms.ops.coo2csr(ms.Tensor([0, 0, 2], ms.int32), 3).asnumpy().tolist()
    [0, 2, 2, 3]
    """
    _tensor("coo2csr", "row_indices", row_indices)
    if len(row_indices.shape) != 1 or row_indices.dtype.kind not in ("int", "uint"):
        raise ValueError(f"For 'coo2csr', the 'row_indices' must be a 1-D int Tensor, but got "
                         f"Tensor[{row_indices.dtype}] of shape {list(row_indices.shape)}.")
    height = int(height)
    counts = F.tensor_scatter_add(F.zeros((height,), mstype.int32), F.reshape(F.cast(row_indices, mstype.int32),
                                                                           (-1, 1)),
                                  F.ones_like(F.cast(row_indices, mstype.int32)))
    return F.cast(F.concat((F.zeros((1,), mstype.int32), F.cumsum(counts, 0)), 0), row_indices.dtype)


def _rows_of(indptr, entries):
    """csr2coo(indptr, len(entries)); inside a graph the count may be value-dependent (-1, after a sum of sparse
    tensors): then entry k's row is the number of row starts r >= 1 with indptr[r] <= k, counted by comparison."""
    if entries.shape[0] >= 0:
        return csr2coo(indptr, entries.shape[0])
    position = F.cumsum(F.ones_like(F.cast(entries, mstype.int32)), 0) - 1
    rows = indptr.shape[0] - 1
    if rows <= 1:
        return F.cast(position * 0, indptr.dtype)
    starts = F.cast(indptr[1:rows], mstype.int32)
    passed = F.cast(F.expand_dims(position, 1) >= F.expand_dims(starts, 0), mstype.int32)
    return F.cast(F.reduce_sum(passed, 1), indptr.dtype)


def _coo_positions(csr):
    rows = _rows_of(csr.indptr, csr.indices)
    return F.stack((F.cast(rows, csr.indices.dtype), csr.indices), 1)


def csr_to_coo(tensor):
    """The COOTensor holding the entries of a 2-D CSRTensor."""
    _sparse("csr_to_coo", "tensor", tensor, CSRTensor)
    if len(tensor.shape) != 2:
        raise ValueError(f"For 'csr_to_coo', the CSRTensor must be 2-D, but got shape {tensor.shape}.")
    return COOTensor(_coo_positions(tensor), tensor.values, tensor.shape)


def csr_to_dense(csr_tensor):
    """The dense Tensor of a CSRTensor (trailing value dims included)."""
    _sparse("csr_to_dense", "csr_tensor", csr_tensor, CSRTensor)
    return F.scatter_nd(_coo_positions(csr_tensor), csr_tensor.values, csr_tensor.shape)


def coo_to_dense(coo_tensor):
    _sparse("coo_to_dense", "coo_tensor", coo_tensor, COOTensor)
    return PRIMITIVES["SparseToDense"]()(coo_tensor.indices, coo_tensor.values, coo_tensor.shape)


def _row_major_order(indices, shape):
    offsets = F.zeros((indices.shape[0],), mstype.int64)
    for d, size in enumerate(shape):
        offsets = offsets * size + F.cast(_column(indices, d), mstype.int64)
    return F.argsort(offsets)


def coo_to_csr(coo_tensor):
    """The CSRTensor of a 2-D COOTensor (entries sorted by row, then column)."""
    _sparse("coo_to_csr", "coo_tensor", coo_tensor, COOTensor)
    if len(coo_tensor.shape) != 2:
        raise ValueError(f"For 'coo_to_csr', the COOTensor must be 2-D, but got shape {coo_tensor.shape}.")
    order = _row_major_order(coo_tensor.indices, coo_tensor.shape)
    indices = F.gather(coo_tensor.indices, order, 0)
    values = F.gather(coo_tensor.values, order, 0)
    indptr = coo2csr(_column(indices, 0), coo_tensor.shape[0])
    return CSRTensor(indptr, _column(indices, 1), values, coo_tensor.shape)


def coalesce(x_indices, x_values, x_shape):
    """(indices [R, M], values [M], shape): duplicate coordinates of a sparse tensor summed, sorted row-major."""
    return PRIMITIVES["Coalesce"]()(x_indices, x_values, x_shape)


def coo_coalesce(coo_tensor):
    _sparse("COOTensor.coalesce", "self", coo_tensor, COOTensor)
    shape = Tensor(np.array(coo_tensor.shape, np.int64))
    indices, values, _ = coalesce(F.transpose(coo_tensor.indices, (1, 0)), coo_tensor.values, shape)
    return COOTensor(F.transpose(indices, (1, 0)), values, coo_tensor.shape)


def dense_to_sparse_coo(tensor):
    """The COOTensor of the nonzero entries of a dense Tensor (PyNative: their number depends on the values)."""
    _tensor("dense_to_sparse_coo", "tensor", tensor)
    _concrete("dense_to_sparse_coo", "'tensor'", tensor)
    indices = F.nonzero(tensor)
    return COOTensor(indices, F.gather_nd(tensor, indices), tuple(tensor.shape))


def dense_to_sparse_csr(tensor):
    """The CSRTensor of the nonzero entries of a 2-D dense Tensor (PyNative)."""
    _tensor("dense_to_sparse_csr", "tensor", tensor)
    if len(tensor.shape) != 2:
        raise ValueError(f"For 'dense_to_sparse_csr', the 'tensor' must be 2-D, but got shape {list(tensor.shape)}.")
    return coo_to_csr(dense_to_sparse_coo(tensor))


# ---- products and reductions -------------------------------------------------------------------------
def _rows_cols(csr):
    return _rows_of(csr.indptr, csr.indices), csr.indices


def csr_mv(csr_tensor, dense_vector):
    """CSRTensor [M, N] times a dense [N, 1] (or [N]) Tensor: a dense [M, 1] (or [M]) Tensor."""
    _sparse("csr_mv", "csr_tensor", csr_tensor, CSRTensor)
    _tensor("csr_mv", "dense_vector", dense_vector)
    if len(csr_tensor.shape) != 2 or len(dense_vector.shape) not in (1, 2) or \
            dense_vector.shape[0] != csr_tensor.shape[1] or (len(dense_vector.shape) == 2 and dense_vector.shape[1] != 1):
        raise ValueError(f"For 'csr_mv', the 'dense_vector' must have shape ({csr_tensor.shape[-1]}, 1) to multiply "
                         f"a CSRTensor of shape {csr_tensor.shape}, but got {list(dense_vector.shape)}.")
    return csr_mm_dense(csr_tensor, dense_vector, "csr_mv")


def csr_mm_dense(csr_tensor, dense, op="CSRTensor.mm"):
    """CSRTensor [M, K] @ dense [K, ...]: each stored value scales its column's dense row into its own row."""
    if dense.shape[0] != csr_tensor.shape[1]:
        raise ValueError(f"For '{op}', the dense operand must have {csr_tensor.shape[1]} rows to multiply a "
                         f"CSRTensor of shape {csr_tensor.shape}, but got shape {list(dense.shape)}.")
    rows, cols = _rows_cols(csr_tensor)
    picked = F.gather(dense, cols, 0)
    scale = F.reshape(csr_tensor.values, (-1,) + (1,) * (len(dense.shape) - 1))
    return F.unsorted_segment_sum(picked * scale, rows, csr_tensor.shape[0])


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """op(a) @ op(b) for two 2-D CSRTensors (a CSRTensor; PyNative, its structure depends on the indices), or a
    CSRTensor and a dense Tensor (a dense Tensor)."""
    _sparse("csr_mm", "a", a, CSRTensor)
    if not isinstance(b, CSRTensor):
        left = F.transpose(a.to_dense(), (1, 0)) if (trans_a or adjoint_a) else a.to_dense()
        right = F.transpose(b, (1, 0)) if (trans_b or adjoint_b) else b
        return F.matmul(left, right)
    dense_a, dense_b = a.to_dense(), b.to_dense()
    if trans_a or adjoint_a:
        dense_a = F.transpose(dense_a, (1, 0))
    if trans_b or adjoint_b:
        dense_b = F.transpose(dense_b, (1, 0))
    if dense_a.shape[1] != dense_b.shape[0]:
        raise ValueError(f"For 'csr_mm', the inner sizes differ: op(a) is {list(dense_a.shape)} and op(b) is "
                         f"{list(dense_b.shape)}.")
    # the product's stored entries: where some stored a[i, k] meets some stored b[k, j]
    struct_a = _structure("csr_mm", a, trans_a or adjoint_a)
    struct_b = _structure("csr_mm", b, trans_b or adjoint_b)
    rows, cols = np.nonzero((struct_a.astype(np.int64) @ struct_b.astype(np.int64)) > 0)
    positions = Tensor(np.stack([rows, cols], 1).astype(np.int64))
    values = F.gather_nd(F.matmul(dense_a, dense_b), positions)
    shape = (dense_a.shape[0], dense_b.shape[1])
    return CSRTensor(Tensor(np.searchsorted(rows, np.arange(shape[0] + 1)).astype(np.int32)),
                     Tensor(cols.astype(np.int32)), values, shape)


def _structure(op, csr, transpose):
    indptr = _concrete(op, "the CSRTensor indices", csr.indptr)
    cols = _concrete(op, "the CSRTensor indices", csr.indices)
    mask = np.zeros(csr.shape[:2], bool)
    mask[np.repeat(np.arange(csr.shape[0]), np.diff(indptr)), cols] = True
    return mask.T if transpose else mask


def csr_reduce_sum(csr_tensor, axis):
    """Sum of a 2-D CSRTensor over `axis` (0 or 1; negative counts from the end), keeping it as a size-1 dim."""
    _sparse("csr_reduce_sum", "csr_tensor", csr_tensor, CSRTensor)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -2 <= axis <= 1:
        raise ValueError(f"For 'csr_reduce_sum', the 'axis' must be 0, 1, -1 or -2, but got {axis!r}.")
    rows, cols = _rows_cols(csr_tensor)
    m, n = csr_tensor.shape[:2]
    trailing = tuple(csr_tensor.shape[2:])
    if axis % 2 == 1:
        return F.reshape(F.unsorted_segment_sum(csr_tensor.values, rows, m), (m, 1) + trailing)
    return F.reshape(F.unsorted_segment_sum(csr_tensor.values, F.cast(cols, mstype.int32), n), (1, n) + trailing)


def csr_gather(indptr, indices, dense, shape):
    """The entries of `dense` at the positions of a CSR structure (indptr, indices) of `shape`: a values Tensor."""
    _tensor("csr_gather", "dense", dense)
    rows = _rows_of(indptr, indices)
    positions = F.stack((F.cast(rows, indices.dtype), indices), 1)
    if tuple(dense.shape[:2]) != tuple(shape[:2]):
        raise ValueError(f"For 'csr_gather', the 'dense' shape {list(dense.shape)} must start with the CSR shape "
                         f"{tuple(shape)[:2]}.")
    return F.gather_nd(dense, positions)


def _at_entries(op, csr, dense):
    """`dense` broadcast to the CSRTensor's shape, read at its stored entries."""
    _tensor(op, "y", dense)
    full = F.broadcast_to(dense, csr.shape) if tuple(dense.shape) != csr.shape else dense
    return csr_gather(csr.indptr, csr.indices, full, csr.shape)


def csr_mul(x, y):
    """CSRTensor x times the dense y (broadcast to x's shape) at x's stored entries: a CSRTensor."""
    _sparse("csr_mul", "x", x, CSRTensor)
    return CSRTensor(x.indptr, x.indices, x.values * _at_entries("csr_mul", x, y), x.shape)


def csr_div(x, y):
    """CSRTensor x divided by the dense y (broadcast to x's shape) at x's stored entries: a CSRTensor."""
    _sparse("csr_div", "x", x, CSRTensor)
    return CSRTensor(x.indptr, x.indices, x.values / _at_entries("csr_div", x, y), x.shape)


def _merged(op, first, second, shape):
    """Coalesce the entries of two COO operands given as (indices [N, 2], values) pairs."""
    indices = F.concat((first[0], F.cast(second[0], first[0].dtype)), 0)
    values = F.concat((first[1], F.cast(second[1], first[1].dtype)), 0)
    dtype = values.dtype
    if dtype.kind != "float":  # Coalesce sums floats (as MindSpore's does): integers pass through float64 exactly
        values = F.cast(values, mstype.float64)
    merged, summed, _ = coalesce(F.transpose(indices, (1, 0)), values, Tensor(np.array(shape, np.int64)))
    return F.transpose(merged, (1, 0)), F.cast(summed, dtype) if summed.dtype is not dtype else summed


def csr_add(a, b, alpha, beta):
    """alpha*a + beta*b for two CSRTensors of the same shape: a CSRTensor (PyNative)."""
    _sparse("csr_add", "a", a, CSRTensor)
    _sparse("csr_add", "b", b, CSRTensor)
    if a.shape != b.shape:
        raise ValueError(f"For 'csr_add', 'a' and 'b' must have the same shape, but got {a.shape} and {b.shape}.")
    indices, values = _merged("csr_add", (_coo_positions(a), a.values * alpha), (_coo_positions(b), b.values * beta),
                              a.shape)
    indptr = coo2csr(_column(indices, 0), a.shape[0])
    return CSRTensor(F.cast(indptr, a.indptr.dtype), F.cast(_column(indices, 1), a.indices.dtype), values, a.shape)


def csr_softmax(logits, dtype=None):
    """Softmax over the stored entries of each row of a 2-D CSRTensor: a CSRTensor of the same structure."""
    _sparse("csr_softmax", "logits", logits, CSRTensor)
    values = logits.values if dtype is None else F.cast(logits.values, dtype)
    rows = _rows_of(logits.indptr, logits.indices)
    peak = F.gather(F.unsorted_segment_max(F.stop_gradient(values), rows, logits.shape[0]), rows, 0)
    shifted = F.exp(values - peak)
    total = F.gather(F.unsorted_segment_sum(shifted, rows, logits.shape[0]), rows, 0)
    return CSRTensor(logits.indptr, logits.indices, shifted / total, logits.shape)


def coo_add(x1, x2, thresh):
    """x1 + x2 for two COOTensors of the same shape, as a coalesced COOTensor keeping the entries whose magnitude
    is at least `thresh` (PyNative), or x1 + a dense x2 as a dense Tensor."""
    _sparse("coo_add", "x1", x1, COOTensor)
    if isinstance(x2, Tensor):
        return coo_dense_add(x1, x2)
    _sparse("coo_add", "x2", x2, COOTensor)
    if x1.shape != x2.shape:
        raise ValueError(f"For 'coo_add', 'x1' and 'x2' must have the same shape, but got {x1.shape} and {x2.shape}.")
    indices, values = _merged("coo_add", (x1.indices, x1.values), (x2.indices, x2.values), x1.shape)
    limit = float(np.asarray(_concrete("coo_add", "'thresh'", thresh) if isinstance(thresh, Tensor) else thresh))
    if limit <= 0:  # every magnitude passes: no value-dependent filtering, so graphs can take this path too
        return COOTensor(F.cast(indices, x1.indices.dtype), values, x1.shape)
    magnitude = _concrete("coo_add", "the summed values (thresh > 0 drops some)", F.abs(values))
    kept = np.nonzero(magnitude >= limit)[0]
    if kept.shape[0] != magnitude.shape[0]:
        keep = Tensor(kept.astype(np.int64))
        indices, values = F.gather(indices, keep, 0), F.gather(values, keep, 0)
    return COOTensor(F.cast(indices, x1.indices.dtype), values, x1.shape)


def coo_dense_add(x1, x2):
    """COOTensor + dense Tensor: a dense Tensor."""
    return PRIMITIVES["SparseTensorDenseAdd"]()(x1.indices, x1.values, Tensor(np.array(x1.shape, np.int64)),
                                                F.broadcast_to(x2, x1.shape))


def coo_mul_dense(x, y):
    full = F.broadcast_to(y, x.shape) if tuple(y.shape) != x.shape else y
    return COOTensor(x.indices, x.values * F.gather_nd(full, x.indices), x.shape)


def coo_div_dense(x, y):
    full = F.broadcast_to(y, x.shape) if tuple(y.shape) != x.shape else y
    return COOTensor(x.indices, x.values / F.gather_nd(full, x.indices), x.shape)


def coo_concat(sp_input, concat_dim=0):
    """COOTensors joined along `concat_dim` (other dims equal); entries sorted row-major.

    >>> import openspore as ms
    >>> a = ms.COOTensor(ms.Tensor([[0, 1]], ms.int64), ms.Tensor([1.]), (2, 2))
    >>> b = ms.COOTensor(ms.Tensor([[1, 0]], ms.int64), ms.Tensor([2.]), (2, 3))
    >>> ms.ops.coo_concat((a, b), 1).indices.asnumpy().tolist()
    [[0, 1], [1, 2]]
    """
    if not isinstance(sp_input, (tuple, list)) or len(sp_input) < 2 or \
            not all(isinstance(x, COOTensor) for x in sp_input):
        raise TypeError(f"For 'coo_concat', the 'sp_input' must be a tuple of at least 2 COOTensors, but got "
                        f"{type(sp_input).__name__}.")
    rank = len(sp_input[0].shape)
    if isinstance(concat_dim, bool) or not isinstance(concat_dim, int) or not -rank <= concat_dim < rank:
        raise ValueError(f"For 'coo_concat', the 'concat_dim' must be an int in [{-rank}, {rank}), but got "
                         f"{concat_dim!r}.")
    dim = concat_dim % rank
    for k, x in enumerate(sp_input):
        if len(x.shape) != rank or any(a != b for d, (a, b) in enumerate(zip(x.shape, sp_input[0].shape))
                                       if d != dim):
            raise ValueError(f"For 'coo_concat', sp_input[{k}] has shape {x.shape}, which differs from "
                             f"{sp_input[0].shape} outside concat_dim {dim}.")
    dtype = sp_input[0].indices.dtype
    parts, offset = [], 0
    for x in sp_input:
        shift = np.zeros((1, rank), mstype.dtype_to_nptype(dtype))
        shift[0, dim] = offset
        parts.append(F.cast(x.indices, dtype) + Tensor(shift))
        offset += x.shape[dim]
    shape = tuple(offset if d == dim else s for d, s in enumerate(sp_input[0].shape))
    indices = F.concat(parts, 0)
    values = F.concat([x.values for x in sp_input], 0)
    order = _row_major_order(indices, shape)
    return COOTensor(F.gather(indices, order, 0), F.gather(values, order, 0), shape)


def row_tensor_to_dense(row_tensor):
    return F.tensor_scatter_add(F.zeros(row_tensor.dense_shape, row_tensor.values.dtype),
                                F.reshape(row_tensor.indices, (-1, 1)), row_tensor.values)


def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = mean of x[indices[k]] over the k with segment_ids[k] == s (sorted ids; empty segments give 0);
    out has segment_ids[-1] + 1 rows (PyNative: read from the ids).

    >>> import openspore as ms
    >>> x = ms.Tensor([[0., 2.], [4., 6.], [8., 10.]])
    >>> ms.ops.sparse_segment_mean(x, ms.Tensor([0, 1, 2]), ms.Tensor([0, 0, 2])).asnumpy().tolist()
    [[2.0, 4.0], [0.0, 0.0], [8.0, 10.0]]
    """
    for name, value in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
        _tensor("sparse_segment_mean", name, value)
    if len(indices.shape) != 1 or tuple(segment_ids.shape) != tuple(indices.shape):
        raise ValueError(f"For 'sparse_segment_mean', the 'indices' and 'segment_ids' must be 1-D of one length, but "
                         f"got shapes {list(indices.shape)} and {list(segment_ids.shape)}.")
    if x.dtype.kind != "float" or indices.dtype.kind != "int" or segment_ids.dtype.kind != "int":
        raise TypeError(f"For 'sparse_segment_mean', 'x' must be float and 'indices'/'segment_ids' int, but got "
                        f"{x.dtype}, {indices.dtype} and {segment_ids.dtype}.")
    ids = _concrete("sparse_segment_mean", "'segment_ids'", segment_ids)
    picks = _concrete("sparse_segment_mean", "'indices'", indices)
    if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
        raise ValueError("For 'sparse_segment_mean', the 'segment_ids' must be non-negative and sorted, but got "
                         f"{ids.tolist()}.")
    if picks.size and (picks.min() < 0 or picks.max() >= x.shape[0]):
        raise ValueError(f"For 'sparse_segment_mean', the 'indices' must lie in [0, {x.shape[0]}), but got "
                         f"{picks.tolist()}.")
    segments = int(ids[-1]) + 1 if ids.size else 0
    rows = F.gather(x, indices, 0)
    sums = F.unsorted_segment_sum(rows, segment_ids, segments)
    counts = np.bincount(ids, minlength=segments).astype(mstype.dtype_to_nptype(x.dtype))
    return sums / Tensor(np.maximum(counts, 1).reshape((-1,) + (1,) * (len(x.shape) - 1)))


# `Tensor.to_coo()` / `Tensor.to_csr()`: MindSpore's Tensor methods for the nonzeros of a dense Tensor
Tensor.to_coo = lambda self: dense_to_sparse_coo(self)
Tensor.to_csr = lambda self: dense_to_sparse_csr(self)
