"""Primitives: arg-reductions (Argmax, ArgMaxWithValue, ...) and scans (CumSum, CumProd) along one axis."""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, normalize_axis, prim, rand_float, reduced_shape


def _is_float(t):
    return t.dtype.kind in ("float", "complex")


# ---- index of the extremum ------------------------------------------------------------------------
class _ArgReduce(Primitive):
    """Argmax(axis=-1, output_type=mindspore.int32)(x): index of the extremum along `axis` (first on ties)."""
    attr_defaults = {"axis": -1, "output_type": mstype.int32}
    input_names = ("x",)
    differentiable = False
    nondiff_reason = "the output is an integer index"

    def check_attrs(self):
        if self.output_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{self.name}', 'output_type' must be mindspore.int32 or mindspore.int64, "
                            f"but got {self.output_type!r}.")

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("bool", "int", "uint", "float"))
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        shape = reduced_shape(x.shape, (axis,), False) if x.shape else ()
        return AbstractTensor(shape, self.output_type)

    def numpy(self, np, x):
        if x.ndim == 0:
            return np.zeros((), self.output_type.np_dtype)
        fn = np.argmax if self.pick == "max" else np.argmin
        return np.asarray(fn(x, axis=self.axis)).astype(self.output_type.np_dtype)

    def torch(self, torch, x):
        from ...backends.torch_backend import torch_dtype
        if x.dim() == 0:
            return torch.zeros((), dtype=torch_dtype(self.output_type), device=x.device)
        if x.dtype == torch.bool:
            x = x.to(torch.uint8)
        fn = torch.argmax if self.pick == "max" else torch.argmin
        return fn(x, dim=self.axis).to(torch_dtype(self.output_type))

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4, 5))
        yield Sample(x)
        yield Sample(x, attrs={"axis": 0})
        yield Sample(x, attrs={"axis": 1, "output_type": mstype.int64})
        yield Sample(np.array([[1, 3, 3], [2, 2, 0]], np.int32), name="ties")


@register
class Argmax(_ArgReduce):
    __doc__ = _ArgReduce.__doc__
    pick = "max"


@register
class Argmin(_ArgReduce):
    __doc__ = _ArgReduce.__doc__.replace("Argmax", "Argmin")
    pick = "min"


class _ArgWithValue(Primitive):
    """ArgMaxWithValue(axis=0, keep_dims=False)(x) -> (index Int64, value) along `axis`, first index on ties."""
    attr_defaults = {"axis": 0, "keep_dims": False}
    input_names = ("x",)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("bool", "int", "uint", "float"))
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        shape = reduced_shape(x.shape, (axis,), self.keep_dims) if x.shape else ()
        return AbstractTensor(shape, mstype.int64), AbstractTensor(shape, x.dtype)

    def bprop(self, x, out, dout):
        if not _is_float(x):
            return (None,)
        index, dvalue = out[0], dout[1]
        if not x.shape:
            return (dvalue,)
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        keep = reduced_shape(x.shape, (axis,), True)
        # positions along the axis, built from primitives so the rule differentiates again
        iota = prim("CumSum", exclusive=True)(prim("OnesLike")(prim("Cast")(x, mstype.int64)), axis)
        hit = prim("Cast")(prim("Equal")(iota, prim("Reshape")(index, keep)), x.dtype)
        return (prim("Mul")(hit, prim("Reshape")(dvalue, keep)),)

    def numpy(self, np, x):
        if x.ndim == 0:
            return np.zeros((), np.int64), x.copy()
        fn = np.argmax if self.pick == "max" else np.argmin
        index = np.expand_dims(fn(x, axis=self.axis), self.axis)
        value = np.take_along_axis(x, index, axis=self.axis)
        if not self.keep_dims:
            index, value = np.squeeze(index, self.axis), np.squeeze(value, self.axis)
        return np.asarray(index, np.int64), np.asarray(value)

    def torch(self, torch, x):
        if x.dim() == 0:
            return torch.zeros((), dtype=torch.int64, device=x.device), x.clone()
        src = x.to(torch.uint8) if x.dtype == torch.bool else x
        fn = torch.argmax if self.pick == "max" else torch.argmin
        index = fn(src, dim=self.axis, keepdim=True)
        value = torch.gather(x, self.axis, index)
        if not self.keep_dims:
            index, value = index.squeeze(self.axis), value.squeeze(self.axis)
        return index, value

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4))
        yield Sample(x)
        yield Sample(x, attrs={"axis": 1, "keep_dims": True})
        yield Sample(rand_float(rng, (2, 3, 2)), attrs={"axis": -1})
        yield Sample(np.array([[1, 3, 3], [2, 2, 0]], np.int32), attrs={"axis": 1}, name="ties")


