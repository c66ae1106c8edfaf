"""Primitives: elementwise unary math (exp/log family, powers, trigonometric, hyperbolic, erf, rounding).

Transcendental functions of integer or bool tensors return float32, as MindSpore does; sign/abs/square and the
rounding ops keep integer dtypes.
"""
import math as _math

import numpy as np

from ...core.primitive import Primitive, Sample, register
from . import _onnx
from ._mindir import mindir
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, float_result, prim, rand_float, same_as

_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)


def _is_float(t):
    return t.dtype.kind in ("float", "complex")


def _mul(a, b):
    return prim("Mul")(a, b)


class _Unary(Primitive):
    """y = f(x). Subclasses give `np_fn`/`torch_fn` (on a float input when `float_out`) and `grad`."""
    input_names = ("x",)
    kinds = ("bool", "int", "uint", "float", "complex")
    float_out = True            # integer/bool inputs compute in float32
    domain = (-1.0, 1.0)        # sample range, away from singular points

    def infer(self, x):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, self.kinds)
        return same_as(x, float_result(x.dtype) if self.float_out else None)

    def numpy(self, np, x):
        if self.float_out and x.dtype.kind not in "fc":
            x = x.astype(np.float32)
        with np.errstate(all="ignore"):  # log(0) = -inf and 1/0 = inf are results, as on the other backends
            return np.asarray(self.np_fn(np, x)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        if self.float_out and not (x.is_floating_point() or x.is_complex()):
            x = x.to(torch.float32)
        return self.torch_fn(torch, x)

    def bprop(self, x, out, dout):
        if not _is_float(x):
            return (None,)
        return (self.grad(x, out, dout),)

    @classmethod
    def samples(cls, rng):
        low, high = cls.domain
        yield Sample(rand_float(rng, (3, 4), low, high))
        yield Sample(rand_float(rng, (2, 3, 2), low, high, np.float64), name="float64")
        ints = np.clip(np.round(rng.uniform(low, high, size=(5,))), _math.ceil(low), _math.floor(high))
        if "int" in cls.kinds:  # the primitives that reject integers (Exp) have no integer sample
            yield Sample(ints.astype(np.int32), name="int")


def _unary(name, np_fn, torch_fn, grad, domain=(-1.0, 1.0), float_out=True, kinds=None, doc=""):
    """Build and register one `_Unary` subclass (the table of simple elementwise functions below)."""
    attrs = {"np_fn": staticmethod(np_fn), "torch_fn": staticmethod(torch_fn), "grad": staticmethod(grad),
             "domain": domain, "float_out": float_out, "__doc__": doc or f"{name}()(x): elementwise {name.lower()}.",
             "__module__": __name__, "__qualname__": name}
    if kinds is not None:
        attrs["kinds"] = kinds
    cls = type(name, (_Unary,), attrs)
    return register(cls)


# ---- numpy helpers that numpy lacks -----------------------------------------------------------
def _np_erf_erfc(np, x):
    """(erf(x), erfc(x)) to ~1e-12 relative accuracy, computed in float64.

    |x| < 2.5: the all-positive series erf(z) = 2/sqrt(pi) exp(-z^2) sum_n (2z^2)^n z / (1*3*...*(2n+1));
    |x| >= 2.5: the continued fraction erfc(z) = exp(-z^2)/sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...)))).
    Both branches see clipped inputs so neither overflows.
    """
    x = x.astype(np.float64)
    z = np.abs(x)
    threshold = 2.5
    zs = np.minimum(z, threshold)
    term, total, ratio = zs.copy(), zs.copy(), 2.0 * zs * zs
    for n in range(60):
        term = term * ratio / (2 * n + 3)
        total = total + term
    erf_small = _TWO_OVER_SQRT_PI * np.exp(-zs * zs) * total
    zc = np.maximum(z, threshold)
    cf = zc.copy()
    for k in range(60, 0, -1):
        cf = zc + (k / 2.0) / cf
    erfc_big = np.exp(-zc * zc) / (_math.sqrt(_math.pi) * cf)
    small = z < threshold
    erf_pos = np.where(small, erf_small, 1.0 - erfc_big)
    erfc_pos = np.where(small, 1.0 - erf_small, erfc_big)
    return np.where(x < 0, -erf_pos, erf_pos), np.where(x < 0, 2.0 - erfc_pos, erfc_pos)


def _np_sigmoid(np, x):
    e = np.exp(-np.abs(x))  # never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _rsqrt_of(t):
    return prim("Rsqrt")(t)


def _one_minus_sq(x):
    return prim("Sub")(1, _mul(x, x))


def _zero_grad(x, out, dout):
    return prim("ZerosLike")(dout)


# ---- exponentials, logarithms, powers ---------------------------------------------------------
# floating/complex only: MindSpore 2.10's CPU kernel rejects int and bool inputs with a TypeError
Exp = _unary("Exp", lambda np, x: np.exp(x), lambda torch, x: torch.exp(x),
             lambda x, out, dout: _mul(dout, out), kinds=("float", "complex"))
Log = _unary("Log", lambda np, x: np.log(x), lambda torch, x: torch.log(x),
             lambda x, out, dout: prim("RealDiv")(dout, x), domain=(0.5, 3.0))
Log1p = _unary("Log1p", lambda np, x: np.log1p(x), lambda torch, x: torch.log1p(x),
               lambda x, out, dout: prim("RealDiv")(dout, prim("Add")(x, 1)), domain=(-0.5, 2.0))
Expm1 = _unary("Expm1", lambda np, x: np.expm1(x), lambda torch, x: torch.expm1(x),
               lambda x, out, dout: _mul(dout, prim("Add")(out, 1)))
Sqrt = _unary("Sqrt", lambda np, x: np.sqrt(x), lambda torch, x: torch.sqrt(x),
              lambda x, out, dout: prim("RealDiv")(dout, _mul(out, 2)), domain=(0.5, 3.0))
Rsqrt = _unary("Rsqrt", lambda np, x: 1 / np.sqrt(x), lambda torch, x: torch.rsqrt(x),
               lambda x, out, dout: _mul(dout, _mul(prim("RealDiv")(out, x), -0.5)), domain=(0.5, 3.0))
Reciprocal = _unary("Reciprocal", lambda np, x: 1 / x, lambda torch, x: torch.reciprocal(x),
                    lambda x, out, dout: prim("Neg")(_mul(dout, _mul(out, out))), domain=(0.5, 2.0))
Square = _unary("Square", lambda np, x: np.square(x), lambda torch, x: torch.square(x),
                lambda x, out, dout: _mul(dout, _mul(x, 2)), float_out=False, kinds=("int", "uint", "float", "complex"))

# ---- sign and magnitude -----------------------------------------------------------------------
Abs = _unary("Abs", lambda np, x: np.abs(x), lambda torch, x: torch.abs(x),
             lambda x, out, dout: _mul(dout, prim("Sign")(x)), float_out=False, kinds=("int", "uint", "float"))
Sign = _unary("Sign", lambda np, x: np.sign(x), lambda torch, x: torch.sign(x), _zero_grad,
              float_out=False, kinds=("int", "float"),
              doc="Sign()(x): -1, 0 or 1; the gradient is zero (piecewise constant).")

# ---- trigonometric ----------------------------------------------------------------------------
Sin = _unary("Sin", lambda np, x: np.sin(x), lambda torch, x: torch.sin(x),
             lambda x, out, dout: _mul(dout, prim("Cos")(x)), domain=(-3.0, 3.0))
Cos = _unary("Cos", lambda np, x: np.cos(x), lambda torch, x: torch.cos(x),
             lambda x, out, dout: prim("Neg")(_mul(dout, prim("Sin")(x))), domain=(-3.0, 3.0))
Tan = _unary("Tan", lambda np, x: np.tan(x), lambda torch, x: torch.tan(x),
             lambda x, out, dout: _mul(dout, prim("Add")(_mul(out, out), 1)), domain=(-1.2, 1.2))
Asin = _unary("Asin", lambda np, x: np.arcsin(x), lambda torch, x: torch.asin(x),
              lambda x, out, dout: _mul(dout, _rsqrt_of(_one_minus_sq(x))), domain=(-0.9, 0.9))
Acos = _unary("Acos", lambda np, x: np.arccos(x), lambda torch, x: torch.acos(x),
              lambda x, out, dout: prim("Neg")(_mul(dout, _rsqrt_of(_one_minus_sq(x)))), domain=(-0.9, 0.9))
Atan = _unary("Atan", lambda np, x: np.arctan(x), lambda torch, x: torch.atan(x),
              lambda x, out, dout: prim("RealDiv")(dout, prim("Add")(_mul(x, x), 1)), domain=(-3.0, 3.0))

# ---- hyperbolic -------------------------------------------------------------------------------
Sinh = _unary("Sinh", lambda np, x: np.sinh(x), lambda torch, x: torch.sinh(x),
              lambda x, out, dout: _mul(dout, prim("Cosh")(x)), domain=(-2.0, 2.0))
Cosh = _unary("Cosh", lambda np, x: np.cosh(x), lambda torch, x: torch.cosh(x),
              lambda x, out, dout: _mul(dout, prim("Sinh")(x)), domain=(-2.0, 2.0))
Tanh = _unary("Tanh", lambda np, x: np.tanh(x), lambda torch, x: torch.tanh(x),
              lambda x, out, dout: _mul(dout, prim("Sub")(1, _mul(out, out))), domain=(-2.0, 2.0),
              doc="Tanh()(x): hyperbolic tangent (also the activation).")
Asinh = _unary("Asinh", lambda np, x: np.arcsinh(x), lambda torch, x: torch.asinh(x),
               lambda x, out, dout: _mul(dout, _rsqrt_of(prim("Add")(_mul(x, x), 1))), domain=(-3.0, 3.0))
Acosh = _unary("Acosh", lambda np, x: np.arccosh(x), lambda torch, x: torch.acosh(x),
               lambda x, out, dout: _mul(dout, _rsqrt_of(prim("Sub")(_mul(x, x), 1))), domain=(1.2, 3.0))
Atanh = _unary("Atanh", lambda np, x: np.arctanh(x), lambda torch, x: torch.atanh(x),
               lambda x, out, dout: prim("RealDiv")(dout, _one_minus_sq(x)), domain=(-0.9, 0.9))
Sigmoid = _unary("Sigmoid", _np_sigmoid, lambda torch, x: torch.sigmoid(x),
                 lambda x, out, dout: _mul(dout, _mul(out, prim("Sub")(1, out))), domain=(-3.0, 3.0),
                 doc="Sigmoid()(x): 1 / (1 + exp(-x)).")
Tanh.channels_last = Sigmoid.channels_last = "keeps"  # layout_channels_last: a channels-last input stays so


# ---- error function ---------------------------------------------------------------------------
def _erf_grad(x, out, dout):
    return _mul(dout, _mul(prim("Exp")(prim("Neg")(_mul(x, x))), _TWO_OVER_SQRT_PI))


Erf = _unary("Erf", lambda np, x: _np_erf_erfc(np, x)[0], lambda torch, x: torch.erf(x), _erf_grad,
             domain=(-3.0, 3.0), kinds=("int", "uint", "float"))
Erfc = _unary("Erfc", lambda np, x: _np_erf_erfc(np, x)[1], lambda torch, x: torch.erfc(x),
              lambda x, out, dout: prim("Neg")(_erf_grad(x, out, dout)), domain=(-3.0, 3.0), kinds=("int", "uint", "float"))


# ---- rounding: piecewise constant, so the gradient is zero (as in MindSpore) ------------------
class _Rounding(_Unary):
    float_out = False
    kinds = ("int", "uint", "float")
    domain = (-3.0, 3.0)

    def numpy(self, np, x):
        if x.dtype.kind in "iub":
            return x.copy()
        return np.asarray(self.np_fn(np, x)).astype(x.dtype, copy=False)

    def torch(self, torch, x):
        if not x.is_floating_point():
            return x.clone()
        return self.torch_fn(torch, x)

    def grad(self, x, out, dout):
        return _zero_grad(x, out, dout)


@register
class Floor(_Rounding):
    """Floor()(x): largest integer <= x; zero gradient."""
    np_fn = staticmethod(lambda np, x: np.floor(x))
    torch_fn = staticmethod(lambda torch, x: torch.floor(x))


@register
class Ceil(_Rounding):
    """Ceil()(x): smallest integer >= x; zero gradient."""
    np_fn = staticmethod(lambda np, x: np.ceil(x))
    torch_fn = staticmethod(lambda torch, x: torch.ceil(x))


@register
class Round(_Rounding):
    """Round()(x): round half to even; zero gradient."""
    np_fn = staticmethod(lambda np, x: np.round(x))
    torch_fn = staticmethod(lambda torch, x: torch.round(x))

    @classmethod
    def samples(cls, rng):
        yield from super().samples(rng)
        yield Sample(np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51], np.float32), name="halves", grad=())


