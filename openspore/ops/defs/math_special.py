"""Primitives: special functions — Lgamma, Digamma, Polygamma, Zeta (Hurwitz), Erfinv and the Bessel functions
I0, I0e, I1, I1e, J0, J1.

The torch kernels are torch's; the numpy kernels (numpy has none of these) are written here in float64:
series for small arguments, asymptotic expansions for large ones, recurrences to move between the two, and
Newton steps on our erf for Erfinv. They agree with torch to ~1e-7 relative in float32.
"""
import math as _math

import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import NO_MINDIR, NO_ONNX, not_exportable
from ._util import broadcast_shape, check_dtype, check_tensor, float_result, prim, rand_float
from .math_unary import _np_erf_erfc, _unary

_SQRT_PI = _math.sqrt(_math.pi)
# B_2k / (2k) for the digamma series, and B_2k / (2k)! for Euler-Maclaurin (Bernoulli numbers B2..B14)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _mul(a, b):
    return prim("Mul")(a, b)


# ---- numpy references ---------------------------------------------------------------------------------------------
def _np_lgamma(np, x):
    def one(v):
        try:
            return _math.lgamma(v)
        except ValueError:  # a pole (0, -1, -2, ...): log|Γ| is +inf there
            return _math.inf
    return np.frompyfunc(one, 1, 1)(x.astype(np.float64)).astype(np.float64)


def _np_digamma(np, x):
    x = x.astype(np.float64)
    reflect = x < 0.5
    y = np.where(reflect, 1.0 - x, x)          # ψ(x) = ψ(1 − x) − π / tan(πx)
    acc = np.zeros_like(y)
    for _ in range(12):                          # ψ(y) = ψ(y + 1) − 1/y until y ≥ 12
        small = y < 12
        acc = acc - np.where(small, 1.0 / np.where(small, y, 1.0), 0.0)
        y = np.where(small, y + 1.0, y)
    inv2 = 1.0 / (y * y)
    series = np.zeros_like(y)
    for k, b in reversed(list(enumerate(_BERNOULLI[:6], 1))):
        series = (series + b / (2 * k)) * inv2
    out = np.log(y) - 0.5 / y - series + acc
    with np.errstate(all="ignore"):
        out = np.where(reflect, out - _math.pi / np.tan(_math.pi * x), out)
    return np.where((x <= 0) & (x == np.floor(x)), np.nan, out)


def _np_hurwitz_zeta(np, s, q):
    """ζ(s, q) = Σ_k (q + k)^−s by Euler–Maclaurin: the first N terms summed, the tail integrated with Bernoulli
    corrections (N large enough that q + N ≥ 12). Valid for s > 1; for integer s, any q off the poles."""
    s, q = np.broadcast_arrays(s.astype(np.float64), q.astype(np.float64))
    n_terms = int(max(12, _math.ceil(12 - float(np.nanmin(q))))) if q.size else 12
    with np.errstate(all="ignore"):
        total = np.zeros(s.shape)
        for k in range(n_terms):
            total = total + (q + k) ** (-s)
        a = q + n_terms
        total = total + a ** (1 - s) / (s - 1) + 0.5 * a ** (-s)
        rising, power, fact = s.copy(), a ** (-s - 1), 2.0
        for j, b in enumerate(_BERNOULLI, 1):
            total = total + b / fact * rising * power
            rising = rising * (s + 2 * j - 1) * (s + 2 * j)
            power = power / (a * a)
            fact = fact * (2 * j + 1) * (2 * j + 2)
    return total


def _np_polygamma(np, n, x):
    n, x = np.broadcast_arrays(n.astype(np.int64), x.astype(np.float64))
    out = np.empty(x.shape)
    for order in np.unique(n):
        sel = n == order
        if order == 0:
            out[sel] = _np_digamma(np, x[sel])
        else:  # ψ⁽ⁿ⁾(x) = (−1)ⁿ⁺¹ n! ζ(n + 1, x)
            sign = -1.0 if order % 2 == 0 else 1.0
            out[sel] = sign * _math.factorial(int(order)) * _np_hurwitz_zeta(np, np.full(sel.sum(), order + 1.0),
                                                                            x[sel])
    return out


