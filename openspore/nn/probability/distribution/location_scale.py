"""Logistic, Gumbel, Cauchy, Laplace and StudentT: distributions of `loc + scale * Z` for a fixed law of Z.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.distribution as msd
>>> x = ms.Tensor(np.array([1.0], np.float32))
>>> round(float(msd.Cauchy(1.0, 2.0).cdf(x).asnumpy()[0]), 4), round(float(msd.Logistic(1.0, 2.0).cdf(x).asnumpy()[0]), 4)
(0.5, 0.5)
"""
import math

from .... import ops
from ....common import dtype as mstype
from .._checks import check_float_dtype, check_greater_zero
from .distribution import Distribution
from .normal import _LocScale, _NamedLocScale

__all__ = ["Logistic", "Gumbel", "Cauchy", "Laplace", "StudentT"]

_EULER = 0.5772156649015329


class _Standardised(_NamedLocScale):
    """Distributions of `loc + scale * Z`: their z-score, mean and mode."""

    def _z(self, value, loc, scale):
        value, loc, scale = self._prep(value, loc, scale)
        return (value - loc) / scale, scale

    def _mean(self, loc=None, scale=None):
        return self._check_param_type(loc, scale)[0]

    def _mode(self, loc=None, scale=None):
        return self._check_param_type(loc, scale)[0]

    def _repr_name(self, name):
        return {"loc": "location", "scale": "scale"}[name]


class Logistic(_Standardised):
    """Logistic(loc, scale): cdf sigmoid((x - loc) / scale)."""

    _dist_type = "Logistic"

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Logistic"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -z - 2.0 * ops.softplus(-z) - ops.log(scale)

    def _cdf(self, value, loc=None, scale=None):
        return ops.sigmoid(self._z(value, loc, scale)[0])

    def _log_cdf(self, value, loc=None, scale=None):
        return -ops.softplus(-self._z(value, loc, scale)[0])

    def _survival_function(self, value, loc=None, scale=None):
        return ops.sigmoid(-self._z(value, loc, scale)[0])

    def _log_survival(self, value, loc=None, scale=None):
        return -ops.softplus(self._z(value, loc, scale)[0])

    def _var(self, loc=None, scale=None):
        _, scale = self._check_param_type(loc, scale)
        return scale * scale * (math.pi ** 2 / 3.0)

    def _entropy(self, loc=None, scale=None):
        _, scale = self._check_param_type(loc, scale)
        return ops.log(scale) + 2.0

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        u = self._standard_uniform(self._noise_shape(shape, loc), tiny=1e-7)
        return loc + scale * (ops.log(u) - ops.log1p(-u))


