"""Primitives: elementwise math, comparisons, logic, matmul, reductions, dtype casts."""
import numpy as np

from ...backends import host_gemm
from ...common import dtype as mstype
from ...core.autograd import needs_input_grad
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir, norm_axis, norm_bool
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import (broadcast_shape, check_dtype, check_same_dtype, check_tensor, normalize_axes, prim,
                    rand_float, reduced_shape, same_as, sum_to_shape, torch_out_fits, static_shape)


# ---- dtype and constants ------------------------------------------------------------------------
@register
class Cast(Primitive):
    """Cast(x, dtype): change the dtype; gradients are cast back."""
    input_names = ("input_x", "type")

    def infer(self, x, dtype):
        check_tensor(self.name, "input_x", x)
        if not isinstance(dtype, mstype.Type) or dtype not in mstype.TENSOR_DTYPES:
            raise TypeError(f"For 'Cast', 'type' must be a tensor dtype such as mindspore.float32, but got {dtype!r}.")
        return same_as(x, dtype)

    def bprop(self, x, dtype, out, dout):
        # MindSpore differentiates integer and bool tensors too: the gradient is cast back to their dtype
        # (a bool input's gradient is "nonzero", as `bool_tensor + float_tensor` differentiated there gives)
        return (Cast()(dout, x.dtype), None)

    def numpy(self, np, x, dtype):
        return x.astype(dtype.np_dtype, copy=False)

    def torch(self, torch, x, dtype):
        from ...backends.torch_backend import torch_dtype
        return x.to(torch_dtype(dtype))

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x, mstype.float64)
        yield Sample(x.astype(np.float64), mstype.float32, grad=())  # finite differences lose precision in float32
        yield Sample((x * 10).astype(np.float32), mstype.int32, grad=())
        yield Sample(np.array([0, 1, 2], np.int32), mstype.bool_, grad=())


class _FilledLike(Primitive):
    """x -> a tensor of x's shape and dtype, filled with one value; `like_fn` names the numpy and torch function."""
    input_names = ("x",)
    differentiable = False
    nondiff_reason = "the output does not depend on the input's values"
    like_fn = None  # "zeros_like" or "ones_like": numpy and torch spell them alike

    def infer(self, x):
        check_tensor(self.name, "x", x)
        return same_as(x)

    def numpy(self, np, x):
        return getattr(np, self.like_fn)(x)

    def torch(self, torch, x):
        return getattr(torch, self.like_fn)(x)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)))
        yield Sample(np.array([1, 2], np.int64))


@register
class ZerosLike(_FilledLike):
    like_fn = "zeros_like"


@register
class OnesLike(_FilledLike):
    like_fn = "ones_like"


# ---- binary arithmetic ------------------------------------------------------------------------
class _Binary(Primitive):
    """Elementwise binary op with broadcasting and implicit promotion (inputs reach infer with one dtype)."""
    input_names = ("x", "y")
    promote = "all"
    kinds = ("bool", "int", "uint", "float", "complex")

    def infer(self, x, y):
        check_tensor(self.name, "x", x)
        check_tensor(self.name, "y", y)
        dtype = check_same_dtype(self.name, self.input_names, x, y)
        check_dtype(self.name, "x", x, self.kinds)
        return AbstractTensor(broadcast_shape(self.name, x, y), self.out_dtype(dtype))

    def out_dtype(self, dtype):
        return dtype

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (3, 4)))
        yield Sample(rand_float(rng, (2, 3, 4)), rand_float(rng, (4,)), name="broadcast")
        yield Sample(rand_float(rng, (3, 1)), rand_float(rng, (1, 5)), name="outer")


