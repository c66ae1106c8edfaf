"""Primitives: selection by mask, value or order (MaskedFill, MaskedSelect, NonZero, Sort, TopK, Unique, OneHot).

Outputs whose size depends on values (MaskedSelect, NonZero, Unique) infer -1 for that dimension.
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ...core.tensor import Tensor
from .array import c_array
from ._mindir import Arg, mindir
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import broadcast_shape, check_tensor, normalize_axis, prim, rand_float, sum_to_shape


def _check_mask(op, mask):
    check_tensor(op, "mask", mask)
    if mask.dtype is not mstype.bool_:
        raise TypeError(f"For '{op}', 'mask' must be a bool Tensor, but got Tensor[{mask.dtype}].")


def _fill_value(xp, value, like):
    """A fill value (Python number or 0-d array) in `like`'s dtype and device."""
    if xp.__name__ == "torch":
        if isinstance(value, xp.Tensor):
            return value.to(like.dtype)
        return xp.tensor(value, dtype=like.dtype, device=like.device)
    return xp.asarray(value).astype(like.dtype)


@register
class MaskedFill(Primitive):
    """MaskedFill()(input, mask, value): `value` where mask is True, input elsewhere (mask and value broadcast)."""
    input_names = ("input", "mask", "value")

    def infer(self, x, mask, value):
        check_tensor(self.name, "input", x)
        _check_mask(self.name, mask)
        shapes = [x, mask]
        if hasattr(value, "shape") and hasattr(value, "dtype"):
            if value.dtype is not x.dtype:
                raise TypeError(f"For '{self.name}', 'value' must have the dtype of 'input' Tensor[{x.dtype}], "
                                f"but got Tensor[{value.dtype}].")
            shapes.append(value)
        elif not isinstance(value, (bool, int, float, np.number, np.bool_)):
            raise TypeError(f"For '{self.name}', 'value' must be a number or a Tensor, but got {value!r}.")
        return AbstractTensor(broadcast_shape(self.name, *shapes), x.dtype)

    def bprop(self, x, mask, value, out, dout):
        kept = MaskedFill()(dout, mask, 0)
        dx = sum_to_shape(kept, x.shape)
        dvalue = None
        if hasattr(value, "shape"):
            dvalue = sum_to_shape(prim("Sub")(dout, kept), value.shape)
        return dx, None, dvalue

    def numpy(self, np, x, mask, value):
        return np.where(mask, _fill_value(np, value, x), x)

    def torch(self, torch, x, mask, value):
        return torch.where(mask, _fill_value(torch, value, x), x)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, rng.random((3, 4)) > 0.5, 2.5)
        yield Sample(x, rng.random((4,)) > 0.5, np.array(-1.0, np.float32), name="broadcast-tensor-value")
        yield Sample(np.arange(6, dtype=np.int32).reshape(2, 3), rng.random((2, 1)) > 0.3, 7, name="int")


@register
class MaskedSelect(Primitive):
    """MaskedSelect()(x, mask): the 1-D tensor of elements where mask (broadcast with x) is True."""
    input_names = ("x", "mask")

    def infer(self, x, mask):
        check_tensor(self.name, "x", x)
        _check_mask(self.name, mask)
        broadcast_shape(self.name, x, mask)
        return AbstractTensor((-1,), x.dtype)

    def bprop(self, x, mask, out, dout):
        shape = broadcast_shape(self.name, x, mask)
        full = prim("BroadcastTo", shape=shape)(mask) if tuple(mask.shape) != shape else mask
        where = NonZero()(full)
        return sum_to_shape(prim("ScatterNd")(where, dout, shape), x.shape), None

    def numpy(self, np, x, mask):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]

    def torch(self, torch, x, mask):
        return torch.masked_select(x, mask)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rng.random((3, 4)) > 0.5)
        yield Sample(rand_float(rng, (1, 4)), rng.random((3, 1)) > 0.4, name="broadcast")


