"""`Distribution`: the base Cell of MindSpore's probability distributions.

A subclass registers its parameters with `_add_parameter` and defines the private functions it has (`_log_prob`,
`_cdf`, `_mean`, `_kl_loss`, `_sample`, ...); the public ones (`prob`, `cdf`, `var`, ...) fill in what can be
derived (prob from log_prob, log_cdf from cdf, sd from var, ...) and raise NotImplementedError for the rest.
Every function takes the distribution's parameters again as optional trailing arguments; one given per call
overrides the constructor's for that call. Everything is written in openspore ops, so it runs eagerly, inside a
compiled construct and under `ops.grad`. A distribution is also callable by function name:
`dist('prob', value)`.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.distribution as msd
>>> n = msd.Normal(0.0, 1.0)
>>> x = ms.Tensor(np.array([0.0], np.float32))
>>> round(float(n.prob(x).asnumpy()[0]), 5), round(float(n('cdf', x).asnumpy()[0]), 5)
(0.39894, 0.5)
>>> round(float(n.log_prob(x, ms.Tensor(np.array([1.0], np.float32))).asnumpy()[0]), 5)  # mean 1 this call
-1.41894
"""
from .... import ops
from ....common import dtype as mstype
from ....core.tensor import Tensor
from ...cell import Cell
from .._checks import broadcast_shape, check_name, check_seed, is_float_dtype, to_param_tensor

__all__ = ["Distribution"]

_FUNCTIONS = ("prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "mean", "var", "sd",
              "mode", "entropy", "kl_loss", "cross_entropy", "sample", "get_dist_args", "get_dist_type")


