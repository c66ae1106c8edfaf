"""Primitives: random sampling (uniform, normal, integers, Bernoulli, permutations, multinomial draws).

Every draw comes from the host numpy Philox stream of `openspore.core.random`, and the torch kernel receives
the very same numbers, so both backends (and both execution modes) agree under `set_seed`. An op built
without a seed reads the global stream; an op given a seed owns a stream of its own that advances call after
call and restarts when `set_seed` is called again.
"""
import numpy as np

from ... import context
from ...common import dtype as mstype
from ...core import random as host_random
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import RANDOM, not_exportable
from ._util import check_dtype, check_tensor, rand_float

_SEED_EPOCH = [0]  # bumped by set_seed: op-local streams restart from their seeds


def _on_context(key, value):
    if key == "seed":
        _SEED_EPOCH[0] += 1


context.add_listener(_on_context)


def _int_value(op, name, value):
    """A Python int from an int, a one-element array/Tensor, or a numpy scalar."""
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if hasattr(value, "reshape") and not isinstance(value, (int, np.integer)):
        flat = value.reshape(-1)
        if flat.shape[0] != 1:
            raise ValueError(f"For '{op}', '{name}' must hold one integer, but got shape {list(value.shape)}.")
        value = flat[0].item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(value).__name__}.")
    return int(value)


def static_shape(op, shape, name="shape"):
    """A shape tuple from a tuple/list of ints or a 1-D integer Tensor/array."""
    if hasattr(shape, "asnumpy"):
        shape = shape.asnumpy()
    if hasattr(shape, "tolist") and not isinstance(shape, (tuple, list)):
        shape = shape.tolist()
        shape = shape if isinstance(shape, list) else [shape]
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{op}', '{name}' must be a tuple of ints, but got {type(shape).__name__}.")
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"For '{op}', '{name}' must be a tuple of non-negative ints, but got {tuple(shape)}.")
    return tuple(int(s) for s in shape)


def host_to_torch(torch, array, like=None):
    t = torch.from_numpy(np.asarray(array, order="C"))  # not ascontiguousarray: it makes a 0-d draw 1-d
    return t.to(like.device) if like is not None and like.device.type != "cpu" else t


class RandomOp(Primitive):
    """Base of the random primitives: seed attributes and the stream they select."""
    random = True
    differentiable = False
    nondiff_reason = "a random draw is piecewise constant in its inputs, so no gradient flows through it"
    seed_names = ("seed", "seed2")

    def check_attrs(self):
        for name in self.seed_names:
            value = self.attrs.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"For '{self.name}', '{name}' must be an int, but got {type(value).__name__}.")

    def generator(self):
        source = self.__dict__.get("_source")
        if source is not None:  # an instance bound to an `ms.Generator` (bound_to): that generator's stream
            return source.numpy()
        seed, seed2 = (int(self.attrs.get(n, 0)) for n in self.seed_names)
        if seed < 0 or (seed == 0 and seed2 == 0):
            return host_random.default_generator()
        stream = self.__dict__.get("_stream")
        if stream is None or stream[0] != _SEED_EPOCH[0]:
            stream = (_SEED_EPOCH[0], host_random.generator_for(seed, max(seed2, 0)))
            self.__dict__["_stream"] = stream
        return stream[1]


def bound_to(cls, generator, **attrs):
    """A new instance of random primitive `cls` drawing from `generator` (an `ms.Generator`): each run of its
    kernel, eager or in a compiled graph, advances that generator's stream. The binding is not an attribute, so
    the IR prints as for the global stream; it is kept off the shared instances of `registry.prim`."""
    if not callable(getattr(generator, "numpy", None)) or not isinstance(generator.numpy(), np.random.Generator):
        raise TypeError(f"For '{cls.name}', 'generator' must be a mindspore Generator, but got "
                        f"{type(generator).__name__}.")
    op = cls(**attrs)
    op.__dict__["_source"] = generator
    return op


