"""Tensor indexing with numpy semantics, built on primitives so that gradients flow through it.

`getitem(x, index)` handles ints (negative too), slices with steps, Ellipsis, None, bool masks (Tensor or numpy,
giving a 1-D result), integer Tensors / lists / arrays (advanced indexing) and any combination of these:

1. basic part: one StridedSlice for ints, slices and None (advanced positions are kept whole);
2. advanced part: one Gather (a single index array) or a Transpose + GatherNd (several), placing the broadcast
   index dimensions where numpy does (in place when the advanced indices are adjacent, else first).

`setitem(x, index, value)` returns a NEW tensor and differentiates with respect to both the untouched elements
of x and the value: basic indices copy the broadcast value into the strided slice (TensorCopySlices); a full-shape
bool mask with a one-element value is a MaskedFill; anything else scatters the value (TensorScatterUpdate) at the
flat positions the index selects (getitem on an iota tensor).
"""
import numpy as np

from ..common import dtype as mstype
from ..core.dispatch import current_tracer
from ..core.tensor import Tensor
from ..core.registry import prim
from . import operations as P
from .defs.array_slice import strided_plan

_NEW_AXIS = object()  # parsed None entry
_FALSE = object()  # `False` as an index: a new axis from which nothing is selected


class _Adv:
    """An advanced index along one dimension: host int64 array or integer Tensor."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Mask:
    """A boolean index covering `ndim` dimensions: host bool array or bool Tensor."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    @property
    def ndim(self):
        return len(self.value.shape)


def _slice_part(v, what):
    if v is None:
        return None
    if isinstance(v, Tensor):
        v = v.__index__()
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"slice {what} must be an int or None, but got {type(v).__name__}.")
    return int(v)


def _parse_item(item):
    if item is None:
        return _NEW_AXIS
    if item is Ellipsis:
        return Ellipsis
    if isinstance(item, (bool, np.bool_)):
        return _Mask(np.asarray(bool(item)))
    if isinstance(item, (int, np.integer)):
        return int(item)
    if isinstance(item, slice):
        step = _slice_part(item.step, "step")
        if step == 0:
            raise ValueError("slice step cannot be zero.")
        return slice(_slice_part(item.start, "start"), _slice_part(item.stop, "stop"), step)
    if isinstance(item, Tensor):
        kind = item.dtype.kind
        if kind == "bool":
            return _Mask(item)
        if kind in ("int", "uint"):
            return _Adv(item)
        raise IndexError(f"tensors used as indices must be int or bool, but got Tensor[{item.dtype}].")
    if isinstance(item, (list, tuple, np.ndarray)):
        arr = np.asarray(item)
        if arr.dtype == np.bool_:
            return _Mask(arr)
        if arr.dtype.kind in "iu" or arr.size == 0:
            return _Adv(arr.astype(np.int64))
        raise IndexError(f"arrays used as indices must be of integer or boolean type, but got {arr.dtype}.")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None, bools and int/bool Tensors, lists "
                     f"or arrays are valid indices, but got {type(item).__name__}.")


def _expand(x_shape, index):
    """Parse the index and spell out the ellipsis: every entry then covers its dimensions explicitly."""
    items = index if isinstance(index, tuple) else (index,)
    entries = [_parse_item(i) for i in items]
    ndim = len(x_shape)
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...').")
    # `True` adds a whole new axis; `False` adds one and selects nothing from it
    entries = [(_NEW_AXIS if bool(e.value) else _FALSE) if isinstance(e, _Mask) and e.ndim == 0 else e
               for e in entries]
    consumed = sum(e.ndim if isinstance(e, _Mask) else 1 for e in entries
                   if e is not Ellipsis and e is not _NEW_AXIS and e is not _FALSE)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {consumed}).")
    fill = [slice(None)] * (ndim - consumed)
    k = next((i for i, e in enumerate(entries) if e is Ellipsis), None)
    if k is not None:
        entries = entries[:k] + fill + entries[k + 1:]
    else:
        entries = entries + fill
    return entries


def _masks_to_adv(entries, x_shape):
    """Replace each bool mask by one integer index per masked dimension (np.nonzero / NonZero)."""
    out, dim = [], 0
    for e in entries:
        if e is _NEW_AXIS or e is _FALSE:
            out.append(e)
            continue
        if isinstance(e, _Mask):
            want = tuple(x_shape[dim:dim + e.ndim])
            if tuple(e.value.shape) != want:
                raise IndexError(f"boolean index shape {list(e.value.shape)} does not match the indexed tensor "
                                 f"shape {list(want)} at dimension {dim}.")
            if isinstance(e.value, Tensor):
                coords = prim(P.NonZero)(e.value)
                cols = prim(P.Unstack, axis=1)(coords) if e.ndim > 1 else (prim(P.Reshape)(coords, (-1,)),)
                out.extend(_Adv(c) for c in cols)
            else:
                out.extend(_Adv(c.astype(np.int64)) for c in np.nonzero(e.value))
            dim += e.ndim
            continue
        out.append(e)
        dim += 1
    return out


