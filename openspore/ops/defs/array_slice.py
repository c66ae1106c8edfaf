"""Primitives: slicing (Slice, StridedSlice, StridedSliceGrad, TensorCopySlices).

A strided slice is planned once on static shapes (`strided_plan`): reverse the axes with negative strides,
take positive-step slices, reshape for new and shrunk axes. Its gradient is the adjoint of that plan.
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from .array import c_array
from ._mindir import Arg, mindir, norm_tuple
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
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
        return (prim("Pad", paddings=pads)(dout), None, None)

    def _index(self, shape, begin, size):
        return tuple(slice(b, b + s) for b, s in _slice_bounds(self.name, tuple(shape), begin, size))

    def numpy(self, np, x, begin, size):
        return c_array(x[self._index(x.shape, begin, size)])

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


_INT_ONLY = frozenset((int,))
_MASKS = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}


class _Strided(Primitive):
    attr_defaults = dict(_MASKS)

    def plan(self, shape, begin, end, strides):
        # infer and the kernel both need the plan, and PyNative slices the same way every step: keep the last
        # few, for tuples of plain ints only ((1.0, 2) equals (1, 2) but is an error; Tensors hash by identity)
        plans = self.__dict__.get("_plans")
        if plans is None:
            plans = self.__dict__["_plans"] = {}
        key = found = None
        if type(begin) is tuple and type(end) is tuple and type(strides) is tuple \
                and _INT_ONLY.issuperset(map(type, begin + end + strides)):
            key = (tuple(shape), begin, end, strides)
            found = plans.get(key)
        if found is None:
            found = strided_plan(self.name, tuple(shape), begin, end, strides, self.begin_mask, self.end_mask,
                                 self.ellipsis_mask, self.new_axis_mask, self.shrink_axis_mask)
            if key is not None:
                if len(plans) >= 64:
                    plans.clear()
                plans[key] = found
        return found

    def masks(self):
        return {k: getattr(self, k) for k in _MASKS}


@register
class StridedSlice(_Strided):
    """StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    (input_x, begin, end, strides): numpy-style slicing with per-position bit masks."""
    input_names = ("input_x", "begin", "end", "strides")

    def __call__(self, x, begin, end, strides):
        # MindSpore also takes begin/end/strides as 1-D int Tensors (its dynamic-shape tests pass them so)
        return super().__call__(x, *(_tensor_to_ints(v) for v in (begin, end, strides)))

    def infer(self, x, begin, end, strides):
        check_tensor(self.name, "input_x", x)
        return AbstractTensor(self.plan(x.shape, begin, end, strides).shape, x.dtype)

    def bprop(self, x, begin, end, strides, out, dout):
        return (StridedSliceGrad(**self.masks())(dout, tuple(x.shape), begin, end, strides), None, None, None)

    def numpy(self, np, x, begin, end, strides):
        p = self.plan(x.shape, begin, end, strides)
        y = np.flip(x, p.flip) if p.flip else x
        return c_array(y[p.index]).reshape(p.shape)

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


def _tensor_to_ints(value):
    """An int Tensor as the tuple of ints it holds; anything else unchanged. (Inside a graph, asking a traced
    tensor for its values makes the graph runner run the function op by op, as for other value-dependent
    primitives.)"""
    if not (hasattr(value, "asnumpy") and hasattr(value, "dtype")) or value.dtype.kind not in ("int", "uint"):
        return value
    return tuple(int(v) for v in np.atleast_1d(value.asnumpy()))


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
        return c_array(np.flip(g, p.flip)) if p.flip else g

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


@register
class TensorCopySlices(_Strided):
    """TensorCopySlices(masks…)(x, value, begin, end, strides): a copy of x whose strided slice (as StridedSlice with
    the same masks selects it) is replaced by `value` of the sliced shape; the functional `x[slices] = value`."""
    input_names = ("x", "value", "begin", "end", "strides")

    def infer(self, x, value, begin, end, strides):
        check_tensor(self.name, "x", x)
        check_tensor(self.name, "value", value)
        p = self.plan(x.shape, begin, end, strides)
        if tuple(value.shape) != p.shape:
            raise ValueError(f"For '{self.name}', 'value' must have the sliced shape {list(p.shape)}, "
                             f"but got {list(value.shape)}.")
        if value.dtype is not x.dtype:
            raise TypeError(f"For '{self.name}', 'value' must have the dtype of 'x' Tensor[{x.dtype}], "
                            f"but got Tensor[{value.dtype}].")
        return AbstractTensor(x.shape, x.dtype)

    def bprop(self, x, value, begin, end, strides, out, dout):
        masks = self.masks()
        dx = TensorCopySlices(**masks)(dout, prim("ZerosLike")(value), begin, end, strides)
        return dx, StridedSlice(**masks)(dout, begin, end, strides), None, None, None

    def numpy(self, np, x, value, begin, end, strides):
        p = self.plan(x.shape, begin, end, strides)
        out = x.copy()
        view = np.flip(out, p.flip) if p.flip else out  # a view: writes land in `out`
        view[p.index] = value.reshape(p.sliced)
        return out

    def torch(self, torch, x, value, begin, end, strides):
        p = self.plan(x.shape, begin, end, strides)
        out = torch.flip(x, p.flip) if p.flip else x.clone()
        out[p.index] = value.reshape(p.sliced)
        return torch.flip(out, p.flip) if p.flip else out

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4, 5))
        yield Sample(x, rand_float(rng, (2, 2, 3)), (0, 1, 0), (2, 4, 5), (1, 2, 2))
        yield Sample(x, rand_float(rng, (3, 3)), (1, -1, 0), (2, 0, 5), (1, -1, 2), attrs={"shrink_axis_mask": 1},
                     name="shrink-reverse")
        yield Sample(x, rand_float(rng, (3, 4, 1, 2)), (0, 0, 1), (0, 0, 3), (1, 1, 1),
                     attrs={"ellipsis_mask": 1, "new_axis_mask": 2}, name="ellipsis-newaxis")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Slice, TensorCopySlices, formats=("MINDIR",))
not_exportable(NO_ONNX, Slice, TensorCopySlices, formats=("ONNX",))
not_exportable(NO_ONNX, StridedSlice, formats=("ONNX",))
not_exportable(BACKWARD, StridedSliceGrad)


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(StridedSlice,
       inputs=("x", Arg("begin", norm=norm_tuple), Arg("end", norm=norm_tuple), Arg("strides", norm=norm_tuple)),
       attrs=[Arg(m, 0) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")])
