"""Bernoulli, Geometric and Categorical: distributions over integers, whose `dtype` is the samples' type.

Their parameters and probabilities are computed in float32; values may be of any numeric type.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.distribution as msd
>>> k = ms.Tensor(np.array([0, 1], np.int32))
>>> [round(float(p), 4) for p in msd.Bernoulli(0.3).prob(k).asnumpy()]
[0.7, 0.3]
>>> [round(float(p), 4) for p in msd.Categorical([0.2, 0.8]).cdf(k).asnumpy()]
[0.2, 1.0]
"""
import math

from .... import ops
from ....common import dtype as mstype
from ....core.tensor import Tensor
from .._checks import check_numeric_dtype, check_prob, check_sum_to_one
from .distribution import Distribution

__all__ = ["Bernoulli", "Geometric", "Categorical"]


def _entropy_terms(p):
    return -(p * ops.log(p) + (1.0 - p) * ops.log1p(-p))


class _OneProb(Distribution):
    def __init__(self, probs, seed, dtype, name):
        check_numeric_dtype(dtype, type(self).__name__)
        param = {"probs": probs, "seed": seed, "dtype": dtype, "name": name, "param_dict": {"probs": probs}}
        super().__init__(seed, dtype, name, param)
        self._probs = self._add_parameter(probs, "probs")
        if self._probs is not None:
            check_prob(self._probs)


    @property
    def probs(self):
        """The probability given at construction (a Tensor), or None when it is given per call."""
        return self._probs

    def _p(self, probs):
        return self._check_param_type(probs)[0]


class Bernoulli(_OneProb):
    """Bernoulli(probs): 1 with probability `probs`, else 0."""

    _dist_type = "Bernoulli"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Bernoulli"):
        super().__init__(probs, seed, dtype, name)

    def _log_prob(self, value, probs=None):
        value, p = self._prep(value, probs)
        return value * ops.log(p) + (1.0 - value) * ops.log1p(-p)

    def _cdf(self, value, probs=None):
        value, p = self._prep(value, probs)
        zero, one = ops.zeros_like(value + p), ops.ones_like(value + p)
        return ops.where(value < 0.0, zero, ops.where(value < 1.0, one - p, one))

    def _mean(self, probs=None):
        return self._p(probs)

    def _mode(self, probs=None):
        p = self._p(probs)
        return ops.cast(p > 0.5, self.dtype)

    def _var(self, probs=None):
        p = self._p(probs)
        return p * (1.0 - p)

    def _entropy(self, probs=None):
        return _entropy_terms(self._p(probs))

    def _kl_loss(self, dist, probs_b, probs=None):
        self._check_dist(dist)
        (p_b,) = self._other(probs_b)
        p_a = self._p(probs)
        return p_a * (ops.log(p_a) - ops.log(p_b)) + (1.0 - p_a) * (ops.log1p(-p_a) - ops.log1p(-p_b))

    def _sample(self, shape=(), probs=None):
        p = self._p(probs)
        u = self._standard_uniform(self._check_sample_shape(shape) + tuple(p.shape))
        return ops.cast(u < p, self.dtype)


class Geometric(_OneProb):
    """Geometric(probs): the number of failures before the first success (support 0, 1, 2, ...)."""

    _dist_type = "Geometric"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Geometric"):
        super().__init__(probs, seed, dtype, name)

    def _log_prob(self, value, probs=None):
        value, p = self._prep(value, probs)
        k = ops.floor(value)
        log_pmf = k * ops.log1p(-p) + ops.log(p)
        return ops.where(k < 0.0, ops.full_like(log_pmf, -math.inf), log_pmf)

    def _cdf(self, value, probs=None):
        value, p = self._prep(value, probs)
        k = ops.floor(value)
        cdf = -ops.expm1((k + 1.0) * ops.log1p(-p))
        return ops.where(k < 0.0, ops.zeros_like(cdf), cdf)

    def _mean(self, probs=None):
        p = self._p(probs)
        return (1.0 - p) / p

    def _mode(self, probs=None):
        return ops.cast(ops.zeros_like(self._p(probs)), self.dtype)

    def _var(self, probs=None):
        p = self._p(probs)
        return (1.0 - p) / (p * p)

    def _entropy(self, probs=None):
        p = self._p(probs)
        return _entropy_terms(p) / p

    def _kl_loss(self, dist, probs_b, probs=None):
        self._check_dist(dist)
        (p_b,) = self._other(probs_b)
        p_a = self._p(probs)
        return ops.log(p_a) - ops.log(p_b) + (1.0 - p_a) / p_a * (ops.log1p(-p_a) - ops.log1p(-p_b))

    def _sample(self, shape=(), probs=None):
        p = self._p(probs)
        u = self._standard_uniform(self._check_sample_shape(shape) + tuple(p.shape), tiny=1e-7)
        return ops.cast(ops.floor(ops.log(u) / ops.log1p(-p)), self.dtype)