def _np_erfinv(np, y):
    y = y.astype(np.float64)
    v = np.abs(y)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - v) * (1.0 + v))      # Winitzki's closed form as the starting point
        a = 0.147
        t = 2.0 / (_math.pi * a) + w / 2.0
        x = np.sqrt(np.sqrt(t * t + w / a) - t)
        for _ in range(6):  # Newton on erf(x) − v; in the tail on log erfc(x) − log(1 − v), nearly linear there
            erf, erfc = _np_erf_erfc(np, x)
            slope = 2.0 / _SQRT_PI * np.exp(-x * x)
            step = np.where(v > 0.5, (np.log(1.0 - v) - np.log(erfc)) * erfc / slope, (erf - v) / slope)
            x = np.where(np.isfinite(step), x - step, x)
    x = np.where(v == 1.0, np.inf, x)
    return np.where(v > 1.0, np.nan, np.copysign(x, y))


def _asymptotic_terms(nu, z, count):
    """a_k(ν) / z^k of Hankel's expansions: Π_{i≤k} (4ν² − (2i − 1)²) / (k! 8^k z^k)."""
    terms, term = [np.ones_like(z)], np.ones_like(z)
    for k in range(1, count):
        term = term * (4 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0 * z)
        terms.append(term)
    return terms


def _np_bessel_i_scaled(np, nu, x):
    """e^−|x| I_ν(x) for ν = 0, 1: the power series below |x| = 15, the large-argument expansion above."""
    x = x.astype(np.float64)
    z = np.abs(x)
    zs = np.minimum(z, 15.0)
    term = (zs / 2.0) ** nu / _math.factorial(nu)
    total = term.copy()
    for k in range(1, 80):
        term = term * (zs * zs / 4.0) / (k * (k + nu))
        total = total + term
    small = total * np.exp(-zs)
    zl = np.maximum(z, 15.0)
    big = sum((-1) ** k * t for k, t in enumerate(_asymptotic_terms(nu, zl, 18))) / np.sqrt(2 * _math.pi * zl)
    out = np.where(z < 15.0, small, big)
    return np.where(x < 0, -out, out) if nu == 1 else out


