"""Functional forms of the distribution samplers (gamma, Poisson, candidate samplers, choice with mask) and the
in-place fills `uniform_`, `normal_`, `exponential_`, `random_`, `bernoulli_` (MindSpore 2.x signatures).

Seeds follow random_func.py: `seed=None` reads the global stream, an explicit seed selects a cached primitive
whose own stream continues call after call and restarts under `set_seed`. A `generator=` (an `ms.Generator`)
draws from that generator's stream instead.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.random_gamma(ms.Tensor(np.array([7, 5], np.int32)), ms.Tensor(np.array([0.5, 1.5], np.float32)),
...                  seed=5).shape
(7, 5, 2)
>>> x = ms.Tensor(np.zeros((2, 3), np.float32))
>>> bool(((ops.uniform_(x, 2.0, 3.0) >= 2.0) & (x < 3.0)).all())
True
"""
import numpy as np

from ...common import dtype as mstype
from ...core.registry import prim
from ...core.tensor import Tensor
from .. import operations as P
from ..tensor_methods import _inplace

__all__ = ["gamma", "random_gamma", "poisson", "random_poisson", "multinomial_with_replacement", "choice_with_mask",
           "uniform_candidate_sampler", "log_uniform_candidate_sampler", "uniform_", "normal_", "exponential_",
           "random_", "bernoulli_", "bernoulli_ext"]


def _seeded(cls, seed, name, **attrs):
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"For '{name}', 'seed' must be a non-negative int or None, but got {seed!r}.")
    return prim(cls, seed=seed or 0, seed2=0, **attrs)


def gamma(shape, alpha, beta, seed=None):
    """Gamma draws (shape alpha, inverse scale beta), shaped by broadcasting `shape`, alpha and beta."""
    return _seeded(P.Gamma, seed, "gamma")(shape, alpha, beta)


def random_gamma(shape, alpha, seed=None):
    """Standard gamma draws of shape `shape + alpha.shape`, in alpha's dtype."""
    return _seeded(P.RandomGamma, seed, "random_gamma")(shape, alpha)


def poisson(shape, mean, seed=None):
    """int32 Poisson draws shaped by broadcasting `shape` with mean's shape."""
    return _seeded(P.Poisson, seed, "poisson")(shape, mean)


def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson draws of shape `shape + rate.shape`, in `dtype`."""
    return _seeded(P.RandomPoisson, seed, "random_poisson", dtype=mstype.to_dtype(dtype, "random_poisson"))(shape,
                                                                                                             rate)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """`numsamples` class indices per row of x, a pure function of the (seed, offset) values."""
    as_tensor = (lambda v: v if isinstance(v, Tensor) else Tensor(np.array(v, np.int64)))
    return prim(P.MultinomialWithReplacement, numsamples=numsamples, replacement=replacement)(
        x, as_tensor(seed), as_tensor(offset))


def choice_with_mask(input_x, count=256, seed=None):
    """(indices of up to `count` randomly chosen True entries, mask of the real rows)."""
    return _seeded(P.RandomChoiceWithMask, seed, "choice_with_mask", count=count)(input_x)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled classes, expected counts of the true classes, expected counts of the sampled ones)."""
    return prim(P.UniformCandidateSampler, num_true=num_true, num_sampled=num_sampled, unique=unique,
                range_max=range_max, seed=seed, remove_accidental_hits=remove_accidental_hits)(true_classes)


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """Like uniform_candidate_sampler with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."""
    return prim(P.LogUniformCandidateSampler, num_true=num_true, num_sampled=num_sampled, unique=unique,
                range_max=range_max, seed=seed)(true_classes)


# ---- in-place fills ------------------------------------------------------------------------------------------------
def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{name}', 'input' must be a Tensor, but got {type(input).__name__}.")


