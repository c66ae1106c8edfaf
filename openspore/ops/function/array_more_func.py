"""More of MindSpore's array functions, composed from primitives: scatter-into-view functions (`select_scatter`,
`slice_scatter`, `diagonal_scatter`), `block_diag`, `combinations`, `unique_consecutive`, block rearrangements
(`space_to_batch_nd`, `batch_to_space_nd`, `space_to_depth`/`depth_to_space` for the classes) and the `inplace_*`
row updates.

>>> import numpy as np, openspore as ms
>>> ms.ops.slice_scatter(ms.ops.zeros((2, 4)), ms.ops.ones((2, 2)), 1, 0, 4, 2).asnumpy().tolist()
[[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
>>> ms.ops.block_diag(ms.Tensor([[1.0]]), ms.Tensor([[2.0, 3.0]])).asnumpy().tolist()
[[1.0, 0.0, 0.0], [0.0, 2.0, 3.0]]
"""
import builtins
import itertools

import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F
from .array_extra_func import _diag_positions

__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter", "block_diag", "combinations", "unique_consecutive",
           "space_to_batch_nd", "batch_to_space_nd", "inplace_add", "inplace_sub", "inplace_update",
           "inplace_index_add"]


def _check(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(value).__name__}.")


def _to_front(x, axes):
    """Transpose `axes` to the front (in that order); returns the tensor and the permutation to undo it."""
    nd = len(x.shape)
    perm = list(axes) + [i for i in range(nd) if i not in axes]
    inverse = list(np.argsort(perm))
    return (F.transpose(x, tuple(perm)) if perm != list(range(nd)) else x), tuple(int(i) for i in inverse)


def _scatter_rows(op, input, axes, positions, src_front):
    """input with the entries at `positions` (k-tuples over `axes`) replaced by src_front's leading rows."""
    front, undo = _to_front(input, axes)
    expected = (len(positions),) + tuple(front.shape[len(axes):])
    if tuple(src_front.shape) != expected:
        raise ValueError(f"For '{op}', 'src' must have shape {list(expected)} (after moving the scattered axis "
                         f"first), but got {list(src_front.shape)}.")
    indices = Tensor(np.asarray(positions, np.int64).reshape(len(positions), len(axes)))
    out = F.tensor_scatter_update(front, indices, F.cast(src_front, input.dtype))
    return F.transpose(out, undo) if undo != tuple(range(len(undo))) else out


