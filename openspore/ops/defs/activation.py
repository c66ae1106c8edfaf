"""Primitives: piecewise activations (ReLU family, ELU family, hard sigmoid/swish, PReLU, Softsign) and the
gradient primitives their backward rules use.

The gradient primitives differentiate again with rules built from this family and plain arithmetic (the
0/1 masks come from `step`, itself a ReluGrad), so every derivative order stays inside the primitive table.
"""
import numpy as np

from ...core.primitive import Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_same_dtype, check_tensor, prim, rand_float, same_as, sum_to_shape

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def step(z):
    """1 where z > 0 else 0, in z's dtype: the mask of every piecewise-linear derivative."""
    return ReluGrad()(prim("OnesLike")(z), z)


def check_number(op, name, value, positive=False, nonzero=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(value).__name__}.")
    if positive and not value > 0:
        raise ValueError(f"For '{op}', '{name}' must be greater than 0, but got {value}.")
    if nonzero and value == 0:
        raise ValueError(f"For '{op}', '{name}' must not be 0, but got {value}.")
    return float(value)


class Activation(Primitive):
    """Elementwise activation x -> y of the same shape and dtype."""
    input_names = ("x",)
    kinds = ("float",)
    sample_range = (-3.0, 3.0)

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, self.kinds)
        return same_as(x)

    @classmethod
    def samples(cls, rng):
        lo, hi = cls.sample_range
        yield Sample(rand_float(rng, (3, 4), lo, hi))
        yield Sample(rand_float(rng, (2, 3, 2), lo, hi, np.float64), name="float64")


class ActivationGrad(Primitive):
    """(dy, x) -> dx: the incoming gradient times the activation's derivative at x."""
    input_names = ("dy", "x")
    kinds = ("float",)
    sample_range = (-3.0, 3.0)

    def infer(self, dy, x):
        check_tensor(self.name, self.input_names[0], dy)
        check_tensor(self.name, self.input_names[1], x)
        check_dtype(self.name, self.input_names[1], x, self.kinds)
        check_same_dtype(self.name, self.input_names, dy, x)
        if tuple(dy.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', the shape of '{self.input_names[0]}' must be the same as "
                             f"'{self.input_names[1]}', but got {list(dy.shape)} and {list(x.shape)}.")
        return same_as(x)

    @classmethod
    def samples(cls, rng):
        lo, hi = cls.sample_range
        yield Sample(rand_float(rng, (3, 4)), rand_float(rng, (3, 4), lo, hi))


# ---- ReLU family ------------------------------------------------------------------------------
@register
class ReLU(Activation):
    """ReLU()(x) = max(x, 0)."""
    channels_last = "keeps"
    kinds = ("int", "float")

    def bprop(self, x, out, dout):
        return (ReluGrad()(dout, out),)

    def numpy(self, np, x):
        return np.maximum(x, x.dtype.type(0))

    def torch(self, torch, x):
        return torch.relu(x)

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(np.array([-3, 0, 2, 7], np.int32), name="int32")


@register
class ReluGrad(ActivationGrad):
    """ReluGrad()(y_backprop, x) = y_backprop where x > 0, else 0."""
    channels_last = "keeps"
    input_names = ("y_backprop", "x")
    kinds = ("int", "float")

    def bprop(self, dy, x, out, dout):
        return ReluGrad()(dout, x), prim("ZerosLike")(x)

    def numpy(self, np, dy, x):
        return np.where(x > 0, dy, dy.dtype.type(0))

    def torch(self, torch, dy, x):
        if dy.dtype.is_floating_point and dy.dtype == x.dtype:
            return torch.ops.aten.threshold_backward(dy, x, 0)  # one fused pass; torch.where was 6x slower
        return torch.where(x > 0, dy, torch.zeros((), dtype=dy.dtype, device=dy.device))


