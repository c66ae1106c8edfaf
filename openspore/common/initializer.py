"""Weight initializers (`openspore.common.initializer`), reproducible under `set_seed` (facts §1.5).

An Initializer fills a numpy array from the global random stream (`core.random.default_generator()`);
`initializer(init, shape, dtype)` returns a Tensor whose data is created on first use.

>>> import openspore as ms
>>> from openspore.common.initializer import initializer, Normal
>>> initializer(Normal(sigma=0.02), (4, 3), ms.float32).init_data().shape
(4, 3)
"""
import math
import numbers

import numpy as np

from . import dtype as mstype

_INITIALIZER_ALIAS = {}  # lower-case name -> Initializer subclass


def _register(*aliases):
    """Make a class reachable by its lower-case class name and the given aliases (string `weight_init`)."""
    def deco(cls):
        _INITIALIZER_ALIAS[cls.__name__.lower()] = cls
        for alias in aliases:
            _INITIALIZER_ALIAS[alias] = cls
        return cls
    return deco


def _rng():
    from ..core.random import default_generator  # lazy: `common` sits below `core` in the layering
    return default_generator()


class Initializer:
    """Base class. The built-in initializers implement `_fill(shape, rng) -> np.ndarray` (float64 is fine; the cast
    happens later). A user subclass may instead implement MindSpore's documented `_initialize(self, arr)`, which
    fills the numpy array `arr` (already of the target shape and dtype) in place:

    >>> import numpy as np
    >>> class Halves(Initializer):
    ...     def _initialize(self, arr):
    ...         arr[:] = 0.5
    >>> materialize(Halves(), (2,), mstype.float32).tolist()
    [0.5, 0.5]
    """
    shape = None
    dtype = mstype.float32

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self.shape = None
        self.dtype = mstype.float32

    def _fill(self, shape, rng):
        if type(self)._initialize is not Initializer._initialize:
            arr = np.zeros(shape, np.float64)
            self._initialize(arr)
            return arr
        raise NotImplementedError(f"{type(self).__name__} implements neither _initialize(arr) nor _fill(shape, rng).")

    def _initialize(self, arr):
        """MindSpore's hook for user initializers: fill `arr` in place."""
        arr[...] = self._fill(arr.shape, _rng())

    def __call__(self, arr):
        """MindSpore style: fill the numpy array `arr` in place and return it."""
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"For '{type(self).__name__}', the input should be a numpy array, but got {type(arr).__name__}.")
        self._initialize(arr)
        return arr

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in getattr(self, "_kwargs", {}).items())
        return f"{type(self).__name__}({inner})"


# ---- fans and gains -------------------------------------------------------------------------------
def _assignment(arr, num):
    """Fill the numpy array `arr` in place with `num` (the helper custom `_initialize(arr)` methods call)."""
    if arr.shape == ():
        arr = arr.reshape(1)
        arr[:] = num
        return arr
    arr[...] = num
    return arr


def _calculate_fan_in_and_fan_out(shape):
    """(fan_in, fan_out) of a weight shape: dims 0/1 are out/in channels, the rest the receptive field."""
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError("'fan_in' and 'fan_out' can not be computed for a tensor with fewer than 2 dimensions, "
                         f"but got dimensions {len(shape)} (shape {shape}).")
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(shape, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"For the initializer, 'mode' must be 'fan_in' or 'fan_out', but got {mode!r}.")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


_LINEAR_NONLINEARITIES = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                          "conv_transpose3d", "sigmoid")


