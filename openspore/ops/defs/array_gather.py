"""Primitives: gather and scatter (Gather, GatherD, GatherNd, ScatterNd, TensorScatterUpdate, TensorScatterAdd,
TensorScatterElements). Gathers and scatters are each other's backward rules.

Indices must lie in [0, size) as on MindSpore CPU/GPU; kernels raise RuntimeError otherwise.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ...core.tensor import Tensor
from .array import c_array
from . import _onnx
from ._mindir import Arg, mindir
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_tensor, normalize_axis, prim, rand_float


def _check_indices(op, name, idx):
    check_tensor(op, name, idx)
    if idx.dtype.kind not in ("int", "uint"):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor of int32 or int64, but got Tensor[{idx.dtype}].")


def _check_range(op, idx, size, what="input", index_name="indices"):
    """Kernel-side bounds check (numpy arrays and torch tensors alike); the message reads as MindSpore's."""
    if idx.numel() if hasattr(idx, "numel") else idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"For '{op}', the '{index_name}' should be in the range [0, {size}), but got {bad} "
                               f"(out of range of the {what}).")


def _as_long(torch, idx):
    return idx if idx.dtype == torch.int64 else idx.long()


# ---- Gather -----------------------------------------------------------------------------------
def _gather_layout(op, pshape, ishape, axis, bd):
    axis = normalize_axis(op, axis, len(pshape))
    if not 0 <= bd <= len(ishape) or bd > axis:
        raise ValueError(f"For '{op}', 'batch_dims' must be in [0, min(rank(indices), axis)], but got {bd} with "
                         f"indices rank {len(ishape)} and axis {axis}.")
    if tuple(pshape[:bd]) != tuple(ishape[:bd]):
        raise ValueError(f"For '{op}', the first {bd} dims of params {list(pshape)} and indices {list(ishape)} "
                         f"must match.")
    return axis


def _batch_grid(shape, n_trailing):
    """(B..., 1 × n_trailing, len(B)) int64: each batch element's own coordinates."""
    grid = np.stack(np.indices(shape), axis=-1) if shape else np.zeros((0,), np.int64)
    return grid.reshape(tuple(shape) + (1,) * n_trailing + (len(shape),))