class Distribution(Cell):
    """Base class: `Distribution(seed, dtype, name, param)` where `param['param_dict']` maps parameter names."""

    _dist_type = None  # the name kl_loss/cross_entropy expect for the other distribution

    def __init__(self, seed, dtype, name, param):
        super().__init__()
        seed = 0 if seed is None else seed
        check_seed(seed, name if isinstance(name, str) else "Distribution")
        check_name(name, "Distribution")
        self._seed = seed
        self._dtype = dtype
        self._name = name
        self._parameters = {k: v for k, v in dict(param or {}).items() if k not in ("self", "__class__")}
        # parameters are computed in a float type even for distributions of integers (Bernoulli, Categorical)
        self.parameter_type = dtype if is_float_dtype(dtype) else mstype.float32
        self.default_parameters = []
        self.parameter_names = []
        self._batch_shape = ()
        self._is_scalar_batch = True

    # ---- properties ------------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def seed(self):
        return self._seed

    @property
    def parameters(self):
        return self._parameters

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def broadcast_shape(self):
        return self._batch_shape

    @property
    def is_scalar_batch(self):
        return self._is_scalar_batch

    # ---- parameters ------------------------------------------------------------------------------
    def _add_parameter(self, value, name):
        """Register a constructor parameter (None: to be given per call); returns it as a Tensor."""
        tensor = None if value is None else to_param_tensor(value, name, self.parameter_type)
        self.default_parameters.append(tensor)
        self.parameter_names.append(name)
        if tensor is not None:
            self._batch_shape = broadcast_shape([self._batch_shape, tensor.shape], self._name)
            self._is_scalar_batch = self._is_scalar_batch and tensor.shape == ()
        return tensor

    def _check_param_type(self, *args):
        """Per-call parameters (None: the constructor's), cast to the parameter type and broadcast together."""
        out = []
        for arg, default, name in zip(args, self.default_parameters, self.parameter_names):
            if arg is None:
                arg = default
            if arg is None:
                raise TypeError(f"the type {name} must be subclass of Tensor. It can not be None since it is "
                                "not specified during initialization.")
            if not isinstance(arg, Tensor):
                if isinstance(arg, bool) or not isinstance(arg, (int, float)):
                    raise TypeError(f"For '{self._name}', the parameter '{name}' should be a Tensor, "
                                    f"but got {type(arg).__name__}.")
                arg = Tensor(float(arg), dtype=self.parameter_type)
            out.append(arg if arg.dtype == self.parameter_type else ops.cast(arg, self.parameter_type))
        if len(out) > 1:
            shape = broadcast_shape([a.shape for a in out], self._name)
            out = [a if tuple(a.shape) == shape else ops.broadcast_to(a, shape) for a in out]
        return tuple(out)

    def _check_value(self, value, name="value"):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{self._name}', the '{name}' should be a Tensor, but got {type(value).__name__}.")
        return value

    def _cast_value(self, value, name="value"):
        """The value checked and cast to the parameter type (MindSpore computes in it, whatever the input)."""
        value = self._check_value(value, name)
        return value if value.dtype == self.parameter_type else ops.cast(value, self.parameter_type)

    def _prep(self, value, *params):
        """A probability function's value and parameters, checked, cast and (the parameters) broadcast."""
        return (self._cast_value(value),) + self._check_param_type(*params)

    def _other(self, *params):
        """The other distribution's parameters given to kl_loss/cross_entropy (all required)."""
        out = []
        for arg, name in zip(params, self.parameter_names):
            if not isinstance(arg, Tensor):
                raise TypeError(f"For '{self._name}', the other distribution's '{name}' should be a Tensor, "
                                f"but got {type(arg).__name__}.")
            out.append(arg if arg.dtype == self.parameter_type else ops.cast(arg, self.parameter_type))
        return tuple(out)

    def _check_dist(self, dist):
        if dist != self._dist_type:
            raise ValueError(f"Expected dist input is {self._dist_type}, but got {dist}.")

    def _not_implemented(self, func):
        return NotImplementedError(f"{func} is not implemented for {self._name} distribution.")

    def _has(self, func):
        return getattr(type(self), func, None) is not None

    # ---- public functions ------------------------------------------------------------------------
    def get_dist_args(self, *args, **kwargs):
        """The parameters, each the one given here or else the constructor's (None where neither is)."""
        if self._dist_type is None:  # as MindSpore 2.10's HalfNormal, Laplace and StudentT
            raise self._not_implemented("get_dist_args")
        given = list(args) + [None] * (len(self.parameter_names) - len(args))
        for key, value in kwargs.items():
            if key not in self.parameter_names:
                raise TypeError(f"For '{self._name}', get_dist_args got an unexpected parameter '{key}'; "
                                f"expected one of {self.parameter_names}.")
            given[self.parameter_names.index(key)] = value
        out = []
        for arg, default in zip(given, self.default_parameters):
            arg = default if arg is None else arg
            if isinstance(arg, Tensor) and arg.dtype != self.parameter_type:
                arg = ops.cast(arg, self.parameter_type)
            out.append(arg)
        return tuple(out)

    def get_dist_type(self):
        if self._dist_type is None:
            raise self._not_implemented("get_dist_type")
        return self._dist_type

    def prob(self, value, *args, **kwargs):
        if self._has("_prob"):
            return self._prob(value, *args, **kwargs)
        if self._has("_log_prob"):
            return ops.exp(self._log_prob(value, *args, **kwargs))
        raise self._not_implemented("prob")

    def log_prob(self, value, *args, **kwargs):
        if self._has("_log_prob"):
            return self._log_prob(value, *args, **kwargs)
        if self._has("_prob"):
            return ops.log(self._prob(value, *args, **kwargs))
        raise self._not_implemented("log_prob")

    def cdf(self, value, *args, **kwargs):
        if self._has("_cdf"):
            return self._cdf(value, *args, **kwargs)
        if self._has("_log_cdf"):
            return ops.exp(self._log_cdf(value, *args, **kwargs))
        if self._has("_survival_function"):
            return 1.0 - self._survival_function(value, *args, **kwargs)
        if self._has("_log_survival"):
            return 1.0 - ops.exp(self._log_survival(value, *args, **kwargs))
        raise self._not_implemented("cdf")

    def log_cdf(self, value, *args, **kwargs):
        if self._has("_log_cdf"):
            return self._log_cdf(value, *args, **kwargs)
        if not self._can_cdf():
            raise self._not_implemented("log_cdf")
        return ops.log(self.cdf(value, *args, **kwargs))

    def survival_function(self, value, *args, **kwargs):
        if self._has("_survival_function"):
            return self._survival_function(value, *args, **kwargs)
        if self._has("_log_survival"):
            return ops.exp(self._log_survival(value, *args, **kwargs))
        if not self._can_cdf():
            raise self._not_implemented("survival_function")
        return 1.0 - self.cdf(value, *args, **kwargs)

    def log_survival(self, value, *args, **kwargs):
        if self._has("_log_survival"):
            return self._log_survival(value, *args, **kwargs)
        if not self._can_cdf():
            raise self._not_implemented("log_survival")
        return ops.log(self.survival_function(value, *args, **kwargs))

    def _can_cdf(self):
        return any(self._has(f) for f in ("_cdf", "_log_cdf", "_survival_function", "_log_survival"))

    def mean(self, *args, **kwargs):
        return self._direct("mean", *args, **kwargs)

    def mode(self, *args, **kwargs):
        return self._direct("mode", *args, **kwargs)

    def entropy(self, *args, **kwargs):
        return self._direct("entropy", *args, **kwargs)

    def var(self, *args, **kwargs):
        if self._has("_var"):
            return self._var(*args, **kwargs)
        if self._has("_sd"):
            return ops.square(self._sd(*args, **kwargs))
        raise self._not_implemented("var")

    def sd(self, *args, **kwargs):
        if self._has("_sd"):
            return self._sd(*args, **kwargs)
        if self._has("_var"):
            return ops.sqrt(self._var(*args, **kwargs))
        raise self._not_implemented("sd")

    def kl_loss(self, dist, *args, **kwargs):
        """KL(self ‖ other): `dist` names the other's type, its parameters first, then (optionally) self's."""
        return self._direct("kl_loss", dist, *args, **kwargs)

    def cross_entropy(self, dist, *args, **kwargs):
        if self._has("_cross_entropy"):
            return self._cross_entropy(dist, *args, **kwargs)
        if self._has("_entropy") and self._has("_kl_loss"):
            return self._calc_cross_entropy(dist, *args, **kwargs)
        raise self._not_implemented("cross_entropy")

    def _calc_cross_entropy(self, dist, *args, **kwargs):
        """H(self, other) = H(self) + KL(self ‖ other); self's own parameters follow the other's."""
        count = len(self.parameter_names)
        own = args[count:]
        own_kwargs = {k: v for k, v in kwargs.items() if k in self.parameter_names}
        return self._entropy(*own, **own_kwargs) + self._kl_loss(dist, *args, **kwargs)

    def sample(self, *args, **kwargs):
        if not self._has("_sample"):
            raise self._not_implemented("sample")
        return self._sample(*args, **kwargs)

    def _direct(self, func, *args, **kwargs):
        if not self._has("_" + func):
            raise self._not_implemented(func)
        return getattr(self, "_" + func)(*args, **kwargs)

    def _check_sample_shape(self, shape):
        if not isinstance(shape, tuple):
            raise TypeError(f"For shape, input type must be a tuple (sampling '{self._name}'), "
                            f"but got {type(shape).__name__}.")
        if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
            raise TypeError(f"For '{self._name}', the sample shape should hold non-negative ints, but got {shape}.")
        return shape

    def _standard_normal(self, shape):
        noise = ops.standard_normal(shape if shape else (1,), seed=self._seed)
        return ops.cast(ops.reshape(noise, shape), self.parameter_type)

    def _standard_uniform(self, shape, tiny=0.0):
        """Uniform noise in [tiny, 1) of exactly `shape` (a scalar sample has shape ())."""
        low = Tensor(tiny, dtype=mstype.float32)
        high = Tensor(1.0, dtype=mstype.float32)
        noise = ops.uniform(shape if shape else (1,), low, high, seed=self._seed)
        return ops.cast(ops.reshape(noise, shape), self.parameter_type)

    def construct(self, name, *args, **kwargs):
        """`dist('prob', value, ...)`: the function named `name`."""
        if name not in _FUNCTIONS:
            raise NotImplementedError(f"{name} is not implemented for {self._name} distribution (the functions "
                                      f"are {list(_FUNCTIONS)}).")
        return getattr(self, name)(*args, **kwargs)

    def extend_repr(self):
        if self._is_scalar_batch and self.default_parameters and all(p is not None for p in self.default_parameters):
            return ", ".join(f"{self._repr_name(n)} = {p.asnumpy()[()]!s}"
                             for n, p in zip(self.parameter_names, self.default_parameters))
        if any(p is not None for p in self.default_parameters):
            return f"batch_shape = {self._batch_shape}"
        return ""

    def _repr_name(self, name):
        return name
