"""`TransformedDistribution(bijector, distribution)`: the law of Y = f(X) for X ~ distribution, f = bijector.

log p_Y(y) = log p_X(f⁻¹(y)) + log |(f⁻¹)'(y)|; the cdf family assumes f increasing, as MindSpore does. Extra
arguments of each function are the underlying distribution's parameters.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.bijector as msb
>>> import openspore.nn.probability.distribution as msd
>>> log_normal = msd.TransformedDistribution(msb.Exp(), msd.Normal(0.0, 1.0))
>>> round(float(log_normal.cdf(ms.Tensor(np.array([1.0], np.float32))).asnumpy()[0]), 4)
0.5
"""
from ..bijector.bijector import Bijector
from .distribution import Distribution

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """Y = bijector(X) for X following `distribution`."""

    def __init__(self, bijector, distribution, seed=None, name="transformed_distribution"):
        if not isinstance(bijector, Bijector):
            raise TypeError("For 'TransformedDistribution', the type of 'bijector' should be 'Bijector', "
                            f"but got type '{type(bijector).__name__}'.")
        if not isinstance(distribution, Distribution):
            raise TypeError("For 'TransformedDistribution', the type of 'distribution' should be 'Distribution', "
                            f"but got type '{type(distribution).__name__}'.")
        param = {"bijector": bijector, "distribution": distribution, "seed": seed, "name": name,
                 "param_dict": dict(distribution.parameters.get("param_dict", {}))}
        super().__init__(distribution.seed if seed is None else seed, distribution.dtype, name, param)
        self._bijector = bijector
        self._distribution = distribution
        self._batch_shape = distribution.batch_shape
        self._is_scalar_batch = distribution.is_scalar_batch
        self.default_parameters = list(distribution.default_parameters)
        self.parameter_names = list(distribution.parameter_names)

    @property
    def bijector(self):
        return self._bijector

    @property
    def distribution(self):
        return self._distribution

    @property
    def is_linear_transformation(self):
        return self._bijector.is_constant_jacobian

    def extend_repr(self):
        return ""

    def get_dist_args(self, *args, **kwargs):
        return self._distribution.get_dist_args(*args, **kwargs)

    def _log_prob(self, value, *args, **kwargs):
        x = self._bijector.inverse(value)
        return self._distribution.log_prob(x, *args, **kwargs) + self._bijector.inverse_log_jacobian(value)

    def _cdf(self, value, *args, **kwargs):
        return self._distribution.cdf(self._bijector.inverse(value), *args, **kwargs)

    def _log_cdf(self, value, *args, **kwargs):
        return self._distribution.log_cdf(self._bijector.inverse(value), *args, **kwargs)

    def _survival_function(self, value, *args, **kwargs):
        return self._distribution.survival_function(self._bijector.inverse(value), *args, **kwargs)

    def _log_survival(self, value, *args, **kwargs):
        return self._distribution.log_survival(self._bijector.inverse(value), *args, **kwargs)

    def _mean(self, *args, **kwargs):
        # E[f(X)] = f(E[X]) only for an affine f
        if not self.is_linear_transformation:
            raise ValueError("mean function must be implemented for non-linear transformation")
        return self._bijector.forward(self._distribution.mean(*args, **kwargs))

    def _sample(self, shape=(), *args, **kwargs):
        return self._bijector.forward(self._distribution.sample(shape, *args, **kwargs))
