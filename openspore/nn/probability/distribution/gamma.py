"""Exponential, Uniform, Gamma, Beta and Poisson.

Gamma, Beta and Poisson take array or Tensor parameters only (a bare Python number is a TypeError), as MindSpore.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.distribution as msd
>>> g = msd.Gamma(np.array([2.0], np.float32), np.array([3.0], np.float32))
>>> round(float(g.mean().asnumpy()[0]), 4), round(float(msd.Exponential(0.5).mean().asnumpy()), 4)
(0.6667, 2.0)
"""
import math

from .... import ops
from ....common import dtype as mstype
from .._checks import (check_float_dtype, check_greater, check_greater_zero, check_not_scalar,
                       check_numeric_dtype)
from .distribution import Distribution

__all__ = ["Exponential", "Uniform", "Gamma", "Beta", "Poisson"]


def _lbeta(a, b):
    return ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(a + b)


def _constructor_value(index, doc):
    """A read-only property: the `index`-th constructor parameter (a Tensor), or None when given per call."""
    return property(lambda self: self._values[index], doc=doc)


class _Positive(Distribution):
    """A distribution whose parameters all must be positive."""

    _names = ()
    _scalars_allowed = True
    _integer_samples = False  # Poisson may sample an int dtype; the others are continuous

    def __init__(self, values, seed, dtype, name):
        if self._integer_samples:
            check_numeric_dtype(dtype, type(self).__name__)
        else:
            check_float_dtype(dtype, type(self).__name__)
        if not self._scalars_allowed:
            for value, pname in zip(values, self._names):
                check_not_scalar(value, pname)
        param = dict(zip(self._names, values), seed=seed, dtype=dtype, name=name,
                     param_dict=dict(zip(self._names, values)))
        super().__init__(seed, dtype, name, param)
        self._values = []
        for value, pname in zip(values, self._names):
            tensor = self._add_parameter(value, pname)
            if tensor is not None:
                check_greater_zero(tensor, pname)
            self._values.append(tensor)


    def _full_noise_shape(self, shape, param):
        return self._check_sample_shape(shape) + tuple(param.shape)


class Exponential(_Positive):
    """Exponential(rate)."""

    _dist_type = "Exponential"
    _names = ("rate",)
    rate = _constructor_value(0, "The rate given at construction (a Tensor), or None.")

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Exponential"):
        super().__init__((rate,), seed, dtype, name)

    def _log_prob(self, value, rate=None):
        value, rate = self._prep(value, rate)
        log_pdf = ops.log(rate) - rate * value
        return ops.where(value < 0.0, ops.full_like(log_pdf, -math.inf), log_pdf)

    def _cdf(self, value, rate=None):
        value, rate = self._prep(value, rate)
        return -ops.expm1(-rate * ops.maximum(value, ops.zeros_like(value)))

    def _log_survival(self, value, rate=None):
        value, rate = self._prep(value, rate)
        return -rate * ops.maximum(value, ops.zeros_like(value))

    def _mean(self, rate=None):
        return 1.0 / self._check_param_type(rate)[0]

    def _sd(self, rate=None):
        return 1.0 / self._check_param_type(rate)[0]

    def _mode(self, rate=None):
        return ops.zeros_like(self._check_param_type(rate)[0])

    def _entropy(self, rate=None):
        return 1.0 - ops.log(self._check_param_type(rate)[0])

    def _kl_loss(self, dist, rate_b, rate=None):
        self._check_dist(dist)
        (rate_b,) = self._other(rate_b)
        (rate_a,) = self._check_param_type(rate)
        return ops.log(rate_a) - ops.log(rate_b) + rate_b / rate_a - 1.0

    def _sample(self, shape=(), rate=None):
        (rate,) = self._check_param_type(rate)
        u = self._standard_uniform(self._full_noise_shape(shape, rate), tiny=1e-7)
        return -ops.log(u) / rate


