"""More of MindSpore's array functions (`ops.atleast_2d`, `ops.tensor_split`, `ops.diagonal`, `ops.searchsorted`,
`ops.unsorted_segment_sum`, ...), composed from primitives.

>>> import openspore as ms
>>> [t.shape for t in ms.ops.tensor_split(ms.ops.ones((7, 2)), 3)]
[(3, 2), (2, 2), (2, 2)]
>>> ms.ops.sequence_mask(ms.Tensor([1, 3]), 4).asnumpy().astype(int).tolist()
[[1, 0, 0, 0], [1, 1, 1, 0]]
"""
import builtins

import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from .. import operations as P
from ._base_ops import F

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "row_stack", "dstack", "tensor_split",
           "hsplit", "vsplit", "dsplit", "diagonal", "diag_embed", "diagflat", "expand", "expand_as", "fliplr",
           "flipud", "rot90", "reverse", "select", "sequence_mask", "repeat_elements", "take", "type_as", "view_as",
           "matrix_band_part", "cartesian_prod", "index_fill", "index_add", "range", "identity",
           "unsorted_segment_sum", "bincount", "bucketize", "searchsorted", "histc", "tril_indices", "triu_indices",
           "bartlett_window", "hann_window", "hamming_window", "blackman_window", "tensor_scatter_sub",
           "scatter_add", "scatter_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_update"]


def _atleast(inputs, ndim, place):
    def one(x):
        x = x if isinstance(x, Tensor) else Tensor(x)
        return x if len(x.shape) >= ndim else F.reshape(x, place(tuple(x.shape)))
    if isinstance(inputs, (tuple, list)):
        return tuple(one(x) for x in inputs)
    return one(inputs)


def atleast_1d(inputs):
    """Tensors viewed with at least one axis (a tuple in, a tuple out)."""
    return _atleast(inputs, 1, lambda s: s or (1,))


def atleast_2d(inputs):
    """Tensors viewed with at least two axes: () → (1, 1), (n,) → (1, n)."""
    return _atleast(inputs, 2, lambda s: (1,) * (2 - len(s)) + s)


def atleast_3d(inputs):
    """Tensors viewed with at least three axes: (n,) → (1, n, 1), (m, n) → (m, n, 1)."""
    return _atleast(inputs, 3, lambda s: {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}[len(s)])


def column_stack(tensors):
    """Stack 1-D tensors as columns (2-D ones are concatenated along axis 1)."""
    return F.concat([F.reshape(t, (-1, 1)) if len(t.shape) < 2 else t for t in tensors], 1)


def row_stack(tensors):
    """Stack tensors as rows (vstack)."""
    return F.vstack(tensors)


def dstack(tensors):
    """Concatenate along the third axis after atleast_3d."""
    return F.concat(list(atleast_3d(tuple(tensors))), 2)


