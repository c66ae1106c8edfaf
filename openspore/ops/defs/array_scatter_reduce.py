"""Primitives: TensorScatterMax, TensorScatterMin, TensorScatterMul, TensorScatterDiv — a copy of `input_x` with
`updates` combined into the slices that `indices` (last axis: the leading coordinates) name; repeated indices
combine in turn (max/min of all, product of all, divided by each).

The functional families built on them (`ops.tensor_scatter_max`, `ops.scatter_nd_mul`, `ops.scatter_min`,
`ops.unsorted_segment_max`, `ops.SegmentProd`, ...) live in ops/function/scatter_reduce_func.py.

Gradients: max/min send the cotangent to every input that equals the result at its position (ties share it, as
MindSpore's select-by-equality rule does); mul/div differentiate the product, so they are undefined at zero
updates (as the formulas are).
"""
import warnings

import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, prim, rand_float, rand_positive
from .array_gather import GatherNd, _check_indices, _nd_index_np, _nd_layout, _nd_range


def _select(mask, a, b):
    return prim("Select")(mask, a, b)


def _cast_like(mask, like):
    return prim("Cast")(mask, like.dtype)


class _TensorScatterReduce(Primitive):
    input_names = ("input_x", "indices", "updates")
    kinds = ("int", "uint", "float")
    np_ufunc = None          # numpy's in-place accumulating ufunc (`.at`)
    torch_reduce = None      # torch's index_reduce_ mode

    def infer(self, x, indices, updates):
        check_tensor(self.name, "input_x", x)
        check_dtype(self.name, "input_x", x, self.kinds)
        _check_indices(self.name, "indices", indices)
        check_tensor(self.name, "updates", updates)
        if updates.dtype is not x.dtype:
            raise TypeError(f"For '{self.name}', 'updates' must have the dtype of 'input_x' Tensor[{x.dtype}], "
                            f"but got Tensor[{updates.dtype}].")
        _nd_layout(self.name, tuple(x.shape), tuple(indices.shape), tuple(updates.shape))
        return AbstractTensor(x.shape, x.dtype)

    def numpy(self, np, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        out = x.copy()
        getattr(np, self.np_ufunc).at(out, _nd_index_np(np, indices), updates)
        return out

    def _torch_reduce(self, torch, base, indices, updates, mode):
        """index_reduce_ over the flattened leading `k` axes (torch has no n-d scatter-reduce)."""
        k = indices.shape[-1]
        lead = tuple(base.shape[:k])
        flat = base.reshape((-1,) + tuple(base.shape[k:])).clone()
        idx = indices.to(torch.long).reshape(-1, k)
        strides = torch.tensor([int(np.prod(lead[d + 1:])) for d in range(k)], dtype=torch.long, device=idx.device)
        linear = (idx * strides).sum(-1)
        src = updates.reshape((-1,) + tuple(base.shape[k:]))
        with warnings.catch_warnings():  # index_reduce_ is marked beta by torch; its semantics are what we need
            warnings.simplefilter("ignore", UserWarning)
            return flat.index_reduce_(0, linear, src, mode, include_self=True).reshape(base.shape)

    def torch(self, torch, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        return self._torch_reduce(torch, x, indices, updates, self.torch_reduce)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, np.array([[0, 1], [2, 3], [1, 1], [0, 1]], np.int32), rand_float(rng, (4,)), name="repeated")
        yield Sample(x, np.array([[2], [0]], np.int64), rand_float(rng, (2, 4)), name="rows")
        yield Sample(rng.integers(-9, 9, (4, 2)).astype(np.int32), np.array([[1], [3], [1]], np.int32),
                     rng.integers(-9, 9, (3, 2)).astype(np.int32), name="int")


class _Extreme(_TensorScatterReduce):
    def bprop(self, x, indices, updates, out, dout):
        zero = prim("ZerosLike")(dout)
        dx = _select(prim("Equal")(x, out), dout, zero)
        picked = GatherNd()(out, indices)
        dupdates = _select(prim("Equal")(updates, picked), GatherNd()(dout, indices), prim("ZerosLike")(updates))
        return dx, None, dupdates


@register
class TensorScatterMax(_Extreme):
    """TensorScatterMax()(input_x, indices, updates): input_x with each indexed slice the maximum of itself and
    every update aimed at it."""
    np_ufunc, torch_reduce = "maximum", "amax"


@register
class TensorScatterMin(_Extreme):
    """TensorScatterMin()(input_x, indices, updates): input_x with each indexed slice the minimum of itself and
    every update aimed at it."""
    np_ufunc, torch_reduce = "minimum", "amin"


class _Product(_TensorScatterReduce):
    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, np.array([[0, 1], [2, 3], [1, 1], [0, 1]], np.int32), rand_positive(rng, (4,)),
                     name="repeated")
        yield Sample(x, np.array([[2], [0]], np.int64), rand_positive(rng, (2, 4)), name="rows")
        if cls.kinds != ("float",):
            yield Sample(rng.integers(-5, 5, (4, 2)).astype(np.int32), np.array([[1], [3], [1]], np.int32),
                         rng.integers(1, 3, (3, 2)).astype(np.int32), name="int")


@register
class TensorScatterMul(_Product):
    """TensorScatterMul()(input_x, indices, updates): input_x with each indexed slice multiplied by every update
    aimed at it."""
    np_ufunc, torch_reduce = "multiply", "prod"

    def bprop(self, x, indices, updates, out, dout):
        # out = x · Πu  ⇒  dx = dout · Πu,  du_i = dout · out / u_i at u_i's position
        factor = TensorScatterMul()(prim("OnesLike")(x), indices, updates)
        dx = prim("Mul")(dout, factor)
        dupdates = prim("Div")(GatherNd()(prim("Mul")(dout, out), indices), updates)
        return dx, None, dupdates


@register
class TensorScatterDiv(_Product):
    """TensorScatterDiv()(input_x, indices, updates): input_x with each indexed slice divided by every update
    aimed at it (floating-point inputs)."""
    kinds = ("float",)
    np_ufunc = "divide"

    def torch(self, torch, x, indices, updates):
        _nd_range(self.name, indices, x.shape)
        divisor = self._torch_reduce(torch, torch.ones_like(x), indices, updates, "prod")
        return x / divisor

    def bprop(self, x, indices, updates, out, dout):
        # out = x / Πu  ⇒  dx = dout / Πu,  du_i = −dout · out / u_i at u_i's position
        divisor = TensorScatterMul()(prim("OnesLike")(x), indices, updates)
        dx = prim("Div")(dout, divisor)
        dupdates = prim("Neg")(prim("Div")(GatherNd()(prim("Mul")(dout, out), indices), updates))
        return dx, None, dupdates


_ALL = (TensorScatterMax, TensorScatterMin, TensorScatterMul, TensorScatterDiv)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
