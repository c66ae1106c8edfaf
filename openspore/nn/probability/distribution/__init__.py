"""MindSpore's `nn.probability.distribution`: probability distributions as Cells, written in openspore ops."""
from .discrete import Bernoulli, Categorical, Geometric
from .distribution import Distribution
from .gamma import Beta, Exponential, Gamma, Poisson, Uniform
from .location_scale import Cauchy, Gumbel, Laplace, Logistic, StudentT
from .normal import HalfNormal, LogNormal, Normal
from .transformed_distribution import TransformedDistribution

__all__ = ["Distribution", "TransformedDistribution", "Normal", "Bernoulli", "Exponential", "Geometric", "Uniform",
           "Categorical", "Gamma", "Beta", "Poisson", "LogNormal", "Logistic", "Gumbel", "Cauchy", "HalfNormal",
           "Laplace", "StudentT"]