@register
class ReLU6(Activation):
    """ReLU6()(x) = min(max(x, 0), 6); floating inputs only (MindSpore 2.10 rejects integers with a TypeError)."""
    channels_last = "keeps"
    kinds = ("float",)
    sample_range = (-2.0, 8.0)

    def bprop(self, x, out, dout):
        return (ReLU6Grad()(dout, x),)

    def numpy(self, np, x):
        return np.clip(x, x.dtype.type(0), x.dtype.type(6))

    def torch(self, torch, x):
        return torch.clamp(x, 0, 6)


@register
class ReLU6Grad(ActivationGrad):
    """ReLU6Grad()(y_grad, x) = y_grad where 0 < x < 6, else 0."""
    channels_last = "keeps"
    input_names = ("y_grad", "x")
    sample_range = (-2.0, 8.0)

    def bprop(self, dy, x, out, dout):
        return ReLU6Grad()(dout, x), prim("ZerosLike")(x)

    def numpy(self, np, dy, x):
        return np.where((x > 0) & (x < 6), dy, dy.dtype.type(0))

    def torch(self, torch, dy, x):
        return torch.where((x > 0) & (x < 6), dy, torch.zeros((), dtype=dy.dtype, device=dy.device))


@register
class LeakyReLU(Activation):
    """LeakyReLU(alpha=0.2)(x) = x where x > 0, else alpha * x."""
    channels_last = "keeps"
    attr_defaults = {"alpha": 0.2}

    def check_attrs(self):
        self.alpha = check_number(self.name, "alpha", self.alpha)

    def bprop(self, x, out, dout):
        # slope = alpha + (1 - alpha) * [x > 0]
        slope = prim("Add")(prim("Mul")(step(x), 1.0 - self.alpha), self.alpha)
        return (prim("Mul")(dout, slope),)

    def numpy(self, np, x):
        return np.where(x > 0, x, x * self.alpha)

    def torch(self, torch, x):
        return torch.where(x > 0, x, x * self.alpha)

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(rand_float(rng, (5,), -2.0, 2.0), attrs={"alpha": 0.01})