@register
class Gather(Primitive):
    """Gather(batch_dims=0)(input_params, input_indices, axis): slices of params along `axis`; the output shape is
    params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]."""
    attr_defaults = {"batch_dims": 0}
    input_names = ("input_params", "input_indices", "axis")

    def infer(self, params, indices, axis):
        check_tensor(self.name, "input_params", params)
        _check_indices(self.name, "input_indices", indices)
        p, i = tuple(params.shape), tuple(indices.shape)
        a = _gather_layout(self.name, p, i, axis, self.batch_dims)
        return AbstractTensor(p[:a] + i[self.batch_dims:] + p[a + 1:], params.dtype)

    def _perm(self, n_out, bd, n_i, n_m):
        # batched gathers produce (B, I, M, R); the result wants (B, M, I, R)
        return (tuple(range(bd)) + tuple(range(bd + n_i, bd + n_i + n_m)) + tuple(range(bd, bd + n_i))
                + tuple(range(bd + n_i + n_m, n_out)))

    def bprop(self, params, indices, axis, out, dout):
        p, i, bd = tuple(params.shape), tuple(indices.shape), self.batch_dims
        a = _gather_layout(self.name, p, i, axis, bd)
        n_i, n_m = len(i) - bd, a - bd
        transpose = prim("Transpose")
        # dout is (B, M, I, R); ScatterNd wants (B, I, M, R) against params moved to (B, A, M, R)
        back = tuple(range(bd)) + tuple(range(bd + n_m, bd + n_m + n_i)) + tuple(range(bd, bd + n_m)) \
            + tuple(range(bd + n_m + n_i, len(dout.shape)))
        g = transpose(dout, back) if back != tuple(range(len(back))) else dout
        idx = prim("ExpandDims")(indices, -1)
        if bd:
            grid = np.broadcast_to(_batch_grid(p[:bd], n_i), i + (bd,)).astype(indices.dtype.np_dtype)
            idx = prim("Concat", axis=-1)((Tensor(grid), idx))
        moved = p[:bd] + (p[a],) + p[bd:a] + p[a + 1:]
        dmoved = ScatterNd()(idx, g, moved)
        to_params = tuple(range(bd)) + tuple(range(bd + 1, a + 1)) + (bd,) + tuple(range(a + 1, len(p)))
        dparams = transpose(dmoved, to_params) if a != bd else dmoved
        return dparams, None, None

    def numpy(self, np, params, indices, axis):
        bd = self.batch_dims
        a = normalize_axis(self.name, axis, params.ndim)
        _check_range(self.name, indices, params.shape[a], "input_params", "input_indices")
        if bd == 0:
            return c_array(np.take(params, indices, axis=a))
        n_i = indices.ndim - bd
        grids = tuple(g.reshape(g.shape + (1,) * n_i) for g in np.indices(params.shape[:bd], sparse=True))
        gathered = np.moveaxis(params, a, bd)[grids + (indices,)]
        return c_array(np.transpose(gathered, self._perm(gathered.ndim, bd, n_i, a - bd)))

    def torch(self, torch, params, indices, axis):
        bd = self.batch_dims
        a = normalize_axis(self.name, axis, params.ndim)
        if bd == 0 and params.device.type == "cpu":
            # index_select checks the range itself on the CPU: the explicit check (a min, a max and two host
            # reads per call, a third of an LLM decode step's gathers) runs only to word the error
            try:
                flat = torch.index_select(params, a, _as_long(torch, indices).reshape(-1))
            except (IndexError, RuntimeError):
                _check_range(self.name, indices, params.shape[a], "input_params", "input_indices")
                raise
            return flat.reshape(tuple(params.shape[:a]) + tuple(indices.shape) + tuple(params.shape[a + 1:]))
        _check_range(self.name, indices, params.shape[a], "input_params", "input_indices")
        indices = _as_long(torch, indices)
        if bd == 0:
            flat = torch.index_select(params, a, indices.reshape(-1))
            return flat.reshape(tuple(params.shape[:a]) + tuple(indices.shape) + tuple(params.shape[a + 1:]))
        n_i = indices.ndim - bd
        grids = tuple(torch.arange(n, device=params.device).reshape((1,) * k + (n,) + (1,) * (bd - k - 1 + n_i))
                      for k, n in enumerate(params.shape[:bd]))
        gathered = torch.movedim(params, a, bd)[grids + (indices,)]
        return gathered.permute(self._perm(gathered.ndim, bd, n_i, a - bd)).contiguous()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (4, 3, 2))
        yield Sample(x, np.array([[0, 3], [1, 1]], np.int32), 0)
        yield Sample(x, np.array([2, 0], np.int64), 1)
        yield Sample(x, np.array(1, np.int64), -1, name="scalar-index")
        yield Sample(rand_float(rng, (2, 3, 4, 2)), np.array([[3, 0, 0], [1, 2, 3]], np.int32), 2,
                     attrs={"batch_dims": 1}, name="batch_dims")


# ---- GatherD / TensorScatterElements ------------------------------------------------------------
def _check_elements(op, xshape, ishape, axis, ushape=None):
    if len(ishape) != len(xshape):
        raise ValueError(f"For '{op}', 'index' must have the same rank as the input {len(xshape)}, "
                         f"but got shape {list(ishape)}.")
    a = normalize_axis(op, axis, len(xshape), "dim")
    for d, (n, m) in enumerate(zip(xshape, ishape)):
        if d != a and m > n:
            raise ValueError(f"For '{op}', 'index' shape {list(ishape)} exceeds the input shape {list(xshape)} at "
                             f"dimension {d}.")
    if ushape is not None and tuple(ushape) != tuple(ishape):
        raise ValueError(f"For '{op}', 'updates' must have the shape of 'indices' {list(ishape)}, "
                         f"but got {list(ushape)}.")
    return a


def _element_index(np, idx, axis):
    grids = list(np.indices(idx.shape, sparse=True))
    grids[axis] = idx
    return tuple(grids)