def _fill_from(input, generator, draw):
    """Fill `input` with draw(numpy Generator, shape) from `generator`'s own stream."""
    rng = generator.numpy() if hasattr(generator, "numpy") else generator
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"'generator' must be a mindspore Generator, but got {type(generator).__name__}.")
    return _inplace(input, Tensor(np.asarray(draw(rng, tuple(input.shape))).astype(input.dtype.np_dtype)))


def uniform_(input, from_=0, to=1, *, generator=None):
    """Fill `input` in place with draws from [from_, to); returns it."""
    _check_tensor("uniform_", input)
    if from_ > to:
        raise ValueError(f"For 'uniform_', 'from_' must not exceed 'to', but got {from_} and {to}.")
    if generator is not None:
        return _fill_from(input, generator, lambda g, s: g.uniform(from_, to, s))
    return input.uniform_(from_, to)


def normal_(input, mean=0, std=1, *, generator=None):
    """Fill `input` in place with N(mean, std²) draws; returns it."""
    _check_tensor("normal_", input)
    if std < 0:
        raise ValueError(f"For 'normal_', 'std' must be non-negative, but got {std}.")
    if generator is not None:
        return _fill_from(input, generator, lambda g, s: g.normal(mean, std, s))
    return input.normal_(mean, std)


def exponential_(input, lambd=1, *, generator=None):
    """Fill `input` in place with Exp(lambd) draws (mean 1 / lambd); returns it."""
    _check_tensor("exponential_", input)
    if lambd <= 0:
        raise ValueError(f"For 'exponential_', 'lambd' must be positive, but got {lambd}.")
    if generator is not None:
        return _fill_from(input, generator, lambda g, s: g.standard_exponential(s) / lambd)
    unit = prim(P.UniformReal, seed=0, seed2=0)(tuple(input.shape))
    # 1 - u lies in (0, 1], so the log is finite
    return _inplace(input, -prim(P.Log)(1.0 - prim(P.Cast)(unit, mstype.float64)) / lambd)


def random_(input, from_=0, to=None, *, generator=None):
    """Fill `input` in place with integers from [from_, to) (to=None: up to the dtype's largest exact integer;
    random_(to) alone means [0, to)); returns it."""
    _check_tensor("random_", input)
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        kind = input.dtype.kind
        to = (2 ** np.finfo(input.dtype.np_dtype).nmant + 1 if kind == "float"
              else 2 if input.dtype is mstype.bool_ else int(np.iinfo(input.dtype.np_dtype).max) + 1)
    if from_ >= to:
        raise ValueError(f"For 'random_', 'from_' must be less than 'to', but got {from_} and {to}.")
    if generator is not None:
        return _fill_from(input, generator, lambda g, s: g.integers(from_, to, s))
    draws = prim(P.UniformReal, seed=0, seed2=0)(tuple(input.shape))
    ints = prim(P.Floor)(prim(P.Cast)(draws, mstype.float64) * float(to - from_)) + float(from_)
    return _inplace(input, ints)


def bernoulli_(input, p=0.5, *, generator=None):
    """Fill `input` in place with 1 (probability p, a float or a Tensor broadcast to input) or 0; returns it."""
    _check_tensor("bernoulli_", input)
    prob = p.asnumpy().astype(np.float64) if isinstance(p, Tensor) else float(p)
    if np.any(np.asarray(prob) < 0) or np.any(np.asarray(prob) > 1):
        raise ValueError("For 'bernoulli_', 'p' must lie in [0, 1].")
    if generator is not None:
        return _fill_from(input, generator, lambda g, s: g.random(s) < prob)
    return _inplace(input, prim(P.Bernoulli, seed=-1, offset=0)(input, p if isinstance(p, Tensor) else prob))


def bernoulli_ext(input, *, generator=None):
    """A new tensor of 0/1 draws, each 1 with the probability held in `input` (values in [0, 1])."""
    _check_tensor("bernoulli_ext", input)
    out = Tensor(np.zeros(input.shape, input.dtype.np_dtype))
    return bernoulli_(out, input, generator=generator)
