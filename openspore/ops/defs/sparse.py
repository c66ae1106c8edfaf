"""Primitives on sparse tensors given as (indices, values, shape): SparseToDense, SparseTensorDenseMatmul,
SparseTensorDenseAdd, SparseSlice, Coalesce.

A sparse tensor of rank R with N stored entries is `indices` (int, [N, R]; Coalesce takes the transpose, [R, N],
as MindSpore's does), `values` ([N]) and its dense `shape`. Duplicate coordinates add up wherever a dense result
is formed (scipy's convention), and an index outside the shape is an error naming the argument.

The COOTensor / CSRTensor classes (`ops/sparse_tensor.py`) and the `coo_*` / `csr_*` functions are built on
these and on the dense primitives, so gradients flow to `values` through each backward rule below.

>>> import numpy as np, openspore as ms
>>> out = ms.ops.SparseToDense()(ms.Tensor([[0, 1], [1, 2]]), ms.Tensor([1., 2.]), (2, 3))
>>> out.asnumpy().tolist()
[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ...core.tensor import Tensor
from ._export import not_exportable
from ._util import check_dtype, check_rank, check_tensor, prim, rand_float

NO_SPARSE_EXPORT = ("a sparse-tensor primitive: openspore's exported graphs are dense; MindSpore's file holds it only "
                    "for its sparse backends")


# ---- shared checks and kernel helpers -----------------------------------------------------------
def check_indices(op, name, indices, rank_axis=1):
    """`indices` is a 2-D int Tensor; returns the number of sparse dims (its size along `rank_axis`)."""
    check_tensor(op, name, indices)
    if indices.dtype.kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', the '{name}' must be an int16/int32/int64 Tensor, but got "
                        f"Tensor[{indices.dtype}].")
    check_rank(op, name, indices, 2)
    return indices.shape[rank_axis]


def check_values(op, name, values, count, count_from="indices"):
    check_tensor(op, name, values)
    check_rank(op, name, values, 1)
    if count >= 0 and values.shape[0] >= 0 and values.shape[0] != count:
        raise ValueError(f"For '{op}', the '{name}' must have one entry per row of '{count_from}' ({count}), but got "
                         f"shape {list(values.shape)}.")


def shape_value(op, name, shape):
    """A dense shape given as a tuple/list of ints or a 1-D int Tensor: the tuple, or None while unknown (a Tensor
    being traced into a graph)."""
    if hasattr(shape, "shape") and hasattr(shape, "dtype"):
        if shape.dtype.kind not in ("int", "uint") or len(shape.shape) != 1:
            raise TypeError(f"For '{op}', the '{name}' must be a 1-D int Tensor or a tuple of ints, but got "
                            f"Tensor[{shape.dtype}] of shape {list(shape.shape)}.")
        try:
            return tuple(int(v) for v in shape.asnumpy().tolist())
        except Exception:  # a symbolic value being traced: its numbers are not known yet
            return None
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"For '{op}', the '{name}' must be a tuple of ints, but got {shape!r}.")
    if any(d < 0 for d in shape):
        raise ValueError(f"For '{op}', the '{name}' must hold non-negative sizes, but got {tuple(shape)}.")
    return tuple(int(d) for d in shape)


def check_in_range(op, name, indices, shape):
    """Kernel-side: every row of `indices` ([N, R], numpy array or torch tensor) lies inside `shape`."""
    if not (indices.numel() if hasattr(indices, "numel") else indices.size):
        return
    for d, size in enumerate(shape):
        column = indices[:, d]
        lo, hi = int(column.min()), int(column.max())
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise ValueError(f"For '{op}', the '{name}' holds {bad} in column {d}, out of range [0, {size}) of the "
                             f"dense shape {tuple(shape)}.")


def np_scatter(np, indices, values, shape, base=None):
    out = np.zeros(shape, values.dtype) if base is None else base.copy()
    np.add.at(out, tuple(indices.T.astype(np.int64)), values)
    return out


def torch_scatter(torch, indices, values, shape, base=None):
    out = torch.zeros(tuple(shape), dtype=values.dtype, device=values.device) if base is None else base.clone()
    out.index_put_(tuple(indices.to(torch.int64).t()), values, accumulate=True)
    return out


def _coo_sample(rng, shape, count, dtype=np.int64, duplicates=False):
    cells = rng.choice(int(np.prod(shape)), size=count, replace=duplicates)
    return np.stack(np.unravel_index(cells, shape), axis=1).astype(dtype)


# ---- SparseToDense -------------------------------------------------------------------------------
@register
class SparseToDense(Primitive):
    """SparseToDense()(indices, values, sparse_shape): the dense Tensor of `sparse_shape` holding `values[i]` at
    `indices[i]` (duplicates add up) and zeros elsewhere."""
    input_names = ("indices", "values", "sparse_shape")

    def infer(self, indices, values, sparse_shape):
        rank = check_indices(self.name, "indices", indices)
        check_values(self.name, "values", values, indices.shape[0])
        shape = shape_value(self.name, "sparse_shape", sparse_shape)
        if shape is None:
            raise ValueError(f"For '{self.name}', the 'sparse_shape' must be known when the graph is built "
                             "(a tuple of ints).")
        if len(shape) != rank:
            raise ValueError(f"For '{self.name}', the 'sparse_shape' must have one size per column of 'indices' "
                             f"({rank}), but got {shape}.")
        return AbstractTensor(shape, values.dtype)

    def bprop(self, indices, values, sparse_shape, out, dout):
        return None, prim("GatherNd")(dout, indices), None

    def numpy(self, np, indices, values, sparse_shape):
        shape = tuple(sparse_shape)
        check_in_range(self.name, "indices", indices, shape)
        return np_scatter(np, indices, values, shape)

    def torch(self, torch, indices, values, sparse_shape):
        shape = tuple(sparse_shape)
        check_in_range(self.name, "indices", indices, shape)
        return torch_scatter(torch, indices, values, shape)

    @classmethod
    def samples(cls, rng):
        yield Sample(_coo_sample(rng, (3, 4), 5, np.int32), rand_float(rng, (5,)), (3, 4))
        yield Sample(_coo_sample(rng, (2, 3, 2), 4), rand_float(rng, (4,)), (2, 3, 2), name="rank3")
        yield Sample(np.array([[0, 1], [0, 1], [2, 0]], np.int64), rand_float(rng, (3,)), (3, 2), name="duplicates")


# ---- SparseTensorDenseMatmul ---------------------------------------------------------------------
@register
class SparseTensorDenseMatmul(Primitive):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape, dense):
    op(A) @ op(B) for the 2-D sparse A = (indices, values, sparse_shape) and dense B; op transposes when the
    matching `adjoint_*` is True."""
    attr_defaults = {"adjoint_st": False, "adjoint_dt": False}
    input_names = ("indices", "values", "sparse_shape", "dense")
    infer_reads_signature_only = False  # sparse_shape may be a Tensor: its values give the output rows

    def check_attrs(self):
        for name in ("adjoint_st", "adjoint_dt"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"For '{self.name}', the '{name}' must be a bool, but got "
                                f"{type(getattr(self, name)).__name__}.")

    def infer(self, indices, values, sparse_shape, dense):
        if check_indices(self.name, "indices", indices) != 2:
            raise ValueError(f"For '{self.name}', the 'indices' must have shape [N, 2], but got "
                             f"{list(indices.shape)}.")
        check_values(self.name, "values", values, indices.shape[0])
        check_tensor(self.name, "dense", dense)
        check_rank(self.name, "dense", dense, 2)
        if dense.dtype is not values.dtype:
            raise TypeError(f"For '{self.name}', the 'dense' must have the dtype of 'values' ({values.dtype}), but "
                            f"got Tensor[{dense.dtype}].")
        shape = shape_value(self.name, "sparse_shape", sparse_shape)
        inner_b = dense.shape[1] if self.adjoint_dt else dense.shape[0]
        cols = dense.shape[0] if self.adjoint_dt else dense.shape[1]
        if shape is None:
            return AbstractTensor((-1, cols), values.dtype)
        if len(shape) != 2:
            raise ValueError(f"For '{self.name}', the 'sparse_shape' must have 2 sizes, but got {shape}.")
        rows, inner_a = (shape[1], shape[0]) if self.adjoint_st else shape
        if inner_a != inner_b:
            raise ValueError(f"For '{self.name}', the inner sizes do not match: the sparse operand gives {inner_a} "
                             f"and 'dense' (shape {list(dense.shape)}, adjoint_dt={self.adjoint_dt}) gives "
                             f"{inner_b}.")
        return AbstractTensor((rows, cols), values.dtype)

    def bprop(self, indices, values, sparse_shape, dense, out, dout):
        # out = opA @ opB: d(opA) = dout @ opB^T, d(opB) = opA^T @ dout; then undo each op's transpose
        d_op_a = prim("MatMul", transpose_a=False, transpose_b=not self.adjoint_dt)(dout, dense)
        d_a = prim("Transpose")(d_op_a, (1, 0)) if self.adjoint_st else d_op_a
        d_values = prim("GatherNd")(d_a, indices)
        d_op_b = SparseTensorDenseMatmul(adjoint_st=not self.adjoint_st)(indices, values, sparse_shape, dout)
        d_dense = prim("Transpose")(d_op_b, (1, 0)) if self.adjoint_dt else d_op_b
        return None, d_values, None, d_dense

    def _shape(self, sparse_shape):
        return tuple(int(v) for v in (sparse_shape.tolist() if hasattr(sparse_shape, "tolist") else sparse_shape))

    def numpy(self, np, indices, values, sparse_shape, dense):
        shape = self._shape(sparse_shape)
        check_in_range(self.name, "indices", indices, shape)
        a = np_scatter(np, indices, values, shape)
        a = a.T if self.adjoint_st else a
        b = dense.T if self.adjoint_dt else dense
        return np.ascontiguousarray(a @ b)

    def torch(self, torch, indices, values, sparse_shape, dense):
        shape = self._shape(sparse_shape)
        check_in_range(self.name, "indices", indices, shape)
        a = torch_scatter(torch, indices, values, shape)
        a = a.t() if self.adjoint_st else a
        b = dense.t() if self.adjoint_dt else dense
        return (a @ b).contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(_coo_sample(rng, (3, 4), 5, np.int32), rand_float(rng, (5,)), (3, 4), rand_float(rng, (4, 2)))
        yield Sample(_coo_sample(rng, (4, 3), 4), rand_float(rng, (4,)), (4, 3), rand_float(rng, (2, 4)),
                     attrs={"adjoint_st": True, "adjoint_dt": True}, name="adjoints")
        yield Sample(_coo_sample(rng, (2, 3), 3), rand_float(rng, (3,)), np.array([2, 3], np.int64),
                     rand_float(rng, (3, 2)), name="shape-tensor")