@register
class GatherD(Primitive):
    """GatherD()(x, dim, index): out[i][j] = x[index[i][j]][j] for dim 0 (torch.gather semantics).

    As in MindSpore 2.10, `dim` may be an int or a one-element int Tensor, and `index` may count from the end
    (values in [-n, n) for n = x.shape[dim])."""
    input_names = ("x", "dim", "index")

    def __call__(self, x, dim, index):
        return super().__call__(x, _int_dim(self.name, dim), index)

    def infer(self, x, dim, index):
        check_tensor(self.name, "x", x)
        _check_indices(self.name, "index", index)
        _check_elements(self.name, tuple(x.shape), tuple(index.shape), dim)
        return AbstractTensor(index.shape, x.dtype)

    def bprop(self, x, dim, index, out, dout):
        zeros = prim("ZerosLike")(x)
        n = x.shape[normalize_axis(self.name, dim, len(x.shape), "dim")]
        wrapped = prim("Select")(prim("Less")(index, 0), prim("Add")(index, n), index)
        return TensorScatterElements(dim, "add")(zeros, wrapped, dout), None, None

    def numpy(self, np, x, dim, index):
        a = normalize_axis(self.name, dim, x.ndim, "dim")
        index = _wrap_elements(self.name, index, x.shape[a])
        return c_array(x[_element_index(np, index, a)])

    def torch(self, torch, x, dim, index):
        a = normalize_axis(self.name, dim, x.ndim, "dim")
        index = _wrap_elements(self.name, _as_long(torch, index), x.shape[a])
        return torch.gather(x, a, index)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, 1, rng.integers(0, 4, (3, 5)).astype(np.int64))
        yield Sample(x, 0, rng.integers(0, 3, (2, 3)).astype(np.int32), name="smaller-index")
        yield Sample(x, 1, rng.integers(-4, 4, (3, 4)).astype(np.int32), name="negative-index")


def _int_dim(op, dim):
    """A one-element integer Tensor `dim` read as the int it holds (MindSpore takes either)."""
    if hasattr(dim, "asnumpy"):
        value = dim.asnumpy()
        if value.size != 1 or value.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', 'dim' must be an int or a one-element int Tensor, but got "
                            f"Tensor of shape {list(value.shape)} and dtype {value.dtype}.")
        return int(value.reshape(()))
    return dim


def _wrap_elements(op, index, size):
    """Indices in [-size, size) with negative ones counted from the end; anything else is MindSpore's error."""
    if index.numel() if hasattr(index, "numel") else index.size:
        lo, hi = int(index.min()), int(index.max())
        if lo < -size or hi >= size:
            bad = lo if lo < -size else hi
            raise RuntimeError(f"For '{op}', the value of 'index' must be in [{-size}, {size}), but got: {bad}")
        if lo < 0:
            index = index + (index < 0) * size
    return index