def _calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (same table as MindSpore and PyTorch)."""
    if nonlinearity in _LINEAR_NONLINEARITIES:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Number) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"For 'leaky_relu', the negative slope must be a number, but got {param!r}.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    known = list(_LINEAR_NONLINEARITIES) + ["tanh", "relu", "leaky_relu", "selu"]
    raise ValueError(f"The argument 'nonlinearity' should be one of {known}, but got {nonlinearity!r}.")


calculate_gain = _calculate_gain


def _truncated_standard_normal(shape, lo, hi, rng):
    """Standard normal samples restricted to [lo, hi] by resampling the rejected entries."""
    if not lo < hi:
        raise ValueError(f"For 'TruncatedNormal', the lower bound must be less than the upper bound, but got [{lo}, {hi}].")
    mass = 0.5 * (math.erf(hi / math.sqrt(2)) - math.erf(lo / math.sqrt(2)))
    if mass < 1e-4:
        raise ValueError(f"For 'TruncatedNormal', the interval [{lo}, {hi}] (in standard deviations around the mean) "
                         f"holds only {mass:.2e} of the probability mass; choose bounds closer to the mean.")
    out = rng.standard_normal(shape)
    bad = (out < lo) | (out > hi)
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = (out < lo) | (out > hi)
    return out


# ---- constant initializers ----------------------------------------------------------------------
@_register("zeros")
class Zero(Initializer):
    """Fill with 0."""

    def _fill(self, shape, rng):
        return np.zeros(shape)


@_register("ones")
class One(Initializer):
    """Fill with 1."""

    def _fill(self, shape, rng):
        return np.ones(shape)


class Constant(Initializer):
    """`Constant(value)`: fill with `value`."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _fill(self, shape, rng):
        return np.full(shape, self.value)


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (eye)."""

    def _fill(self, shape, rng):
        if len(shape) != 2:
            raise ValueError(f"For 'Identity', the dimension of the tensor should be 2, but got {len(shape)}.")
        return np.eye(shape[0], shape[1])


@_register()
class Dirac(Initializer):
    """`Dirac(groups=1)`: convolution weights (3-5 dims) that pass the input channels through unchanged."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _fill(self, shape, rng):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"For 'Dirac', the dimension of the tensor should be 3, 4 or 5, but got {len(shape)}.")
        if shape[0] % self.groups != 0:
            raise ValueError(f"For 'Dirac', the first dimension {shape[0]} must be divisible by groups {self.groups}.")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        n = min(per_group, shape[1])
        centre = tuple(s // 2 for s in shape[2:])
        for g in range(self.groups):
            rows = g * per_group + np.arange(n)
            out[(rows, np.arange(n)) + centre] = 1.0
        return out


# ---- random initializers -------------------------------------------------------------------------
@_register()
class Normal(Initializer):
    """`Normal(sigma=0.01, mean=0.0)`: N(mean, sigma²)."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _fill(self, shape, rng):
        return rng.normal(self.mean, self.sigma, shape)


@_register()
class Uniform(Initializer):
    """`Uniform(scale=0.07)`: U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _fill(self, shape, rng):
        return rng.uniform(-self.scale, self.scale, shape)


@_register("truncatednormal")
class TruncatedNormal(Initializer):
    """`TruncatedNormal(sigma=0.01, mean=0.0, a=-2.0, b=2.0)`: N(mean, sigma²) restricted to the absolute
    interval [a, b] (MindSpore 2.x: `a`/`b` are bounds on the values, not multiples of sigma).

    >>> import numpy as np
    >>> w = TruncatedNormal(sigma=0.1)(np.zeros(20000, np.float32))
    >>> round(float(w.std()), 2), bool(w.min() >= -2 and w.max() <= 2)
    (0.1, True)
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _fill(self, shape, rng):
        if not self.sigma > 0:
            raise ValueError(f"For 'TruncatedNormal', 'sigma' must be positive, but got {self.sigma}.")
        lo, hi = (self.a - self.mean) / self.sigma, (self.b - self.mean) / self.sigma
        return self.mean + self.sigma * _truncated_standard_normal(shape, lo, hi, rng)


@_register("he_uniform")
class HeUniform(Initializer):
    """`HeUniform(negative_slope=0, mode='fan_in', nonlinearity='leaky_relu')`: U(-b, b), b = gain·sqrt(3/fan)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape, rng):
        fan = _calculate_correct_fan(shape, self.mode)
        gain = _calculate_gain(self.nonlinearity, self.negative_slope)
        bound = math.sqrt(3.0) * gain / math.sqrt(fan)
        return rng.uniform(-bound, bound, shape)


@_register("he_normal")
class HeNormal(Initializer):
    """`HeNormal(negative_slope=0, mode='fan_in', nonlinearity='leaky_relu')`: N(0, (gain/sqrt(fan))²)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape, rng):
        fan = _calculate_correct_fan(shape, self.mode)
        std = _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        return rng.normal(0.0, std, shape)


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """`XavierUniform(gain=1)`: U(-b, b), b = gain·sqrt(6/(fan_in+fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape, rng):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-bound, bound, shape)


@_register("xavier_normal")
class XavierNormal(Initializer):
    """`XavierNormal(gain=1)`: N(0, gain²·2/(fan_in+fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape, rng):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        return rng.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


@_register()
class Orthogonal(Initializer):
    """`Orthogonal(gain=1.)`: a (semi-)orthogonal matrix over the flattened trailing dims, times `gain`."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape, rng):
        if len(shape) < 2:
            raise ValueError(f"For 'Orthogonal', the dimension of the tensor should be at least 2, but got {len(shape)}.")
        rows = shape[0]
        cols = int(np.prod(shape[1:]))
        flat = rng.standard_normal((rows, cols))
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))  # makes the decomposition unique, so the result is uniformly distributed
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape)