@register
class Add(_Binary):
    channels_last = "keeps"
    def bprop(self, x, y, out, dout):
        # only the inputs being differentiated (`x + 1.0`, `x + bias` with a frozen bias need one sum, not two)
        return (sum_to_shape(dout, x.shape) if needs_input_grad(0) else None,
                sum_to_shape(dout, y.shape) if needs_input_grad(1) else None)

    def numpy(self, np, x, y):
        return np.add(x, y)

    def torch(self, torch, x, y):
        return torch.add(x, y)

    def torch_bind(self, torch, inputs, first_only):
        return None if first_only else torch.add   # the kernel is this one call: skip its Python frame

    def torch_out(self, torch, out, x, y):
        # into an arena view (memory_optimize_level O1): same kernel, no result buffer of its own
        return torch.add(x, y, out=out) if torch_out_fits(out, x, y) else self.torch(torch, x, y)


@register
class Sub(_Binary):
    channels_last = "keeps"
    kinds = ("int", "uint", "float", "complex")

    def bprop(self, x, y, out, dout):
        return (sum_to_shape(dout, x.shape) if needs_input_grad(0) else None,
                sum_to_shape(Neg()(dout), y.shape) if needs_input_grad(1) else None)

    def numpy(self, np, x, y):
        return np.subtract(x, y)

    def torch(self, torch, x, y):
        return torch.sub(x, y)

    def torch_out(self, torch, out, x, y):
        # into an arena view (memory_optimize_level O1): same kernel, no result buffer of its own
        return torch.sub(x, y, out=out) if torch_out_fits(out, x, y) else self.torch(torch, x, y)


@register
class Mul(_Binary):
    channels_last = "keeps"
    def bprop(self, x, y, out, dout):
        return (sum_to_shape(Mul()(dout, y), x.shape) if needs_input_grad(0) else None,
                sum_to_shape(Mul()(dout, x), y.shape) if needs_input_grad(1) else None)

    def numpy(self, np, x, y):
        return np.multiply(x, y)

    def torch(self, torch, x, y):
        return torch.mul(x, y)

    def torch_bind(self, torch, inputs, first_only):
        return None if first_only else torch.mul   # the kernel is this one call: skip its Python frame

    def torch_out(self, torch, out, x, y):
        # into an arena view (memory_optimize_level O1): same kernel, no result buffer of its own
        return torch.mul(x, y, out=out) if torch_out_fits(out, x, y) else self.torch(torch, x, y)


@register
class Neg(Primitive):
    channels_last = "keeps"
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("int", "uint", "float", "complex"))
        return same_as(x)

    def bprop(self, x, out, dout):
        return (Neg()(dout),)

    def numpy(self, np, x):
        return np.negative(x)  # unsigned values wrap around (-1 → 255 for uint8), as in MindSpore

    def torch(self, torch, x):
        if x.dtype in (torch.uint16, torch.uint32, torch.uint64):  # torch has no neg kernel for these
            return (-x.to(torch.int64)).to(x.dtype)
        return torch.neg(x)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)))


# ---- matmul -----------------------------------------------------------------------------------
@register
class MatMul(Primitive):
    """2-D matrix product with optional transposes: MatMul(transpose_a=False, transpose_b=False)(x1, x2)."""
    attr_defaults = {"transpose_a": False, "transpose_b": False}
    input_names = ("x1", "x2")

    def infer(self, a, b):
        check_tensor(self.name, "x1", a)
        check_tensor(self.name, "x2", b)
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise ValueError(f"For 'MatMul', the input dimensions must be 2, but got x1 shape {list(a.shape)} "
                             f"and x2 shape {list(b.shape)}.")
        check_same_dtype(self.name, self.input_names, a, b)
        m, k1 = (a.shape[1], a.shape[0]) if self.transpose_a else a.shape
        k2, n = (b.shape[1], b.shape[0]) if self.transpose_b else b.shape
        if k1 != k2:
            raise ValueError(f"For 'MatMul' the input dimensions must be equal, but got 'x1_col': {k1} and 'x2_row': {k2}.")
        return AbstractTensor((m, n), a.dtype)

    def bprop(self, a, b, out, dout):
        ta, tb = self.transpose_a, self.transpose_b
        da = db = None
        if needs_input_grad(0):
            da = (prim("MatMul", transpose_a=False, transpose_b=not tb)(dout, b) if not ta
                  else prim("MatMul", transpose_a=tb, transpose_b=True)(b, dout))
        if needs_input_grad(1):
            db = (prim("MatMul", transpose_a=not ta, transpose_b=False)(a, dout) if not tb
                  else prim("MatMul", transpose_a=True, transpose_b=ta)(dout, a))
        return da, db

    def numpy(self, np, a, b):
        return np.matmul(a.T if self.transpose_a else a, b.T if self.transpose_b else b)

    def torch(self, torch, a, b):
        return torch.mm(a.t() if self.transpose_a else a, b.t() if self.transpose_b else b)

    @classmethod
    def samples(cls, rng):
        for ta in (False, True):
            for tb in (False, True):
                a = rand_float(rng, (4, 3) if ta else (3, 4))
                b = rand_float(rng, (5, 4) if tb else (4, 5))
                yield Sample(a, b, attrs={"transpose_a": ta, "transpose_b": tb})