class Uniform(Distribution):
    """Uniform(low, high) on [low, high]."""

    _dist_type = "Uniform"

    def __init__(self, low=None, high=None, seed=None, dtype=mstype.float32, name="Uniform"):
        check_float_dtype(dtype, "Uniform")
        param = {"low": low, "high": high, "seed": seed, "dtype": dtype, "name": name,
                 "param_dict": {"low": low, "high": high}}
        super().__init__(seed, dtype, name, param)
        self._low = self._add_parameter(low, "low")
        self._high = self._add_parameter(high, "high")
        if self._low is not None and self._high is not None:
            check_greater(self._low, self._high, "low", "high")

    @property
    def low(self):
        """The lower bound given at construction (a Tensor), or None when given per call."""
        return self._low

    @property
    def high(self):
        """The upper bound given at construction (a Tensor), or None when given per call."""
        return self._high

    def _prob(self, value, low=None, high=None):
        value, low, high = self._prep(value, low, high)
        density = 1.0 / (high - low)
        inside = ops.logical_and(value >= low, value <= high)
        return ops.where(inside, density, ops.zeros_like(density))

    def _cdf(self, value, low=None, high=None):
        value, low, high = self._prep(value, low, high)
        ratio = (value - low) / (high - low)
        return ops.clip_by_value(ratio, ops.zeros_like(ratio), ops.ones_like(ratio))

    def _mean(self, low=None, high=None):
        low, high = self._check_param_type(low, high)
        return 0.5 * (low + high)

    def _var(self, low=None, high=None):
        low, high = self._check_param_type(low, high)
        return ops.square(high - low) / 12.0

    def _entropy(self, low=None, high=None):
        low, high = self._check_param_type(low, high)
        return ops.log(high - low)

    def _kl_loss(self, dist, low_b, high_b, low=None, high=None):
        self._check_dist(dist)
        low_b, high_b = self._other(low_b, high_b)
        low_a, high_a = self._check_param_type(low, high)
        kl = ops.log(high_b - low_b) - ops.log(high_a - low_a)
        inside = ops.logical_and(low_b <= low_a, high_a <= high_b)
        return ops.where(inside, kl, ops.full_like(kl, math.inf))

    def _sample(self, shape=(), low=None, high=None):
        low, high = self._check_param_type(low, high)
        u = self._standard_uniform(self._check_sample_shape(shape) + tuple(low.shape))
        return low + (high - low) * u


class Gamma(_Positive):
    """Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Γ(a)."""

    _dist_type = "Gamma"
    _names = ("concentration", "rate")
    concentration = _constructor_value(0, "The concentration given at construction (a Tensor), or None.")
    rate = _constructor_value(1, "The rate given at construction (a Tensor), or None.")
    _scalars_allowed = False

    def __init__(self, concentration=None, rate=None, seed=None, dtype=mstype.float32, name="Gamma"):
        super().__init__((concentration, rate), seed, dtype, name)

    def _log_prob(self, value, concentration=None, rate=None):
        value, a, rate = self._prep(value, concentration, rate)
        return a * ops.log(rate) + (a - 1.0) * ops.log(value) - rate * value - ops.lgamma(a)

    def _cdf(self, value, concentration=None, rate=None):
        value, a, rate = self._prep(value, concentration, rate)
        return ops.igamma(a, rate * value)

    def _survival_function(self, value, concentration=None, rate=None):
        value, a, rate = self._prep(value, concentration, rate)
        return ops.igammac(a, rate * value)

    def _mean(self, concentration=None, rate=None):
        a, rate = self._check_param_type(concentration, rate)
        return a / rate

    def _var(self, concentration=None, rate=None):
        a, rate = self._check_param_type(concentration, rate)
        return a / (rate * rate)

    def _mode(self, concentration=None, rate=None):
        a, rate = self._check_param_type(concentration, rate)
        return ops.maximum(a - 1.0, ops.zeros_like(a)) / rate

    def _entropy(self, concentration=None, rate=None):
        a, rate = self._check_param_type(concentration, rate)
        return a - ops.log(rate) + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)

    def _kl_loss(self, dist, concentration_b, rate_b, concentration=None, rate=None):
        self._check_dist(dist)
        a_b, rate_b = self._other(concentration_b, rate_b)
        a_a, rate_a = self._check_param_type(concentration, rate)
        return ((a_a - a_b) * ops.digamma(a_a) - ops.lgamma(a_a) + ops.lgamma(a_b)
                + a_b * (ops.log(rate_a) - ops.log(rate_b)) + a_a * (rate_b - rate_a) / rate_a)

    def _sample(self, shape=(), concentration=None, rate=None):
        a, rate = self._check_param_type(concentration, rate)
        standard = ops.random_gamma(self._check_sample_shape(shape), a, seed=self.seed)
        return ops.cast(standard, self.parameter_type) / rate