@register
class NonZero(Primitive):
    """NonZero()(x): int64 coordinates (N, rank) of the non-zero elements, in row-major order."""
    input_names = ("x",)
    differentiable = False
    nondiff_reason = "the output holds integer coordinates"

    def infer(self, x):
        check_tensor(self.name, "x", x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', the rank of 'x' must be at least 1, but got a 0-d tensor.")
        return AbstractTensor((-1, len(x.shape)), mstype.int64)

    def numpy(self, np, x):
        return np.argwhere(x).astype(np.int64)

    def torch(self, torch, x):
        return torch.nonzero(x)

    @classmethod
    def samples(cls, rng):
        yield Sample(rng.random((3, 4)) > 0.5)
        yield Sample(np.array([0.0, 1.5, 0.0, -2.0], np.float32))


def _argsort(np, x, axis, descending):
    """Stable argsort; descending keeps equal elements in their original order (as torch's stable sort)."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip((n - 1) - rev, axis)


@register
class Sort(Primitive):
    """Sort(axis=-1, descending=False)(x) → (values, int32 indices); ties keep their original order."""
    attr_defaults = {"axis": -1, "descending": False}
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        normalize_axis(self.name, self.axis, len(x.shape))
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(x.shape, mstype.int32)

    def bprop(self, x, out, dout):
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        zeros = prim("ZerosLike")(x)
        return (prim("TensorScatterElements", axis=axis, reduction="add")(zeros, out[1], dout[0]),)

    def numpy(self, np, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        idx = _argsort(np, x, axis, self.descending)
        return np.take_along_axis(x, idx, axis), idx.astype(np.int32)

    def torch(self, torch, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        values, idx = torch.sort(x, dim=axis, descending=self.descending, stable=True)
        return values, idx.to(torch.int32)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x)
        yield Sample(x, attrs={"axis": 0, "descending": True})
        yield Sample(np.array([[3, 1, 3, 2], [0, 0, 5, 1]], np.int32), attrs={"descending": True}, name="ties")


@register
class TopK(Primitive):
    """TopK(sorted=True)(input_x, k) → (values, int32 indices) of the k largest along the last axis.

    With sorted=False the k chosen elements keep the order they have in input_x (so k equal to the axis length
    gives input_x back, as MindSpore's CPU kernel does)."""
    attr_defaults = {"sorted": True}
    input_names = ("input_x", "k")

    def infer(self, x, k):
        check_tensor(self.name, "input_x", x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'input_x' must have rank at least 1, but got a 0-d tensor.")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"For '{self.name}', 'k' must be an int, but got {type(k).__name__}.")
        if not 0 <= k <= x.shape[-1]:
            raise ValueError(f"For '{self.name}', 'k' must be in [0, {x.shape[-1]}], but got {k}.")
        shape = tuple(x.shape[:-1]) + (int(k),)
        return AbstractTensor(shape, x.dtype), AbstractTensor(shape, mstype.int32)

    def bprop(self, x, k, out, dout):
        zeros = prim("ZerosLike")(x)
        return prim("TensorScatterElements", axis=-1, reduction="add")(zeros, out[1], dout[0]), None

    def numpy(self, np, x, k):
        idx = _argsort(np, x, -1, True)[..., :k]
        if not self.sorted:
            idx = np.sort(idx, axis=-1)
        return np.take_along_axis(x, idx, -1), idx.astype(np.int32)

    def torch(self, torch, x, k):
        values, idx = torch.sort(x, dim=-1, descending=True, stable=True)
        if not self.sorted:
            idx = torch.sort(idx[..., :k], dim=-1).values
            return torch.gather(x, -1, idx), idx.to(torch.int32)
        return values[..., :k].contiguous(), idx[..., :k].to(torch.int32)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 5)), 2)
        yield Sample(rand_float(rng, (6,)), 6)
        yield Sample(np.array([4, 1, 4, 2, 4], np.int32), 3, name="ties")
        yield Sample(rand_float(rng, (2, 7)), 3, attrs={"sorted": False}, name="unsorted")


@register
class Unique(Primitive):
    """Unique()(input_x) → (y, idx): the distinct elements in the order they first appear (MindSpore's CPU kernel:
    [5, 3, 5, 1] gives [5, 3, 1]) and, per input element, its position in y."""
    input_names = ("input_x",)
    differentiable = False
    nondiff_reason = "the output set and its size depend on the values; MindSpore defines no gradient"

    def _idx_dtype(self, dtype):
        return mstype.int64 if dtype is mstype.int64 else mstype.int32

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        return AbstractTensor((-1,), x.dtype), AbstractTensor(x.shape, self._idx_dtype(x.dtype))

    def numpy(self, np, x):
        y, first, inverse = np.unique(x.reshape(-1), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # sorted-unique positions, by first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(order.shape[0])
        idx = rank[inverse.reshape(-1)].reshape(x.shape)
        return y[order], idx.astype(self._idx_dtype(mstype.nptype_to_dtype(x.dtype)).np_dtype)

    def torch(self, torch, x):
        flat = x.reshape(-1)
        y, inverse = torch.unique(flat, sorted=True, return_inverse=True)
        positions = torch.arange(flat.shape[0], device=flat.device)
        first = torch.full((y.shape[0],), flat.shape[0], dtype=positions.dtype, device=flat.device)
        first = first.scatter_reduce(0, inverse, positions, reduce="amin")
        order = torch.argsort(first)
        rank = torch.empty_like(order)
        rank[order] = torch.arange(order.shape[0], device=flat.device)
        idx = rank[inverse].reshape(x.shape)
        return y[order], idx.to(torch.int64 if x.dtype == torch.int64 else torch.int32)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([1, 2, 5, 2], np.int32))
        yield Sample(np.array([[3, 1], [1, 7]], np.int64))
        yield Sample(np.array([0.5, -1.0, 0.5], np.float32))