# ---- reductions -------------------------------------------------------------------------------
@register
class ReduceSum(Primitive):
    """ReduceSum(keep_dims=False)(x, axis=()) — () or None reduces every axis."""
    channels_last = "reads"
    attr_defaults = {"keep_dims": False, "skip_mode": False}
    input_names = ("x", "axis")

    def infer(self, x, axis=()):
        check_tensor(self.name, "x", x)
        axes = normalize_axes(self.name, axis, len(x.shape))
        # a bool input stays bool (true where any element is): MindSpore 2.10's primitive does not count; the
        # functional `ops.sum` casts booleans to int64 first and counts
        return AbstractTensor(reduced_shape(x.shape, axes, self.keep_dims), x.dtype)

    def bprop(self, x, *rest):
        from .math_reduce import bprop_args  # `ReduceSum()(x)` leaves the axis out
        axis, out, dout = bprop_args(rest)
        if x.dtype.kind not in ("float", "complex", "int", "uint"):  # integer sums have gradients in MindSpore
            return (None, None)
        axes = normalize_axes(self.name, axis, len(x.shape))
        if not self.keep_dims:
            dout = prim("Reshape")(dout, reduced_shape(x.shape, axes, True))
        return (prim("BroadcastTo", shape=tuple(x.shape))(dout), None)

    def numpy(self, np, x, axis=()):
        axes = normalize_axes(self.name, axis, x.ndim)
        if x.dtype == np.bool_:
            return np.asarray(np.any(x, axis=axes, keepdims=self.keep_dims))
        return np.asarray(np.sum(x, axis=axes, keepdims=self.keep_dims, dtype=x.dtype))

    def torch(self, torch, x, axis=()):
        axes = normalize_axes(self.name, axis, x.ndim)
        if not axes:
            return x.clone()
        if x.dtype == torch.bool:
            return x.long().sum(dim=axes, keepdim=self.keep_dims) > 0
        return torch.sum(x, dim=axes, keepdim=self.keep_dims, dtype=x.dtype)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, ())
        yield Sample(x, 1)
        yield Sample(x, (0, 2), attrs={"keep_dims": True})
        yield Sample(x, -1, attrs={"keep_dims": False})
        yield Sample(np.array([[True, False, True], [True, True, False]]), 1, name="bool")