@register
class Trunc(_Rounding):
    """Trunc()(x): round toward zero; zero gradient."""
    np_fn = staticmethod(lambda np, x: np.trunc(x))
    torch_fn = staticmethod(lambda torch, x: torch.trunc(x))


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_ONNX, Log1p, Expm1, Erfc, Trunc, formats=("ONNX",))
not_exportable(NO_MINDIR, Round, formats=("MINDIR",))
not_exportable(NO_ONNX, Round, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(Abs, Exp, Expm1, Log, Log1p, Sqrt, Rsqrt, Square, Reciprocal, Sin, Cos, Tan, Tanh, Sinh, Cosh, Asin, Acos, Atan,
       Asinh, Acosh, Atanh, Sigmoid, Erf, Erfc, Floor, Ceil, Trunc, Sign)

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(Sigmoid, _onnx.unary("Sigmoid"))
_onnx.declare(Tanh, _onnx.unary("Tanh"))
_onnx.declare(Exp, _onnx.unary("Exp"))
_onnx.declare(Log, _onnx.unary("Log"))
_onnx.declare(Sqrt, _onnx.unary("Sqrt"))
_onnx.declare(Erf, _onnx.unary("Erf"))
_onnx.declare(Reciprocal, _onnx.unary("Reciprocal"))
_onnx.declare(Sin, _onnx.unary("Sin"))
_onnx.declare(Cos, _onnx.unary("Cos"))
_onnx.declare(Tan, _onnx.unary("Tan"))
_onnx.declare(Asin, _onnx.unary("Asin"))
_onnx.declare(Acos, _onnx.unary("Acos"))
_onnx.declare(Atan, _onnx.unary("Atan"))
_onnx.declare(Sinh, _onnx.unary("Sinh"))
_onnx.declare(Cosh, _onnx.unary("Cosh"))
_onnx.declare(Asinh, _onnx.unary("Asinh"))
_onnx.declare(Acosh, _onnx.unary("Acosh"))
_onnx.declare(Atanh, _onnx.unary("Atanh"))
_onnx.declare(Abs, _onnx.unary("Abs"))
_onnx.declare(Sign, _onnx.unary("Sign"))
_onnx.declare(Rsqrt, _onnx.rsqrt)
_onnx.declare(Square, _onnx.square)
_onnx.declare(Floor, _onnx.rounding("Floor"))
_onnx.declare(Ceil, _onnx.rounding("Ceil"))


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


# every `grad` above is made of primitive calls only (core/backward_replay.py); _Unary's subclasses in other
# modules (defined later) set the flag themselves if their rule qualifies
for _cls in _all_subclasses(_Unary):
    _cls.bprop_replayable = True
