"""Functional array ops: reshape, transpose, concat, split, slicing, gather/scatter, pad (MindSpore 2.x signatures).

Creation, sorting and masking functions live in `array_create_func` and are re-exported here.
"""
import builtins

import numpy as np

from ...core.tensor import Tensor
from ...core.registry import prim
from .. import operations as P
from ..defs._util import normalize_axis
from .array_create_func import *  # noqa: F401,F403
from .array_create_func import __all__ as _create_all

__all__ = ["reshape", "broadcast_to", "transpose", "permute", "swapaxes", "swapdims", "moveaxis", "movedim",
           "expand_dims", "unsqueeze", "squeeze", "flatten", "ravel", "concat", "cat", "stack", "hstack", "vstack",
           "split", "chunk", "unstack", "unbind", "slice", "strided_slice", "narrow", "gather", "gather_elements",
           "gather_d", "gather_nd", "index_select", "scatter_nd", "tensor_scatter_update", "tensor_scatter_add",
           "tensor_scatter_elements", "scatter", "tile", "repeat_interleave", "pad", "shape", "rank", "size",
           "numel"] + list(_create_all)


def _ndim(x):
    return len(x.shape)


# ---- shape ------------------------------------------------------------------------------------
def reshape(input, shape):
    """reshape(input, shape): same data, new shape (one -1 is inferred)."""
    if isinstance(shape, Tensor):
        shape = tuple(shape.asnumpy().reshape(-1).tolist())
    return prim(P.Reshape)(input, tuple(shape))


def broadcast_to(input, shape):
    """broadcast_to(input, shape): broadcast to `shape` (-1 keeps a dimension)."""
    return prim(P.BroadcastTo, shape=tuple(shape))(input)


def transpose(input, input_perm):
    """transpose(input, input_perm): permute the dimensions."""
    return prim(P.Transpose)(input, tuple(input_perm))


def permute(input, axis):
    """permute(input, axis): permute the dimensions (a tuple of axes)."""
    return prim(P.Transpose)(input, tuple(axis))


def swapaxes(input, axis0, axis1):
    """swapaxes(input, axis0, axis1): exchange two dimensions."""
    n = _ndim(input)
    a, b = normalize_axis("swapaxes", axis0, n, "axis0"), normalize_axis("swapaxes", axis1, n, "axis1")
    perm = list(range(n))
    perm[a], perm[b] = perm[b], perm[a]
    return prim(P.Transpose)(input, tuple(perm)) if a != b else prim(P.Identity)(input)


def swapdims(input, dim0, dim1):
    """swapdims(input, dim0, dim1): alias of swapaxes."""
    return swapaxes(input, dim0, dim1)


def moveaxis(x, source, destination):
    """moveaxis(x, source, destination): move axes to new positions, the others keep their order."""
    n = _ndim(x)
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    if len(src) != len(dst):
        raise ValueError(f"For 'moveaxis', 'source' and 'destination' must have the same number of elements, "
                         f"but got {len(src)} and {len(dst)}.")
    src = [normalize_axis("moveaxis", s, n, "source") for s in src]
    dst = [normalize_axis("moveaxis", d, n, "destination") for d in dst]
    rest = [a for a in range(n) if a not in src]
    perm = [None] * n
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = tuple(p if p is not None else next(it) for p in perm)
    return prim(P.Transpose)(x, perm)


def movedim(x, source, destination):
    """movedim(x, source, destination): alias of moveaxis."""
    return moveaxis(x, source, destination)


def expand_dims(input_x, axis):
    """expand_dims(input_x, axis): insert a size-1 dimension."""
    return prim(P.ExpandDims)(input_x, axis)


def unsqueeze(input, dim):
    """unsqueeze(input, dim): insert a size-1 dimension."""
    return prim(P.ExpandDims)(input, dim)


def squeeze(input, axis=None):
    """squeeze(input, axis=None): drop size-1 dimensions (all, or those in `axis`)."""
    return prim(P.Squeeze, axis=() if axis is None else axis)(input)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """flatten(input, order='C', *, start_dim=1, end_dim=-1): merge dimensions start_dim..end_dim."""
    if not isinstance(order, str):
        raise TypeError(f"For Tensor.flatten, the parameter 'order' must be a string, but got {type(order)}")
    if order not in ("C", "F"):
        raise ValueError(f"For Tensor.flatten, the parameter 'order' must be 'C' or 'F', but got {order!r}")
    n = _ndim(input)
    if n in (0, 1):
        return prim(P.Reshape)(input, (-1,))
    if order == "F":
        input = prim(P.Transpose)(input, tuple(range(n - 1, -1, -1)))
    s = normalize_axis("flatten", start_dim, n, "start_dim")
    e = normalize_axis("flatten", end_dim, n, "end_dim")
    if s > e:
        raise ValueError(f"For 'flatten', 'start_dim' {start_dim} must not come after 'end_dim' {end_dim}.")
    shape = tuple(input.shape)
    if s == e:
        return input
    merged = 1
    for d in shape[s:e + 1]:
        merged *= d
    return prim(P.Reshape)(input, shape[:s] + (merged,) + shape[e + 1:])