@register
class BatchMatMul(Primitive):
    """BatchMatMul(transpose_a=False, transpose_b=False)(x, y): matrix product over the last two dims; the
    leading (batch) dims broadcast."""
    attr_defaults = {"transpose_a": False, "transpose_b": False}
    input_names = ("x", "y")

    def infer(self, a, b):
        check_tensor(self.name, "x", a)
        check_tensor(self.name, "y", b)
        if len(a.shape) < 2 or len(b.shape) < 2:
            raise ValueError(f"For 'BatchMatMul', the inputs must have rank >= 2, but got x shape {list(a.shape)} "
                             f"and y shape {list(b.shape)}.")
        check_same_dtype(self.name, self.input_names, a, b)
        m, k1 = (a.shape[-1], a.shape[-2]) if self.transpose_a else a.shape[-2:]
        k2, n = (b.shape[-1], b.shape[-2]) if self.transpose_b else b.shape[-2:]
        if k1 != k2:
            raise ValueError(f"For 'BatchMatMul', the contracted dimensions must be equal, but got x shape "
                             f"{list(a.shape)} (transpose_a={self.transpose_a}) and y shape {list(b.shape)} "
                             f"(transpose_b={self.transpose_b}): {k1} vs {k2}.")
        batch = broadcast_shape(self.name, a.shape[:-2], b.shape[:-2])
        return AbstractTensor(batch + (m, n), a.dtype)

    def bprop(self, a, b, out, dout):
        ta, tb = self.transpose_a, self.transpose_b
        da = (prim("BatchMatMul", transpose_a=False, transpose_b=not tb)(dout, b) if not ta
              else prim("BatchMatMul", transpose_a=tb, transpose_b=True)(b, dout))
        db = (prim("BatchMatMul", transpose_a=not ta, transpose_b=False)(a, dout) if not tb
              else prim("BatchMatMul", transpose_a=True, transpose_b=ta)(dout, a))
        return sum_to_shape(da, a.shape), sum_to_shape(db, b.shape)

    def numpy(self, np, a, b):
        return np.matmul(np.swapaxes(a, -1, -2) if self.transpose_a else a,
                         np.swapaxes(b, -1, -2) if self.transpose_b else b)

    def torch(self, torch, a, b):
        a, b = (a.transpose(-1, -2) if self.transpose_a else a), (b.transpose(-1, -2) if self.transpose_b else b)
        # strided batches (attention's q, kᵀ, v) go to BLAS as they lie there, no contiguous copies (host_gemm.py)
        out = host_gemm.matmul(torch, a, b)
        return torch.matmul(a, b) if out is None else out

    def torch_bind(self, torch, inputs, first_only):
        """For fixed shapes too small for host_gemm (decided by shape alone): torch.matmul with the transposes
        chosen once."""
        a, b = static_shape(inputs[0]), static_shape(inputs[1])
        if a is None or b is None or first_only:
            return None
        m, k = (a[-1], a[-2]) if self.transpose_a else a[-2:]
        n = b[-2] if self.transpose_b else b[-1]
        batch = np.broadcast_shapes(a[:-2], b[:-2])
        if host_gemm.worth_it(m, n, k, int(np.prod(batch, dtype=np.int64))):
            return None   # may run on OpenBLAS: the kernel decides per call (thread counts can change)
        matmul, ta, tb = torch.matmul, self.transpose_a, self.transpose_b
        if ta:
            return lambda x, y: matmul(x.transpose(-1, -2), y.transpose(-1, -2) if tb else y)
        if tb:
            return lambda x, y: matmul(x, y.transpose(-1, -2))
        return matmul

    def torch_out(self, torch, out, a, b):
        if not torch_out_fits(out, a, b) or a.dim() < 3 or b.dim() < 3:
            return self.torch(torch, a, b)
        a, b = (a.transpose(-1, -2) if self.transpose_a else a), (b.transpose(-1, -2) if self.transpose_b else b)
        if host_gemm.matmul(torch, a, b, out=out) is None:
            torch.matmul(a, b, out=out)
        return out

    @classmethod
    def samples(cls, rng):
        for ta in (False, True):
            for tb in (False, True):
                a = rand_float(rng, (2, 4, 3) if ta else (2, 3, 4))
                b = rand_float(rng, (2, 5, 4) if tb else (2, 4, 5))
                yield Sample(a, b, attrs={"transpose_a": ta, "transpose_b": tb})
        yield Sample(rand_float(rng, (2, 1, 3, 4)), rand_float(rng, (3, 4, 2)), name="broadcast")
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (2, 4, 2)), attrs={"transpose_b": False}, name="rank2")
        yield Sample(rand_float(rng, (2, 3, 4)), rand_float(rng, (5, 4)), attrs={"transpose_b": True},
                     name="rank2-transposed")


