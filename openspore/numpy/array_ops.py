"""`mindspore.numpy` array manipulation with NumPy's signatures: reshape/ravel/transpose/swapaxes/moveaxis,
expand_dims/squeeze, concatenate/stack/hstack/vstack/..., split family, tile/repeat, flip/roll/rot90, take,
unique, searchsorted, append, pad.

>>> import openspore.numpy as mnp
>>> mnp.reshape(mnp.arange(6), (2, 3)).shape
(2, 3)
"""
import numpy as onp

from ..core.tensor import Tensor
from .. import ops
from .array_creations import asarray

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "squeeze",
           "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "split", "array_split", "hsplit",
           "vsplit", "dsplit", "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "take",
           "take_along_axis", "unique", "searchsorted", "append", "pad", "broadcast_to", "broadcast_arrays",
           "atleast_1d", "atleast_2d", "atleast_3d", "size", "isscalar", "digitize", "bincount", "select",
           "ediff1d", "isin", "in1d"]


def _as(x):
    return x if isinstance(x, Tensor) else asarray(x)


def reshape(x, new_shape):
    """The same data in `new_shape` (one entry may be −1)."""
    return ops.reshape(_as(x), (new_shape,) if isinstance(new_shape, int) else tuple(new_shape))


def ravel(x):
    """Flattened to 1-D."""
    return ops.reshape(_as(x), (-1,))


def transpose(a, axes=None):
    """Axes permuted (reversed by default)."""
    x = _as(a)
    return ops.transpose(x, tuple(range(len(x.shape) - 1, -1, -1)) if axes is None else tuple(axes))


def swapaxes(x, axis1, axis2):
    """Two axes exchanged."""
    return ops.swapaxes(_as(x), axis1, axis2)


def moveaxis(a, source, destination):
    """Axes moved to new positions."""
    return ops.moveaxis(_as(a), source, destination)


def rollaxis(x, axis, start=0):
    """Axis `axis` moved to before position `start`."""
    x = _as(x)
    n = len(x.shape)
    axis, start = axis % n, start % (n + 1)
    return ops.moveaxis(x, axis, start - 1 if start > axis else start)


def expand_dims(a, axis):
    """A new axis of length 1 at `axis` (or several)."""
    x = _as(a)
    for ax in sorted([axis] if isinstance(axis, int) else list(axis)):
        x = ops.expand_dims(x, ax)
    return x


def squeeze(a, axis=None):
    """Axes of length 1 removed."""
    return ops.squeeze(_as(a), axis)


def concatenate(arrays, axis=0):
    """Joined along an existing axis (flattened first when axis is None)."""
    items = [_as(a) for a in arrays]
    if axis is None:
        items, axis = [ops.reshape(a, (-1,)) for a in items], 0
    return ops.concat(items, axis)


def stack(arrays, axis=0):
    """Joined along a new axis."""
    return ops.stack([_as(a) for a in arrays], axis)


def hstack(tup):
    """Joined column-wise (along axis 0 for 1-D)."""
    items = [_as(a) for a in tup]
    return ops.concat(items, 0 if len(items[0].shape) == 1 else 1)


def vstack(tup):
    """Joined row-wise after atleast_2d."""
    return ops.concat(list(ops.atleast_2d(tuple(_as(a) for a in tup))), 0)


def dstack(tup):
    """Joined along axis 2 after atleast_3d."""
    return ops.dstack([_as(a) for a in tup])


def column_stack(tup):
    """1-D arrays as columns."""
    return ops.column_stack([_as(a) for a in tup])


def split(x, indices_or_sections, axis=0):
    """Equal sections (must divide) or cuts at indices."""
    x = _as(x)
    if isinstance(indices_or_sections, int) and x.shape[axis] % indices_or_sections:
        raise ValueError(f"For 'split', the axis length {x.shape[axis]} is not divisible by {indices_or_sections}.")
    return list(ops.tensor_split(x, indices_or_sections, axis))


def array_split(x, indices_or_sections, axis=0):
    """Nearly equal sections (or cuts at indices)."""
    return list(ops.tensor_split(_as(x), indices_or_sections, axis))


def hsplit(x, indices_or_sections):
    """split along axis 1 (0 for 1-D)."""
    return list(ops.hsplit(_as(x), indices_or_sections))


def vsplit(x, indices_or_sections):
    """split along axis 0."""
    return list(ops.vsplit(_as(x), indices_or_sections))


def dsplit(x, indices_or_sections):
    """split along axis 2."""
    return list(ops.dsplit(_as(x), indices_or_sections))


def tile(a, reps):
    """The array repeated `reps` times per axis."""
    x = _as(a)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    if len(reps) > len(x.shape):
        x = ops.reshape(x, (1,) * (len(reps) - len(x.shape)) + tuple(x.shape))
    return ops.tile(x, (1,) * (len(x.shape) - len(reps)) + reps)


def repeat(a, repeats, axis=None):
    """Each element repeated (of the flattened array when axis is None)."""
    x = _as(a)
    if axis is None:
        x, axis = ops.reshape(x, (-1,)), 0
    return ops.repeat_interleave(x, repeats, axis)