def select_scatter(input, src, axis, index):
    """input with the slice at `index` along `axis` replaced by `src` (input's shape without that axis)."""
    _check("select_scatter", "input", input)
    _check("select_scatter", "src", src)
    axis = axis % len(input.shape)
    index = index % input.shape[axis]
    return _scatter_rows("select_scatter", input, (axis,), [index], F.expand_dims(src, 0))


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """input with input[start:end:step] along `axis` replaced by `src`."""
    _check("slice_scatter", "input", input)
    _check("slice_scatter", "src", src)
    axis = axis % len(input.shape)
    rows = list(range(input.shape[axis]))[slice(start, end, step)]
    front, _ = _to_front(src, (axis,))
    return _scatter_rows("slice_scatter", input, (axis,), rows, front)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its (dim1, dim2) diagonal at `offset` replaced by `src` (shaped like `ops.diagonal`'s result)."""
    _check("diagonal_scatter", "input", input)
    _check("diagonal_scatter", "src", src)
    nd = len(input.shape)
    d1, d2 = dim1 % nd, dim2 % nd
    r, c = _diag_positions(input.shape[d1], input.shape[d2], offset)
    src_front = F.transpose(src, (len(src.shape) - 1,) + tuple(range(len(src.shape) - 1)))
    return _scatter_rows("diagonal_scatter", input, (d1, d2), list(zip(r.tolist(), c.tolist())), src_front)


def block_diag(*inputs):
    """The block-diagonal matrix of the inputs (0-D, 1-D as one row, or 2-D), zeros elsewhere."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    mats = []
    for i, t in enumerate(inputs):
        _check("block_diag", f"inputs[{i}]", t)
        if len(t.shape) > 2:
            raise ValueError(f"For 'block_diag', inputs must have rank at most 2, but inputs[{i}] has shape "
                             f"{list(t.shape)}.")
        mats.append(F.reshape(t, (1, 1) if len(t.shape) == 0 else (1, t.shape[0]) if len(t.shape) == 1 else t.shape))
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = mstype.promote_types(dtype, m.dtype)
    width = builtins.sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        rows.append(F.pad(F.cast(m, dtype), (left, width - left - m.shape[1])))
        left += m.shape[1]
    return F.concat(rows, 0)


def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-D tensor's elements, as rows (itertools order)."""
    _check("combinations", "input", input)
    if len(input.shape) != 1:
        raise ValueError(f"For 'combinations', the input must be 1-D, but got shape {list(input.shape)}.")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.asarray(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    if index.shape[0] == 0:
        return F.zeros((0,) if r != 1 else (0, 1), input.dtype) if r != 1 else F.reshape(input[:0], (0, 1))
    return F.reshape(F.gather(input, Tensor(index.reshape(-1)), 0), index.shape)


def unique_consecutive(input, return_idx=False, return_counts=False, axis=None):
    """Collapse runs of equal consecutive elements (or slices along `axis`); with return_idx the run number of
    each input element, with return_counts each run's length. The output size depends on the values, so the
    result is computed eagerly."""
    _check("unique_consecutive", "input", input)
    x = input.asnumpy()
    if axis is None:
        x, ax = x.reshape(-1), 0
    else:
        ax = axis % x.ndim
    moved = np.moveaxis(x, ax, 0)
    if moved.shape[0] == 0:
        change = np.zeros(0, bool)
    else:
        flat = moved.reshape(moved.shape[0], -1)
        change = np.concatenate([[True], np.any(flat[1:] != flat[:-1], axis=1)])
    starts = np.flatnonzero(change)
    out = Tensor(np.ascontiguousarray(np.moveaxis(moved[starts], 0, ax)))
    result = [out]
    if return_idx:
        result.append(Tensor((np.cumsum(change) - 1).astype(np.int64)))
    if return_counts:
        result.append(Tensor(np.diff(np.append(starts, moved.shape[0])).astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


# ---- block rearrangements (NCHW-style: the blocked dimensions are the last len(block_shape)) ---------------------
def _blocks(op, block_shape, n):
    blocks = [int(block_shape)] * n if isinstance(block_shape, int) else [int(b) for b in block_shape]
    if len(blocks) != n or any(b < 1 for b in blocks):
        raise ValueError(f"For '{op}', 'block_shape' must be {n} positive ints, but got {block_shape!r}.")
    return blocks


def space_to_batch_nd(input_x, block_shape, paddings):
    """Zero-pad the last M dimensions by `paddings` ((before, after) each), cut them into block_shape blocks
    and move the offset within the block into the batch: out[(b₁…b_M)·N + n, c, …] = padded[n, c, i·B + b, …]."""
    _check("space_to_batch_nd", "input_x", input_x)
    pads = [tuple(int(v) for v in p) for p in (paddings.asnumpy().tolist() if isinstance(paddings, Tensor)
                                               else paddings)]
    m = len(pads)
    blocks = _blocks("space_to_batch_nd", block_shape, m)
    flat_pads = []
    for before, after in reversed(pads):
        flat_pads += [before, after]
    x = F.pad(input_x, tuple(flat_pads)) if builtins.any(flat_pads) else input_x
    lead = tuple(x.shape[:len(x.shape) - m])
    spatial = x.shape[len(x.shape) - m:]
    for s, b in zip(spatial, blocks):
        if s % b:
            raise ValueError(f"For 'space_to_batch_nd', padded spatial size {s} is not divisible by block {b}.")
    split = list(lead)
    for s, b in zip(spatial, blocks):
        split += [s // b, b]
    x = F.reshape(x, tuple(split))
    k = len(lead)
    block_axes = [k + 2 * i + 1 for i in range(m)]
    grid_axes = [k + 2 * i for i in range(m)]
    x = F.transpose(x, tuple(block_axes) + tuple(range(k)) + tuple(grid_axes))
    batch = int(np.prod(blocks)) * lead[0]
    return F.reshape(x, (batch,) + lead[1:] + tuple(s // b for s, b in zip(spatial, blocks)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: move block offsets from the batch back into the last M dimensions,
    then crop each by `crops` ((start, end) each)."""
    _check("batch_to_space_nd", "input_x", input_x)
    crops = [tuple(int(v) for v in c) for c in (crops.asnumpy().tolist() if isinstance(crops, Tensor) else crops)]
    m = len(crops)
    blocks = _blocks("batch_to_space_nd", block_shape, m)
    prod = int(np.prod(blocks))
    if input_x.shape[0] % prod:
        raise ValueError(f"For 'batch_to_space_nd', the batch {input_x.shape[0]} is not divisible by the block "
                         f"product {prod}.")
    n = input_x.shape[0] // prod
    mid = tuple(input_x.shape[1:len(input_x.shape) - m])
    grid = tuple(input_x.shape[len(input_x.shape) - m:])
    x = F.reshape(input_x, tuple(blocks) + (n,) + mid + grid)
    k = 1 + len(mid)  # batch and middle dimensions after the block axes move out
    perm = [m + i for i in range(k)]
    for i in range(m):
        perm += [m + k + i, i]
    x = F.transpose(x, tuple(perm))
    x = F.reshape(x, (n,) + mid + tuple(g * b for g, b in zip(grid, blocks)))
    for i, (start, end) in enumerate(crops):
        if start or end:
            axis = len(x.shape) - m + i
            x = F.narrow(x, axis, start, x.shape[axis] - start - end)
    return x


# ---- row updates (x[indices] op= v), written back into a Parameter ------------------------------------------------
def _write_back(target, value):
    from ...core.parameter import Parameter
    return F.assign(target, value) if isinstance(target, Parameter) else value


def _rows_index(op, indices, n):
    idx = indices.asnumpy() if isinstance(indices, Tensor) else np.asarray(indices)
    idx = np.atleast_1d(idx).astype(np.int64)
    if idx.size != n:
        raise ValueError(f"For '{op}', 'indices' must name one row per row of 'v' ({n}), but got {idx.size}.")
    return Tensor(idx.reshape(-1, 1))


def inplace_add(x, v, indices):
    """x[indices[i]] += v[i] (rows along axis 0); a Parameter is updated in place."""
    _check("inplace_add", "x", x)
    v = F.reshape(v, (1,) + tuple(v.shape)) if len(v.shape) == len(x.shape) - 1 else v
    return _write_back(x, F.tensor_scatter_add(x, _rows_index("inplace_add", indices, v.shape[0]), v))


def inplace_sub(x, v, indices):
    """x[indices[i]] −= v[i] (rows along axis 0); a Parameter is updated in place."""
    _check("inplace_sub", "x", x)
    v = F.reshape(v, (1,) + tuple(v.shape)) if len(v.shape) == len(x.shape) - 1 else v
    return _write_back(x, F.tensor_scatter_add(x, _rows_index("inplace_sub", indices, v.shape[0]), -v))


def inplace_update(x, v, indices):
    """x[indices[i]] = v[i] (rows along axis 0); a Parameter is updated in place."""
    _check("inplace_update", "x", x)
    v = F.reshape(v, (1,) + tuple(v.shape)) if len(v.shape) == len(x.shape) - 1 else v
    return _write_back(x, F.tensor_scatter_update(x, _rows_index("inplace_update", indices, v.shape[0]), v))


def inplace_index_add(var, indices, updates, axis):
    """var[..., indices[i], ...] += updates[..., i, ...] along `axis`; a Parameter is updated in place."""
    _check("inplace_index_add", "var", var)
    front, undo = _to_front(var, (axis % len(var.shape),))
    upd, _ = _to_front(updates, (axis % len(updates.shape),))
    out = F.tensor_scatter_add(front, _rows_index("inplace_index_add", indices, upd.shape[0]), upd)
    return _write_back(var, F.transpose(out, undo) if undo != tuple(range(len(undo))) else out)