@register
class OneHot(Primitive):
    """OneHot(axis=-1)(indices, depth, on_value, off_value): on_value where the new axis equals the index,
    off_value elsewhere (indices outside [0, depth) give an all-off row)."""
    attr_defaults = {"axis": -1}
    input_names = ("indices", "depth", "on_value", "off_value")

    def _dtype(self, on, off):
        dtypes = [v.dtype for v in (on, off) if hasattr(v, "dtype") and hasattr(v, "shape")]
        if len(dtypes) == 2 and dtypes[0] is not dtypes[1]:
            raise TypeError(f"For '{self.name}', 'on_value' and 'off_value' must have the same dtype, but got "
                            f"Tensor[{dtypes[0]}] and Tensor[{dtypes[1]}].")
        return dtypes[0] if dtypes else mstype.float32

    def infer(self, indices, depth, on, off):
        check_tensor(self.name, "indices", indices)
        if indices.dtype.kind not in ("int", "uint"):
            raise TypeError(f"For '{self.name}', 'indices' must be an int Tensor, but got Tensor[{indices.dtype}].")
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0:
            raise ValueError(f"For '{self.name}', 'depth' must be a non-negative int, but got {depth!r}.")
        ndim = len(indices.shape)
        if not -1 <= self.axis <= ndim:
            raise ValueError(f"For '{self.name}', 'axis' must be in [-1, {ndim}], but got {self.axis}.")
        axis = ndim if self.axis == -1 else self.axis
        return AbstractTensor(indices.shape[:axis] + (int(depth),) + indices.shape[axis:], self._dtype(on, off))

    def bprop(self, indices, depth, on, off, out, dout):
        grads = [None, None, None, None]
        if hasattr(on, "shape") or hasattr(off, "shape"):
            one = Tensor(np.ones((), dout.dtype.np_dtype))
            zero = Tensor(np.zeros((), dout.dtype.np_dtype))
            hot = OneHot(self.axis)(indices, depth, one, zero)
            rs, reshape = prim("ReduceSum"), prim("Reshape")
            d_on = rs(prim("Mul")(dout, hot), ())
            if hasattr(on, "shape"):
                grads[2] = reshape(d_on, tuple(on.shape))
            if hasattr(off, "shape"):
                grads[3] = reshape(prim("Sub")(rs(dout, ()), d_on), tuple(off.shape))
        return tuple(grads)

    def _axis(self, ndim):
        return ndim if self.axis == -1 else self.axis

    def numpy(self, np, indices, depth, on, off):
        dtype = next((v.dtype for v in (on, off) if isinstance(v, np.ndarray)), np.float32)
        hot = indices[..., None] == np.arange(depth)
        out = np.where(hot, np.asarray(on, dtype), np.asarray(off, dtype))
        return c_array(np.moveaxis(out, -1, self._axis(indices.ndim)))

    def torch(self, torch, indices, depth, on, off):
        dtype = next((v.dtype for v in (on, off) if isinstance(v, torch.Tensor)), torch.float32)
        hot = indices[..., None] == torch.arange(depth, device=indices.device)
        on_t = torch.as_tensor(on, dtype=dtype, device=indices.device)
        off_t = torch.as_tensor(off, dtype=dtype, device=indices.device)
        out = torch.where(hot, on_t, off_t)
        return torch.movedim(out, -1, self._axis(indices.ndim)).contiguous()

    @classmethod
    def samples(cls, rng):
        idx = np.array([[0, 2], [1, 3]], np.int32)
        yield Sample(idx, 4, np.array(1.0, np.float32), np.array(0.0, np.float32))
        yield Sample(idx, 3, np.array(2.0, np.float32), np.array(-0.5, np.float32), attrs={"axis": 0},
                     name="axis0-out-of-range")
        yield Sample(np.array([1, 0, 2], np.int64), 3, 5, 1, attrs={"axis": 1}, name="python-values")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, MaskedFill, MaskedSelect, NonZero, Sort, TopK, Unique, formats=("MINDIR",))
not_exportable(NO_ONNX, MaskedFill, MaskedSelect, NonZero, Sort, TopK, Unique, formats=("ONNX",))
not_exportable(NO_ONNX, OneHot, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(OneHot, inputs=("indices", "depth", "on_value", "off_value"), attrs=[Arg("axis", -1)])