# ---- SparseTensorDenseAdd ------------------------------------------------------------------------
@register
class SparseTensorDenseAdd(Primitive):
    """SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2): the dense sum of the sparse x1 and the dense
    x2 (same shape)."""
    input_names = ("x1_indices", "x1_values", "x1_shape", "x2")
    infer_reads_signature_only = False  # x1_shape is usually a Tensor: its values are checked against x2

    def infer(self, indices, values, shape, x2):
        rank = check_indices(self.name, "x1_indices", indices)
        check_values(self.name, "x1_values", values, indices.shape[0], "x1_indices")
        check_tensor(self.name, "x2", x2)
        if x2.dtype is not values.dtype:
            raise TypeError(f"For '{self.name}', the 'x2' must have the dtype of 'x1_values' ({values.dtype}), but "
                            f"got Tensor[{x2.dtype}].")
        dense_shape = shape_value(self.name, "x1_shape", shape)
        if len(x2.shape) != rank or (dense_shape is not None and tuple(dense_shape) != tuple(x2.shape)):
            raise ValueError(f"For '{self.name}', the 'x1_shape' {dense_shape} and the rank of 'x1_indices' "
                             f"({rank}) must match the shape of 'x2' {list(x2.shape)}.")
        return AbstractTensor(x2.shape, x2.dtype)

    def bprop(self, indices, values, shape, x2, out, dout):
        return None, prim("GatherNd")(dout, indices), None, dout

    def numpy(self, np, indices, values, shape, x2):
        check_in_range(self.name, "x1_indices", indices, x2.shape)
        return np_scatter(np, indices, values, x2.shape, base=x2)

    def torch(self, torch, indices, values, shape, x2):
        check_in_range(self.name, "x1_indices", indices, tuple(x2.shape))
        return torch_scatter(torch, indices, values, tuple(x2.shape), base=x2)

    @classmethod
    def samples(cls, rng):
        yield Sample(_coo_sample(rng, (3, 4), 5), rand_float(rng, (5,)), np.array([3, 4], np.int64),
                     rand_float(rng, (3, 4)))
        yield Sample(np.array([[0, 0, 1], [0, 0, 1]], np.int32), rand_float(rng, (2,)), (1, 2, 2),
                     rand_float(rng, (1, 2, 2)), name="duplicates")


