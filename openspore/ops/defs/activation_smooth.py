"""Primitives: smooth activations (Softplus, SiLU, GeLU and its variants, FastGeLU, Mish) and their gradient
primitives.

Every second derivative is written with primitives of this family: the logistic sigmoid is
SoftplusGrad(1, x), tanh(z) = 2 * sigmoid(2z) - 1, and the Gaussian density exp(-x^2 / 2) is
Elu(1)(-x^2 / 2) + 1 (the exponent is never positive), so gradients of any order need nothing else.
"""
import math


from ...core.primitive import Sample, register
from . import _onnx
from ._mindir import Arg, mindir, norm_str
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import prim, rand_float
from .activation import Activation, ActivationGrad, Elu

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_CUBIC = 0.044715
FAST_GELU_K = 1.702
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# ---- numpy helpers (numpy has no erf; these are shared with the loss kernels) -----------------
def np_sigmoid(np, x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def np_softplus(np, x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def np_erf(np, x):
    """erf in float64, to ~1e-15: a series of positive terms below |x| = 2.5, Laplace's continued fraction
    for erfc above (both converge fast there, and neither cancels)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    small = a < 2.5
    s = np.where(small, a, 0.0)
    # erf(s) = 2/sqrt(pi) * exp(-s^2) * sum_n s (2 s^2)^n / (1 * 3 * ... * (2n + 1))
    term = s.copy()
    total = s.copy()
    two_s2 = 2.0 * s * s
    for n in range(1, 48):
        term = term * two_s2 / (2 * n + 1)
        total = total + term
    series = (2.0 / math.sqrt(math.pi)) * np.exp(-s * s) * total
    # erfc(b) = exp(-b^2) / sqrt(pi) / (b + (1/2) / (b + 1 / (b + (3/2) / (b + ...)))), evaluated from the tail
    b = np.where(small, 2.5, a)
    tail = b.copy()
    for k in range(60, 0, -1):
        tail = b + (k / 2.0) / tail
    erfc = np.exp(-b * b) / (math.sqrt(math.pi) * tail)
    out = np.where(small, series, 1.0 - erfc)
    return np.where(x < 0, -out, out)


def _f64(np, x):
    return x.astype(np.float64) if x.dtype != np.float64 else x


# ---- composites used by the backward rules ------------------------------------------------------
def sigmoid(z):
    """The logistic function as a primitive call: SoftplusGrad(1, z)."""
    return SoftplusGrad()(prim("OnesLike")(z), z)


def silu_curvature(z):
    """d^2/dz^2 of z * sigmoid(z) = s (1 - s) (2 + z (1 - 2 s))."""
    mul, sub, add = prim("Mul"), prim("Sub"), prim("Add")
    s = sigmoid(z)
    return mul(mul(s, sub(1.0, s)), add(mul(z, sub(1.0, mul(s, 2.0))), 2.0))


def gelu_curvature(x, approximate):
    """Second derivative of GeLU; 'tanh' form written as x * sigmoid(v) with v = 2c (x + 0.044715 x^3)."""
    mul, sub, add = prim("Mul"), prim("Sub"), prim("Add")
    x2 = mul(x, x)
    if approximate == "none":
        density = mul(add(Elu(alpha=1.0)(mul(x2, -0.5)), 1.0), INV_SQRT_2PI)
        return mul(density, sub(2.0, x2))
    k = 2.0 * SQRT_2_OVER_PI
    v = mul(add(x, mul(mul(x2, x), GELU_CUBIC)), k)
    dv = add(mul(x2, 3.0 * GELU_CUBIC * k), k)
    d2v = mul(x, 6.0 * GELU_CUBIC * k)
    s = sigmoid(v)
    inner = add(add(mul(dv, 2.0), mul(mul(x, sub(1.0, mul(s, 2.0))), mul(dv, dv))), mul(x, d2v))
    return mul(mul(s, sub(1.0, s)), inner)


def mish_curvature(x):
    """Second derivative of x * tanh(softplus(x)): (1 - t^2) s (2 + x (1 - s - 2 t s))."""
    mul, sub, add = prim("Mul"), prim("Sub"), prim("Add")
    t = sub(mul(sigmoid(mul(Softplus()(x), 2.0)), 2.0), 1.0)
    s = sigmoid(x)
    inner = add(mul(x, sub(sub(1.0, s), mul(mul(t, s), 2.0))), 2.0)
    return mul(mul(sub(1.0, mul(t, t)), s), inner)


def _second_order(grad_prim, dy, x, dout, curvature):
    """bprop of a gradient primitive g(dy, x) = dy * f'(x): (g(dout, x), dout * dy * f''(x))."""
    mul = prim("Mul")
    return grad_prim(dout, x), mul(mul(dout, dy), curvature)


# ---- Softplus ---------------------------------------------------------------------------------
@register
class Softplus(Activation):
    """Softplus()(x) = log(1 + exp(x)), computed without overflow."""
    channels_last = "keeps"
    sample_range = (-4.0, 4.0)

    def bprop(self, x, out, dout):
        return (SoftplusGrad()(dout, x),)

    def numpy(self, np, x):
        return np_softplus(np, x).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))


