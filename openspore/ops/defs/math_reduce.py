"""Primitives: reductions (mean/max/min/prod/all/any), arg-reductions, and cumulative sums/products.

Reductions follow ReduceSum: `ReduceX(keep_dims=False)(x, axis=())`, where () or None reduces every axis.
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir, norm_axis, norm_bool
from ._export import NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, normalize_axes, prim, rand_float, reduced_shape


def _is_float(t):
    return t.dtype.kind in ("float", "complex")


def _keepdims(t, x_shape, axes, keep_dims):
    """A reduction output reshaped so it broadcasts against the input."""
    if keep_dims:
        return t
    return prim("Reshape")(t, reduced_shape(x_shape, axes, True))


def _torch_multi(fn, x, axes, keep_dims):
    """Apply a one-axis torch reduction over several axes (highest first, so lower indices stay valid)."""
    for a in sorted(axes, reverse=True):
        x = fn(x, a, keep_dims)
    return x


def bprop_args(rest):
    """(axis, out, dout) from a reduction's bprop arguments after x: `P()(x)` leaves `axis` out (its default, ())."""
    return rest if len(rest) == 3 else ((),) + tuple(rest)


class _Reduce(Primitive):
    attr_defaults = {"keep_dims": False}
    input_names = ("x", "axis")
    kinds = ("int", "uint", "float")

    def check_attrs(self):
        if not isinstance(self.keep_dims, bool):
            raise TypeError(f"For '{self.name}', 'keep_dims' must be a bool, but got {type(self.keep_dims).__name__}.")

    def infer(self, x, axis=()):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, self.kinds)
        axes = normalize_axes(self.name, axis, len(x.shape))
        return AbstractTensor(reduced_shape(x.shape, axes, self.keep_dims), self.out_dtype(x.dtype))

    def out_dtype(self, dtype):
        return dtype

    def axes(self, x, axis):
        return normalize_axes(self.name, axis, len(x.shape))

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, ())
        yield Sample(x, 1)
        yield Sample(x, (0, 2), attrs={"keep_dims": True})
        yield Sample(x, -1)
        yield Sample(np.array([[3, 1, 2], [-4, 6, 5]], np.int32), 1, name="int")


@register
class ReduceMean(_Reduce):
    """ReduceMean(keep_dims=False)(x, axis=()): the mean (integer inputs give a truncated integer mean)."""
    channels_last = "reads"

    def infer(self, x, axis=()):
        if getattr(x, "dtype", None) == mstype.bool_:
            # MindSpore 2.10's CPU kernel has no bool mean and says so with a RuntimeError (not a TypeError)
            raise RuntimeError(f"For '{self.name}', unsupported reduce operation for bool.")
        return super().infer(x, axis)

    def bprop(self, x, *rest):
        axis, out, dout = bprop_args(rest)
        if not _is_float(x):
            return (None, None)
        axes = self.axes(x, axis)
        count = 1
        for a in axes:
            count *= x.shape[a]
        grad = prim("BroadcastTo", shape=tuple(x.shape))(_keepdims(dout, x.shape, axes, self.keep_dims))
        return (prim("Mul")(grad, 1.0 / max(count, 1)), None)

    def numpy(self, np, x, axis=()):
        axes = self.axes(x, axis)
        return np.asarray(np.mean(x, axis=axes, keepdims=self.keep_dims)).astype(x.dtype, copy=False)

    def torch(self, torch, x, axis=()):
        axes = self.axes(x, axis)
        if not axes:
            return x.clone()
        if x.is_floating_point():
            return torch.mean(x, dim=axes, keepdim=self.keep_dims)
        return torch.mean(x.double(), dim=axes, keepdim=self.keep_dims).to(x.dtype)


class _ReduceExtremum(_Reduce):
    kinds = ("bool", "int", "uint", "float")

    def bprop(self, x, *rest):
        # the gradient is shared equally by the elements that attain the extremum
        axis, out, dout = bprop_args(rest)
        if not _is_float(x):
            return (None, None)
        axes = self.axes(x, axis)
        out_k = _keepdims(out, x.shape, axes, self.keep_dims)
        mask = prim("Cast")(prim("Equal")(x, out_k), x.dtype)
        count = prim("ReduceSum", keep_dims=True)(mask, axes)
        share = prim("RealDiv")(_keepdims(dout, x.shape, axes, self.keep_dims), count)
        return (prim("Mul")(mask, share), None)


@register
class ReduceMax(_ReduceExtremum):
    """ReduceMax(keep_dims=False)(x, axis=()): the maximum; ties share the gradient."""
    channels_last = "reads"

    def numpy(self, np, x, axis=()):
        return np.asarray(np.max(x, axis=self.axes(x, axis), keepdims=self.keep_dims))

    def torch(self, torch, x, axis=()):
        axes = self.axes(x, axis)
        return torch.amax(x, dim=axes, keepdim=self.keep_dims) if axes else x.clone()