class _ShapeOp(RandomOp):
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("shape",)
    out_dtype = mstype.float32

    def infer(self, shape):
        return AbstractTensor(static_shape(self.name, shape), self.out_dtype)

    def numpy(self, np, shape):
        return self.draw(static_shape(self.name, shape))

    def torch(self, torch, shape):
        return host_to_torch(torch, self.draw(static_shape(self.name, shape)))

    @classmethod
    def samples(cls, rng):
        yield Sample((3, 4))
        yield Sample((2, 3), attrs={"seed": 5, "seed2": 2}, name="seeded")


@register
class UniformReal(_ShapeOp):
    """UniformReal(seed=0, seed2=0)(shape): float32 samples from [0, 1)."""

    def draw(self, shape):
        return self.generator().random(shape, dtype=np.float32)


@register
class StandardNormal(_ShapeOp):
    """StandardNormal(seed=0, seed2=0)(shape): float32 samples from N(0, 1)."""

    def draw(self, shape):
        return self.generator().standard_normal(shape, dtype=np.float32)


@register
class TruncatedNormal(_ShapeOp):
    """TruncatedNormal(seed=0, seed2=0, dtype=float32)(shape): N(0, 1) samples redrawn until inside [-2, 2]."""
    attr_defaults = {"seed": 0, "seed2": 0, "dtype": mstype.float32}

    def check_attrs(self):
        super().check_attrs()
        if self.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For 'TruncatedNormal', 'dtype' must be float16, float32 or float64, "
                            f"but got {self.dtype}.")

    def infer(self, shape):
        return AbstractTensor(static_shape(self.name, shape), self.dtype)

    def draw(self, shape):
        gen = self.generator()
        out = gen.standard_normal(shape)
        bad = np.abs(out) > 2.0
        while bad.any():
            out[bad] = gen.standard_normal(int(bad.sum()))
            bad = np.abs(out) > 2.0
        return out.astype(self.dtype.np_dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample((4, 5))
        yield Sample(np.array([2, 3], np.int32), attrs={"seed": 3, "dtype": mstype.float64}, name="tensor_shape")


@register
class UniformInt(RandomOp):
    """UniformInt(seed=0, seed2=0)(shape, minval, maxval): int32 samples from [minval, maxval)."""
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("shape", "minval", "maxval")

    def infer(self, shape, minval, maxval):
        for name, v in (("minval", minval), ("maxval", maxval)):
            if hasattr(v, "dtype"):
                check_dtype(self.name, name, v, ("int", "uint"))
                if len(v.shape) > 1 or (len(v.shape) == 1 and v.shape[0] != 1):
                    raise ValueError(f"For 'UniformInt', '{name}' must hold one integer, but got shape "
                                     f"{list(v.shape)}.")
            else:
                _int_value(self.name, name, v)
        return AbstractTensor(static_shape(self.name, shape), mstype.int32)

    def draw(self, shape, minval, maxval):
        lo, hi = _int_value(self.name, "minval", minval), _int_value(self.name, "maxval", maxval)
        if lo >= hi:
            raise ValueError(f"For 'UniformInt', 'minval' must be less than 'maxval', but got {lo} and {hi}.")
        return self.generator().integers(lo, hi, size=static_shape(self.name, shape), dtype=np.int32)

    def numpy(self, np, shape, minval, maxval):
        return self.draw(shape, minval, maxval)

    def torch(self, torch, shape, minval, maxval):
        return host_to_torch(torch, self.draw(shape, minval, maxval))

    @classmethod
    def samples(cls, rng):
        yield Sample((3, 4), np.array(1, np.int32), np.array(7, np.int32))
        yield Sample((5,), -3, 3, attrs={"seed": 2}, name="python_bounds")


@register
class Bernoulli(RandomOp):
    """Bernoulli(seed=-1, offset=0)(x, p): 1 with probability p else 0, in x's shape and dtype."""
    attr_defaults = {"seed": -1, "offset": 0}
    input_names = ("x", "p")
    seed_names = ("seed", "offset")

    def infer(self, x, p=0.5):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("int", "uint", "float"))
        if hasattr(p, "dtype"):
            check_dtype(self.name, "p", p, ("float",))
        elif isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"For 'Bernoulli', 'p' must be a float in [0, 1] or a Tensor, but got {p!r}.")
        return AbstractTensor(x.shape, x.dtype)

    def _uniform(self, x):
        return self.generator().random(tuple(x.shape))

    def numpy(self, np, x, p=0.5):
        prob = p.astype(np.float64) if hasattr(p, "astype") else p
        return (self._uniform(x) < prob).astype(x.dtype)

    def torch(self, torch, x, p=0.5):
        prob = p.double() if hasattr(p, "double") else p
        return (host_to_torch(torch, self._uniform(x), x) < prob).to(x.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)), 0.3)
        yield Sample(rand_float(rng, (2, 5)), rand_float(rng, (2, 5), 0.0, 1.0), attrs={"seed": 7}, name="tensor_p")
        yield Sample(np.zeros((4,), np.int32), 0.5, name="int")


