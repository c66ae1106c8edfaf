"""Primitives: MindSpore's backward primitives that user code calls by name (`ops.operations._grad_ops`):
the inverse-trigonometric, reciprocal and (reciprocal) square-root gradients, BiasAddGrad, GeLUGrad and LogSoftmaxGrad.

openspore's own backward rules are written with forward primitives; these exist because MindSpore exposes them
and scripts use them directly. Each differentiates again with plain arithmetic primitives.

Complex inputs follow MindSpore's convention: the incoming gradient is divided by the conjugate of the derivative
(AsinGrad(x, dy) = dy / conj(sqrt(1 - x^2))).
"""
import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, not_exportable
from .activation_smooth import GeluGradExt
from ._util import check_dtype, check_same_dtype, check_tensor, normalize_axis, prim, rand_float, same_as


def _mul(*factors):
    out = factors[0]
    for f in factors[1:]:
        out = prim("Mul")(out, f)
    return out


def _one_minus_sq(x):
    return prim("Sub")(1.0, _mul(x, x))


class _ElementwiseGrad(Primitive):
    """(v, dy) -> dy * f'(v), with v the forward input x or its output y (MindSpore's choice per function).

    Subclasses give `slope(xp, v)` (f' on arrays, for the kernels) and `slope_ir(v)` / `curvature_ir(v)` (f' and
    d f'/dv written with primitives, for the backward rule)."""
    input_names = ("x", "dy")
    sample_range = (-0.9, 0.9)

    def infer(self, v, dy):
        check_tensor(self.name, self.input_names[0], v)
        check_tensor(self.name, "dy", dy)
        check_dtype(self.name, self.input_names[0], v, ("float", "complex"))
        check_same_dtype(self.name, self.input_names, v, dy)
        if tuple(v.shape) != tuple(dy.shape):
            raise ValueError(f"For '{self.name}', the shape of 'dy' must be the same as '{self.input_names[0]}', "
                             f"but got {list(dy.shape)} and {list(v.shape)}.")
        return same_as(v)

    def bprop(self, v, dy, out, dout):
        return _mul(dout, dy, self.curvature_ir(v)), _mul(dout, self.slope_ir(v))

    def numpy(self, np, v, dy):
        slope = self.slope(np, v)
        return (dy * (np.conj(slope) if slope.dtype.kind == "c" else slope)).astype(v.dtype, copy=False)

    def torch(self, torch, v, dy):
        slope = self.slope(torch, v)
        return dy * (slope.conj() if slope.is_complex() else slope)

    @classmethod
    def samples(cls, rng):
        lo, hi = cls.sample_range
        yield Sample(rand_float(rng, (3, 4), lo, hi), rand_float(rng, (3, 4)))
        yield Sample(rand_float(rng, (5,), lo, hi, np.float64), rand_float(rng, (5,), dtype=np.float64),
                     name="float64")
        v = (rng.uniform(lo, hi, 4) + 0.2j * rng.uniform(lo, hi, 4)).astype(np.complex64)
        yield Sample(v, (rng.uniform(-1, 1, 4) + 0.3j).astype(np.complex64), name="complex", grad=())


@register
class AsinGrad(_ElementwiseGrad):
    """AsinGrad()(x, dy) = dy / sqrt(1 - x^2): the gradient of Asin at its input x."""

    def slope(self, xp, x):
        return 1 / xp.sqrt(1 - x * x)

    def slope_ir(self, x):
        return prim("Rsqrt")(_one_minus_sq(x))

    def curvature_ir(self, x):
        root = prim("Rsqrt")(_one_minus_sq(x))
        return _mul(x, root, root, root)


@register
class ACosGrad(_ElementwiseGrad):
    """ACosGrad()(x, dy) = -dy / sqrt(1 - x^2): the gradient of ACos at its input x."""

    def slope(self, xp, x):
        return -1 / xp.sqrt(1 - x * x)

    def slope_ir(self, x):
        return prim("Neg")(prim("Rsqrt")(_one_minus_sq(x)))

    def curvature_ir(self, x):
        root = prim("Rsqrt")(_one_minus_sq(x))
        return prim("Neg")(_mul(x, root, root, root))