def _np_bessel_j(np, nu, x):
    """J_ν(x) for ν = 0, 1: the power series below |x| = 12, Hankel's expansion above."""
    x = x.astype(np.float64)
    z = np.abs(x)
    zs = np.minimum(z, 12.0)
    term = (zs / 2.0) ** nu / _math.factorial(nu)
    total = term.copy()
    for k in range(1, 80):
        term = -term * (zs * zs / 4.0) / (k * (k + nu))
        total = total + term
    zl = np.maximum(z, 12.0)
    terms = _asymptotic_terms(nu, zl, 20)
    p = sum((-1) ** (k // 2) * t for k, t in enumerate(terms) if k % 2 == 0)
    q = sum((-1) ** (k // 2) * t for k, t in enumerate(terms) if k % 2 == 1)
    chi = zl - (nu / 2.0 + 0.25) * _math.pi
    big = np.sqrt(2.0 / (_math.pi * zl)) * (p * np.cos(chi) - q * np.sin(chi))
    out = np.where(z < 12.0, total, big)
    return np.where(x < 0, -out, out) if nu == 1 else out


_EULER_GAMMA = 0.5772156649015329


def _series_log_terms(np, z, nu, count=60):
    """Σ_k c_k (z/2)^(2k+nu) / (k! (k+nu)!) with c_k = ψ(k+1) + ψ(k+nu+1) (ψ at integers: harmonic sums)."""
    half = z / 2.0
    term = half ** nu / _math.factorial(nu)
    total = np.zeros_like(z)
    psi_a, psi_b = -_EULER_GAMMA, -_EULER_GAMMA + sum(1.0 / i for i in range(1, nu + 1))
    for k in range(count):
        total = total + (psi_a + psi_b) * term
        term = term * half * half / ((k + 1) * (k + 1 + nu))
        psi_a, psi_b = psi_a + 1.0 / (k + 1), psi_b + 1.0 / (k + 1 + nu)
    return total


def _np_bessel_k_scaled(np, nu, x):
    """e^x K_ν(x) for ν = 0, 1 and x > 0: the log series below x = 2 (A&S 9.6.13), above it the integral
    e^x K_ν(x) = ∫₀^∞ exp(−x (cosh t − 1)) cosh(νt) dt by the trapezoid rule, which converges geometrically for
    this smooth, fast-decaying integrand (the series would lose digits to cancellation there)."""
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        zs = np.clip(x, 1e-300, 2.0)
        i_nu = _np_bessel_i_scaled(np, nu, zs) * np.exp(zs)
        if nu == 0:
            small = -np.log(zs / 2.0) * i_nu + 0.5 * _series_log_terms(np, zs, 0)
        else:
            small = 1.0 / zs + np.log(zs / 2.0) * i_nu - 0.5 * _series_log_terms(np, zs, 1)
        small = small * np.exp(zs)
        zl = np.maximum(x, 2.0)
        t = np.arange(0.0, 7.0, 0.02)                     # exp(−2 (cosh 7 − 1)) underflows: the tail is nothing
        weights = np.full(t.shape, 0.02)
        weights[0] = 0.01
        integrand = np.exp(-zl[..., None] * (np.cosh(t) - 1.0)) * np.cosh(nu * t)
        big = (integrand * weights).sum(-1)
        out = np.where(x < 2.0, small, big)
    out = np.where(x == 0, np.inf, out)
    return np.where(x < 0, np.nan, out)


def _np_bessel_y(np, nu, x):
    """Y_ν(x) for ν = 0, 1 and x > 0: the log series below x = 12, Hankel's expansion above."""
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        zs = np.clip(x, 1e-300, 12.0)
        j = _np_bessel_j(np, nu, zs)
        half = zs / 2.0
        if nu == 0:
            term, total, harmonic = np.ones_like(zs), np.zeros_like(zs), 0.0
            for k in range(1, 70):
                term = -term * half * half / (k * k)
                harmonic += 1.0 / k
                total = total - harmonic * term
            small = 2.0 / _math.pi * ((np.log(half) + _EULER_GAMMA) * j + total)
        else:
            alternating = _alternating_log_terms(np, zs)
            small = -2.0 / (_math.pi * zs) + 2.0 / _math.pi * np.log(half) * j - alternating / _math.pi
        zl = np.maximum(x, 12.0)
        terms = _asymptotic_terms(nu, zl, 20)
        p = sum((-1) ** (k // 2) * t for k, t in enumerate(terms) if k % 2 == 0)
        q = sum((-1) ** (k // 2) * t for k, t in enumerate(terms) if k % 2 == 1)
        chi = zl - (nu / 2.0 + 0.25) * _math.pi
        big = np.sqrt(2.0 / (_math.pi * zl)) * (p * np.sin(chi) + q * np.cos(chi))
        out = np.where(x < 12.0, small, big)
    out = np.where(x == 0, -np.inf, out)
    return np.where(x < 0, np.nan, out)


def _alternating_log_terms(np, z, count=70):
    """Σ_k (−1)^k (ψ(k+1) + ψ(k+2)) (z/2)^(2k+1) / (k! (k+1)!)."""
    half = z / 2.0
    term, total = half.copy(), np.zeros_like(z)
    psi_a, psi_b = -_EULER_GAMMA, 1.0 - _EULER_GAMMA
    for k in range(count):
        total = total + (psi_a + psi_b) * term
        term = -term * half * half / ((k + 1) * (k + 2))
        psi_a, psi_b = psi_a + 1.0 / (k + 1), psi_b + 1.0 / (k + 2)
    return total


def _np_gammainc(np, a, x):
    """(P(a, x), Q(a, x)), the regularized incomplete gamma functions (a > 0, x ≥ 0): the power series where
    x < a + 1, the continued fraction for Q (modified Lentz) elsewhere, each in float64."""
    a, x = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
    lgam = _np_lgamma(np, a)
    with np.errstate(all="ignore"):
        log_prefix = a * np.log(x) - x - lgam
        # series: P = e^{−x} x^a / Γ(a + 1) · Σ_n x^n / ((a + 1)…(a + n))
        term = 1.0 / a
        total = term.copy()
        for n in range(1, 300):
            term = term * x / (a + n)
            total = total + term
        p_series = np.exp(log_prefix) * total
        # continued fraction for Q
        tiny = 1e-300
        b = x + 1.0 - a
        c = np.full_like(x, 1.0 / tiny)
        d = 1.0 / np.where(b == 0, tiny, b)
        h = d.copy()
        for i in range(1, 300):
            an = -i * (i - a)
            b = b + 2.0
            d = an * d + b
            d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / np.where(np.abs(c) < tiny, tiny, c)
            h = h * d * c
        q_cf = np.exp(log_prefix) * h
    use_series = x < a + 1.0
    p = np.where(use_series, p_series, 1.0 - q_cf)
    q = np.where(use_series, 1.0 - p_series, q_cf)
    p = np.where(x == 0, 0.0, p)
    q = np.where(x == 0, 1.0, q)
    bad = (a <= 0) | (x < 0)
    return np.where(bad, np.nan, p), np.where(bad, np.nan, q)


# ---- gradients ----------------------------------------------------------------------------------------------------
def _over_x_or_half(value, x):
    """value / x, with its limit 1/2 at x = 0 (I1(x)/x and J1(x)/x both tend to 1/2)."""
    zero = prim("Equal")(x, prim("ZerosLike")(x))
    safe = prim("Select")(zero, prim("OnesLike")(x), x)
    return prim("Select")(zero, prim("Fill")(x.dtype, tuple(x.shape), 0.5), prim("Div")(value, safe))


def _lgamma_grad(x, out, dout):
    return _mul(dout, Digamma()(x))


def _digamma_grad(x, out, dout):
    return _mul(dout, Polygamma()(prim("Fill")(x.dtype, (), 1), x))


def _erfinv_grad(x, out, dout):
    return _mul(dout, _mul(prim("Exp")(_mul(out, out)), _SQRT_PI / 2.0))


def _half_via_float32(fn):
    """torch's special Bessel kernels (J, Y, K) have no float16/bfloat16 CPU version; MindSpore's accept float16, so
    these compute in float32 and round back."""
    def kernel(torch, x):
        if x.dtype in (torch.float16, torch.bfloat16):
            return fn(torch, x.to(torch.float32)).to(x.dtype)
        return fn(torch, x)
    return kernel


# ---- unary records ------------------------------------------------------------------------------------------------
_KINDS = ("int", "uint", "float")
Lgamma = _unary("Lgamma", _np_lgamma, lambda torch, x: torch.lgamma(x), _lgamma_grad, domain=(0.2, 4.0),
                kinds=_KINDS, doc="Lgamma()(x): log|Γ(x)|.")
Digamma = _unary("Digamma", _np_digamma, lambda torch, x: torch.digamma(x), _digamma_grad, domain=(0.3, 4.0),
                 kinds=_KINDS, doc="Digamma()(x): ψ(x) = d/dx log Γ(x).")
Erfinv = _unary("Erfinv", _np_erfinv, lambda torch, x: torch.erfinv(x), _erfinv_grad, domain=(-0.9, 0.9),
                kinds=_KINDS, doc="Erfinv()(x): the inverse of erf on (−1, 1).")
BesselI0 = _unary("BesselI0", lambda np, x: _np_bessel_i_scaled(np, 0, x) * np.exp(np.abs(x.astype(np.float64))),
                  lambda torch, x: torch.special.i0(x), lambda x, out, dout: _mul(dout, BesselI1()(x)),
                  domain=(-3.0, 3.0), kinds=_KINDS, doc="BesselI0()(x): the modified Bessel function I₀.")
BesselI1 = _unary("BesselI1", lambda np, x: _np_bessel_i_scaled(np, 1, x) * np.exp(np.abs(x.astype(np.float64))),
                  lambda torch, x: torch.special.i1(x),
                  lambda x, out, dout: _mul(dout, prim("Sub")(BesselI0()(x), _over_x_or_half(out, x))),
                  domain=(-3.0, 3.0), kinds=_KINDS, doc="BesselI1()(x): the modified Bessel function I₁.")
BesselI0e = _unary("BesselI0e", lambda np, x: _np_bessel_i_scaled(np, 0, x), lambda torch, x: torch.special.i0e(x),
                   lambda x, out, dout: _mul(dout, prim("Sub")(BesselI1e()(x), _mul(prim("Sign")(x), out))),
                   domain=(-3.0, 3.0), kinds=_KINDS, doc="BesselI0e()(x): e^−|x| I₀(x).")
BesselI1e = _unary("BesselI1e", lambda np, x: _np_bessel_i_scaled(np, 1, x), lambda torch, x: torch.special.i1e(x),
                   lambda x, out, dout: _mul(dout, prim("Sub")(prim("Sub")(BesselI0e()(x), _over_x_or_half(out, x)),
                                                               _mul(prim("Sign")(x), out))),
                   domain=(-3.0, 3.0), kinds=_KINDS, doc="BesselI1e()(x): e^−|x| I₁(x).")
BesselJ0 = _unary("BesselJ0", lambda np, x: _np_bessel_j(np, 0, x),
                  _half_via_float32(lambda torch, x: torch.special.bessel_j0(x)),
                  lambda x, out, dout: prim("Neg")(_mul(dout, BesselJ1()(x))), domain=(-4.0, 4.0), kinds=_KINDS,
                  doc="BesselJ0()(x): the Bessel function of the first kind J₀.")
BesselJ1 = _unary("BesselJ1", lambda np, x: _np_bessel_j(np, 1, x),
                  _half_via_float32(lambda torch, x: torch.special.bessel_j1(x)),
                  lambda x, out, dout: _mul(dout, prim("Sub")(BesselJ0()(x), _over_x_or_half(out, x))),
                  domain=(-4.0, 4.0), kinds=_KINDS, doc="BesselJ1()(x): the Bessel function of the first kind J₁.")

BesselK0e = _unary("BesselK0e", lambda np, x: _np_bessel_k_scaled(np, 0, x),
                   _half_via_float32(lambda torch, x: torch.special.scaled_modified_bessel_k0(x)),
                   lambda x, out, dout: _mul(dout, prim("Sub")(out, BesselK1e()(x))), domain=(0.3, 4.0),
                   kinds=_KINDS, doc="BesselK0e()(x): e^x K₀(x), x > 0.")
BesselK1e = _unary("BesselK1e", lambda np, x: _np_bessel_k_scaled(np, 1, x),
                   _half_via_float32(lambda torch, x: torch.special.scaled_modified_bessel_k1(x)),
                   lambda x, out, dout: _mul(dout, prim("Sub")(prim("Sub")(out, prim("Div")(out, x)), BesselK0e()(x))),
                   domain=(0.3, 4.0), kinds=_KINDS, doc="BesselK1e()(x): e^x K₁(x), x > 0.")
BesselK0 = _unary("BesselK0", lambda np, x: _np_bessel_k_scaled(np, 0, x) * np.exp(-x.astype(np.float64)),
                  _half_via_float32(lambda torch, x: torch.special.modified_bessel_k0(x)),
                  lambda x, out, dout: prim("Neg")(_mul(dout, BesselK1()(x))), domain=(0.3, 4.0), kinds=_KINDS,
                  doc="BesselK0()(x): the modified Bessel function of the second kind K₀, x > 0.")
BesselK1 = _unary("BesselK1", lambda np, x: _np_bessel_k_scaled(np, 1, x) * np.exp(-x.astype(np.float64)),
                  _half_via_float32(lambda torch, x: torch.special.modified_bessel_k1(x)),
                  lambda x, out, dout: prim("Neg")(_mul(dout, prim("Add")(BesselK0()(x), prim("Div")(out, x)))),
                  domain=(0.3, 4.0), kinds=_KINDS,
                  doc="BesselK1()(x): the modified Bessel function of the second kind K₁, x > 0.")
BesselY0 = _unary("BesselY0", lambda np, x: _np_bessel_y(np, 0, x),
                  _half_via_float32(lambda torch, x: torch.special.bessel_y0(x)),
                  lambda x, out, dout: prim("Neg")(_mul(dout, BesselY1()(x))), domain=(0.3, 6.0), kinds=_KINDS,
                  doc="BesselY0()(x): the Bessel function of the second kind Y₀, x > 0.")
BesselY1 = _unary("BesselY1", lambda np, x: _np_bessel_y(np, 1, x),
                  _half_via_float32(lambda torch, x: torch.special.bessel_y1(x)),
                  lambda x, out, dout: _mul(dout, prim("Sub")(BesselY0()(x), prim("Div")(out, x))),
                  domain=(0.3, 6.0), kinds=_KINDS, doc="BesselY1()(x): the Bessel function of the second kind Y₁, x > 0.")


def _large_argument_samples(cls, signs):
    """Bessel records also sample |x| in the large-argument branch of the numpy kernels (K and Y: x > 0 only)."""
    base = cls.samples.__func__

    def samples(inner_cls, rng):
        yield from base(inner_cls, rng)
        yield Sample(rand_float(rng, (6,), 14.0, 30.0, np.float64) * np.array(signs), name="large", rtol=1e-6,
                     atol=1e-9)
    cls.samples = classmethod(samples)


for _cls in (BesselI0e, BesselI1e, BesselJ0, BesselJ1):
    _large_argument_samples(_cls, [1, -1, 1, -1, 1, -1])
for _cls in (BesselK0e, BesselK1e, BesselY0, BesselY1):
    _large_argument_samples(_cls, [1] * 6)


# ---- binary records -----------------------------------------------------------------------------------------------
class _Binary(Primitive):
    def infer(self, a, b):
        for name, t in zip(self.input_names, (a, b)):
            check_tensor(self.name, name, t)
            check_dtype(self.name, name, t, _KINDS)
        shape = broadcast_shape(self.name, a, b)
        return AbstractTensor(shape, float_result(b.dtype))


@register
class Polygamma(_Binary):
    """Polygamma()(a, x): ψ⁽ᵃ⁾(x), the a-th derivative of the digamma function (a ≥ 0, an integer tensor or a
    float tensor holding integers); differentiable in x."""
    input_names = ("a", "x")

    def numpy(self, np, a, x):
        if np.any(a < 0) or np.any(a != np.floor(a)):
            raise ValueError(f"For '{self.name}', 'a' must hold non-negative integers, but got {a.tolist()}.")
        out_dtype = x.dtype if x.dtype.kind == "f" else np.float32
        return _np_polygamma(np, a, x).astype(out_dtype)

    def torch(self, torch, a, x):
        x = x if x.is_floating_point() else x.to(torch.float32)
        orders = torch.broadcast_tensors(a, x)[0].to(torch.int64)
        out = torch.empty(torch.broadcast_shapes(a.shape, x.shape), dtype=x.dtype, device=x.device)
        xb = x.expand(out.shape)
        for order in torch.unique(orders).tolist():
            if order < 0:
                raise ValueError(f"For '{self.name}', 'a' must hold non-negative integers, but got {order}.")
            sel = orders == order
            out[sel] = torch.polygamma(int(order), xb[sel])
        return out

    def bprop(self, a, x, out, dout):
        return None, _mul(dout, Polygamma()(prim("Add")(a, prim("OnesLike")(a)), x))

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array(1, np.int64), rand_float(rng, (3, 4), 0.5, 4.0), grad=(1,), rtol=1e-5)
        yield Sample(np.array([0, 1, 2, 3], np.int64), rand_float(rng, (2, 4), 0.5, 4.0, np.float64), grad=(1,),
                     name="orders64")


@register
class Zeta(_Binary):
    """Zeta()(x, q): the Hurwitz zeta function ζ(x, q) = Σₖ (q + k)^−x (x > 1, q > 0); differentiable in q
    (the derivative in x, Σ −log(q + k)(q + k)^−x, is not provided, as in torch)."""
    input_names = ("x", "q")

    def numpy(self, np, x, q):
        out_dtype = q.dtype if q.dtype.kind == "f" else np.float32
        return _np_hurwitz_zeta(np, x, q).astype(out_dtype)

    def torch(self, torch, x, q):
        q = q if q.is_floating_point() else q.to(torch.float32)
        return torch.special.zeta(x.to(q.dtype), q)

    def bprop(self, x, q, out, dout):
        # ∂ζ(x, q)/∂q = −x ζ(x + 1, q)
        return None, prim("Neg")(_mul(dout, _mul(x, Zeta()(prim("Add")(x, prim("OnesLike")(x)), q))))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4), 1.5, 4.0), rand_float(rng, (3, 4), 0.5, 3.0), grad=(1,), rtol=1e-5)
        yield Sample(rand_float(rng, (4,), 2.0, 5.0, np.float64), rand_float(rng, (2, 4), 0.5, 3.0, np.float64),
                     grad=(1,), name="broadcast64")


class _IncompleteGamma(_Binary):
    """Shared by Igamma / Igammac: inputs (a, x), differentiable in x (d/dx P(a, x) = e^−x x^(a−1) / Γ(a); the
    derivative in a is not provided)."""
    input_names = ("a", "x")
    upper = False

    def numpy(self, np, a, x):
        out_dtype = x.dtype if x.dtype.kind == "f" else np.float32
        return _np_gammainc(np, a, x)[1 if self.upper else 0].astype(out_dtype)

    def torch(self, torch, a, x):
        x = x if x.is_floating_point() else x.to(torch.float32)
        a = a.to(x.dtype)
        return torch.special.gammaincc(a, x) if self.upper else torch.special.gammainc(a, x)

    def bprop(self, a, x, out, dout):
        # e^{−x} x^{a−1} / Γ(a) = exp((a − 1) log x − x − lgamma(a))
        log_density = prim("Sub")(prim("Sub")(_mul(prim("Sub")(a, prim("OnesLike")(a)), prim("Log")(x)), x),
                                  Lgamma()(a))
        density = _mul(dout, prim("Exp")(log_density))
        return None, (prim("Neg")(density) if self.upper else density)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4), 0.5, 4.0), rand_float(rng, (3, 4), 0.1, 6.0), grad=(1,), rtol=1e-5)
        yield Sample(rand_float(rng, (4,), 0.5, 3.0, np.float64), rand_float(rng, (2, 4), 0.1, 8.0, np.float64),
                     grad=(1,), name="broadcast64")


@register
class Igamma(_IncompleteGamma):
    """Igamma()(a, x): the regularized lower incomplete gamma function P(a, x)."""


@register
class Igammac(_IncompleteGamma):
    """Igammac()(a, x): the regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x)."""
    upper = True


_ALL = (Igamma, Igammac, Lgamma, Digamma, Erfinv, BesselI0, BesselI1, BesselI0e, BesselI1e, BesselJ0, BesselJ1, BesselK0, BesselK1,
        BesselK0e, BesselK1e, BesselY0, BesselY1, Polygamma, Zeta)
not_exportable(NO_MINDIR, *_ALL, formats=("MINDIR",))
not_exportable(NO_ONNX, *_ALL, formats=("ONNX",))