def tensor_split(input, indices_or_sections, axis=0):
    """Split into n nearly equal parts (the first ones one longer), or at the given indices."""
    axis = axis % len(input.shape)
    size = input.shape[axis]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise ValueError(f"For 'tensor_split', the number of sections must be positive, but got {n}.")
        lengths = [size // n + (1 if i < size % n else 0) for i in builtins.range(n)]
        starts = [sum(lengths[:i]) for i in builtins.range(n)]
    else:
        cuts = [min(max(int(c), 0), size) for c in indices_or_sections]
        starts = [0] + cuts
        ends = cuts + [size]
        lengths = [max(e - s, 0) for s, e in zip(starts, ends)]
    return tuple(F.narrow(input, axis, s, n) if n else _empty_slice(input, axis) for s, n in zip(starts, lengths))


def _empty_slice(input, axis):
    shape = list(input.shape)
    shape[axis] = 0
    return Tensor(np.zeros(shape, input.dtype.np_dtype))


def hsplit(input, indices_or_sections):
    """tensor_split along axis 1 (axis 0 for 1-D)."""
    return tensor_split(input, indices_or_sections, 1 if len(input.shape) > 1 else 0)


def vsplit(input, indices_or_sections):
    """tensor_split along axis 0."""
    return tensor_split(input, indices_or_sections, 0)


def dsplit(input, indices_or_sections):
    """tensor_split along axis 2."""
    return tensor_split(input, indices_or_sections, 2)


def _diag_positions(rows, cols, offset):
    n = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    r = np.arange(n) + max(-offset, 0)
    c = np.arange(n) + max(offset, 0)
    return r, c


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal over axes (dim1, dim2), moved to the last axis."""
    nd = len(input.shape)
    d1, d2 = dim1 % nd, dim2 % nd
    rest = [i for i in builtins.range(nd) if i not in (d1, d2)]
    x = F.transpose(input, tuple(rest + [d1, d2]))
    rows, cols = input.shape[d1], input.shape[d2]
    r, c = _diag_positions(rows, cols, offset)
    flat = F.reshape(x, tuple(x.shape[:-2]) + (rows * cols,))
    return F.gather(flat, Tensor((r * cols + c).astype(np.int64)), len(rest))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensors whose (dim1, dim2) diagonals hold the last axis of `input`."""
    n = input.shape[-1]
    size = n + abs(offset)
    r, c = _diag_positions(size, size, offset)
    mask = np.zeros((n, size, size), input.dtype.np_dtype)
    mask[np.arange(n), r, c] = 1
    out = F.sum(F.expand_dims(F.expand_dims(input, -1), -1) * Tensor(mask), len(input.shape) - 1)
    nd = len(out.shape)
    d1, d2 = dim1 % nd, dim2 % nd
    if (d1, d2) == (nd - 2, nd - 1):
        return out
    order = [None] * nd
    order[d1], order[d2] = nd - 2, nd - 1
    rest = iter(builtins.range(nd - 2))
    order = [o if o is not None else next(rest) for o in order]
    return F.transpose(out, tuple(order))


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened input on diagonal `offset`."""
    return diag_embed(F.reshape(input, (-1,)), offset)


def expand(input_x, size):
    """Broadcast to `size` (a Tensor or a tuple)."""
    shape = tuple(int(v) for v in (size.asnumpy().tolist() if isinstance(size, Tensor) else size))
    return F.broadcast_to(input_x, shape)


def expand_as(input, other):
    """Broadcast to other's shape."""
    return F.broadcast_to(input, tuple(other.shape))


def fliplr(input):
    """Reverse axis 1."""
    return F.flip(input, (1,))


def flipud(input):
    """Reverse axis 0."""
    return F.flip(input, (0,))


def rot90(input, k, dims):
    """Rotate by 90° k times in the plane `dims` (from the first axis towards the second)."""
    d0, d1 = dims
    k = k % 4
    if k == 0:
        return input
    if k == 2:
        return F.flip(input, (d0, d1))
    if k == 1:
        return F.swapaxes(F.flip(input, (d1,)), d0, d1)
    return F.flip(F.swapaxes(input, d0, d1), (d1,))


def reverse(x, axis):
    """Reverse the given axes."""
    return F.flip(x, tuple(axis))


def select(condition, input, other):
    """input where condition, else other."""
    return F.where(condition, input, other)


def sequence_mask(lengths, maxlen=None):
    """Boolean mask [..., maxlen]: position j < lengths[...]."""
    if maxlen is None:
        maxlen = int(lengths.asnumpy().max())
    steps = F.arange(0, maxlen, dtype=lengths.dtype)
    return steps < F.expand_dims(lengths, -1)


def repeat_elements(x, rep, axis=0):
    """Repeat each element `rep` times along `axis`."""
    return F.repeat_interleave(x, rep, axis)


def take(input, index):
    """Elements of the flattened input at `index` (shape of index)."""
    flat = F.reshape(input, (-1,))
    return F.reshape(F.gather(flat, F.reshape(index, (-1,)), 0), tuple(index.shape))


def type_as(input, other):
    """input cast to other's dtype."""
    return F.cast(input, other.dtype)


def view_as(input, other):
    """input reshaped to other's shape."""
    return F.reshape(input, tuple(other.shape))


def matrix_band_part(x, lower, upper):
    """Keep the band lower ≥ i − j, j − i ≤ upper of the last two axes (negative = unbounded)."""
    rows, cols = x.shape[-2], x.shape[-1]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    keep = np.ones((rows, cols), bool)
    if int(lower) >= 0:
        keep &= (i - j) <= int(lower)
    if int(upper) >= 0:
        keep &= (j - i) <= int(upper)
    return F.where(Tensor(keep), x, F.zeros_like(x))


def cartesian_prod(*inputs):
    """All combinations of the 1-D inputs' elements, one per row."""
    grids = F.meshgrid(*inputs, indexing="ij")
    return F.stack([F.reshape(g, (-1,)) for g in grids], 1)


def _along_axis_mask(x, axis, index):
    n = x.shape[axis]
    hits = F.sum(F.one_hot(F.cast(index, mstype.int32), n, 1.0, 0.0), 0) > 0
    shape = [1] * len(x.shape)
    shape[axis] = n
    return F.reshape(hits, tuple(shape))


def index_fill(x, axis, index, value):
    """x with the positions `index` along `axis` set to `value`."""
    value = value if isinstance(value, Tensor) else Tensor(np.asarray(value, x.dtype.np_dtype))
    return F.where(_along_axis_mask(x, axis % len(x.shape), F.reshape(index, (-1,))), F.cast(value, x.dtype), x)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x[..., indices[i], ...] += y[..., i, ...] along `axis` (x updated in place when it is a Parameter)."""
    axis = axis % len(x.shape)
    moved = F.moveaxis(x, axis, 0)
    upd = F.moveaxis(y, axis, 0)
    out = F.moveaxis(F.tensor_scatter_add(moved, F.reshape(F.cast(indices, mstype.int32), (-1, 1)), upd), 0, axis)
    from ...core.parameter import Parameter
    if not isinstance(x, Parameter):
        return out
    # The Parameter is written, but the result differentiates as the sum it is (as MindSpore's IndexAdd does:
    # d/dx = dout, d/dy = dout gathered at `indices`), not through Assign's convention, which gives y nothing.
    return F.depend(out, F.assign(x, out))


def _write_back(target, value):
    from ...core.parameter import Parameter
    if isinstance(target, Parameter):
        return F.assign(target, value)
    return value


def range(start, end, step, maxlen=1000000):
    """The Range primitive: start, end and step must all be ints (Int64 out) or all floats (Float32 out), else a
    TypeError (MindSpore 2.10); maxlen caps the length."""
    out = P.Range()(start, end, step)
    if out.shape[0] > maxlen:
        raise ValueError(f"For 'range', the output length {out.shape[0]} exceeds maxlen {maxlen}.")
    return out


def identity(x):
    """A copy of x."""
    return P.Identity()(x)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """out[s] = Σ input_x[i] over i with segment_ids[i] == s (ids < 0 or ≥ num_segments are dropped)."""
    k = len(segment_ids.shape)
    rest = tuple(input_x.shape[k:])
    flat = F.reshape(input_x, (-1, int(np.prod(rest)) if rest else 1))
    work = flat if flat.dtype.kind == "float" else F.cast(flat, mstype.float32)
    onehot = F.one_hot(F.reshape(F.cast(segment_ids, mstype.int32), (-1,)), int(num_segments), 1.0, 0.0)
    out = F.matmul(F.transpose(F.cast(onehot, work.dtype), (1, 0)), work)
    return F.cast(F.reshape(out, (int(num_segments),) + rest), input_x.dtype)


def bincount(input, weights=None, minlength=0):
    """Counts (or summed weights) of each non-negative integer value, as float32 (MindSpore 2.10's dtype with and
    without weights)."""
    values = input.asnumpy()
    if values.size and values.min() < 0:
        raise ValueError("For 'bincount', the input must hold non-negative integers.")
    length = max(int(values.max()) + 1 if values.size else 0, int(minlength))
    onehot = F.one_hot(F.cast(input, mstype.int32), length, 1.0, 0.0)
    if weights is None:
        return F.sum(onehot, 0)
    return F.sum(onehot * F.expand_dims(F.cast(weights, mstype.float32), -1), 0)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion indices of `values` into the last axis of `sorted_sequence` keeping it sorted."""
    if sorter is not None:
        sorted_sequence = F.gather_elements(sorted_sequence, -1, sorter)
    right = right or side == "right"
    seq = F.expand_dims(sorted_sequence, -2)
    vals = F.expand_dims(values, -1)
    before = (seq <= vals) if right else (seq < vals)
    out = F.sum(F.cast(before, mstype.int32), -1)
    return F.cast(out, mstype.int32 if out_int32 else mstype.int64)


def bucketize(input, boundaries, *, right=False):
    """Index of the bucket (between sorted `boundaries`) of each value."""
    b = Tensor(np.asarray(boundaries, input.dtype.np_dtype if input.dtype.kind == "float" else np.float32))
    x = input if input.dtype.kind == "float" else F.cast(input, mstype.float32)
    before = (b <= F.expand_dims(x, -1)) if right else (b < F.expand_dims(x, -1))
    return F.sum(F.cast(before, mstype.int32), -1)


def histc(input, bins=100, min=0.0, max=0.0):
    """Histogram of `bins` equal bins over [min, max] (the data's range when min == max)."""
    lo, hi = float(min), float(max)
    if lo == hi:
        data = input.asnumpy()
        lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            lo, hi = lo - 1.0, hi + 1.0
    x = F.reshape(F.cast(input, mstype.float32), (-1,))
    inside = (x >= lo) & (x <= hi)
    idx = F.cast(F.clamp(F.floor((x - lo) * (bins / (hi - lo))), 0, bins - 1), mstype.int32)
    counts = F.one_hot(idx, bins, 1.0, 0.0) * F.expand_dims(F.cast(inside, mstype.float32), -1)
    return F.cast(F.sum(counts, 0), input.dtype if input.dtype.kind == "float" else mstype.float32)


def _indices(row, col, offset, dtype, lower):
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return Tensor(np.stack([r, c]).astype(mstype.to_dtype(dtype, "indices").np_dtype))


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """(2, N) row/column indices of the lower triangle."""
    return _indices(row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    """(2, N) row/column indices of the upper triangle."""
    return _indices(row, col, offset, dtype, False)


def _window(n, periodic, dtype, fn):
    if n == 1:
        w = np.ones(1)
    else:
        m = n if periodic else n - 1
        w = fn(np.arange(n), m)
    return Tensor(w.astype((dtype or mstype.float32).np_dtype))


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """Triangular window."""
    return _window(window_length, periodic, dtype, lambda k, m: 1 - np.abs(2 * k / m - 1))


def hann_window(window_length, periodic=True, *, dtype=None):
    """Hann window."""
    return _window(window_length, periodic, dtype, lambda k, m: 0.5 - 0.5 * np.cos(2 * np.pi * k / m))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """Hamming window (alpha − beta·cos)."""
    return _window(window_length, periodic, dtype, lambda k, m: alpha - beta * np.cos(2 * np.pi * k / m))


def blackman_window(window_length, periodic=True, *, dtype=None):
    """Blackman window."""
    return _window(window_length, periodic, dtype,
                   lambda k, m: 0.42 - 0.5 * np.cos(2 * np.pi * k / m) + 0.08 * np.cos(4 * np.pi * k / m))


def tensor_scatter_sub(input_x, indices, updates):
    """input_x with updates subtracted at `indices` (repeated indices accumulate)."""
    return F.tensor_scatter_add(input_x, indices, -updates)


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """In place: input_x[indices] += updates."""
    return _write_back(input_x, F.tensor_scatter_add(input_x, indices, updates))


def scatter_nd_sub(input_x, indices, updates, use_locking=False):
    """In place: input_x[indices] -= updates."""
    return _write_back(input_x, F.tensor_scatter_add(input_x, indices, -updates))


def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """In place: input_x[indices] = updates."""
    return _write_back(input_x, F.tensor_scatter_update(input_x, indices, updates))


def scatter_add(input_x, indices, updates):
    """In place: input_x[indices[...]] += updates along axis 0."""
    return scatter_nd_add(input_x, F.expand_dims(indices, -1), updates)


def scatter_update(input_x, indices, updates):
    """In place: input_x[indices[...]] = updates along axis 0. A Parameter is written row by row (the ScatterUpdate
    primitive: no copy of the rest); a plain Tensor gets the updated copy back."""
    from ...core.parameter import Parameter
    if isinstance(input_x, Parameter):
        return P.ScatterUpdate()(input_x, indices, updates)
    return scatter_nd_update(input_x, F.expand_dims(indices, -1), updates)