@register
class TensorScatterElements(Primitive):
    """TensorScatterElements(axis=0, reduction='none')(input_x, indices, updates): write (or add) `updates` at
    input_x[..., indices[i][j], ...] along `axis`."""
    attr_defaults = {"axis": 0, "reduction": "none"}
    input_names = ("input_x", "indices", "updates")

    def check_attrs(self):
        if self.reduction not in ("none", "add"):
            raise ValueError(f"For '{self.name}', 'reduction' must be 'none' or 'add', but got {self.reduction!r}.")

    def infer(self, x, indices, updates):
        check_tensor(self.name, "input_x", x)
        _check_indices(self.name, "indices", indices)
        check_tensor(self.name, "updates", updates)
        if updates.dtype is not x.dtype:
            raise TypeError(f"For '{self.name}', 'updates' must have the dtype of 'input_x' Tensor[{x.dtype}], "
                            f"but got Tensor[{updates.dtype}].")
        _check_elements(self.name, tuple(x.shape), tuple(indices.shape), self.axis, tuple(updates.shape))
        return AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, indices, updates, out, dout):
        dupdates = GatherD()(dout, self.axis, indices)
        if self.reduction == "add":
            return dout, None, dupdates
        dx = TensorScatterElements(self.axis, "none")(dout, indices, prim("ZerosLike")(updates))
        return dx, None, dupdates

    def numpy(self, np, x, indices, updates):
        a = normalize_axis(self.name, self.axis, x.ndim)
        _check_range(self.name, indices, x.shape[a], "input_x")
        out = x.copy()
        where = _element_index(np, indices, a)
        if self.reduction == "add":
            np.add.at(out, where, updates)
        else:
            out[where] = updates
        return out

    def torch(self, torch, x, indices, updates):
        a = normalize_axis(self.name, self.axis, x.ndim)
        _check_range(self.name, indices, x.shape[a], "input_x")
        idx = _as_long(torch, indices)
        if self.reduction == "add":
            return x.clone().scatter_add_(a, idx, updates)
        return x.clone().scatter_(a, idx, updates)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        # distinct targets per column: 'none' with duplicates would be order-dependent
        perm = np.stack([rng.permutation(3)[:2] for _ in range(3)], axis=1).astype(np.int64)
        yield Sample(x, perm, rand_float(rng, (2, 3)), attrs={"axis": 0})
        yield Sample(x, rng.integers(0, 4, (3, 6)).astype(np.int32), rand_float(rng, (3, 6)),
                     attrs={"axis": 1, "reduction": "add"})


# ---- GatherNd / ScatterNd / TensorScatter* ----------------------------------------------------
def _nd_layout(op, xshape, ishape, ushape=None):
    if not ishape:
        raise ValueError(f"For '{op}', 'indices' must have rank at least 1, but got a 0-d tensor.")
    k = ishape[-1]
    if k > len(xshape):
        raise ValueError(f"For '{op}', the last dimension of 'indices' ({k}) must not exceed the rank of the "
                         f"input {len(xshape)}.")
    out = tuple(ishape[:-1]) + tuple(xshape[k:])
    if ushape is not None and tuple(ushape) != out:
        raise ValueError(f"For '{op}', 'updates' must have shape indices.shape[:-1] + shape[{k}:] = {list(out)}, "
                         f"but got {list(ushape)}.")
    return k, out


def _nd_range(op, indices, shape):
    for d in range(indices.shape[-1]):
        _check_range(op, indices[..., d], shape[d], f"dimension {d}")


def _nd_index_np(np, indices):
    return tuple(np.moveaxis(indices, -1, 0))


def _nd_index_torch(torch, indices):
    return tuple(_as_long(torch, indices).unbind(-1))


@register
class GatherNd(Primitive):
    """GatherNd()(input_x, indices): out[i...] = input_x[indices[i..., 0], ..., indices[i..., K-1], ...]."""
    input_names = ("input_x", "indices")

    def infer(self, x, indices):
        check_tensor(self.name, "input_x", x)
        _check_indices(self.name, "indices", indices)
        return AbstractTensor(_nd_layout(self.name, tuple(x.shape), tuple(indices.shape))[1], x.dtype)

    def bprop(self, x, indices, out, dout):
        return ScatterNd()(indices, dout, tuple(x.shape)), None

    def numpy(self, np, x, indices):
        _nd_range(self.name, indices, x.shape)
        if indices.shape[-1] == 0:
            return np.array(np.broadcast_to(x, indices.shape[:-1] + x.shape))
        return c_array(x[_nd_index_np(np, indices)])

    def torch(self, torch, x, indices):
        _nd_range(self.name, indices, x.shape)
        if indices.shape[-1] == 0:
            return x.expand(tuple(indices.shape[:-1]) + tuple(x.shape)).contiguous()
        return x[_nd_index_torch(torch, indices)].contiguous()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4, 2))
        yield Sample(x, np.array([[0, 1], [2, 3], [1, 0]], np.int32))
        yield Sample(x, np.array([[[2], [0]]], np.int64), name="leading")
        yield Sample(x, np.array([[1, 2, 1]], np.int64), name="full")