@register
class SoftplusGrad(ActivationGrad):
    """SoftplusGrad()(gradients, features) = gradients * sigmoid(features)."""
    channels_last = "keeps"
    input_names = ("gradients", "features")
    sample_range = (-4.0, 4.0)

    def bprop(self, dy, x, out, dout):
        s = sigmoid(x)
        return _second_order(SoftplusGrad(), dy, x, dout, prim("Mul")(s, prim("Sub")(1.0, s)))

    def numpy(self, np, dy, x):
        return (dy * np_sigmoid(np, x)).astype(dy.dtype, copy=False)

    def torch(self, torch, dy, x):
        return dy * torch.sigmoid(x)


# ---- SiLU and FastGeLU --------------------------------------------------------------------------
@register
class SiLU(Activation):
    """SiLU()(x) = x * sigmoid(x)."""
    channels_last = "keeps"

    def bprop(self, x, out, dout):
        return (SiLUGrad()(dout, x),)

    def numpy(self, np, x):
        return (x * np_sigmoid(np, x)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.silu(x)


@register
class SiLUGrad(ActivationGrad):
    """SiLUGrad()(dout, x) = dout * s (1 + x (1 - s)) with s = sigmoid(x)."""
    channels_last = "keeps"
    input_names = ("dout", "x")

    def bprop(self, dy, x, out, dout):
        return _second_order(SiLUGrad(), dy, x, dout, silu_curvature(x))

    def numpy(self, np, dy, x):
        s = np_sigmoid(np, x)
        return (dy * s * (1 + x * (1 - s))).astype(dy.dtype, copy=False)

    def torch(self, torch, dy, x):
        s = torch.sigmoid(x)
        return dy * s * (1 + x * (1 - s))


@register
class FastGeLU(Activation):
    """FastGeLU()(x) = x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), i.e. x * sigmoid(1.702 x)."""
    channels_last = "keeps"

    def bprop(self, x, out, dout):
        return (FastGeLUGrad()(dout, x),)

    def numpy(self, np, x):
        return (x * np_sigmoid(np, FAST_GELU_K * x)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return x * torch.sigmoid(FAST_GELU_K * x)


@register
class FastGeLUGrad(ActivationGrad):
    """FastGeLUGrad()(dy, x) = dy * d/dx [x * sigmoid(1.702 x)]."""
    channels_last = "keeps"

    def bprop(self, dy, x, out, dout):
        curvature = prim("Mul")(silu_curvature(prim("Mul")(x, FAST_GELU_K)), FAST_GELU_K)
        return _second_order(FastGeLUGrad(), dy, x, dout, curvature)

    def numpy(self, np, dy, x):
        z = FAST_GELU_K * x
        s = np_sigmoid(np, z)
        return (dy * s * (1 + z * (1 - s))).astype(dy.dtype, copy=False)

    def torch(self, torch, dy, x):
        z = FAST_GELU_K * x
        s = torch.sigmoid(z)
        return dy * s * (1 + z * (1 - s))


# ---- GeLU ---------------------------------------------------------------------------------------
def _check_approximate(op, value):
    if value not in ("none", "tanh"):
        raise ValueError(f"For '{op}', 'approximate' must be 'none' or 'tanh', but got {value!r}.")


def _gelu_numpy(np, x, approximate):
    if approximate == "none":
        x64 = _f64(np, x)
        return (0.5 * x64 * (1.0 + np_erf(np, x64 / math.sqrt(2.0)))).astype(x.dtype)
    return (0.5 * x * (1 + np.tanh(SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x)))).astype(x.dtype, copy=False)


def _gelu_torch(torch, x, approximate):
    return torch.nn.functional.gelu(x, approximate=approximate)


def _gelu_slope_numpy(np, x, approximate):
    if approximate == "none":
        x64 = _f64(np, x)
        cdf = 0.5 * (1.0 + np_erf(np, x64 / math.sqrt(2.0)))
        return cdf + x64 * np.exp(-0.5 * x64 * x64) * INV_SQRT_2PI
    t = np.tanh(SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * GELU_CUBIC * x * x)


def _gelu_slope_torch(torch, x, approximate):
    if approximate == "none":
        cdf = 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))
        return cdf + x * torch.exp(-0.5 * x * x) * INV_SQRT_2PI
    t = torch.tanh(SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * GELU_CUBIC * x * x)