@register
class AtanGrad(_ElementwiseGrad):
    """AtanGrad()(x, dy) = dy / (1 + x^2): the gradient of Atan at its input x."""
    sample_range = (-3.0, 3.0)

    def slope(self, xp, x):
        return 1 / (1 + x * x)

    def slope_ir(self, x):
        return prim("Reciprocal")(prim("Add")(_mul(x, x), 1.0))

    def curvature_ir(self, x):
        inv = prim("Reciprocal")(prim("Add")(_mul(x, x), 1.0))
        return _mul(x, inv, inv, -2.0)


@register
class AsinhGrad(_ElementwiseGrad):
    """AsinhGrad()(y, dy) = dy / cosh(y), y = Asinh(x) the forward output."""
    input_names = ("y", "dy")
    sample_range = (-2.0, 2.0)

    def slope(self, xp, y):
        return 1 / xp.cosh(y)

    def slope_ir(self, y):
        return prim("Reciprocal")(prim("Cosh")(y))

    def curvature_ir(self, y):
        inv = prim("Reciprocal")(prim("Cosh")(y))
        return prim("Neg")(_mul(prim("Sinh")(y), inv, inv))


@register
class AcoshGrad(_ElementwiseGrad):
    """AcoshGrad()(y, dy) = dy / sinh(y), y = Acosh(x) the forward output (y > 0)."""
    input_names = ("y", "dy")
    sample_range = (0.5, 2.0)

    def slope(self, xp, y):
        return 1 / xp.sinh(y)

    def slope_ir(self, y):
        return prim("Reciprocal")(prim("Sinh")(y))

    def curvature_ir(self, y):
        inv = prim("Reciprocal")(prim("Sinh")(y))
        return prim("Neg")(_mul(prim("Cosh")(y), inv, inv))


@register
class InvGrad(_ElementwiseGrad):
    """InvGrad()(y, dy) = -dy * y^2, y = Inv(x) = 1 / x the forward output."""
    input_names = ("y", "dy")
    sample_range = (-2.0, 2.0)

    def slope(self, xp, y):
        return -(y * y)

    def slope_ir(self, y):
        return prim("Neg")(_mul(y, y))

    def curvature_ir(self, y):
        return _mul(y, -2.0)


@register
class SqrtGrad(_ElementwiseGrad):
    """SqrtGrad()(y, dy) = dy * 0.5 / y, y = Sqrt(x) the forward output."""
    input_names = ("y", "dy")
    sample_range = (0.5, 2.0)

    def slope(self, xp, y):
        return 0.5 / y

    def slope_ir(self, y):
        return prim("Div")(0.5, y)

    def curvature_ir(self, y):
        return prim("Div")(-0.5, _mul(y, y))


@register
class RsqrtGrad(_ElementwiseGrad):
    """RsqrtGrad()(y, dy) = dy * -0.5 * y^3, y = Rsqrt(x) = 1 / sqrt(x) the forward output.

    >>> import numpy as np, openspore as ms
    >>> y, dy = ms.Tensor(np.array([2.0], np.float32)), ms.Tensor(np.array([1.0], np.float32))
    >>> ms.ops.auto_generate.RsqrtGrad()(y, dy).asnumpy().tolist()
    [-4.0]
    """
    input_names = ("y", "dy")
    sample_range = (0.5, 2.0)

    def slope(self, xp, y):
        return -0.5 * (y * y * y)

    def slope_ir(self, y):
        return _mul(y, y, y, -0.5)

    def curvature_ir(self, y):
        return _mul(y, y, -1.5)


# ---- BiasAddGrad ------------------------------------------------------------------------------------------------
@register
class BiasAddGrad(Primitive):
    """BiasAddGrad(data_format='NCHW')(dout): the bias gradient of BiasAdd, dout summed over every axis but the
    channel axis (axis 1, or the last one for 'NHWC')."""
    attr_defaults = {"data_format": "NCHW"}
    input_names = ("dout",)

    def check_attrs(self):
        if self.data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAddGrad', the 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', "
                             f"but got {self.data_format!r}.")

    def _axes(self, ndim):
        channel = ndim - 1 if self.data_format == "NHWC" else 1
        return tuple(a for a in range(ndim) if a != channel), channel

    def infer(self, dout):
        check_tensor(self.name, "dout", dout)
        if len(dout.shape) < 2:
            raise ValueError(f"For 'BiasAddGrad', the dimension of 'dout' must be at least 2, "
                             f"but got {len(dout.shape)}.")
        _, channel = self._axes(len(dout.shape))
        return AbstractTensor((dout.shape[channel],), dout.dtype)

    def bprop(self, dout, out, d_bias):
        # the sum spreads d_bias back over every position of its channel
        ndim = len(dout.shape)
        _, channel = self._axes(ndim)
        shape = tuple(dout.shape[a] if a == channel else 1 for a in range(ndim))
        return (prim("BroadcastTo", shape=tuple(dout.shape))(prim("Reshape")(d_bias, shape)),)

    def numpy(self, np, dout):
        axes, _ = self._axes(dout.ndim)
        return np.asarray(dout.sum(axis=axes, dtype=dout.dtype))

    def torch(self, torch, dout):
        axes, _ = self._axes(dout.dim())
        return dout.sum(dim=axes, dtype=dout.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)))
        yield Sample(rand_float(rng, (2, 3, 4, 2)), name="nchw")
        yield Sample(rand_float(rng, (2, 4, 2, 3)), attrs={"data_format": "NHWC"}, name="nhwc")


