"""Primitives: elementwise binary arithmetic beyond Add/Sub/Mul (division family, powers, extrema, atan2).

All broadcast and take part in implicit dtype promotion (`_Binary`), so `infer` sees one dtype.
"""
import numpy as np

from ...core.primitive import Sample, register
from . import _onnx
from ._mindir import mindir
from ._export import NO_ONNX, not_exportable
from ._util import float_result, prim, rand_float, rand_positive, sum_to_shape
from .math import _Binary


def _is_float(t):
    return t.dtype.kind in ("float", "complex")


def _away_from_zero(rng, shape, low=0.5, high=2.0):
    """Nonzero divisors of both signs (keeps finite differences well conditioned)."""
    magnitude = rng.uniform(low, high, size=shape)
    return (magnitude * rng.choice([-1.0, 1.0], size=shape)).astype(np.float32)


def _grads(x, y, dx, dy):
    """Reduce broadcast gradients to the input shapes; integer inputs get none."""
    return (sum_to_shape(dx, x.shape) if dx is not None and _is_float(x) else None,
            sum_to_shape(dy, y.shape) if dy is not None and _is_float(y) else None)


# ---- division -------------------------------------------------------------------------------------
class _TrueDivision(_Binary):
    """Shared by Div and RealDiv: x / y, its gradient and its float samples."""
    channels_last = "keeps"
    kinds = ("bool", "int", "uint", "float", "complex")

    def out_dtype(self, dtype):
        return float_result(dtype)

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        dx = prim("RealDiv")(dout, y)
        dy = prim("Neg")(prim("Mul")(dx, out))
        return _grads(x, y, dx, dy)

    def numpy(self, np, x, y):
        if x.dtype.kind not in "fc":
            x, y = x.astype(np.float32), y.astype(np.float32)
        with np.errstate(all="ignore"):  # x/0 is inf or nan, as on the other backends
            return np.asarray(np.true_divide(x, y))

    def torch(self, torch, x, y):
        if not (x.is_floating_point() or x.is_complex()):
            x, y = x.to(torch.float32), y.to(torch.float32)
        return torch.true_divide(x, y)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), _away_from_zero(rng, (3, 4)))
        yield Sample(rand_float(rng, (2, 3, 4)), _away_from_zero(rng, (4,)), name="broadcast")
        yield Sample(rand_float(rng, (3, 1)), _away_from_zero(rng, (1, 5)), name="outer")
        yield Sample(np.array([7, -7, 6, 1], np.int32), np.array([2, 2, -4, 3], np.int32), name="int")


@register
class RealDiv(_TrueDivision):
    """RealDiv()(x, y): x / y; on integers it keeps the dtype and truncates toward zero (int32 7 / -2 -> -3),
    as MindSpore 2.10's kernel does; bool inputs are a TypeError there and here."""
    kinds = ("int", "uint", "float", "complex")

    def out_dtype(self, dtype):
        return dtype

    def numpy(self, np, x, y):
        if x.dtype.kind in "fc":
            return super().numpy(np, x, y)
        with np.errstate(all="ignore"):  # an integer x/0 gives 0 here rather than raising
            magnitude = np.floor_divide(np.abs(x), np.abs(y))
            return np.asarray(np.where((x < 0) != (y < 0), -magnitude, magnitude).astype(x.dtype))

    def torch(self, torch, x, y):
        if x.is_floating_point() or x.is_complex():
            return torch.true_divide(x, y)
        return torch.div(x, y, rounding_mode="trunc")


@register
class Div(_TrueDivision):
    """Div()(x, y): x / y elementwise (true division: integer/bool inputs give float32, int32 / int32 -> float32)."""


@register
class FloorDiv(_Binary):
    """FloorDiv()(x, y): floor(x / y); integers stay integers. The gradient is zero (piecewise constant)."""
    kinds = ("int", "uint", "float")

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        zeros = prim("ZerosLike")(dout)
        return _grads(x, y, zeros, zeros)

    def numpy(self, np, x, y):
        with np.errstate(all="ignore"):
            return np.asarray(np.floor_divide(x, y))

    def torch(self, torch, x, y):
        return torch.floor_divide(x, y)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4), -5, 5), _away_from_zero(rng, (3, 4)))
        yield Sample(np.array([7, -7, 7, -7, 0], np.int32), np.array([2, 2, -2, -2, 3], np.int32), name="int")


@register
class FloorMod(_Binary):
    """FloorMod()(x, y): x - floor(x / y) * y, with the sign of y (Python's %)."""
    kinds = ("int", "uint", "float")

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        dy = prim("Neg")(prim("Mul")(dout, prim("FloorDiv")(x, y)))
        return _grads(x, y, dout, dy)

    def numpy(self, np, x, y):
        with np.errstate(all="ignore"):
            return np.asarray(np.mod(x, y))

    def torch(self, torch, x, y):
        return torch.remainder(x, y)

    samples = FloorDiv.samples


@register
class Mod(_Binary):
    """Mod()(x, y): C fmod, the remainder with the sign of x (-4 mod 3 = -1)."""
    kinds = ("int", "uint", "float")

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        quotient = prim("Trunc")(prim("RealDiv")(x, y))
        return _grads(x, y, dout, prim("Neg")(prim("Mul")(dout, quotient)))

    def numpy(self, np, x, y):
        with np.errstate(all="ignore"):
            return np.asarray(np.fmod(x, y))

    def torch(self, torch, x, y):
        return torch.fmod(x, y)

    samples = FloorDiv.samples