@register
class GeLU(Activation):
    """GeLU()(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): MindSpore's GeLU kernel (nn.GELU default)."""
    channels_last = "keeps"

    def bprop(self, x, out, dout):
        return (GeluGradExt(approximate="tanh")(dout, x),)

    def numpy(self, np, x):
        return _gelu_numpy(np, x, "tanh")

    def torch(self, torch, x):
        return _gelu_torch(torch, x, "tanh")

    def torch_bind(self, torch, inputs, first_only):
        if first_only:
            return None
        gelu = torch.nn.functional.gelu
        return lambda x: gelu(x, approximate="tanh")


@register
class GeluExt(Activation):
    """GeluExt(approximate='none')(x): exact x * Phi(x) (Phi the normal CDF), or the 'tanh' approximation."""
    channels_last = "keeps"
    attr_defaults = {"approximate": "none"}

    def check_attrs(self):
        _check_approximate(self.name, self.approximate)

    def bprop(self, x, out, dout):
        return (GeluGradExt(approximate=self.approximate)(dout, x),)

    def numpy(self, np, x):
        return _gelu_numpy(np, x, self.approximate)

    def torch(self, torch, x):
        return _gelu_torch(torch, x, self.approximate)

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(rand_float(rng, (6,), -3.0, 3.0), attrs={"approximate": "tanh"}, name="tanh")


@register
class GeluGradExt(ActivationGrad):
    """GeluGradExt(approximate='none')(dy, x) = dy * GeLU'(x)."""
    channels_last = "keeps"
    attr_defaults = {"approximate": "none"}

    def check_attrs(self):
        _check_approximate(self.name, self.approximate)

    def bprop(self, dy, x, out, dout):
        return _second_order(GeluGradExt(approximate=self.approximate), dy, x, dout,
                             gelu_curvature(x, self.approximate))

    def numpy(self, np, dy, x):
        return (dy * _gelu_slope_numpy(np, x, self.approximate)).astype(dy.dtype)

    def torch(self, torch, dy, x):
        if dy.dtype == x.dtype and dy.dtype.is_floating_point:
            # torch's fused kernel: one pass instead of ~10 elementwise ops (it was the largest cost of a GPT step)
            return torch.ops.aten.gelu_backward(dy, x, approximate=self.approximate)
        return dy * _gelu_slope_torch(torch, x, self.approximate)

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(rand_float(rng, (6,)), rand_float(rng, (6,), -3.0, 3.0), attrs={"approximate": "tanh"},
                     name="tanh")


# ---- Mish ---------------------------------------------------------------------------------------
@register
class Mish(Activation):
    """Mish()(x) = x * tanh(softplus(x))."""
    channels_last = "keeps"

    def bprop(self, x, out, dout):
        return (MishGrad()(dout, x),)

    def numpy(self, np, x):
        return (x * np.tanh(np_softplus(np, x))).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        return torch.nn.functional.mish(x)


@register
class MishGrad(ActivationGrad):
    """MishGrad()(dout, x) = dout * (t + x (1 - t^2) sigmoid(x)) with t = tanh(softplus(x))."""
    channels_last = "keeps"
    input_names = ("dout", "x")

    def bprop(self, dy, x, out, dout):
        return _second_order(MishGrad(), dy, x, dout, mish_curvature(x))

    def numpy(self, np, dy, x):
        t = np.tanh(np_softplus(np, x))
        return (dy * (t + x * (1 - t * t) * np_sigmoid(np, x))).astype(dy.dtype, copy=False)

    def torch(self, torch, dy, x):
        t = torch.tanh(torch.nn.functional.softplus(x))
        return dy * (t + x * (1 - t * t) * torch.sigmoid(x))


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(BACKWARD, SoftplusGrad, SiLUGrad, FastGeLUGrad, GeluGradExt, MishGrad)
not_exportable(NO_MINDIR, Softplus, formats=("MINDIR",))
not_exportable(NO_ONNX, Softplus, SiLU, FastGeLU, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(SiLU, Mish, GeLU, FastGeLU)
mindir(GeluExt, attrs=[Arg("approximate", "none", norm_str)])

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Mish, _onnx.unary("Mish"))
_onnx.declare(GeLU, _onnx.gelu_tanh)
_onnx.declare(GeluExt, _onnx.gelu_ext)