# ---- GeLUGrad, LogSoftmaxGrad --------------------------------------------------------------------------------------
@register
class GeLUGrad(Primitive):
    """GeLUGrad()(dy, x, y) = dy * GeLU'(x) for MindSpore's tanh-approximated GeLU (y, the forward output, is
    accepted and not needed)."""
    input_names = ("dy", "x", "y")

    def infer(self, dy, x, y):
        for name, t in zip(self.input_names, (dy, x, y)):
            check_tensor(self.name, name, t)
        check_dtype(self.name, "x", x, ("float",))
        check_same_dtype(self.name, self.input_names, dy, x, y)
        return same_as(x)

    _tanh_gelu_grad = GeluGradExt(approximate="tanh")  # the same function, without the unused y

    def bprop(self, dy, x, y, out, dout):
        d_dy, d_x = self._tanh_gelu_grad.bprop(dy, x, out, dout)
        return d_dy, d_x, prim("ZerosLike")(y)

    def numpy(self, np, dy, x, y):
        return self._tanh_gelu_grad.numpy(np, dy, x)

    def torch(self, torch, dy, x, y):
        return self._tanh_gelu_grad.torch(torch, dy, x)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (3, 4), -3.0, 3.0)
        yield Sample(rand_float(rng, (3, 4)), x, np.tanh(x).astype(np.float32), grad=(0, 1))


@register
class LogSoftmaxGrad(Primitive):
    """LogSoftmaxGrad(axis=-1)(logits, grad): the gradient of LogSoftmax given its output `logits` and the incoming
    gradient, grad - exp(logits) * sum(grad, axis)."""
    attr_defaults = {"axis": -1}
    input_names = ("logits", "grad")

    def infer(self, logits, grad):
        check_tensor(self.name, "logits", logits)
        check_tensor(self.name, "grad", grad)
        check_dtype(self.name, "logits", logits, ("float",))
        check_same_dtype(self.name, self.input_names, logits, grad)
        normalize_axis(self.name, self.axis, len(logits.shape))
        return same_as(logits)

    def bprop(self, logits, grad, out, dout):
        axis = normalize_axis(self.name, self.axis, len(logits.shape))
        total = prim("ReduceSum", keep_dims=True)(grad, (axis,))
        soft = prim("Exp")(logits)
        d_logits = prim("Neg")(_mul(dout, soft, total))
        d_grad = prim("Sub")(dout, prim("ReduceSum", keep_dims=True)(_mul(dout, soft), (axis,)))
        return d_logits, d_grad

    def numpy(self, np, logits, grad):
        axis = normalize_axis(self.name, self.axis, logits.ndim)
        return (grad - np.exp(logits) * grad.sum(axis=axis, keepdims=True)).astype(logits.dtype, copy=False)

    def torch(self, torch, logits, grad):
        axis = normalize_axis(self.name, self.axis, logits.dim())
        return grad - torch.exp(logits) * grad.sum(dim=axis, keepdim=True)

    @classmethod
    def samples(cls, rng):
        x = rng.uniform(-2, 2, (3, 5))
        log_soft = (x - np.log(np.exp(x).sum(axis=-1, keepdims=True))).astype(np.float32)
        yield Sample(log_soft, rand_float(rng, (3, 5)))
        yield Sample(log_soft.T.copy(), rand_float(rng, (5, 3)), attrs={"axis": 0}, name="axis0")


not_exportable(BACKWARD, AsinGrad, ACosGrad, AtanGrad, AsinhGrad, AcoshGrad, InvGrad, SqrtGrad, RsqrtGrad,
               BiasAddGrad, GeLUGrad, LogSoftmaxGrad)
