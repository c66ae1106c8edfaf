"""Primitives: slicing and padding (Slice, StridedSlice, StridedSliceGrad, Pad, PadV3, PadV3Grad).

A strided slice is planned once on static shapes (`strided_plan`): reverse the axes with negative strides,
take positive-step slices, reshape for new and shrunk axes. Its gradient is the adjoint of that plan.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._util import check_tensor, prim, rand_float


def _ints(op, name, values):
    if hasattr(values, "asnumpy"):
        values = values.asnumpy().tolist()
    if not isinstance(values, (tuple, list)) or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                        for v in values):
        raise TypeError(f"For '{op}', '{name}' must be a tuple of ints, but got {values!r}.")
    return tuple(int(v) for v in values)


# ---- Slice ------------------------------------------------------------------------------------
def _slice_bounds(op, shape, begin, size):
    begin, size = _ints(op, "begin", begin), _ints(op, "size", size)
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ValueError(f"For '{op}', the lengths of 'begin' {begin} and 'size' {size} must equal the rank "
                         f"of the input {len(shape)}.")
    out = []
    for d, (b, s, n) in enumerate(zip(begin, size, shape)):
        if s == -1:
            s = n - b
        if b < 0 or s < 0 or b + s > n:
            raise ValueError(f"For '{op}', the slice begin {b} size {s} is out of range for dimension {d} of size {n}.")
        out.append((b, s))
    return out


@register
class Slice(Primitive):
    """Slice()(input_x, begin, size): the box starting at `begin` of extent `size` (-1 = to the end)."""
    input_names = ("input_x", "begin", "size")

    def infer(self, x, begin, size):
        check_tensor(self.name, "input_x", x)
        return AbstractTensor(tuple(s for _, s in _slice_bounds(self.name, tuple(x.shape), begin, size)), x.dtype)

    def bprop(self, x, begin, size, out, dout):
        bounds = _slice_bounds(self.name, tuple(x.shape), begin, size)
        pads = tuple((b, n - b - s) for (b, s), n in zip(bounds, x.shape))
        return (Pad(pads)(dout), None, None)

    def _index(self, shape, begin, size):
        return tuple(slice(b, b + s) for b, s in _slice_bounds(self.name, tuple(shape), begin, size))

    def numpy(self, np, x, begin, size):
        return np.ascontiguousarray(x[self._index(x.shape, begin, size)])

    def torch(self, torch, x, begin, size):
        return x[self._index(x.shape, begin, size)].contiguous()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4, 2))
        yield Sample(x, (1, 0, 0), (2, 3, 2))
        yield Sample(x, (0, 2, 1), (-1, -1, 1))


# ---- StridedSlice -----------------------------------------------------------------------------
class StridedPlan:
    """flip: axes read backwards; index: positive-step slices after flipping; shape: final output shape."""

    __slots__ = ("flip", "index", "sliced", "shape")

    def __init__(self, flip, index, sliced, shape):
        self.flip, self.index, self.sliced, self.shape = flip, index, sliced, shape


def strided_plan(op, shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
    begin, end, strides = _ints(op, "begin", begin), _ints(op, "end", end), _ints(op, "strides", strides)
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"For '{op}', 'begin', 'end' and 'strides' must have the same length, but got "
                         f"{len(begin)}, {len(end)} and {len(strides)}.")
    if ellipsis_mask & (ellipsis_mask - 1):
        raise ValueError(f"For '{op}', only one bit of 'ellipsis_mask' may be set, but got {ellipsis_mask}.")
    ndim, m = len(shape), len(begin)
    bit = [1 << i for i in range(m)]
    consumed = sum(1 for i in range(m) if not (ellipsis_mask | new_axis_mask) & bit[i])
    if consumed > ndim:
        raise IndexError(f"For '{op}', too many indices ({consumed}) for a tensor of rank {ndim}.")
    flip, index, sliced, out = [], [], [], []
    dim = 0

    def full(d):
        index.append(slice(None))
        sliced.append(shape[d])
        out.append(shape[d])

    for i in range(m):
        if ellipsis_mask & bit[i]:
            for _ in range(ndim - consumed):
                full(dim)
                dim += 1
            continue
        if new_axis_mask & bit[i]:
            out.append(1)
            continue
        n, step = shape[dim], strides[i]
        if step == 0:
            raise ValueError(f"For '{op}', 'strides' must not contain 0, but got {strides}.")
        if shrink_axis_mask & bit[i]:
            b = begin[i] + n if begin[i] < 0 else begin[i]
            if not 0 <= b < n:
                raise IndexError(f"For '{op}', index {begin[i]} is out of bounds for dimension {dim} with size {n}.")
            index.append(slice(b, b + 1))
            sliced.append(1)
        else:
            b = None if begin_mask & bit[i] else begin[i]
            e = None if end_mask & bit[i] else end[i]
            start, stop, step = slice(b, e, step).indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                index.append(slice(0, 0))
            elif step > 0:
                index.append(slice(start, start + (count - 1) * step + 1, step))
            else:
                flip.append(dim)
                start = n - 1 - start
                index.append(slice(start, start + (count - 1) * -step + 1, -step))
            sliced.append(count)
            out.append(count)
        dim += 1
    while dim < ndim:
        full(dim)
        dim += 1
    return StridedPlan(tuple(flip), tuple(index), tuple(sliced), tuple(out))


_MASKS = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}


class _Strided(Primitive):
    attr_defaults = dict(_MASKS)

    def plan(self, shape, begin, end, strides):
        return strided_plan(self.name, tuple(shape), begin, end, strides, self.begin_mask, self.end_mask,
                            self.ellipsis_mask, self.new_axis_mask, self.shrink_axis_mask)

    def masks(self):
        return {k: getattr(self, k) for k in _MASKS}


@register
class StridedSlice(_Strided):
    """StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    (input_x, begin, end, strides): numpy-style slicing with per-position bit masks."""
    input_names = ("input_x", "begin", "end", "strides")

    def infer(self, x, begin, end, strides):
        check_tensor(self.name, "input_x", x)
        return AbstractTensor(self.plan(x.shape, begin, end, strides).shape, x.dtype)

    def bprop(self, x, begin, end, strides, out, dout):
        return (StridedSliceGrad(**self.masks())(dout, tuple(x.shape), begin, end, strides), None, None, None)

    def numpy(self, np, x, begin, end, strides):
        p = self.plan(x.shape, begin, end, strides)
        y = np.flip(x, p.flip) if p.flip else x
        return np.ascontiguousarray(y[p.index]).reshape(p.shape)

    def torch(self, torch, x, begin, end, strides):
        p = self.plan(x.shape, begin, end, strides)
        y = torch.flip(x, p.flip) if p.flip else x
        return y[p.index].reshape(p.shape).contiguous()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4, 5))
        yield Sample(x, (0, 1, 0), (2, 4, 5), (1, 2, 2))
        yield Sample(x, (2, -1, 0), (0, 0, 5), (-1, -2, 3), name="negative-strides")
        yield Sample(x, (1, 0), (2, 0), (1, 1), attrs={"shrink_axis_mask": 1, "end_mask": 2}, name="shrink")
        yield Sample(x, (0, 0, 1), (0, 0, 3), (1, 1, 1), attrs={"ellipsis_mask": 1, "new_axis_mask": 2},
                     name="ellipsis-newaxis")
        yield Sample(x, (-1,), (0,), (-1,), attrs={"begin_mask": 1, "end_mask": 1}, name="reverse-all")


@register
class StridedSliceGrad(_Strided):
    """StridedSliceGrad(masks…)(dy, shapex, begin, end, strides): scatter `dy` back into zeros of `shapex`."""
    input_names = ("dy", "shapex", "begin", "end", "strides")

    def infer(self, dy, shapex, begin, end, strides):
        check_tensor(self.name, "dy", dy)
        shapex = _ints(self.name, "shapex", shapex)
        p = self.plan(shapex, begin, end, strides)
        if tuple(dy.shape) != p.shape:
            raise ValueError(f"For '{self.name}', 'dy' must have the sliced shape {list(p.shape)}, "
                             f"but got {list(dy.shape)}.")
        return AbstractTensor(shapex, dy.dtype)

    def bprop(self, dy, shapex, begin, end, strides, out, dout):
        return (StridedSlice(**self.masks())(dout, begin, end, strides), None, None, None, None)

    def numpy(self, np, dy, shapex, begin, end, strides):
        p = self.plan(shapex, begin, end, strides)
        g = np.zeros(tuple(shapex), dy.dtype)
        g[p.index] = dy.reshape(p.sliced)
        return np.ascontiguousarray(np.flip(g, p.flip)) if p.flip else g

    def torch(self, torch, dy, shapex, begin, end, strides):
        p = self.plan(shapex, begin, end, strides)
        g = torch.zeros(tuple(shapex), dtype=dy.dtype, device=dy.device)
        g[p.index] = dy.reshape(p.sliced)
        return torch.flip(g, p.flip) if p.flip else g

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 2, 3)), (3, 4, 5), (0, 1, 0), (2, 4, 5), (1, 2, 2))
        yield Sample(rand_float(rng, (3, 3)), (3, 4, 5), (1, -1, 0), (2, 0, 5), (1, -1, 2),
                     attrs={"shrink_axis_mask": 1})


# ---- padding ----------------------------------------------------------------------------------
@register
class Pad(Primitive):
    """Pad(paddings)(input_x): zero padding; paddings[i] = (before, after) for dimension i."""
    attr_defaults = {"paddings": ()}
    input_names = ("input_x",)

    def _pairs(self, ndim):
        pads = self.paddings
        if len(pads) != ndim or not all(len(p) == 2 and min(p) >= 0 for p in pads):
            raise ValueError(f"For '{self.name}', 'paddings' must hold one non-negative (before, after) pair per "
                             f"dimension ({ndim}), but got {pads!r}.")
        return tuple((int(a), int(b)) for a, b in pads)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        pads = self._pairs(len(x.shape))
        return AbstractTensor(tuple(n + a + b for n, (a, b) in zip(x.shape, pads)), x.dtype)

    def bprop(self, x, out, dout):
        pads = self._pairs(len(x.shape))
        return (Slice()(dout, tuple(a for a, _ in pads), tuple(x.shape)),)

    def numpy(self, np, x):
        return np.pad(x, self._pairs(x.ndim))

    def torch(self, torch, x):
        pads = self._pairs(x.ndim)
        flat = [v for pair in reversed(pads) for v in pair]
        return torch.nn.functional.pad(x, flat) if flat else x.clone()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), attrs={"paddings": ((1, 0), (2, 1))})
        yield Sample(rand_float(rng, (2, 1, 2)), attrs={"paddings": ((0, 0), (1, 1), (0, 2))})


_PAD_MODES = ("constant", "reflect", "edge", "circular")


def pad_pairs(op, paddings, ndim, contiguous=True):
    """Torch-order paddings (last dimension first) → one (before, after) pair per dimension."""
    flat = _ints(op, "paddings", paddings)
    if len(flat) % 2 or len(flat) // 2 > ndim:
        raise ValueError(f"For '{op}', the length of 'paddings' must be even and at most 2 * rank ({2 * ndim}), "
                         f"but got {len(flat)}.")
    k = len(flat) // 2
    pairs = [(flat[2 * i], flat[2 * i + 1]) if contiguous else (flat[i], flat[k + i]) for i in range(k)]
    return tuple([(0, 0)] * (ndim - k) + pairs[::-1])


def _source_index(np_like, mode, n, before, after, device=None):
    """For each output position along one axis, the input position it copies (reflect/edge/circular)."""
    if np_like.__name__ == "torch":
        p = np_like.arange(-before, n + after, device=device)
    else:
        p = np_like.arange(-before, n + after)
    if mode == "edge":
        return p.clip(0, n - 1)
    if mode == "circular":
        return p % n
    p = abs(p)
    return (n - 1) - abs((n - 1) - p)


class _PadV3Base(Primitive):
    attr_defaults = {"mode": "constant", "paddings_contiguous": True}

    def check_attrs(self):
        if self.mode not in _PAD_MODES:
            raise ValueError(f"For '{self.name}', 'mode' must be one of {list(_PAD_MODES)}, but got {self.mode!r}.")

    def pairs(self, shape, paddings):
        pairs = pad_pairs(self.name, paddings, len(shape), self.paddings_contiguous)
        for d, ((a, b), n) in enumerate(zip(pairs, shape)):
            if self.mode != "constant" and min(a, b) < 0:
                raise ValueError(f"For '{self.name}', negative paddings are only allowed in 'constant' mode, "
                                 f"but got {(a, b)} for dimension {d}.")
            if self.mode == "reflect" and max(a, b) >= n:
                raise ValueError(f"For '{self.name}', in 'reflect' mode each padding must be smaller than the "
                                 f"dimension size, but got {(a, b)} for dimension {d} of size {n}.")
            if self.mode in ("edge", "circular") and n == 0 and max(a, b) > 0:
                raise ValueError(f"For '{self.name}', cannot pad an empty dimension {d} in '{self.mode}' mode.")
            if n + a + b < 0:
                raise ValueError(f"For '{self.name}', paddings {(a, b)} leave dimension {d} of size {n} negative.")
        return pairs


@register
class PadV3(_PadV3Base):
    """PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value): torch-order paddings
    (last dimension first); negative paddings crop in constant mode."""
    input_names = ("x", "paddings", "constant_value")

    def infer(self, x, paddings, value=None):
        check_tensor(self.name, "x", x)
        pairs = self.pairs(tuple(x.shape), paddings)
        return AbstractTensor(tuple(n + a + b for n, (a, b) in zip(x.shape, pairs)), x.dtype)

    def bprop(self, x, paddings, value, out, dout):
        if self.mode == "constant":
            pairs = self.pairs(tuple(x.shape), paddings)
            neg = tuple(v for a, b in reversed(pairs) for v in (-a, -b))
            dx = PadV3("constant")(dout, neg, 0)
            dvalue = None
            if hasattr(value, "shape"):
                # the fill value lands on every padded element: its gradient is the sum outside the interior
                rs = prim("ReduceSum")
                dvalue = prim("Sub")(rs(dout, ()), rs(dx, ()))
                dvalue = prim("Reshape")(prim("Cast")(dvalue, value.dtype), tuple(value.shape))
            return dx, None, dvalue
        return PadV3Grad(self.mode, self.paddings_contiguous)(dout, paddings), None, None

    def numpy(self, np, x, paddings, value=None):
        pairs = self.pairs(x.shape, paddings)
        if self.mode == "constant":
            crop = tuple(slice(max(-a, 0), n - max(-b, 0)) for n, (a, b) in zip(x.shape, pairs))
            grow = tuple((max(a, 0), max(b, 0)) for a, b in pairs)
            fill = 0 if value is None else np.asarray(value).reshape(()).astype(x.dtype)
            return np.pad(x[crop], grow, constant_values=fill)
        for d, (a, b) in enumerate(pairs):
            if a or b:
                x = np.take(x, _source_index(np, self.mode, x.shape[d], a, b), axis=d)
        return np.ascontiguousarray(x)

    def torch(self, torch, x, paddings, value=None):
        pairs = self.pairs(tuple(x.shape), paddings)
        if self.mode == "constant":
            flat = [v for pair in reversed(pairs) for v in pair]
            fill = 0 if value is None else (value.item() if hasattr(value, "item") else value)
            return torch.nn.functional.pad(x, flat, value=fill) if flat else x.clone()
        for d, (a, b) in enumerate(pairs):
            if a or b:
                x = torch.index_select(x, d, _source_index(torch, self.mode, x.shape[d], a, b, x.device))
        return x.contiguous()

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, (1, 2), 0.5, attrs={"mode": "constant"})
        yield Sample(x, (-1, 2, 1, 0), np.array(1.5, np.float32), attrs={"mode": "constant"}, name="crop-tensor-value")
        yield Sample(x, (2, 3, 1, 2), None, attrs={"mode": "reflect"})
        yield Sample(x, (3, 1, 0, 2), None, attrs={"mode": "edge"})
        yield Sample(x, (1, 5, 2, 1), None, attrs={"mode": "circular"})
        yield Sample(x, (1, 0, 2, 1), None, attrs={"mode": "edge", "paddings_contiguous": False}, name="noncontig")


@register
class PadV3Grad(_PadV3Base):
    """PadV3Grad(mode, paddings_contiguous)(dy, paddings): the adjoint of PadV3 for reflect/edge/circular:
    sums every padded copy back onto its source element."""
    input_names = ("dy", "paddings")

    def _in_shape(self, dy_shape, paddings):
        pairs = pad_pairs(self.name, paddings, len(dy_shape), self.paddings_contiguous)
        return tuple(n - a - b for n, (a, b) in zip(dy_shape, pairs)), pairs

    def infer(self, dy, paddings):
        check_tensor(self.name, "dy", dy)
        if self.mode == "constant":
            raise ValueError(f"For '{self.name}', 'constant' mode has no PadV3Grad; its adjoint is a crop.")
        shape, _ = self._in_shape(tuple(dy.shape), paddings)
        self.pairs(shape, paddings)
        return AbstractTensor(shape, dy.dtype)

    def bprop(self, dy, paddings, out, dout):
        return PadV3(self.mode, self.paddings_contiguous)(dout, paddings), None

    def numpy(self, np, dy, paddings):
        shape, pairs = self._in_shape(dy.shape, paddings)
        g = dy
        for d in reversed(range(len(shape))):
            a, b = pairs[d]
            if a or b:
                moved = np.moveaxis(g, d, 0)
                acc = np.zeros((shape[d],) + moved.shape[1:], dy.dtype)
                np.add.at(acc, _source_index(np, self.mode, shape[d], a, b), moved)
                g = np.moveaxis(acc, 0, d)
        return np.ascontiguousarray(g)

    def torch(self, torch, dy, paddings):
        shape, pairs = self._in_shape(tuple(dy.shape), paddings)
        g = dy
        for d in reversed(range(len(shape))):
            a, b = pairs[d]
            if a or b:
                size = list(g.shape)
                size[d] = shape[d]
                acc = torch.zeros(size, dtype=dy.dtype, device=dy.device)
                g = acc.index_add_(d, _source_index(torch, self.mode, shape[d], a, b, dy.device), g)
        return g.contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 7, 9)), (2, 3, 1, 2), attrs={"mode": "reflect"})
        yield Sample(rand_float(rng, (2, 6, 6)), (1, 1, 3, 0), attrs={"mode": "edge"})
        yield Sample(rand_float(rng, (3, 9)), (5, 1), attrs={"mode": "circular"})

