"""Normal, LogNormal and HalfNormal distributions.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.distribution as msd
>>> x = ms.Tensor(np.array([1.0], np.float32))
>>> round(float(msd.LogNormal(0.0, 1.0).cdf(x).asnumpy()[0]), 4)
0.5
>>> round(float(msd.Normal(0.0, 1.0).kl_loss('Normal', x, x).asnumpy()[0]), 4)  # KL(N(0,1) || N(1,1))
0.5
"""
import math

from .... import ops
from ....common import dtype as mstype
from .._checks import check_float_dtype, check_greater_zero
from .distribution import Distribution

__all__ = ["Normal", "LogNormal", "HalfNormal"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def normal_log_pdf(x, mean, sd):
    z = (x - mean) / sd
    return -0.5 * z * z - ops.log(sd) - _HALF_LOG_2PI


def normal_cdf(x, mean, sd):
    return 0.5 * ops.erfc(-(x - mean) / (sd * math.sqrt(2.0)))


def normal_kl(mean_a, sd_a, mean_b, sd_b):
    diff = mean_a - mean_b
    return ops.log(sd_b) - ops.log(sd_a) + (sd_a * sd_a + diff * diff) / (2.0 * sd_b * sd_b) - 0.5


class _LocScale(Distribution):
    """Shared constructor of the two-parameter (location, positive scale) distributions."""

    _names = ("mean", "sd")
    _scale_label = "Standard deviation"

    def __init__(self, loc, scale, seed, dtype, name):
        check_float_dtype(dtype, type(self).__name__)
        param = {"loc": loc, "scale": scale, "seed": seed, "dtype": dtype, "name": name,
                 "param_dict": {self._names[0]: loc, self._names[1]: scale}}
        super().__init__(seed, dtype, name, param)
        self._loc = self._add_parameter(loc, self._names[0])
        self._scale = self._add_parameter(scale, self._names[1])
        if self._scale is not None:
            check_greater_zero(self._scale, self._scale_label)


    def _noise_shape(self, shape, loc):
        return self._check_sample_shape(shape) + tuple(loc.shape)


class _NamedLocScale(_LocScale):
    """A location-scale distribution whose parameters are named `loc` and `scale`, readable as properties."""

    _names = ("loc", "scale")
    _scale_label = "scale"

    @property
    def loc(self):
        """The location given at construction (a Tensor), or None when given per call."""
        return self._loc

    @property
    def scale(self):
        """The scale given at construction (a Tensor), or None when given per call."""
        return self._scale


class Normal(_LocScale):
    """Normal(mean, sd): the Gaussian distribution."""

    _dist_type = "Normal"

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Normal"):
        super().__init__(mean, sd, seed, dtype, name)

    def _repr_name(self, name):
        return {"mean": "mean", "sd": "standard deviation"}[name]

    def _log_prob(self, value, mean=None, sd=None):
        value, mean, sd = self._prep(value, mean, sd)
        return normal_log_pdf(value, mean, sd)

    def _cdf(self, value, mean=None, sd=None):
        value, mean, sd = self._prep(value, mean, sd)
        return normal_cdf(value, mean, sd)

    def _survival_function(self, value, mean=None, sd=None):
        value, mean, sd = self._prep(value, mean, sd)
        return 0.5 * ops.erfc((value - mean) / (sd * math.sqrt(2.0)))

    def _mean(self, mean=None, sd=None):
        return self._check_param_type(mean, sd)[0]

    def _mode(self, mean=None, sd=None):
        return self._check_param_type(mean, sd)[0]

    def _sd(self, mean=None, sd=None):
        return self._check_param_type(mean, sd)[1]

    def _entropy(self, mean=None, sd=None):
        _, sd = self._check_param_type(mean, sd)
        return ops.log(sd) + (0.5 + _HALF_LOG_2PI)

    def _kl_loss(self, dist, mean_b, sd_b, mean=None, sd=None):
        self._check_dist(dist)
        mean_b, sd_b = self._other(mean_b, sd_b)
        mean_a, sd_a = self._check_param_type(mean, sd)
        return normal_kl(mean_a, sd_a, mean_b, sd_b)

    def _sample(self, shape=(), mean=None, sd=None):
        mean, sd = self._check_param_type(mean, sd)
        return self._standard_normal(self._noise_shape(shape, mean)) * sd + mean


class LogNormal(_NamedLocScale):
    """LogNormal(loc, scale): exp of a Normal(loc, scale) variable (`loc`, `scale`: the underlying Normal's)."""

    _dist_type = "LogNormal"

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="LogNormal"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, value, loc=None, scale=None):
        value, loc, scale = self._prep(value, loc, scale)
        log_x = ops.log(value)
        return normal_log_pdf(log_x, loc, scale) - log_x

    def _cdf(self, value, loc=None, scale=None):
        value, loc, scale = self._prep(value, loc, scale)
        return normal_cdf(ops.log(value), loc, scale)

    def _mean(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.exp(loc + 0.5 * scale * scale)

    def _mode(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.exp(loc - scale * scale)

    def _var(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        s2 = scale * scale
        return ops.expm1(s2) * ops.exp(2.0 * loc + s2)

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return loc + ops.log(scale) + (0.5 + _HALF_LOG_2PI)

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        self._check_dist(dist)
        loc_b, scale_b = self._other(loc_b, scale_b)
        loc_a, scale_a = self._check_param_type(loc, scale)
        return normal_kl(loc_a, scale_a, loc_b, scale_b)

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.exp(self._standard_normal(self._noise_shape(shape, loc)) * scale + loc)


class HalfNormal(_LocScale):
    """HalfNormal(mean, sd): |X - mean| + mean for X ~ Normal(mean, sd); MindSpore 2.10 gives it prob/log_prob only."""

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="HalfNormal"):
        super().__init__(mean, sd, seed, dtype, name)

    def extend_repr(self):
        return ""

    def _log_prob(self, value, mean=None, sd=None):
        value, mean, sd = self._prep(value, mean, sd)
        log_pdf = normal_log_pdf(value, mean, sd) + math.log(2.0)
        return ops.where(value >= mean, log_pdf, ops.full_like(log_pdf, -math.inf))