@_register()
class Sparse(Initializer):
    """`Sparse(sparsity, sigma=0.01)`: 2-D; N(0, sigma²) with a fraction `sparsity` of each column zeroed."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity, self.sigma = sparsity, sigma

    def _fill(self, shape, rng):
        if len(shape) != 2:
            raise ValueError(f"For 'Sparse', the dimension of the tensor should be 2, but got {len(shape)}.")
        rows, cols = shape
        out = rng.normal(0.0, self.sigma, shape)
        zeros = int(math.ceil(self.sparsity * rows))
        if zeros:
            order = np.argsort(rng.random((rows, cols)), axis=0)[:zeros]
            out[order, np.arange(cols)] = 0.0
        return out


@_register()
class VarianceScaling(Initializer):
    """`VarianceScaling(scale=1.0, mode='fan_in', distribution='truncated_normal')` (fan_avg averages the fans)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        if scale <= 0:
            raise ValueError(f"For 'VarianceScaling', 'scale' must be positive, but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For 'VarianceScaling', 'mode' must be 'fan_in', 'fan_out' or 'fan_avg', but got {mode!r}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("For 'VarianceScaling', 'distribution' must be 'uniform', 'truncated_normal' or "
                             f"'untruncated_normal', but got {distribution!r}.")
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _fill(self, shape, rng):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, fan)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * scale)
            return rng.uniform(-limit, limit, shape)
        if self.distribution == "untruncated_normal":
            return rng.normal(0.0, math.sqrt(scale), shape)
        # std of a standard normal truncated to [-2, 2] is 0.8796…: divide it out to keep the variance
        return math.sqrt(scale) / 0.87962566103423978 * _truncated_standard_normal(shape, -2.0, 2.0, rng)


# ---- entry points -------------------------------------------------------------------------------------
def _resolve(init):
    if isinstance(init, Initializer):
        return init
    if isinstance(init, str):
        cls = _INITIALIZER_ALIAS.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the string 'init' must be one of {sorted(_INITIALIZER_ALIAS)}, "
                             f"but got {init!r}.")
        try:
            return cls()
        except TypeError as exc:
            raise ValueError(f"For 'initializer', {init!r} needs arguments: use {cls.__name__}(...) "
                             f"instead ({exc}).") from None
    if isinstance(init, numbers.Number) and not isinstance(init, bool):
        return Constant(init)
    raise TypeError("For 'initializer', 'init' should be a Tensor, a str, an Initializer or a number, "
                    f"but got {type(init).__name__}.")


def _normalize_shape(shape):
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For 'initializer', 'shape' should be a tuple, list or int, but got {type(shape).__name__}.")
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0:
            raise ValueError(f"For 'initializer', 'shape' should hold non-negative ints, but got {tuple(shape)}.")
    return tuple(int(s) for s in shape)


def materialize(init, shape, dtype):
    """Evaluate an Initializer (or numpy array) to a numpy array of `dtype`."""
    if isinstance(init, np.ndarray):
        return init.astype(dtype.np_dtype)
    init = _resolve(init)
    if type(init)._initialize is not Initializer._initialize:  # a user initializer fills an array of the dtype
        arr = np.zeros(tuple(shape), dtype.np_dtype)
        init._initialize(arr)
        return arr
    return np.asarray(init._fill(tuple(shape), _rng())).astype(dtype.np_dtype)


def initializer(init, shape=None, dtype=mstype.float32):
    """`initializer(init, shape=None, dtype=mstype.float32)` → a Tensor whose data is created on first use.

    `init` is an Initializer, one of the names in `_INITIALIZER_ALIAS` (e.g. 'normal', 'he_uniform', 'zeros'),
    a number (constant fill) or a Tensor (returned as is after a shape check).
    """
    from ..core.tensor import Tensor
    if isinstance(init, Tensor):
        if shape is not None and tuple(init.shape) != _normalize_shape(shape):
            raise ValueError(f"For 'initializer', the shape of the 'init' Tensor {tuple(init.shape)} differs from "
                             f"the 'shape' {_normalize_shape(shape)}.")
        return init
    if shape is None:
        raise ValueError("For 'initializer', 'shape' must be given unless 'init' is a Tensor.")
    shape = _normalize_shape(shape)
    init = _resolve(init)
    return Tensor(dtype=mstype.to_dtype(dtype, "initializer"), shape=shape, init=init)


__all__ = ["Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform", "HeNormal",
           "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity", "Sparse", "Dirac", "Orthogonal",
           "VarianceScaling"]