@register
class Randperm(RandomOp):
    """Randperm(max_length=1, pad=-1, dtype=int32)(n): a permutation of 0..n-1 padded with `pad` to max_length."""
    attr_defaults = {"max_length": 1, "pad": -1, "dtype": mstype.int32}
    input_names = ("n",)
    seed_names = ()

    def check_attrs(self):
        if isinstance(self.max_length, bool) or not isinstance(self.max_length, int) or self.max_length < 1:
            raise ValueError(f"For 'Randperm', 'max_length' must be a positive int, but got {self.max_length!r}.")
        if self.dtype not in mstype.INT_DTYPES:
            raise TypeError(f"For 'Randperm', 'dtype' must be an integer dtype, but got {self.dtype}.")

    def generator(self):
        return host_random.default_generator()

    def infer(self, n):
        if hasattr(n, "dtype"):
            check_dtype(self.name, "n", n, ("int", "uint"))
        return AbstractTensor((self.max_length,), self.dtype)

    def draw(self, n):
        count = _int_value(self.name, "n", n)
        if not 0 <= count <= self.max_length:
            raise ValueError(f"For 'Randperm', 'n' must be in [0, max_length={self.max_length}], but got {count}.")
        out = np.full((self.max_length,), self.pad, dtype=self.dtype.np_dtype)
        out[:count] = self.generator().permutation(count)
        return out

    def numpy(self, np, n):
        return self.draw(n)

    def torch(self, torch, n):
        return host_to_torch(torch, self.draw(n))

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([5], np.int32), attrs={"max_length": 8})
        yield Sample(np.array([4], np.int64), attrs={"max_length": 4, "dtype": mstype.int64}, name="full")


@register
class RandpermV2(RandomOp):
    """RandpermV2(seed=0, offset=0, dtype=int64)(n): a random permutation of 0 .. n-1."""
    attr_defaults = {"seed": 0, "offset": 0, "dtype": mstype.int64}
    input_names = ("n",)
    seed_names = ("seed", "offset")

    def check_attrs(self):
        super().check_attrs()
        if self.dtype not in mstype.INT_DTYPES and self.dtype.kind != "float":
            raise TypeError(f"For 'RandpermV2', 'dtype' must be an integer or float dtype, but got {self.dtype}.")

    def _n(self, n):
        count = _int_value(self.name, "n", n)
        if count < 0:
            raise ValueError(f"For 'RandpermV2', 'n' must be non-negative, but got {count}.")
        return count

    def infer(self, n):
        if hasattr(n, "dtype"):
            check_dtype(self.name, "n", n, ("int", "uint"))
        return AbstractTensor((self._n(n),), self.dtype)

    def numpy(self, np, n):
        return self.generator().permutation(self._n(n)).astype(self.dtype.np_dtype)

    def torch(self, torch, n):
        return host_to_torch(torch, self.numpy(np, n))

    @classmethod
    def samples(cls, rng):
        yield Sample(6)
        yield Sample(np.array(5, np.int64), attrs={"seed": 9, "dtype": mstype.int32}, name="seeded")


@register
class RandomShuffle(RandomOp):
    """RandomShuffle(seed=0, seed2=0)(x): x with its first axis randomly permuted.

    Not differentiable: the permutation drawn is not an output, so a gradient could not be routed back.
    """
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("x",)
    nondiff_reason = "the permutation drawn is not an output, so a gradient cannot be routed back"

    def infer(self, x):
        check_tensor(self.name, "x", x)
        return AbstractTensor(x.shape, x.dtype)

    def _perm(self, x):
        return self.generator().permutation(x.shape[0]) if len(x.shape) else None

    def numpy(self, np, x):
        perm = self._perm(x)
        return x.copy() if perm is None else x[perm]

    def torch(self, torch, x):
        perm = self._perm(x)
        return x.clone() if perm is None else x[host_to_torch(torch, perm, x)]

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (5, 2)))
        yield Sample(np.arange(6, dtype=np.int32), attrs={"seed": 4}, name="seeded")