class Beta(_Positive):
    """Beta(concentration1, concentration0): density x^(c1-1) (1-x)^(c0-1) / B(c1, c0) on (0, 1)."""

    _dist_type = "Beta"
    _names = ("concentration1", "concentration0")
    concentration1 = _constructor_value(0, "The concentration1 given at construction (a Tensor), or None.")
    concentration0 = _constructor_value(1, "The concentration0 given at construction (a Tensor), or None.")
    _scalars_allowed = False

    def __init__(self, concentration1=None, concentration0=None, seed=None, dtype=mstype.float32, name="Beta"):
        super().__init__((concentration1, concentration0), seed, dtype, name)

    def _log_prob(self, value, concentration1=None, concentration0=None):
        value, c1, c0 = self._prep(value, concentration1, concentration0)
        return (c1 - 1.0) * ops.log(value) + (c0 - 1.0) * ops.log1p(-value) - _lbeta(c1, c0)

    def _mean(self, concentration1=None, concentration0=None):
        c1, c0 = self._check_param_type(concentration1, concentration0)
        return c1 / (c1 + c0)

    def _var(self, concentration1=None, concentration0=None):
        c1, c0 = self._check_param_type(concentration1, concentration0)
        total = c1 + c0
        return c1 * c0 / (total * total * (total + 1.0))

    def _mode(self, concentration1=None, concentration0=None):
        c1, c0 = self._check_param_type(concentration1, concentration0)
        return (c1 - 1.0) / (c1 + c0 - 2.0)

    def _entropy(self, concentration1=None, concentration0=None):
        c1, c0 = self._check_param_type(concentration1, concentration0)
        total = c1 + c0
        return (_lbeta(c1, c0) - (c1 - 1.0) * ops.digamma(c1) - (c0 - 1.0) * ops.digamma(c0)
                + (total - 2.0) * ops.digamma(total))

    def _kl_loss(self, dist, concentration1_b, concentration0_b, concentration1=None, concentration0=None):
        self._check_dist(dist)
        c1_b, c0_b = self._other(concentration1_b, concentration0_b)
        c1_a, c0_a = self._check_param_type(concentration1, concentration0)
        return (_lbeta(c1_b, c0_b) - _lbeta(c1_a, c0_a) + (c1_a - c1_b) * ops.digamma(c1_a)
                + (c0_a - c0_b) * ops.digamma(c0_a) + (c1_b - c1_a + c0_b - c0_a) * ops.digamma(c1_a + c0_a))

    def _sample(self, shape=(), concentration1=None, concentration0=None):
        c1, c0 = self._check_param_type(concentration1, concentration0)
        shape = self._check_sample_shape(shape)
        x = ops.cast(ops.random_gamma(shape, c1, seed=self.seed), self.parameter_type)
        y = ops.cast(ops.random_gamma(shape, c0, seed=self.seed), self.parameter_type)
        return x / (x + y)


class Poisson(_Positive):
    """Poisson(rate) over 0, 1, 2, ...: probabilities in float32; samples of `dtype` (float32 unless given)."""

    _dist_type = "Poisson"
    _names = ("rate",)
    rate = _constructor_value(0, "The rate given at construction (a Tensor), or None.")
    _scalars_allowed = False
    _integer_samples = True

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Poisson"):
        super().__init__((rate,), seed, dtype, name)

    def _log_prob(self, value, rate=None):
        value, rate = self._prep(value, rate)
        log_pmf = value * ops.log(rate) - rate - ops.lgamma(value + 1.0)
        return ops.where(value < 0.0, ops.full_like(log_pmf, -math.inf), log_pmf)

    def _cdf(self, value, rate=None):
        value, rate = self._prep(value, rate)
        k = ops.floor(value)
        cdf = ops.igammac(ops.maximum(k, ops.zeros_like(k)) + 1.0, rate)
        return ops.where(k < 0.0, ops.zeros_like(cdf), cdf)

    def _survival_function(self, value, rate=None):
        value, rate = self._prep(value, rate)
        k = ops.floor(value)
        sf = ops.igamma(ops.maximum(k, ops.zeros_like(k)) + 1.0, rate)
        return ops.where(k < 0.0, ops.ones_like(sf), sf)

    def _mean(self, rate=None):
        return self._check_param_type(rate)[0]

    def _var(self, rate=None):
        return self._check_param_type(rate)[0]

    def _mode(self, rate=None):
        return ops.floor(self._check_param_type(rate)[0])

    def _sample(self, shape=(), rate=None):
        (rate,) = self._check_param_type(rate)
        draws = ops.random_poisson(self._check_sample_shape(shape), rate, seed=self.seed)
        return ops.cast(draws, self.dtype)