def _wrap_host(arr, n, dim):
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}.")
        if lo < 0:
            arr = np.where(arr < 0, arr + n, arr)
    return arr


def wrap_tensor_index(t, n, dim=0):
    """Map an integer index Tensor from [-n, n) onto [0, n)."""
    if current_tracer() is None:  # PyNative: the values are here; check them for a clear error
        arr = t.asnumpy()
        fixed = _wrap_host(arr, n, dim)
        return t if fixed is arr else Tensor(fixed.astype(arr.dtype))
    return wrap_by_lookup(t, n)


def wrap_by_lookup(t, n):
    """Value-blind wrap (graph mode): look idx + n up in [0..n-1, 0..n-1]; Gather bounds-checks [-n, n)."""
    table = Tensor(np.tile(np.arange(n, dtype=t.dtype.np_dtype), 2))
    return prim(P.Gather)(table, prim(P.Add)(t, n), 0)


def _basic_spec(entries, adv_present):
    """StridedSlice arguments for ints, slices and new axes; advanced entries stay whole.

    Returns (begin, end, strides, masks, positions of the advanced dims in the result, whether it is a no-op)."""
    begin, end, strides = [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}
    positions, trivial = [], True
    out_dim = 0
    for i, e in enumerate(entries):
        bit = 1 << i
        if e is _NEW_AXIS or e is _FALSE:
            begin.append(0), end.append(1), strides.append(1)
            masks["new_axis_mask"] |= bit
            trivial = False
            if e is _FALSE:
                positions.append(out_dim)
            out_dim += 1
        elif isinstance(e, _Adv) or (adv_present and isinstance(e, int)):
            begin.append(0), end.append(0), strides.append(1)
            masks["begin_mask"] |= bit
            masks["end_mask"] |= bit
            positions.append(out_dim)
            out_dim += 1
        elif isinstance(e, int):
            begin.append(e), end.append(e + 1), strides.append(1)
            masks["shrink_axis_mask"] |= bit
            trivial = False
        else:
            begin.append(0 if e.start is None else e.start)
            end.append(0 if e.stop is None else e.stop)
            strides.append(1 if e.step is None else e.step)
            if e.start is None:
                masks["begin_mask"] |= bit
            if e.stop is None:
                masks["end_mask"] |= bit
            if not (e.start is None and e.stop is None and e.step in (None, 1)):
                trivial = False
            out_dim += 1
    return tuple(begin), tuple(end), tuple(strides), masks, positions, trivial


def _advanced(y, indices, positions):
    """Apply the (already basic-sliced) advanced indices at `positions` of y."""
    fixed = []
    for idx, pos in zip(indices, positions):
        n = y.shape[pos]
        if isinstance(idx, Tensor):
            fixed.append(wrap_tensor_index(idx, n, pos))
        else:
            fixed.append(_wrap_host(idx, n, pos))
    try:
        shape = np.broadcast_shapes(*(tuple(f.shape) for f in fixed))
    except ValueError:
        shown = " ".join(str(tuple(f.shape)) for f in fixed)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes {shown}.") \
            from None
    if len(fixed) == 1:
        idx = fixed[0] if isinstance(fixed[0], Tensor) else Tensor(fixed[0])
        return prim(P.Gather)(y, idx, positions[0])
    k = len(fixed)
    if all(not isinstance(f, Tensor) for f in fixed):
        stacked = Tensor(np.stack(np.broadcast_arrays(*fixed), axis=-1).astype(np.int64))
    else:
        parts = []
        for f in fixed:
            t = f if isinstance(f, Tensor) else Tensor(f)
            if t.dtype is not mstype.int64:
                t = prim(P.Cast)(t, mstype.int64)
            if tuple(t.shape) != shape:
                t = prim(P.BroadcastTo, shape=shape)(t)
            parts.append(t)
        stacked = prim(P.Stack, axis=-1)(tuple(parts))
    rest = [d for d in range(y.ndim) if d not in positions]
    perm = tuple(positions) + tuple(rest)
    if perm != tuple(range(y.ndim)):
        y = prim(P.Transpose)(y, perm)
    out = prim(P.GatherNd)(y, stacked)
    first = positions[0]
    if positions == list(range(first, first + k)) and first > 0:
        nb = len(shape)
        back = tuple(range(nb, nb + first)) + tuple(range(nb)) + tuple(range(nb + first, out.ndim))
        out = prim(P.Transpose)(out, back)
    return out


def _parse(x, index):
    entries = _masks_to_adv(_expand(tuple(x.shape), index), tuple(x.shape))
    return entries, any(isinstance(e, _Adv) or e is _FALSE for e in entries)


def _getitem_entries(x, entries, adv):
    begin, end, strides, masks, positions, trivial = _basic_spec(entries, adv)
    y = x if trivial else prim(P.StridedSlice, **masks)(x, begin, end, strides)
    if not adv:
        return prim(P.Identity)(x) if y is x else y
    indices = []
    for e in entries:
        if isinstance(e, _Adv):
            indices.append(e.value)
        elif e is _FALSE:
            indices.append(np.zeros((0,), np.int64))
        elif isinstance(e, int):
            indices.append(np.asarray(e, np.int64))
    return _advanced(y, indices, positions)