@register
class AddN(Primitive):
    """AddN()(inputs): the sum of a tuple/list of tensors of one shape and dtype."""
    input_names = ("inputs",)

    def infer(self, inputs):
        if not isinstance(inputs, (tuple, list)) or not inputs:
            raise TypeError(f"For 'AddN', 'inputs' must be a non-empty tuple or list of Tensors, but got "
                            f"{type(inputs).__name__}{'' if inputs else ' (empty)'}.")
        for i, t in enumerate(inputs):
            check_tensor(self.name, f"inputs[{i}]", t)
            if tuple(t.shape) != tuple(inputs[0].shape):
                raise ValueError(f"For 'AddN', all inputs must have the same shape, but got inputs[0] shape "
                                 f"{list(inputs[0].shape)} and inputs[{i}] shape {list(t.shape)}.")
            if t.dtype is not inputs[0].dtype:
                raise TypeError(f"For 'AddN', all inputs must have the same dtype, but got inputs[0] with type "
                                f"Tensor[{inputs[0].dtype}] and inputs[{i}] with type Tensor[{t.dtype}].")
        return same_as(inputs[0])

    def bprop(self, inputs, out, dout):
        return (tuple(dout for _ in inputs),)

    def numpy(self, np, inputs):
        total = np.array(inputs[0], copy=True)
        for a in inputs[1:]:
            total += a
        return total

    def torch(self, torch, inputs):
        total = inputs[0].clone()
        for a in inputs[1:]:
            total += a
        return total

    @classmethod
    def samples(cls, rng):
        yield Sample([rand_float(rng, (2, 3)) for _ in range(3)], grad=())
        yield Sample((np.array([1, 2], np.int32), np.array([3, 4], np.int32)), grad=())


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Cast, formats=("MINDIR",))
not_exportable(NO_ONNX, ZerosLike, OnesLike, formats=("ONNX",))
not_exportable(NO_MINDIR, AddN, formats=("MINDIR",))
not_exportable(NO_ONNX, AddN, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Neg, OnesLike, ZerosLike)
mindir(Add, Sub, Mul, inputs=("x", "y"))
mindir(ReduceSum, inputs=("x", Arg("axis", (), norm_axis)), attrs=[Arg("keep_dims", False, norm_bool),
                                                             Arg("skip_mode", False, norm_bool)])
_TRANSPOSES = [Arg("transpose_a", False, norm_bool), Arg("transpose_b", False, norm_bool)]
mindir(MatMul, inputs=("x", "y"), attrs=_TRANSPOSES, instance="matmul")
mindir(BatchMatMul, inputs=("x", "y"), attrs=_TRANSPOSES)

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Neg, _onnx.unary("Neg"))
_onnx.declare(Add, _onnx.elementwise("Add"))
_onnx.declare(Sub, _onnx.elementwise("Sub"))
_onnx.declare(Mul, _onnx.elementwise("Mul"))
def _reduce_sum_onnx(b, node, ins):
    """ReduceSum to ONNX; a bool input (whose result is 'any', and which ONNX's ReduceSum refuses) is summed as
    int64 and cast back to bool."""
    if _onnx.dtype_of(node) != np.bool_:
        return _onnx.reduce("ReduceSum")(b, node, ins)
    from onnx import helper
    axis = b.py(ins[1], node, "axis") if len(ins) > 1 else ()
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    counts = _onnx.cast_to(b, node, 0, ins[0], np.dtype(np.int64))
    inputs = [counts] + ([b.const(np.array(axis, np.int64))] if axis else [])
    total = b.op("ReduceSum", inputs, keepdims=int(bool(node.attrs["keep_dims"])))
    return b.op("Cast", [total], to=helper.np_dtype_to_tensor_dtype(np.dtype(np.bool_)))


_onnx.declare(ReduceSum, _reduce_sum_onnx)
_onnx.declare(MatMul, _onnx.matmul)
_onnx.declare(BatchMatMul, _onnx.batch_matmul)
_onnx.declare(Cast, _onnx.cast)

# backward rules made only of primitive calls on shapes, dtypes and attributes (core/backward_replay.py)
for _replayable in (Cast, Add, Sub, Mul, Neg, MatMul, BatchMatMul, ReduceSum):
    _replayable.bprop_replayable = True