def flip(m, axis=None):
    """Reversed along `axis` (all axes when None)."""
    x = _as(m)
    axes = tuple(range(len(x.shape))) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return ops.flip(x, axes)


def fliplr(m):
    """Reversed along axis 1."""
    return ops.fliplr(_as(m))


def flipud(m):
    """Reversed along axis 0."""
    return ops.flipud(_as(m))


def roll(a, shift, axis=None):
    """Elements shifted cyclically (over the flattened array when axis is None)."""
    x = _as(a)
    if axis is None:
        return ops.reshape(ops.roll(ops.reshape(x, (-1,)), shift, 0), tuple(x.shape))
    return ops.roll(x, shift, axis)


def rot90(a, k=1, axes=(0, 1)):
    """Rotated by 90° k times in the plane `axes`."""
    return ops.rot90(_as(a), k, axes)


def take(a, indices, axis=None):
    """Elements at `indices` (of the flattened array when axis is None)."""
    x, idx = _as(a), _as(indices)
    if axis is None:
        return ops.take(x, idx)
    return ops.gather(x, idx, axis)


def take_along_axis(arr, indices, axis):
    """Values at per-position indices along `axis`."""
    return ops.gather_elements(_as(arr), axis, _as(indices))


def unique(x, return_inverse=False):
    """Sorted unique values (and the inverse indices)."""
    values, inverse = onp.unique(_as(x).asnumpy(), return_inverse=True)
    out = Tensor(values)
    return (out, Tensor(inverse.astype(onp.int32).reshape(_as(x).shape))) if return_inverse else out


def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices of v into the sorted 1-D a."""
    return ops.searchsorted(_as(a), _as(v), side=side, sorter=None if sorter is None else _as(sorter))


def append(arr, values, axis=None):
    """values appended (both flattened when axis is None)."""
    return concatenate([arr, values], axis)


def pad(array, pad_width, mode="constant", constant_values=0):
    """Padded with a constant (mode 'constant'), per axis (before, after)."""
    if mode != "constant":
        raise ValueError(f"For 'mindspore.numpy.pad', openspore supports mode 'constant' only, but got {mode!r}.")
    x = _as(array)
    widths = onp.broadcast_to(onp.asarray(pad_width, int), (len(x.shape), 2))
    flat = tuple(int(v) for pair in widths[::-1] for v in pair)
    return ops.pad(x, flat, value=constant_values)


def broadcast_to(array, shape):
    """Broadcast to `shape`."""
    return ops.broadcast_to(_as(array), tuple(shape))


def broadcast_arrays(*args):
    """All inputs broadcast to their common shape."""
    items = [_as(a) for a in args]
    shape = onp.broadcast_shapes(*[tuple(a.shape) for a in items])
    return [ops.broadcast_to(a, shape) for a in items]


def atleast_1d(*arys):
    """Each input with at least one axis."""
    out = ops.atleast_1d(tuple(_as(a) for a in arys))
    return out[0] if len(arys) == 1 else list(out)


def atleast_2d(*arys):
    """Each input with at least two axes."""
    out = ops.atleast_2d(tuple(_as(a) for a in arys))
    return out[0] if len(arys) == 1 else list(out)


def atleast_3d(*arys):
    """Each input with at least three axes."""
    out = ops.atleast_3d(tuple(_as(a) for a in arys))
    return out[0] if len(arys) == 1 else list(out)


def size(a, axis=None):
    """Number of elements (along `axis`)."""
    x = _as(a)
    return x.size if axis is None else x.shape[axis]


def isscalar(element):
    """Whether `element` is a Python/NumPy scalar."""
    return isinstance(element, (int, float, complex, bool, str, onp.generic))


def digitize(x, bins, right=False):
    """Index of the bin of each value (bins increasing)."""
    return ops.bucketize(_as(x), [float(b) for b in _as(bins).asnumpy()], right=right)


def bincount(x, weights=None, minlength=0, length=None):
    """Counts of each non-negative integer."""
    return ops.bincount(_as(x), None if weights is None else _as(weights), minlength)


def select(condlist, choicelist, default=0):
    """From the first true condition's choice, else default."""
    out = None
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        base = out if out is not None else ops.full_like(_as(choice), default)
        out = ops.where(_as(cond), _as(choice), base)
    return out


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with optional values before/after."""
    d = ops.diff(ravel(ary))
    parts = [ravel(to_begin)] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(ravel(to_end))
    return ops.concat(parts, 0) if len(parts) > 1 else d


def isin(element, test_elements, invert=False):
    """Whether each element occurs in test_elements."""
    e, t = _as(element), ravel(test_elements)
    hit = ops.any(ops.expand_dims(e, -1) == t, -1)
    return ops.logical_not(hit) if invert else hit


def in1d(ar1, ar2, invert=False):
    """isin of the flattened ar1."""
    return isin(ravel(ar1), ar2, invert)