_BASIC = {}  # (shape, basic index key) -> (StridedSlice or None for a no-op, begin, end, strides)


def _basic_key(index):
    """A hashable key for an index of ints, slices of ints, None and Ellipsis only (else None): such an index on a
    given shape always makes the same StridedSlice, so `x[1:3, ::2]` in a loop parses once."""
    key = []
    for item in (index if type(index) is tuple else (index,)):
        kind = type(item)
        if kind is slice:
            start, stop, step = item.start, item.stop, item.step
            if not ((start is None or type(start) is int) and (stop is None or type(stop) is int)
                    and (step is None or type(step) is int)):
                return None
            key.append((start, stop, step))
        elif kind is int or item is None or item is Ellipsis:  # (bools are not ints here: type(True) is bool)
            key.append(item)
        else:
            return None
    return tuple(key)


def _basic_getitem(x, key, index):
    spec_key = (tuple(x.shape), key)
    spec = _BASIC.get(spec_key)
    if spec is None:
        entries, _ = _parse(x, index)  # raises the index errors; no advanced entries in a basic index
        begin, end, strides, masks, _, trivial = _basic_spec(entries, False)
        if len(_BASIC) >= 1024:
            _BASIC.clear()
        spec = _BASIC[spec_key] = (None if trivial else prim(P.StridedSlice, **masks), begin, end, strides)
    op, begin, end, strides = spec
    return prim(P.Identity)(x) if op is None else op(x, begin, end, strides)


def getitem(x, index):
    """`x[index]` with numpy semantics; returns a new Tensor and is differentiable with respect to x.

    >>> import numpy as np, openspore as ms
    >>> ms.Tensor(np.arange(12).reshape(3, 4))[1:3, ::2].asnumpy().tolist()
    [[4, 6], [8, 10]]
    """
    key = _basic_key(index)
    if key is not None:
        return _basic_getitem(x, key, index)
    if (isinstance(index, Tensor) and index.dtype is mstype.bool_ and index.shape
            and tuple(index.shape) == tuple(x.shape[:len(index.shape)])):
        return prim(P.GatherNd)(x, prim(P.NonZero)(index))  # x[mask]: the common case in one gather
    entries, adv = _parse(x, index)
    return _getitem_entries(x, entries, adv)


# ---- setitem ------------------------------------------------------------------------------------
def _value_tensor(value, dtype):
    if isinstance(value, Tensor):
        return value if value.dtype is dtype else prim(P.Cast)(value, dtype)
    if dtype is mstype.bfloat16:
        return prim(P.Cast)(Tensor(np.asarray(value, np.float32)), dtype)
    try:
        arr = np.asarray(value)
    except Exception:
        raise TypeError(f"The value to assign must be a number, a list/tuple of numbers or a Tensor, "
                        f"but got {type(value).__name__}.") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"The value to assign must be a number, a list/tuple of numbers or a Tensor, "
                        f"but got {value!r}.")
    return Tensor(arr.astype(dtype.np_dtype))


def _fit_value(value, shape):
    vshape = tuple(value.shape)
    while len(vshape) > len(shape) and vshape[0] == 1:  # numpy drops leading 1s of the value
        vshape = vshape[1:]
    try:
        if np.broadcast_shapes(vshape, shape) != tuple(shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"could not broadcast the value of shape {list(value.shape)} into the indexed shape "
                         f"{list(shape)}.") from None
    if vshape != tuple(value.shape):
        value = prim(P.Reshape)(value, vshape)
    if vshape != tuple(shape):
        value = prim(P.BroadcastTo, shape=tuple(shape))(value)
    return value


def _positions(shape):
    size = int(np.prod(shape)) if shape else 1
    return prim(P.Reshape)(prim(P.Range)(0, size, 1), tuple(shape))


def setitem(x, index, value):
    """Functional `x[index] = value`: a NEW Tensor equal to x except at the indexed positions.

    Differentiable with respect to x (untouched elements) and value."""
    value = _value_tensor(value, x.dtype)
    if (isinstance(index, Tensor) and index.dtype is mstype.bool_ and tuple(index.shape) == tuple(x.shape)
            and value.size == 1):
        return prim(P.MaskedFill)(x, index, prim(P.Reshape)(value, ()))
    entries, adv = _parse(x, index)
    if not adv:  # ints, slices, None, Ellipsis: copy the value into the strided slice
        begin, end, strides, masks, _, _ = _basic_spec(entries, False)
        target = strided_plan("setitem", tuple(x.shape), begin, end, strides, **masks).shape
        return prim(P.TensorCopySlices, **masks)(x, _fit_value(value, target), begin, end, strides)
    where = _getitem_entries(_positions(tuple(x.shape)), entries, adv)
    target = tuple(where.shape)
    value = _fit_value(value, target)
    count = int(np.prod(target)) if target else 1
    flat = prim(P.TensorScatterUpdate)(prim(P.Reshape)(x, (-1,)), prim(P.Reshape)(where, (count, 1)),
                                   prim(P.Reshape)(value, (count,)))
    return prim(P.Reshape)(flat, tuple(x.shape))