# ---- ELU family -------------------------------------------------------------------------------
@register
class Elu(Activation):
    """Elu(alpha=1.0)(x) = x where x > 0, else alpha * (exp(x) - 1)."""
    channels_last = "keeps"
    attr_defaults = {"alpha": 1.0}

    def check_attrs(self):
        self.alpha = check_number(self.name, "alpha", self.alpha)

    def bprop(self, x, out, dout):
        return (EluGrad(alpha=self.alpha)(dout, out),)

    def numpy(self, np, x):
        return np.where(x > 0, x, self.alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.elu(x, alpha=self.alpha)

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(rand_float(rng, (4,), -2.0, 2.0), attrs={"alpha": 0.5})


@register
class EluGrad(ActivationGrad):
    """EluGrad(alpha=1.0)(dy, y): ELU's derivative written in terms of its output y = Elu(x)."""
    channels_last = "keeps"
    attr_defaults = {"alpha": 1.0}
    input_names = ("dy", "y")
    sample_range = (-0.9, 2.0)  # a valid ELU output lies above -alpha

    def check_attrs(self):
        self.alpha = check_number(self.name, "alpha", self.alpha)

    def bprop(self, dy, y, out, dout):
        # d/dy of dy * (y + alpha) on the negative side is dy; the positive side is constant.
        dy_y = prim("Mul")(prim("Mul")(dout, dy), prim("Sub")(1.0, step(y)))
        return EluGrad(alpha=self.alpha)(dout, y), dy_y

    def numpy(self, np, dy, y):
        return np.where(y > 0, dy, dy * (y + self.alpha))

    def torch(self, torch, dy, y):
        return torch.where(y > 0, dy, dy * (y + self.alpha))


@register
class SeLU(Activation):
    """SeLU()(x) = scale * Elu(alpha)(x) with the self-normalising constants."""
    channels_last = "keeps"

    def bprop(self, x, out, dout):
        elu_out = prim("Mul")(out, 1.0 / SELU_SCALE)
        return (prim("Mul")(EluGrad(alpha=SELU_ALPHA)(dout, elu_out), SELU_SCALE),)

    def numpy(self, np, x):
        neg = SELU_ALPHA * np.expm1(np.minimum(x, 0))
        return (SELU_SCALE * np.where(x > 0, x, neg)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.selu(x)


@register
class CeLU(Activation):
    """CeLU(alpha=1.0)(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    channels_last = "keeps"
    attr_defaults = {"alpha": 1.0}

    def check_attrs(self):
        self.alpha = check_number(self.name, "alpha", self.alpha, nonzero=True)

    def bprop(self, x, out, dout):
        # CeLU(x) = alpha * Elu(1)(x / alpha), so its derivative is Elu(1)'s at y = out / alpha.
        return (EluGrad(alpha=1.0)(dout, prim("Mul")(out, 1.0 / self.alpha)),)

    def numpy(self, np, x):
        return np.where(x > 0, x, self.alpha * np.expm1(np.minimum(x, 0) / self.alpha)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.celu(x, alpha=self.alpha)

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(rand_float(rng, (4,), -3.0, 2.0), attrs={"alpha": 2.0})


# ---- hard sigmoid / hard swish ----------------------------------------------------------------
@register
class HSigmoid(Activation):
    """HSigmoid()(x) = relu6(x + 3) / 6."""
    channels_last = "keeps"
    sample_range = (-5.0, 5.0)

    def bprop(self, x, out, dout):
        return (HSigmoidGrad()(dout, x),)

    def numpy(self, np, x):
        return (np.clip(x + 3, 0, 6) / 6).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.hardsigmoid(x)


@register
class HSigmoidGrad(ActivationGrad):
    """HSigmoidGrad()(grads, input_x) = grads / 6 where -3 < x < 3, else 0."""
    channels_last = "keeps"
    input_names = ("grads", "input_x")
    sample_range = (-5.0, 5.0)

    def bprop(self, dy, x, out, dout):
        return HSigmoidGrad()(dout, x), prim("ZerosLike")(x)

    def numpy(self, np, dy, x):
        return np.where((x > -3) & (x < 3), dy / 6, dy.dtype.type(0)).astype(dy.dtype, copy=False)

    def torch(self, torch, dy, x):
        return torch.where((x > -3) & (x < 3), dy / 6, torch.zeros((), dtype=dy.dtype, device=dy.device))


@register
class HSwish(Activation):
    """HSwish()(x) = x * relu6(x + 3) / 6."""
    channels_last = "keeps"
    sample_range = (-5.0, 5.0)

    def bprop(self, x, out, dout):
        return (HSwishGrad()(dout, x),)

    def numpy(self, np, x):
        return (x * np.clip(x + 3, 0, 6) / 6).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.hardswish(x)


@register
class HSwishGrad(ActivationGrad):
    """HSwishGrad()(y_grad, x): 0 below -3, 1 above 3 and (2x + 3) / 6 between, times y_grad."""
    channels_last = "keeps"
    input_names = ("y_grad", "x")
    sample_range = (-5.0, 5.0)

    def bprop(self, dy, x, out, dout):
        # the derivative's slope is 1/3 on (-3, 3): twice HSigmoid's 1/6 mask
        dx = prim("Mul")(HSigmoidGrad()(prim("Mul")(dout, dy), x), 2.0)
        return HSwishGrad()(dout, x), dx

    def numpy(self, np, dy, x):
        slope = np.where(x <= -3, 0.0, np.where(x >= 3, 1.0, (2 * x + 3) / 6))
        return (dy * slope).astype(dy.dtype, copy=False)

    def torch(self, torch, dy, x):
        zero = torch.zeros((), dtype=dy.dtype, device=dy.device)
        return torch.where(x <= -3, zero, torch.where(x >= 3, dy, dy * (2 * x + 3) / 6))


# ---- PReLU and Softsign -------------------------------------------------------------------------
@register
class PReLU(Primitive):
    """PReLU()(x, weight): x where x > 0, else weight * x; weight has one slope per channel (axis 1) or one."""
    input_names = ("x", "weight")

    def infer(self, x, weight):
        check_tensor(self.name, "x", x)
        check_tensor(self.name, "weight", weight)
        check_dtype(self.name, "x", x, ("float",))
        check_same_dtype(self.name, self.input_names, x, weight)
        channels = x.shape[1] if len(x.shape) >= 2 else 1
        if len(weight.shape) != 1 or weight.shape[0] not in (1, channels):
            raise ValueError(f"For 'PReLU', the 'weight' must be a 1-D Tensor of size 1 or the channel size "
                             f"{channels} of 'x' (axis 1), but got weight shape {list(weight.shape)} and "
                             f"x shape {list(x.shape)}.")
        return same_as(x)

    @staticmethod
    def _weight_shape(xshape, wshape):
        if len(xshape) >= 2:
            return (1, wshape[0]) + (1,) * (len(xshape) - 2)
        return (1,) * len(xshape)

    def bprop(self, x, weight, out, dout):
        wshape = self._weight_shape(tuple(x.shape), tuple(weight.shape))
        w = prim("Reshape")(weight, wshape)
        s = step(x)
        slope = prim("Add")(w, prim("Mul")(s, prim("Sub")(1.0, w)))
        dx = prim("Mul")(dout, slope)
        negative_part = prim("Mul")(x, prim("Sub")(1.0, s))
        dw = sum_to_shape(prim("Mul")(dout, negative_part), wshape)
        return dx, prim("Reshape")(dw, tuple(weight.shape))

    def numpy(self, np, x, weight):
        w = weight.reshape(self._weight_shape(x.shape, weight.shape))
        return np.where(x > 0, x, w * x)

    def torch(self, torch, x, weight):
        w = weight.reshape(self._weight_shape(tuple(x.shape), tuple(weight.shape)))
        return torch.where(x > 0, x, w * x)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3, 4)), rand_float(rng, (3,), 0.1, 0.5))
        yield Sample(rand_float(rng, (2, 3)), rand_float(rng, (1,), 0.1, 0.5), name="shared")
        yield Sample(rand_float(rng, (5,)), rand_float(rng, (1,), 0.1, 0.5), name="1d")


@register
class Softsign(Activation):
    """Softsign()(x) = x / (1 + |x|)."""
    channels_last = "keeps"

    def bprop(self, x, out, dout):
        # 1 / (1 + |x|) = 1 - |out|, and |out| = out * (2 [out > 0] - 1)
        sign = prim("Sub")(prim("Mul")(step(out), 2.0), 1.0)
        rest = prim("Sub")(1.0, prim("Mul")(out, sign))
        return (prim("Mul")(dout, prim("Mul")(rest, rest)),)

    def numpy(self, np, x):
        return x / (1 + np.abs(x))

    def torch(self, torch, x):
        return torch.nn.functional.softsign(x)


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(BACKWARD, ReLU6Grad, EluGrad, HSigmoidGrad, HSwishGrad)
not_exportable(BACKWARD, ReluGrad, formats=("ONNX",))
not_exportable(NO_MINDIR, SeLU, CeLU)
not_exportable(NO_ONNX, ReLU6, SeLU, CeLU, PReLU, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(ReLU, instance="relu")
# Training-step graphs (an exported TrainOneStepCell, what `converter_lite --trainModel=true` reads) hold it.
mindir(ReluGrad, inputs=("y_backprop", "x"))
mindir(ReLU6, HSwish, HSigmoid, Softsign)
mindir(LeakyReLU, attrs=[Arg("alpha", 0.2)])
mindir(Elu, attrs=[Arg("alpha", 1.0)])
mindir(PReLU, inputs=("x", "weight"))

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Softsign, _onnx.unary("Softsign"))
_onnx.declare(HSwish, _onnx.unary("HardSwish"))
_onnx.declare(ReLU, _onnx.unary("Relu"))
_onnx.declare(HSigmoid, _onnx.unary("HardSigmoid", alpha=1.0 / 6.0, beta=0.5))  # relu6(x + 3) / 6
_onnx.declare(LeakyReLU, _onnx.leaky_relu)
_onnx.declare(Elu, _onnx.elu)