# ---- SparseSlice ---------------------------------------------------------------------------------
@register
class SparseSlice(Primitive):
    """SparseSlice()(indices, values, shape, start, size) → (y_indices, y_values, y_shape): the entries inside the
    box [start, start+size) (clipped to `shape`), re-based at `start`; the number of entries depends on the
    values, so graphs see it as -1."""
    input_names = ("indices", "values", "shape", "start", "size")
    infer_reads_signature_only = False

    def infer(self, indices, values, shape, start, size):
        rank = check_indices(self.name, "indices", indices)
        check_values(self.name, "values", values, indices.shape[0])
        for name, value in (("shape", shape), ("start", start), ("size", size)):
            check_tensor(self.name, name, value)
            check_dtype(self.name, name, value, ("int",))
            if tuple(value.shape) != (rank,):
                raise ValueError(f"For '{self.name}', the '{name}' must have shape [{rank}] (one entry per column "
                                 f"of 'indices'), but got {list(value.shape)}.")
        return (AbstractTensor((-1, rank), indices.dtype), AbstractTensor((-1,), values.dtype),
                AbstractTensor((rank,), shape.dtype))

    def bprop(self, indices, values, shape, start, size, out, dout):
        # the kept entries keep their order: input entry k went to output position cumsum(kept)[k] - 1
        kept = _kept(indices, shape, start, size)
        position = prim("Sub")(prim("CumSum")(prim("Cast")(kept, mstype.int32), 0), 1)
        position = prim("Maximum")(position, prim("ZerosLike")(position))
        d_out_values = dout[1]
        if d_out_values.shape[0] == 0:
            return None, prim("ZerosLike")(values), None, None, None
        picked = prim("Gather")(d_out_values, position, 0)
        return None, prim("Select")(kept, picked, prim("ZerosLike")(picked)), None, None, None

    def numpy(self, np, indices, values, shape, start, size):
        end = np.minimum(start + size, shape)
        kept = np.all((indices >= start) & (indices < end), axis=1)
        return ((indices[kept] - start).astype(indices.dtype), np.ascontiguousarray(values[kept]),
                np.maximum(end - start, 0).astype(shape.dtype))

    def torch(self, torch, indices, values, shape, start, size):
        end = torch.minimum(start + size, shape)
        kept = torch.all((indices >= start) & (indices < end), dim=1)
        return ((indices[kept] - start).to(indices.dtype), values[kept].contiguous(),
                torch.clamp(end - start, min=0).to(shape.dtype))

    @classmethod
    def samples(cls, rng):
        indices = _coo_sample(rng, (4, 5), 8)
        yield Sample(indices, rand_float(rng, (8,)), np.array([4, 5], np.int64), np.array([1, 1], np.int64),
                     np.array([2, 3], np.int64))
        yield Sample(indices, rand_float(rng, (8,)), np.array([4, 5], np.int64), np.array([2, 3], np.int64),
                     np.array([5, 5], np.int64), name="clipped")


