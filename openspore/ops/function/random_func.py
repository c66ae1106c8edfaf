"""Functional random ops (MindSpore 2.x signatures), reproducible under `set_seed` on both backends.

`seed=None` draws from the global stream. An explicit seed selects a cached primitive that owns a stream of
its own: repeated calls with the same seed continue that stream (as MindSpore's cached random primitives
do), and `set_seed` restarts it.
"""
import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ...core.registry import prim
from .. import operations as P

__all__ = ["uniform", "standard_normal", "normal", "randn", "rand", "randint", "rand_like", "randn_like",
           "randint_like", "bernoulli", "randperm", "shuffle", "multinomial"]


def _op(cls, seed=None, **attrs):
    """The shared primitive for (class, seed, attrs): seeded streams persist across calls."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"For '{cls.name}', 'seed' must be a non-negative int or None, but got {seed!r}.")
    seeds = {"seed": seed or 0, "seed2": 0} if cls is not P.Bernoulli else {"seed": -1 if seed is None else seed}
    return prim(cls, **seeds, **attrs)


def _size(name, size):
    """*size → shape tuple: randn(2, 3), randn((2, 3)) and randn([2, 3]) all mean (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"For '{name}', the size must be non-negative ints, but got {tuple(size)}.")
    return tuple(int(s) for s in size)


def _float_dtype(name, dtype, default=mstype.float32):
    dtype = default if dtype is None else mstype.to_dtype(dtype, name)
    if dtype.kind != "float":
        raise TypeError(f"For '{name}', 'dtype' must be a float dtype, but got {dtype}.")
    return dtype


def _cast(x, dtype):
    return x if x.dtype is dtype else prim(P.Cast)(x, dtype)


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """uniform(shape, minval, maxval, seed=None, dtype=float32): samples from [minval, maxval); integer dtypes
    draw integers (UniformInt), float dtypes reals (UniformReal scaled)."""
    dtype = mstype.to_dtype(dtype, "uniform")
    if dtype.kind in ("int", "uint"):
        return _cast(_op(P.UniformInt, seed)(tuple(shape), minval, maxval), dtype)
    if dtype.kind != "float":
        raise TypeError(f"For 'uniform', 'dtype' must be an int or float dtype, but got {dtype}.")
    unit = _op(P.UniformReal, seed)(tuple(shape))
    if isinstance(minval, Tensor):
        unit = _cast(unit, minval.dtype) if minval.dtype.kind == "float" else unit
    out = prim(P.Add)(prim(P.Mul)(unit, prim(P.Sub)(maxval, minval)), minval)
    return _cast(out, dtype)


def standard_normal(shape, seed=None):
    """standard_normal(shape, seed=None): float32 samples from N(0, 1)."""
    return _op(P.StandardNormal, seed)(tuple(shape))


def normal(shape, mean, stddev, seed=None):
    """normal(shape, mean, stddev, seed=None) = mean + stddev * N(0, 1), broadcast over shape, mean and stddev."""
    return prim(P.Add)(prim(P.Mul)(_op(P.StandardNormal, seed)(tuple(shape)), stddev), mean)


def randn(*size, dtype=None, seed=None):
    """randn(*size, dtype=None, seed=None): samples from N(0, 1) (float32 by default).

    >>> import openspore as ms
    >>> ms.set_seed(1); a = ms.ops.randn(2, 3).asnumpy()
    >>> ms.set_seed(1); bool((a == ms.ops.randn(2, 3).asnumpy()).all())
    True
    """
    return _cast(_op(P.StandardNormal, seed)(_size("randn", size)), _float_dtype("randn", dtype))


def rand(*size, dtype=None, seed=None):
    """rand(*size, dtype=None, seed=None): samples from [0, 1) (float32 by default)."""
    return _cast(_op(P.UniformReal, seed)(_size("rand", size)), _float_dtype("rand", dtype))


def randint(low, high, size, seed=None, *, dtype=None):
    """randint(low, high, size, seed=None, *, dtype=None): integers from [low, high) (int64 by default)."""
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For 'randint', '{name}' must be an int, but got {type(v).__name__}.")
    dtype = mstype.int64 if dtype is None else mstype.to_dtype(dtype, "randint")
    if dtype.kind not in ("int", "uint"):
        raise TypeError(f"For 'randint', 'dtype' must be an integer dtype, but got {dtype}.")
    return _cast(_op(P.UniformInt, seed)(_size("randint", (size,)), int(low), int(high)), dtype)


def rand_like(input, seed=None, *, dtype=None):
    """rand_like(input, seed=None, *, dtype=None): uniform [0, 1) samples in input's shape (and dtype)."""
    return _cast(_op(P.UniformReal, seed)(tuple(input.shape)), _float_dtype("rand_like", dtype, input.dtype))


def randn_like(input, seed=None, *, dtype=None):
    """randn_like(input, seed=None, *, dtype=None): N(0, 1) samples in input's shape (and dtype)."""
    return _cast(_op(P.StandardNormal, seed)(tuple(input.shape)), _float_dtype("randn_like", dtype, input.dtype))


def randint_like(input, low, high, seed=None, *, dtype=None):
    """randint_like(input, low, high, seed=None, *, dtype=None): integers from [low, high) in input's shape."""
    return randint(low, high, tuple(input.shape), seed, dtype=dtype or input.dtype)


def bernoulli(input, p=0.5, seed=None):
    """bernoulli(input, p=0.5, seed=None): 1 with probability p (a float or a Tensor) else 0, in input's
    shape and dtype."""
    return _op(P.Bernoulli, seed)(input, p)


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """randperm(n, seed=0, offset=0, dtype=int64): a random permutation of 0 .. n-1."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"For 'randperm', 'n' must be a non-negative int, but got {n!r}.")
    for name, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"For 'randperm', '{name}' must be a non-negative int, but got {v!r}.")
    dtype = mstype.to_dtype(dtype, "randperm")
    op = prim(P.RandpermV2, seed=seed, offset=offset, dtype=dtype)
    return op(int(n))


def shuffle(x, seed=None):
    """shuffle(x, seed=None): x with its first axis randomly permuted."""
    return _op(P.RandomShuffle, seed)(x)


def multinomial(input, num_samples, replacement=True, seed=None):
    """multinomial(input, num_samples, replacement=True, seed=None): for each row of non-negative weights
    `input` (1-D or 2-D), `num_samples` drawn class indices (int32)."""
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"For 'multinomial', 'num_samples' must be an int, but got {type(num_samples).__name__}.")
    return _op(P.Multinomial, seed, replacement=bool(replacement))(input, int(num_samples))