class Gumbel(_Standardised):
    """Gumbel(loc, scale): cdf exp(-exp(-(x - loc) / scale)); both parameters are required."""

    _dist_type = "Gumbel"

    def __init__(self, loc, scale, seed=0, dtype=mstype.float32, name="Gumbel"):
        super().__init__(loc, scale, seed, dtype, name)

    def _repr_name(self, name):
        return name

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -(z + ops.exp(-z)) - ops.log(scale)

    def _cdf(self, value, loc=None, scale=None):
        return ops.exp(-ops.exp(-self._z(value, loc, scale)[0]))

    def _log_cdf(self, value, loc=None, scale=None):
        return -ops.exp(-self._z(value, loc, scale)[0])

    def _survival_function(self, value, loc=None, scale=None):
        return -ops.expm1(-ops.exp(-self._z(value, loc, scale)[0]))

    def _mean(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return loc + scale * _EULER

    def _var(self, loc=None, scale=None):
        _, scale = self._check_param_type(loc, scale)
        return scale * scale * (math.pi ** 2 / 6.0)

    def _entropy(self, loc=None, scale=None):
        _, scale = self._check_param_type(loc, scale)
        return ops.log(scale) + (_EULER + 1.0)

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        self._check_dist(dist)
        loc_b, scale_b = self._other(loc_b, scale_b)
        loc_a, scale_a = self._check_param_type(loc, scale)
        ratio = scale_a / scale_b
        return (ops.log(scale_b) - ops.log(scale_a) + _EULER * (ratio - 1.0)
                + ops.exp((loc_b - loc_a) / scale_b + ops.lgamma(ratio + 1.0)) - 1.0 + (loc_a - loc_b) / scale_b)

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        u = self._standard_uniform(self._noise_shape(shape, loc), tiny=1e-7)
        return loc - scale * ops.log(-ops.log(u))


class Cauchy(_Standardised):
    """Cauchy(loc, scale): mean, variance and standard deviation are undefined (ValueError)."""

    _dist_type = "Cauchy"

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Cauchy"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -math.log(math.pi) - ops.log(scale) - ops.log1p(z * z)

    def _cdf(self, value, loc=None, scale=None):
        return 0.5 + ops.atan(self._z(value, loc, scale)[0]) / math.pi

    def _survival_function(self, value, loc=None, scale=None):
        return 0.5 - ops.atan(self._z(value, loc, scale)[0]) / math.pi

    def mean(self, *args, **kwargs):
        raise ValueError("mean is undefined for Cauchy distribution.")

    def var(self, *args, **kwargs):
        raise ValueError("variance is undefined for Cauchy distribution.")

    def sd(self, *args, **kwargs):
        raise ValueError("standard deviation is undefined for Cauchy distribution.")

    def _entropy(self, loc=None, scale=None):
        _, scale = self._check_param_type(loc, scale)
        return ops.log(scale) + math.log(4.0 * math.pi)

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        self._check_dist(dist)
        loc_b, scale_b = self._other(loc_b, scale_b)
        loc_a, scale_a = self._check_param_type(loc, scale)
        total, diff = scale_a + scale_b, loc_a - loc_b
        return ops.log(total * total + diff * diff) - ops.log(4.0 * scale_a * scale_b)

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        u = self._standard_uniform(self._noise_shape(shape, loc), tiny=1e-7)
        return loc + scale * ops.tan(math.pi * (u - 0.5))


class Laplace(_LocScale):
    """Laplace(mean, sd) with sd the scale b: MindSpore 2.10 gives it prob/log_prob only."""

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Laplace"):
        super().__init__(mean, sd, seed, dtype, name)

    def extend_repr(self):
        return ""

    def _log_prob(self, value, mean=None, sd=None):
        value, mean, sd = self._prep(value, mean, sd)
        return -ops.abs(value - mean) / sd - ops.log(2.0 * sd)


class StudentT(Distribution):
    """StudentT(df, mean, sd): Student's t with `df` degrees of freedom; prob/log_prob only, as in MindSpore 2.10."""

    def __init__(self, df=None, mean=None, sd=None, seed=None, dtype=mstype.float32, name="StudentT"):
        check_float_dtype(dtype, "StudentT")
        param = {"df": df, "mean": mean, "sd": sd, "seed": seed, "dtype": dtype, "name": name,
                 "param_dict": {"df": df, "mean": mean, "sd": sd}}
        super().__init__(seed, dtype, name, param)
        self._df = self._add_parameter(df, "df")
        self._loc = self._add_parameter(mean, "mean")
        self._scale = self._add_parameter(sd, "sd")
        for tensor, label in ((self._df, "df"), (self._scale, "Standard deviation")):
            if tensor is not None:
                check_greater_zero(tensor, label)

    def extend_repr(self):
        return ""

    def _log_prob(self, value, df=None, mean=None, sd=None):
        value, df, mean, sd = self._prep(value, df, mean, sd)
        z = (value - mean) / sd
        half = 0.5 * (df + 1.0)
        return (ops.lgamma(half) - ops.lgamma(0.5 * df) - 0.5 * ops.log(df * math.pi) - ops.log(sd)
                - half * ops.log1p(z * z / df))
