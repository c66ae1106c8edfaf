"""`mindspore.numpy` index helpers: argwhere, choose, diagonal, ix_, mgrid / ogrid, ravel_multi_index /
unravel_index, tril_indices_from / triu_indices_from.

>>> import openspore.numpy as mnp
>>> mnp.mgrid[0:2, 0:3].shape, [t.shape for t in mnp.ogrid[0:2, 0:3]]
((2, 2, 3), [(2, 1), (1, 3)])
>>> [t.asnumpy().tolist() for t in mnp.unravel_index(mnp.array([22, 41]), (7, 6))]
[[3, 6], [4, 5]]
"""
import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray, linspace, tril_indices, triu_indices

__all__ = ["argwhere", "choose", "diagonal", "ix_", "mgrid", "ogrid", "ravel_multi_index", "unravel_index",
           "tril_indices_from", "triu_indices_from"]


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def argwhere(a):
    """Indices (int64, one row per nonzero element) of the nonzero entries of a Tensor with ≥ 1 axis."""
    x = _as(a)
    if len(x.shape) == 0:
        raise ValueError("For 'mindspore.numpy.argwhere', the input must have at least 1 dimension, but got a "
                         "0-d Tensor.")
    return ops.cast(ops.argwhere(x), mstype.int64)


def choose(a, choices, mode="clip"):
    """out[i] = choices[a[i]][i], all broadcast together; out-of-range indices are clipped ('clip') or taken
    modulo the number of choices ('wrap'). MindSpore has no 'raise' mode."""
    if mode == "raise":
        raise NotImplementedError("For 'mindspore.numpy.choose', mode 'raise' is not supported; use 'clip' or "
                                  "'wrap'.")
    if mode not in ("clip", "wrap"):
        raise ValueError(f"For 'mindspore.numpy.choose', mode must be 'raise', 'wrap' or 'clip', but got {mode!r}.")
    index = _as(a)
    options = [_as(c) for c in choices] if not isinstance(choices, Tensor) else list(ops.unbind(choices, 0))
    common = options[0].dtype
    for c in options[1:]:
        common = mstype.promote_types(common, c.dtype)
    shape = onp.broadcast_shapes(tuple(index.shape), *[tuple(c.shape) for c in options])
    stacked = ops.stack([ops.broadcast_to(ops.cast(c, common), shape) for c in options], 0)
    n = len(options)
    index = ops.cast(index, mstype.int32)
    index = ops.clamp(index, 0, n - 1) if mode == "clip" else ops.remainder(index, n)
    index = ops.expand_dims(ops.broadcast_to(index, shape), 0)
    return ops.squeeze(ops.gather_elements(stacked, 0, index), 0)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal `offset` of the (axis1, axis2) planes, as the last axis of the result."""
    x = _as(a)
    if len(x.shape) < 2:
        raise ValueError(f"For 'mindspore.numpy.diagonal', the input must have at least 2 dimensions, but got "
                         f"shape {x.shape}.")
    return ops.diagonal(x, offset, axis1, axis2)


def ix_(*args):
    """Open-mesh index Tensors: the k-th 1-D input reshaped to have its length on axis k of len(args)."""
    out = []
    for k, arg in enumerate(args):
        if not isinstance(arg, Tensor):
            raise TypeError(f"For 'mindspore.numpy.ix_', every input must be a Tensor, but input {k} is "
                            f"{type(arg).__name__}.")
        if len(arg.shape) != 1:
            raise ValueError(f"For 'mindspore.numpy.ix_', every input must be 1-D (a cross index), but input {k} "
                             f"has shape {arg.shape}.")
        shape = [1] * len(args)
        shape[k] = arg.shape[0]
        out.append(ops.reshape(arg, tuple(shape)))
    return tuple(out)


def _grid_axis(item):
    """One slice of mgrid/ogrid as a 1-D Tensor: a complex step means a number of points (end included)."""
    if not isinstance(item, slice):
        raise TypeError(f"For 'mindspore.numpy.mgrid/ogrid', indices must be slices such as 0:5 or -1:1:5j, but "
                        f"got {item!r}.")
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if isinstance(step, complex):
        return linspace(start, item.stop, int(abs(step)), dtype=mstype.float32)
    values = onp.arange(start, item.stop, step)
    floats = any(isinstance(v, float) for v in (start, item.stop, step))
    return Tensor(values.astype(onp.float32 if floats else onp.int32))


class _Grid:
    """mgrid[...] (a dense stacked grid) or ogrid[...] (open grids that broadcast together)."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            return _grid_axis(key)
        axes = [_grid_axis(k) for k in key]
        if any(a.dtype.kind == "float" for a in axes):
            axes = [ops.cast(a, mstype.float32) for a in axes]
        if self.sparse:
            return [ops.reshape(a, tuple(-1 if i == k else 1 for i in range(len(axes))))
                    for k, a in enumerate(axes)]
        return ops.stack(list(ops.meshgrid(*axes, indexing="ij")), 0)


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def _strides(dims, order, name):
    if order not in ("C", "F"):
        raise ValueError(f"For 'mindspore.numpy.{name}', order must be 'C' or 'F', but got {order!r}.")
    dims = list(dims)
    strides = [1] * len(dims)
    walk = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for i in walk:
        strides[i] = strides[i + 1] * dims[i + 1] if order == "C" else strides[i - 1] * dims[i - 1]
    return strides


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Flat indices of the coordinates in `multi_index` (one sequence per dimension) into an array of shape
    `dims`; out-of-range coordinates are clipped or wrapped. MindSpore returns them as float32."""
    if mode not in ("clip", "wrap"):
        raise ValueError(f"For 'mindspore.numpy.ravel_multi_index', mode must be 'wrap' or 'clip', but got "
                         f"{mode!r}.")
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    coords = list(ops.unbind(multi_index, 0)) if isinstance(multi_index, Tensor) else [_as(c) for c in multi_index]
    if len(coords) != len(dims):
        raise ValueError(f"For 'mindspore.numpy.ravel_multi_index', multi_index must be a sequence of length "
                         f"{len(dims)} (one per dimension of dims), but got {len(coords)}.")
    out = None
    for c, d, s in zip(coords, dims, _strides(dims, order, "ravel_multi_index")):
        c = ops.cast(c, mstype.int32)
        c = ops.clamp(c, 0, d - 1) if mode == "clip" else ops.remainder(c, d)
        out = c * s if out is None else out + c * s
    return ops.cast(out, mstype.float32)


def unravel_index(indices, shape, order="C"):
    """The coordinates (a tuple, one Tensor per dimension of `shape`) of flat indices; negative indices count
    from the end and indices past the end are clipped to the last element."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    x = _as(indices)
    size = int(onp.prod(shape))
    flat = ops.cast(x, mstype.int32)
    flat = ops.clamp(ops.where(flat < 0, flat + size, flat), 0, size - 1)
    strides = _strides(shape, order, "unravel_index")
    out = [ops.remainder(ops.floor_div(flat, s), d) for d, s in zip(shape, strides)]
    return tuple(o if x.dtype == mstype.int32 else ops.cast(o, x.dtype) for o in out)


def _indices_from(name, make, arr, k):
    if not isinstance(arr, Tensor):
        raise TypeError(f"For 'mindspore.numpy.{name}', the input must be a Tensor, but got "
                        f"{type(arr).__name__}.")
    if len(arr.shape) != 2:
        raise ValueError(f"For 'mindspore.numpy.{name}', the input must be 2-D, but got shape {arr.shape}.")
    return make(arr.shape[0], k, arr.shape[1])


def tril_indices_from(arr, k=0):
    """(rows, cols) of the lower triangle (diagonal k) of a 2-D Tensor."""
    return _indices_from("tril_indices_from", tril_indices, arr, k)


def triu_indices_from(arr, k=0):
    """(rows, cols) of the upper triangle (diagonal k) of a 2-D Tensor."""
    return _indices_from("triu_indices_from", triu_indices, arr, k)