@register
class ArgMaxWithValue(_ArgWithValue):
    __doc__ = _ArgWithValue.__doc__
    pick = "max"


@register
class ArgMinWithValue(_ArgWithValue):
    __doc__ = _ArgWithValue.__doc__.replace("ArgMax", "ArgMin")
    pick = "min"


# ---- scans ------------------------------------------------------------------------------------------
class _Scan(Primitive):
    """CumSum(exclusive=False, reverse=False)(x, axis): running sum along `axis`.

    exclusive: element i holds the result over elements before i; reverse: run from the end of the axis.
    """
    attr_defaults = {"exclusive": False, "reverse": False}
    input_names = ("x", "axis")

    def infer(self, x, axis):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("int", "uint", "float", "complex"))
        normalize_axis(self.name, axis, len(x.shape))
        return AbstractTensor(x.shape, x.dtype)

    def numpy(self, np, x, axis):
        if x.ndim == 0:
            return x.copy() if not self.exclusive else np.full((), self.identity, x.dtype)
        axis = normalize_axis(self.name, axis, x.ndim)
        if self.reverse:
            x = np.flip(x, axis)
        out = getattr(np, self.np_fn)(x, axis=axis, dtype=x.dtype)
        if self.exclusive:
            head = np.full(x.shape[:axis] + (1,) + x.shape[axis + 1:], self.identity, x.dtype)
            out = np.concatenate([head, np.delete(out, -1, axis=axis)], axis=axis)
        if self.reverse:
            out = np.flip(out, axis)
        return np.ascontiguousarray(out)

    def torch(self, torch, x, axis):
        if x.dtype == torch.float16:
            # torch accumulates half precision in float32; MindSpore (and numpy) round after every step
            out = self.numpy(np, x.cpu().numpy(), axis)
            return torch.from_numpy(out).to(x.device)
        if x.dim() == 0:
            return x.clone() if not self.exclusive else torch.full((), self.identity, dtype=x.dtype, device=x.device)
        axis = normalize_axis(self.name, axis, x.dim())
        if self.reverse:
            x = torch.flip(x, (axis,))
        out = getattr(torch, self.np_fn)(x, dim=axis, dtype=x.dtype)
        if self.exclusive:
            shape = list(x.shape)
            shape[axis] = 1
            head = torch.full(shape, self.identity, dtype=x.dtype, device=x.device)
            out = torch.cat([head, out.narrow(axis, 0, x.shape[axis] - 1)], dim=axis)
        if self.reverse:
            out = torch.flip(out, (axis,))
        return out.contiguous()

    @classmethod
    def samples(cls, rng):
        x = cls.sample_values(rng, (3, 4))
        for exclusive in (False, True):
            for reverse in (False, True):
                yield Sample(x, 1, attrs={"exclusive": exclusive, "reverse": reverse})
        yield Sample(cls.sample_values(rng, (2, 3, 2)), 0)
        yield Sample(cls.sample_values(rng, (2, 3, 2)), -1, attrs={"reverse": True})
        yield Sample(np.array([[1, 2, 3], [4, 5, 6]], np.int32), 1, attrs={"exclusive": True}, name="int")


@register
class CumSum(_Scan):
    __doc__ = _Scan.__doc__
    np_fn = "cumsum"
    identity = 0

    @staticmethod
    def sample_values(rng, shape):
        return rand_float(rng, shape)

    def bprop(self, x, axis, out, dout):
        if not _is_float(x):
            return (None, None)
        return (CumSum(self.exclusive, not self.reverse)(dout, axis), None)


@register
class CumProd(_Scan):
    __doc__ = _Scan.__doc__.replace("CumSum", "CumProd").replace("sum", "product")
    np_fn = "cumprod"
    identity = 1

    @staticmethod
    def sample_values(rng, shape):
        # factors away from zero: the backward rule divides by x
        magnitude = rng.uniform(0.5, 1.5, size=shape)
        return (magnitude * rng.choice([-1.0, 1.0], size=shape)).astype(np.float32)

    def bprop(self, x, axis, out, dout):
        # d out_i / d x_k = out_i / x_k for every k that enters out_i, so dx = (reverse scan of dout * out) / x
        if not _is_float(x):
            return (None, None)
        scanned = prim("CumSum", exclusive=self.exclusive, reverse=not self.reverse)(prim("Mul")(dout, out), axis)
        return (prim("RealDiv")(scanned, x), None)


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, Argmax, Argmin, ArgMaxWithValue, ArgMinWithValue, CumSum, CumProd, formats=("MINDIR",))
not_exportable(NO_ONNX, Argmax, Argmin, ArgMaxWithValue, ArgMinWithValue, CumSum, CumProd, formats=("ONNX",))