@register
class ScatterNd(Primitive):
    """ScatterNd()(indices, updates, shape): zeros of `shape` with `updates` summed in at `indices`."""
    input_names = ("indices", "updates", "shape")

    def infer(self, indices, updates, shape):
        _check_indices(self.name, "indices", indices)
        check_tensor(self.name, "updates", updates)
        if not isinstance(shape, (tuple, list)) or not shape:
            raise TypeError(f"For '{self.name}', 'shape' must be a non-empty tuple of ints, but got {shape!r}.")
        _nd_layout(self.name, tuple(shape), tuple(indices.shape), tuple(updates.shape))
        return AbstractTensor(tuple(int(s) for s in shape), updates.dtype)

    def bprop(self, indices, updates, shape, out, dout):
        return None, GatherNd()(dout, indices), None

    def numpy(self, np, indices, updates, shape):
        _nd_range(self.name, indices, shape)
        out = np.zeros(tuple(shape), updates.dtype)
        np.add.at(out, _nd_index_np(np, indices), updates)
        return out

    def torch(self, torch, indices, updates, shape):
        _nd_range(self.name, indices, shape)
        out = torch.zeros(tuple(shape), dtype=updates.dtype, device=updates.device)
        return out.index_put_(_nd_index_torch(torch, indices), updates, accumulate=True)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[0, 1], [2, 3], [0, 1]], np.int32), rand_float(rng, (3, 2)), (3, 4, 2))
        yield Sample(np.array([[1], [0]], np.int64), rand_float(rng, (2, 4)), (3, 4), name="rows")


class _TensorScatter(Primitive):
    input_names = ("input_x", "indices", "updates")

    def infer(self, x, indices, updates):
        check_tensor(self.name, "input_x", x)
        _check_indices(self.name, "indices", indices)
        check_tensor(self.name, "updates", updates)
        if updates.dtype is not x.dtype:
            raise TypeError(f"For '{self.name}', 'updates' must have the dtype of 'input_x' Tensor[{x.dtype}], "
                            f"but got Tensor[{updates.dtype}].")
        _nd_layout(self.name, tuple(x.shape), tuple(indices.shape), tuple(updates.shape))
        return AbstractTensor(x.shape, x.dtype)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, np.array([[0, 1], [2, 3], [1, 1]], np.int32), rand_float(rng, (3,)))
        yield Sample(x, np.array([[2], [0]], np.int64), rand_float(rng, (2, 4)), name="rows")


@register
class TensorScatterUpdate(_TensorScatter):
    """TensorScatterUpdate()(input_x, indices, updates): a copy of input_x with `updates` written at `indices`."""

    def bprop(self, x, indices, updates, out, dout):
        dx = TensorScatterUpdate()(dout, indices, prim("ZerosLike")(updates))
        return dx, None, GatherNd()(dout, indices)

    def numpy(self, np, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        out = x.copy()
        out[_nd_index_np(np, indices)] = updates
        return out

    def torch(self, torch, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        return x.clone().index_put_(_nd_index_torch(torch, indices), updates)


@register
class TensorScatterAdd(_TensorScatter):
    """TensorScatterAdd()(input_x, indices, updates): a copy of input_x with `updates` added at `indices`
    (repeated indices accumulate)."""

    def bprop(self, x, indices, updates, out, dout):
        return dout, None, GatherNd()(dout, indices)

    def numpy(self, np, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        out = x.copy()
        np.add.at(out, _nd_index_np(np, indices), updates)
        return out

    def torch(self, torch, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        return x.clone().index_put_(_nd_index_torch(torch, indices), updates, accumulate=True)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, np.array([[0, 1], [2, 3], [0, 1]], np.int32), rand_float(rng, (3,)), name="repeated")
        yield Sample(x, np.array([[2], [0]], np.int64), rand_float(rng, (2, 4)), name="rows")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
_SCATTERS = (GatherD, TensorScatterElements, GatherNd, ScatterNd, TensorScatterUpdate, TensorScatterAdd)
not_exportable(NO_MINDIR, *_SCATTERS, formats=("MINDIR",))
not_exportable(NO_ONNX, *_SCATTERS, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Gather, inputs=("params", "indices", "axis"), attrs=[Arg("batch_dims", 0)], instance="gather")

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Gather, _onnx.gather)