# ---- powers -------------------------------------------------------------------------------------
@register
class Pow(_Binary):
    """Pow()(x, y): x ** y; tensor ** Python number promotes like the other binary ops."""
    kinds = ("int", "uint", "float", "complex")

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        dx = prim("Mul")(dout, prim("Mul")(y, prim("Pow")(x, prim("Sub")(y, 1))))
        # d/dy x**y = x**y log x is real only for x > 0; elsewhere it is taken as 0
        positive = prim("Greater")(x, 0)
        safe_x = prim("Select")(positive, x, prim("OnesLike")(x))
        log_x = prim("Select")(positive, prim("Log")(safe_x), prim("ZerosLike")(x))
        dy = prim("Mul")(dout, prim("Mul")(out, log_x))
        return _grads(x, y, dx, dy)

    def numpy(self, np, x, y):
        with np.errstate(all="ignore"):
            return np.asarray(np.power(x, y))

    def torch(self, torch, x, y):
        return torch.pow(x, y)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_positive(rng, (3, 4)), rand_float(rng, (3, 4), -2, 2))
        yield Sample(rand_positive(rng, (2, 3)), rand_float(rng, (3,), -2, 2), name="broadcast")
        yield Sample(rand_float(rng, (2, 3), -2, 2), np.float32(2.0) * np.ones((1,), np.float32), grad=(0,), name="square")
        yield Sample(np.array([1, 2, 3, -2], np.int32), np.array([3, 2, 0, 3], np.int32), name="int")


# ---- extrema ------------------------------------------------------------------------------------
class _Extremum(_Binary):
    kinds = ("bool", "int", "uint", "float")

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        take_x = self.take_x(x, y)  # ties send the whole gradient to x
        zeros = prim("ZerosLike")(dout)
        return _grads(x, y, prim("Select")(take_x, dout, zeros), prim("Select")(take_x, zeros, dout))

    @classmethod
    def samples(cls, rng):
        yield from _Binary.samples.__func__(cls, rng)
        yield Sample(np.array([1, 5, -3], np.int32), np.array([2, 5, -4], np.int32), name="int")


@register
class Maximum(_Extremum):
    """Maximum()(x, y): elementwise maximum (NaN propagates)."""
    channels_last = "keeps"

    def take_x(self, x, y):
        return prim("GreaterEqual")(x, y)

    def numpy(self, np, x, y):
        return np.asarray(np.maximum(x, y))

    def torch(self, torch, x, y):
        return torch.maximum(x, y)


@register
class Minimum(_Extremum):
    """Minimum()(x, y): elementwise minimum (NaN propagates). Unlike Maximum, two bool inputs are a TypeError,
    as on MindSpore 2.10's CPU kernel (bool with int promotes to int first and works)."""
    channels_last = "keeps"
    kinds = ("int", "uint", "float")

    def take_x(self, x, y):
        return prim("LessEqual")(x, y)

    def numpy(self, np, x, y):
        return np.asarray(np.minimum(x, y))

    def torch(self, torch, x, y):
        return torch.minimum(x, y)


# ---- others -------------------------------------------------------------------------------------
@register
class Atan2(_Binary):
    """Atan2()(x, y): the angle of the point (y, x), i.e. atan(x / y) in the right quadrant; ints give float32."""
    kinds = ("int", "uint", "float")

    def out_dtype(self, dtype):
        return float_result(dtype)

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        scale = prim("RealDiv")(dout, prim("Add")(prim("Mul")(x, x), prim("Mul")(y, y)))
        return _grads(x, y, prim("Mul")(scale, y), prim("Neg")(prim("Mul")(scale, x)))

    def numpy(self, np, x, y):
        if x.dtype.kind not in "fc":
            x, y = x.astype(np.float32), y.astype(np.float32)
        return np.asarray(np.arctan2(x, y))

    def torch(self, torch, x, y):
        if not x.is_floating_point():
            x, y = x.to(torch.float32), y.to(torch.float32)
        return torch.atan2(x, y)

    @classmethod
    def samples(cls, rng):
        yield Sample(_away_from_zero(rng, (3, 4)), _away_from_zero(rng, (3, 4)))
        yield Sample(_away_from_zero(rng, (2, 3)), _away_from_zero(rng, (3,)), name="broadcast")
        yield Sample(np.array([1, -1, 0, 2], np.int32), np.array([1, 1, -1, 0], np.int32), name="int")


@register
class SquaredDifference(_Binary):
    """SquaredDifference()(x, y): (x - y) ** 2."""
    channels_last = "keeps"
    kinds = ("int", "uint", "float", "complex")

    def bprop(self, x, y, out, dout):
        if not _is_float(x):
            return (None, None)
        dx = prim("Mul")(dout, prim("Mul")(prim("Sub")(x, y), 2))
        return _grads(x, y, dx, prim("Neg")(dx))

    def numpy(self, np, x, y):
        d = np.subtract(x, y)
        return np.asarray(d * d)

    def torch(self, torch, x, y):
        d = torch.sub(x, y)
        return d * d


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_ONNX, FloorDiv, FloorMod, Mod, Atan2, SquaredDifference, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Div, RealDiv, Maximum, Minimum, Pow, FloorDiv, FloorMod, Mod, SquaredDifference, Atan2, inputs=("x", "y"))

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Maximum, _onnx.elementwise("Max"))
_onnx.declare(Minimum, _onnx.elementwise("Min"))
_onnx.declare(Pow, _onnx.elementwise("Pow"))
_onnx.declare(Div, RealDiv, _onnx.elementwise("Div", "out"))

for _cls in _TrueDivision.__subclasses__():  # its rule is made of primitive calls only (core/backward_replay.py)
    _cls.bprop_replayable = True