@register
class ReduceMin(_ReduceExtremum):
    """ReduceMin(keep_dims=False)(x, axis=()): the minimum; ties share the gradient."""
    channels_last = "reads"

    def numpy(self, np, x, axis=()):
        return np.asarray(np.min(x, axis=self.axes(x, axis), keepdims=self.keep_dims))

    def torch(self, torch, x, axis=()):
        axes = self.axes(x, axis)
        return torch.amin(x, dim=axes, keepdim=self.keep_dims) if axes else x.clone()


@register
class ReduceProd(_Reduce):
    """ReduceProd(keep_dims=False)(x, axis=()): the product."""

    def bprop(self, x, *rest):
        axis, out, dout = bprop_args(rest)
        # d prod / d x_i is the product of the others. Built from exclusive cumulative products (exact when some
        # x_i are 0): over axes a1, a2, ... it is excl_a1(x) * excl_a2(prod_a1 x) * excl_a3(prod_a1,a2 x) * ...
        if not _is_float(x):
            return (None, None)
        axes = self.axes(x, axis)
        dout_k = _keepdims(dout, x.shape, axes, self.keep_dims)
        if not axes:
            return (dout_k, None)
        others, partial = None, x
        for a in axes:
            excl = prim("Mul")(prim("CumProd", exclusive=True)(partial, a),
                               prim("CumProd", exclusive=True, reverse=True)(partial, a))
            others = excl if others is None else prim("Mul")(others, excl)
            partial = ReduceProd(keep_dims=True)(partial, a)
        return (prim("Mul")(others, dout_k), None)

    def numpy(self, np, x, axis=()):
        return np.asarray(np.prod(x, axis=self.axes(x, axis), keepdims=self.keep_dims, dtype=x.dtype))

    def torch(self, torch, x, axis=()):
        # One product over the reduced elements in row-major order (not axis by axis): float rounding then
        # matches MindSpore's CPU kernel bit for bit (axis-by-axis differs in the last place for long products).
        axes = self.axes(x, axis)
        if not axes:
            return x.clone()
        kept = [a for a in range(x.ndim) if a not in axes]
        rows = x.permute(*kept, *axes).reshape(*[x.shape[a] for a in kept], -1)
        out = torch.prod(rows, dim=-1, dtype=x.dtype)
        return out.reshape(reduced_shape(tuple(x.shape), axes, True)) if self.keep_dims else out

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        x = rand_float(rng, (2, 3))
        x[0, 1] = 0.0  # the gradient must stay exact at a zero factor
        yield Sample(x, (), name="zero")
        yield Sample(x, 1, name="zero-axis")


class _ReduceLogical(_Reduce):
    differentiable = False
    nondiff_reason = "the output is boolean"
    kinds = ("bool", "int", "uint", "float")

    def out_dtype(self, dtype):
        return mstype.bool_

    @classmethod
    def samples(cls, rng):
        x = rng.uniform(size=(2, 3, 4)) > 0.3
        yield Sample(x, ())
        yield Sample(x, 1)
        yield Sample(x, (0, 2), attrs={"keep_dims": True})
        yield Sample(np.array([[0, 1, 2], [3, 4, 5]], np.int32), 1, name="int")


@register
class ReduceAll(_ReduceLogical):
    """ReduceAll(keep_dims=False)(x, axis=()): True where every element is true (nonzero)."""

    def numpy(self, np, x, axis=()):
        return np.asarray(np.all(x, axis=self.axes(x, axis), keepdims=self.keep_dims))

    def torch(self, torch, x, axis=()):
        return _torch_multi(lambda t, a, k: torch.all(t, dim=a, keepdim=k), x.bool(), self.axes(x, axis),
                            self.keep_dims)


@register
class ReduceAny(_ReduceLogical):
    """ReduceAny(keep_dims=False)(x, axis=()): True where some element is true (nonzero)."""

    def numpy(self, np, x, axis=()):
        return np.asarray(np.any(x, axis=self.axes(x, axis), keepdims=self.keep_dims))

    def torch(self, torch, x, axis=()):
        return _torch_multi(lambda t, a, k: torch.any(t, dim=a, keepdim=k), x.bool(), self.axes(x, axis),
                            self.keep_dims)


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_ONNX, ReduceAll, ReduceAny, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceAll, ReduceAny, inputs=("x", Arg("axis", (), norm_axis)),
       attrs=[Arg("keep_dims", False, norm_bool)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(ReduceMean, _onnx.reduce("ReduceMean"))
_onnx.declare(ReduceMax, _onnx.reduce("ReduceMax"))
_onnx.declare(ReduceMin, _onnx.reduce("ReduceMin"))
_onnx.declare(ReduceProd, _onnx.reduce("ReduceProd"))