@register
class Multinomial(RandomOp):
    """Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples): per row of x (1-D or 2-D, non-negative
    weights that need not sum to 1) `num_samples` class indices, drawn with replacement — or without, by the
    exponential-race (Gumbel top-k) method, with the openspore attribute replacement=False."""
    attr_defaults = {"seed": 0, "seed2": 0, "dtype": mstype.int32, "replacement": True}
    input_names = ("x", "num_samples")

    def check_attrs(self):
        super().check_attrs()
        if self.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'Multinomial', 'dtype' must be int32 or int64, but got {self.dtype}.")

    def _count(self, x, num_samples):
        k = _int_value(self.name, "num_samples", num_samples)
        if k <= 0:
            raise ValueError(f"For 'Multinomial', 'num_samples' must be positive, but got {k}.")
        if not self.replacement and k > x.shape[-1]:
            raise ValueError(f"For 'Multinomial', without replacement 'num_samples' ({k}) cannot exceed the number "
                             f"of categories ({x.shape[-1]}).")
        return k

    def infer(self, x, num_samples):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        if len(x.shape) not in (1, 2):
            raise ValueError(f"For 'Multinomial', 'x' must be 1-D or 2-D, but got shape {list(x.shape)}.")
        return AbstractTensor(tuple(x.shape[:-1]) + (self._count(x, num_samples),), self.dtype)

    def _check_rows(self, p):
        if bool((~(p >= 0)).any()) or bool((~(p < float("inf"))).any()):
            raise ValueError("For 'Multinomial', the probabilities in 'x' must be finite and non-negative.")
        if bool((p.sum(-1) <= 0).any()):
            raise ValueError("For 'Multinomial', every row of 'x' must have a positive sum.")

    def numpy(self, np, x, num_samples):
        k = self._count(x, num_samples)
        p = x.astype(np.float64).reshape(-1, x.shape[-1])
        self._check_rows(p)
        u = self.generator().random((p.shape[0], k if self.replacement else p.shape[1]))
        if self.replacement:
            cdf = np.cumsum(p, axis=1)
            cdf = cdf / cdf[:, -1:]
            idx = np.stack([np.searchsorted(cdf[r], u[r], side="right") for r in range(p.shape[0])])
        else:
            with np.errstate(divide="ignore"):
                keys = np.log(u) / p
            idx = np.argsort(-keys, axis=1, kind="stable")[:, :k]
        return idx.reshape(tuple(x.shape[:-1]) + (k,)).astype(self.dtype.np_dtype)

    def torch(self, torch, x, num_samples):
        k = self._count(x, num_samples)
        p = x.double().reshape(-1, x.shape[-1])
        self._check_rows(p)
        u = host_to_torch(torch, self.generator().random((p.shape[0], k if self.replacement else p.shape[1])), x)
        if self.replacement:
            cdf = torch.cumsum(p, dim=1)
            cdf = cdf / cdf[:, -1:]
            idx = torch.searchsorted(cdf, u, right=True)
        else:
            idx = torch.argsort(-(torch.log(u) / p), dim=1, stable=True)[:, :k]
        from ...backends.torch_backend import torch_dtype
        return idx.reshape(tuple(x.shape[:-1]) + (k,)).to(torch_dtype(self.dtype))

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([0.0, 9.0, 4.0, 0.0], np.float32), 6)
        yield Sample(rand_float(rng, (3, 5), 0.0, 1.0), 4, attrs={"seed": 3, "dtype": mstype.int64}, name="rows")
        yield Sample(rand_float(rng, (2, 5), 0.1, 1.0), 3, attrs={"replacement": False}, name="no_replacement")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(RANDOM, UniformReal, StandardNormal, TruncatedNormal, UniformInt, Bernoulli, Randperm, RandpermV2,
               RandomShuffle, Multinomial)