def _kept(indices, shape, start, size):
    """Bool [N]: which rows of `indices` lie in [start, min(start+size, shape)) (written with primitives)."""
    end = prim("Minimum")(prim("Add")(start, size), shape)
    inside = prim("LogicalAnd")(prim("GreaterEqual")(indices, start), prim("Less")(indices, end))
    return prim("ReduceAll", keep_dims=False)(inside, (1,))


# ---- Coalesce ------------------------------------------------------------------------------------
@register
class Coalesce(Primitive):
    """Coalesce()(x_indices, x_values, x_shape) → (y_indices, y_values, y_shape): duplicate coordinates summed
    and the entries sorted in row-major order. `x_indices` is [R, N] (one row per dimension)."""
    input_names = ("x_indices", "x_values", "x_shape")
    infer_reads_signature_only = False

    def infer(self, indices, values, shape):
        rank = check_indices(self.name, "x_indices", indices, rank_axis=0)
        check_values(self.name, "x_values", values, indices.shape[1], "x_indices (its columns)")
        check_dtype(self.name, "x_values", values, ("float",))
        check_tensor(self.name, "x_shape", shape)
        if tuple(shape.shape) != (rank,):
            raise ValueError(f"For '{self.name}', the 'x_shape' must have shape [{rank}] (one size per row of "
                             f"'x_indices'), but got {list(shape.shape)}.")
        return (AbstractTensor((rank, -1), indices.dtype), AbstractTensor((-1,), values.dtype),
                AbstractTensor((rank,), shape.dtype))

    def bprop(self, indices, values, shape, out, dout):
        # each input entry's output position is its rank among the distinct row-major offsets; Unique lists them
        # in order of appearance, so their ranks come from sorting twice (the argsort of a permutation inverts it)
        distinct, appearance = prim("Unique")(_row_major_offsets(indices, shape))
        _, order = prim("Sort")(distinct)
        _, rank = prim("Sort")(order)
        position = prim("Gather")(rank, appearance, 0)
        return None, prim("Gather")(dout[1], position, 0), None

    def numpy(self, np, indices, values, shape):
        check_in_range(self.name, "x_indices", indices.T, tuple(shape.tolist()))
        offsets = np.ravel_multi_index(tuple(indices.astype(np.int64)), tuple(shape.tolist())) if indices.size \
            else np.zeros(0, np.int64)
        unique, inverse = np.unique(offsets, return_inverse=True)
        summed = np.zeros(unique.shape[0], values.dtype)
        np.add.at(summed, inverse.reshape(-1), values)
        y_indices = np.stack(np.unravel_index(unique, tuple(shape.tolist())), axis=0) if unique.size else \
            np.zeros((indices.shape[0], 0), np.int64)
        return y_indices.astype(indices.dtype), summed, shape.copy()

    def torch(self, torch, indices, values, shape):
        dims = [int(v) for v in shape.tolist()]
        check_in_range(self.name, "x_indices", indices.t(), dims)
        offsets = torch.zeros(indices.shape[1], dtype=torch.int64, device=indices.device)
        for d, size in enumerate(dims):
            offsets = offsets * size + indices[d].to(torch.int64)
        unique, inverse = torch.unique(offsets, sorted=True, return_inverse=True)
        summed = torch.zeros(unique.shape[0], dtype=values.dtype, device=values.device).index_add_(0, inverse, values)
        rows, rest = [], unique
        for size in reversed(dims):
            rows.append(rest % size)
            rest = rest // size
        y_indices = torch.stack(rows[::-1], 0) if rows else unique.reshape(0, -1)
        return y_indices.to(indices.dtype), summed, shape.clone()

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[0, 1, 0, 2], [1, 0, 1, 2]], np.int64), rand_float(rng, (4,)), np.array([3, 3], np.int64))
        indices = _coo_sample(rng, (2, 3, 2), 6, duplicates=True).T.copy()
        yield Sample(indices, rand_float(rng, (6,)), np.array([2, 3, 2], np.int64), name="rank3")


def _row_major_offsets(indices, shape):
    """int64 [N]: the row-major offset of each column of `indices` ([R, N]) in `shape` (a 1-D Tensor)."""
    gather, cast = prim("Gather"), prim("Cast")
    rank = indices.shape[0]
    wide = cast(indices, mstype.int64)
    sizes = cast(shape, mstype.int64)
    def row(tensor, d):
        return gather(tensor, Tensor(np.array(d, np.int64)), 0)
    offsets = row(wide, 0)
    for d in range(1, rank):
        offsets = prim("Add")(prim("Mul")(offsets, row(sizes, d)), row(wide, d))
    return offsets


not_exportable(NO_SPARSE_EXPORT, SparseToDense, SparseTensorDenseMatmul, SparseTensorDenseAdd, SparseSlice, Coalesce)