def ravel(input):
    """ravel(input): flatten to 1-D."""
    return prim(P.Reshape)(input, (-1,))


# ---- join / split -----------------------------------------------------------------------------
def concat(tensors, axis=0):
    """concat(tensors, axis=0): join along an existing axis."""
    return prim(P.Concat, axis=axis)(tuple(tensors))


def cat(tensors, axis=0):
    """cat(tensors, axis=0): alias of concat."""
    return prim(P.Concat, axis=axis)(tuple(tensors))


def stack(tensors, axis=0):
    """stack(tensors, axis=0): join along a new axis."""
    return prim(P.Stack, axis=axis)(tuple(tensors))


def hstack(tensors):
    """hstack(tensors): concat along axis 1 (axis 0 for 1-D tensors)."""
    tensors = tuple(tensors)
    return prim(P.Concat, axis=0 if _ndim(tensors[0]) == 1 else 1)(tensors)


def vstack(inputs):
    """vstack(inputs): concat along axis 0, 1-D tensors becoming rows."""
    rows = tuple(prim(P.Reshape)(t, (1, -1)) if _ndim(t) == 1 else t for t in inputs)
    return prim(P.Concat, axis=0)(rows)


def split(tensor, split_size_or_sections, axis=0):
    """split(tensor, split_size_or_sections, axis=0): pieces of one size (the last may be smaller) or of the
    listed sizes; returns a tuple."""
    a = normalize_axis("split", axis, _ndim(tensor))
    n = tensor.shape[a]
    if isinstance(split_size_or_sections, (int, np.integer)) and not isinstance(split_size_or_sections, bool):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"For 'split', 'split_size_or_sections' must be positive, but got {size}.")
        if n % size == 0:
            return prim(P.Split, axis=a, output_num=builtins.max(n // size, 1))(tensor) if n else (tensor,)
        sizes = [size] * (n // size) + [n % size]
    elif isinstance(split_size_or_sections, (tuple, list)):
        sizes = [int(s) for s in split_size_or_sections]
    else:
        raise TypeError(f"For 'split', 'split_size_or_sections' must be an int or a list of ints, but got "
                        f"{type(split_size_or_sections).__name__}.")
    return prim(P.SplitV, size_splits=tuple(sizes), split_dim=a, num_split=len(sizes))(tensor)


def chunk(input, chunks, axis=0):
    """chunk(input, chunks, axis=0): at most `chunks` pieces of size ceil(n / chunks)."""
    # the piece count fixes the number of outputs, so a graph can not take it (or the axis) as a variable
    # (a `mutable` int is traced as a tensor); MindSpore's graph mode refuses them the same way
    if isinstance(chunks, Tensor):
        raise RuntimeError("For ChunkView, the chunk is a unknown variable, which is not supported now.")
    if isinstance(axis, Tensor):
        raise RuntimeError("For ChunkView, the dims is a unknown variable, which is not supported now.")
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or chunks <= 0:
        raise ValueError(f"For 'chunk', 'chunks' must be a positive int, but got {chunks!r}.")
    n = input.shape[normalize_axis("chunk", axis, _ndim(input))]
    return split(input, builtins.max(-(-n // chunks), 1), axis)


def unstack(input_x, axis=0):
    """unstack(input_x, axis=0): the slices along `axis`, as a tuple."""
    return prim(P.Unstack, axis=axis)(input_x)


def unbind(input, dim=0):
    """unbind(input, dim=0): alias of unstack."""
    return prim(P.Unstack, axis=dim)(input)


# ---- slicing ----------------------------------------------------------------------------------
def slice(input_x, begin, size):
    """slice(input_x, begin, size): the box at `begin` of extent `size` (-1 = to the end)."""
    return prim(P.Slice)(input_x, tuple(begin), tuple(size))


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """strided_slice(input_x, begin, end, strides, …masks): numpy-style slicing with bit masks."""
    op = prim(P.StridedSlice, begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
              new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
    return op(input_x, tuple(begin), tuple(end), tuple(strides))


def narrow(input, axis, start, length):
    """narrow(input, axis, start, length): `length` elements from `start` along `axis`."""
    n = _ndim(input)
    a = normalize_axis("narrow", axis, n)
    size = input.shape[a]
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise ValueError(f"For 'narrow', start {start} and length {length} exceed dimension {a} of size {size}.")
    begin = [0] * n
    extent = list(input.shape)
    begin[a], extent[a] = start, length
    return prim(P.Slice)(input, tuple(begin), tuple(extent))


# ---- gather / scatter -------------------------------------------------------------------------
def gather(input_params, input_indices, axis, batch_dims=0):
    """gather(input_params, input_indices, axis, batch_dims=0): slices of params at `input_indices` along axis."""
    if isinstance(axis, Tensor):
        axis = int(axis)
    return prim(P.Gather, batch_dims=batch_dims)(input_params, input_indices, axis)


def gather_elements(input, dim, index):
    """gather_elements(input, dim, index): out[i][j] = input[index[i][j]][j] for dim 0."""
    return prim(P.GatherD)(input, dim, index)


def gather_d(x, dim, index):
    """gather_d(x, dim, index): alias of gather_elements."""
    return prim(P.GatherD)(x, dim, index)


def gather_nd(input_x, indices):
    """gather_nd(input_x, indices): elements or slices at the coordinate rows of `indices`."""
    return prim(P.GatherNd)(input_x, indices)


def index_select(input, axis, index):
    """index_select(input, axis, index): entries of `input` along `axis` at the 1-D `index`."""
    if _ndim(index) != 1:
        raise ValueError(f"For 'index_select', 'index' must be 1-D, but got shape {list(index.shape)}.")
    return prim(P.Gather)(input, index, axis)


def scatter_nd(indices, updates, shape):
    """scatter_nd(indices, updates, shape): zeros of `shape` with updates summed in at `indices`."""
    return prim(P.ScatterNd)(indices, updates, tuple(shape))


def tensor_scatter_update(input_x, indices, updates):
    """tensor_scatter_update(input_x, indices, updates): a copy with `updates` written at `indices`."""
    return prim(P.TensorScatterUpdate)(input_x, indices, updates)


def tensor_scatter_add(input_x, indices, updates):
    """tensor_scatter_add(input_x, indices, updates): a copy with `updates` added at `indices`."""
    return prim(P.TensorScatterAdd)(input_x, indices, updates)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """tensor_scatter_elements(input_x, indices, updates, axis=0, reduction='none')."""
    return prim(P.TensorScatterElements, axis=axis, reduction=reduction)(input_x, indices, updates)


def scatter(input, axis, index, src):
    """scatter(input, axis, index, src): input with src[i][j] written at [index[i][j]][j] for axis 0."""
    return prim(P.TensorScatterElements, axis=axis, reduction="none")(input, index, src)


# ---- repeat / pad -----------------------------------------------------------------------------
def tile(input, dims):
    """tile(input, dims): repeat the tensor dims[i] times along dimension i."""
    return prim(P.Tile)(input, tuple(dims))


def repeat_interleave(input, repeats, axis=None):
    """repeat_interleave(input, repeats, axis=None): repeat each element (each slice along axis) `repeats` times;
    axis=None works on the flattened input."""
    if axis is None:
        input, axis = prim(P.Reshape)(input, (-1,)), 0
    a = normalize_axis("repeat_interleave", axis, _ndim(input))
    n = input.shape[a]
    if isinstance(repeats, Tensor):
        repeats = repeats.asnumpy().tolist()
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, (int, np.integer)):
        shape = tuple(input.shape)
        x = prim(P.ExpandDims)(input, a + 1)
        x = prim(P.BroadcastTo, shape=shape[:a + 1] + (int(repeats),) + shape[a + 1:])(x)
        return prim(P.Reshape)(x, shape[:a] + (n * int(repeats),) + shape[a + 1:])
    if len(repeats) != n:
        raise ValueError(f"For 'repeat_interleave', 'repeats' must have one entry per element of axis {a} ({n}), "
                         f"but got {len(repeats)}.")
    index = Tensor(np.repeat(np.arange(n, dtype=np.int64), np.asarray(repeats, np.int64)))
    return prim(P.Gather)(input, index, a)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "circular"}


def pad(input_x, padding, mode="constant", value=None):
    """pad(input_x, padding, mode='constant', value=None): torch-order padding (last dimension first:
    (left, right, top, bottom, …)); modes 'constant', 'reflect', 'replicate', 'circular'."""
    if mode not in _PAD_MODES:
        raise ValueError(f"For 'pad', 'mode' must be one of {list(_PAD_MODES)}, but got {mode!r}.")
    if mode != "constant" and value is not None:
        raise ValueError(f"For 'pad', 'value' is only used in 'constant' mode, but got value={value!r} "
                         f"with mode {mode!r}.")
    if isinstance(padding, Tensor):
        padding = padding.asnumpy().tolist()
    padding = tuple(int(p) for p in padding)
    if mode == "constant":
        if isinstance(value, Tensor) and value.dtype is not input_x.dtype:
            value = prim(P.Cast)(value, input_x.dtype)
        return prim(P.PadV3, mode="constant")(input_x, padding, 0 if value is None else value)
    return prim(P.PadV3, mode=_PAD_MODES[mode])(input_x, padding, None)


# ---- shape queries ----------------------------------------------------------------------------
def shape(input_x):
    """shape(input_x): the shape as a tuple of ints."""
    return tuple(input_x.shape)


def rank(input_x):
    """rank(input_x): the number of dimensions."""
    return len(input_x.shape)


def size(input_x):
    """size(input_x): the number of elements."""
    n = 1
    for s in input_x.shape:
        n *= s
    return n


def numel(input):
    """numel(input): the number of elements."""
    return size(input)