class Categorical(Distribution):
    """Categorical(probs): category k with probability probs[..., k]; the last axis holds the categories."""

    _dist_type = "Categorical"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Categorical"):
        check_numeric_dtype(dtype, "Categorical")
        param = {"probs": probs, "seed": seed, "dtype": dtype, "name": name, "param_dict": {"probs": probs}}
        super().__init__(seed, dtype, name, param)
        self._probs = self._add_parameter(probs, "probs")
        if self._probs is not None:
            if self._probs.ndim < 1 or self._probs.shape[-1] < 2:
                raise ValueError(f"For 'Categorical', 'probs' should have at least 2 categories on its last axis, "
                                 f"but got shape {self._probs.shape}.")
            check_sum_to_one(self._probs, "Categorical")

    @property
    def probs(self):
        """The event probabilities given at construction (a Tensor), or None when given per call."""
        return self._probs

    def extend_repr(self):
        if self._probs is None:
            return ""
        return f"probs = {self._probs.asnumpy()}" if self._probs.ndim == 1 else f"batch_shape = {self.batch_shape}"


    def _p(self, probs):
        return self._check_param_type(probs)[0]

    def _categories(self, p):
        return ops.cast(ops.arange(p.shape[-1]), self.parameter_type)

    def _log_prob(self, value, probs=None):
        return ops.log(self._prob(value, probs))

    def _prob(self, value, probs=None):
        value = ops.cast(self._check_value(value), mstype.int32)
        p = self._p(probs)
        hot = ops.one_hot(value, p.shape[-1], Tensor(1.0, self.parameter_type), Tensor(0.0, self.parameter_type))
        return ops.reduce_sum(hot * p, -1)

    def _cdf(self, value, probs=None):
        value = self._cast_value(value)
        p = self._p(probs)
        below = ops.cast(self._categories(p) <= ops.floor(ops.expand_dims(value, -1)), self.parameter_type)
        return ops.reduce_sum(below * p, -1)

    def _mean(self, probs=None):
        p = self._p(probs)
        return ops.expand_dims(ops.reduce_sum(p * self._categories(p), -1), -1)

    def _var(self, probs=None):
        p = self._p(probs)
        ks = self._categories(p)
        mean = ops.expand_dims(ops.reduce_sum(p * ks, -1), -1)
        return ops.expand_dims(ops.reduce_sum(p * ops.square(ks - mean), -1), -1)

    def _mode(self, probs=None):
        return ops.cast(ops.argmax(self._p(probs), -1), self.dtype)

    def _entropy(self, probs=None):
        p = self._p(probs)
        return -ops.reduce_sum(p * ops.log(p), -1)

    def _kl_loss(self, dist, probs_b, probs=None):
        self._check_dist(dist)
        (p_b,) = self._other(probs_b)
        p_a = self._p(probs)
        return ops.reduce_sum(p_a * (ops.log(p_a) - ops.log(p_b)), -1)

    def _sample(self, shape=(), probs=None):
        shape = self._check_sample_shape(shape)
        p = self._p(probs)
        batch = tuple(p.shape[:-1])
        count = 1
        for s in shape:
            count *= s
        rows = ops.reshape(p, (-1, p.shape[-1]))
        draws = ops.multinomial(rows, max(count, 1), replacement=True, seed=self.seed)  # (batch, count)
        draws = ops.transpose(draws, (1, 0))[:count]
        return ops.cast(ops.reshape(draws, shape + batch), self.dtype)
