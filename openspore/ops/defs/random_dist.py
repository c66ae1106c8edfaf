"""Primitives: draws from parameterised distributions (gamma, Poisson, truncated normal), sampling with a mask,
multinomial draws keyed by (seed, offset) tensors, and the candidate samplers of sampled softmax.

Like random.py, every draw comes from the host numpy Philox stream of `openspore.core.random` (the global one,
or the op's own when it was given a seed), so both backends and both modes agree under `set_seed`.
"""
import numpy as np

from ...common import dtype as mstype
from ...core import random as host_random
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import RANDOM, not_exportable
from ._util import broadcast_shape, check_dtype, check_rank, check_tensor, rand_float
from .random import _SEED_EPOCH, RandomOp, _int_value, host_to_torch, static_shape

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _host_args(arrays):
    """numpy views of torch tensors / numpy arrays (kernels that compute on the host)."""
    return [a.detach().cpu().numpy() if hasattr(a, "detach") else a for a in arrays]


def _to_torch(torch, out, like):
    if isinstance(out, tuple):
        return tuple(host_to_torch(torch, o, like) for o in out)
    return host_to_torch(torch, out, like)


class _HostRandom(RandomOp):
    """A random primitive whose draw is computed on the host by `draw(*numpy arrays)`."""

    def numpy(self, np, *arrays):
        return self.draw(*arrays)

    def torch(self, torch, *arrays):
        like = next((a for a in arrays if hasattr(a, "device")), None)
        return _to_torch(torch, self.draw(*_host_args(arrays)), like)


def _positive(op, name, array):
    if array.size and not bool((array > 0).all()):
        raise ValueError(f"For '{op}', every value of '{name}' must be positive, but got {array.min()}.")


@register
class Gamma(_HostRandom):
    """Gamma(seed=0, seed2=0)(shape, alpha, beta): float32 gamma draws with shape parameter alpha and inverse
    scale beta (mean alpha / beta), shaped by broadcasting `shape` with alpha's and beta's shapes."""
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("shape", "alpha", "beta")

    def infer(self, shape, alpha, beta):
        for name, t in (("alpha", alpha), ("beta", beta)):
            check_tensor(self.name, name, t)
            check_dtype(self.name, name, t, ("float",))
        return AbstractTensor(broadcast_shape(self.name, static_shape(self.name, shape), alpha.shape, beta.shape),
                              mstype.float32)

    def draw(self, shape, alpha, beta):
        out_shape = broadcast_shape(self.name, static_shape(self.name, shape), alpha.shape, beta.shape)
        a = np.broadcast_to(alpha.astype(np.float64), out_shape)
        b = np.broadcast_to(beta.astype(np.float64), out_shape)
        _positive(self.name, "alpha", a)
        _positive(self.name, "beta", b)
        return (self.generator().standard_gamma(a) / b).astype(np.float32)

    @classmethod
    def samples(cls, rng):
        yield Sample((3, 1, 2), np.array([[3.0, 4.0], [5.0, 6.0]], np.float32), np.array([1.0], np.float32))
        yield Sample((4,), np.array([0.5], np.float32), np.array([2.0, 1.0, 0.5, 3.0], np.float32),
                     attrs={"seed": 3}, name="seeded")


@register
class RandomGamma(_HostRandom):
    """RandomGamma(seed=0, seed2=0)(shape, alpha): standard gamma draws (scale 1) of shape `shape + alpha.shape`,
    in alpha's dtype."""
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("shape", "alpha")

    def infer(self, shape, alpha):
        check_tensor(self.name, "alpha", alpha)
        if alpha.dtype not in _FLOATS:
            raise TypeError(f"For 'RandomGamma', 'alpha' must be float16, float32 or float64, but got {alpha.dtype}.")
        return AbstractTensor(static_shape(self.name, shape) + tuple(alpha.shape), alpha.dtype)

    def draw(self, shape, alpha):
        shape = static_shape(self.name, shape)
        a = np.broadcast_to(alpha.astype(np.float64), shape + alpha.shape)
        _positive(self.name, "alpha", a)
        return self.generator().standard_gamma(a).astype(alpha.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([7, 5], np.int32), np.array([0.5, 1.5], np.float32), attrs={"seed": 5})
        yield Sample((3,), np.array([[2.0], [4.0]], np.float64), name="f64")


@register
class Poisson(_HostRandom):
    """Poisson(seed=0, seed2=0)(shape, mean): int32 Poisson draws with the given means, shaped by broadcasting
    `shape` with mean's shape."""
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("shape", "mean")

    def infer(self, shape, mean):
        check_tensor(self.name, "mean", mean)
        check_dtype(self.name, "mean", mean, ("float",))
        return AbstractTensor(broadcast_shape(self.name, static_shape(self.name, shape), mean.shape), mstype.int32)

    def draw(self, shape, mean):
        out_shape = broadcast_shape(self.name, static_shape(self.name, shape), mean.shape)
        lam = np.broadcast_to(mean.astype(np.float64), out_shape)
        _positive(self.name, "mean", lam)
        return self.generator().poisson(lam).astype(np.int32)

    @classmethod
    def samples(cls, rng):
        yield Sample((4, 1), np.array([5.0, 10.0], np.float32))
        yield Sample((3,), np.array([0.5, 2.0, 30.0], np.float32), attrs={"seed": 1, "seed2": 2}, name="seeded")


@register
class RandomPoisson(_HostRandom):
    """RandomPoisson(seed=0, seed2=0, dtype=int64)(shape, rate): Poisson draws of shape `shape + rate.shape`."""
    attr_defaults = {"seed": 0, "seed2": 0, "dtype": mstype.int64}
    input_names = ("shape", "rate")

    def check_attrs(self):
        super().check_attrs()
        if self.dtype not in (mstype.int32, mstype.int64) + _FLOATS:
            raise TypeError(f"For 'RandomPoisson', 'dtype' must be int32, int64, float16, float32 or float64, but "
                            f"got {self.dtype}.")

    def infer(self, shape, rate):
        check_tensor(self.name, "rate", rate)
        check_dtype(self.name, "rate", rate, ("float", "int"))
        return AbstractTensor(static_shape(self.name, shape) + tuple(rate.shape), self.dtype)

    def draw(self, shape, rate):
        shape = static_shape(self.name, shape)
        lam = np.broadcast_to(rate.astype(np.float64), shape + rate.shape)
        if lam.size and not bool((lam >= 0).all()):
            raise ValueError(f"For 'RandomPoisson', 'rate' must be non-negative, but got {lam.min()}.")
        return self.generator().poisson(lam).astype(self.dtype.np_dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([2, 3], np.int32), np.array([1.0, 5.0], np.float32))
        yield Sample((2,), np.array([[0.5], [20.0]], np.float32), attrs={"dtype": mstype.float32, "seed": 4},
                     name="float_out")


@register
class ParameterizedTruncatedNormal(_HostRandom):
    """ParameterizedTruncatedNormal(seed=0, seed2=0)(shape, mean, stdevs, min, max): normal draws truncated to
    [min, max]; shape[0] is the batch and mean/stdevs/min/max (1-D, one per batch row, or one value) pick each
    row's distribution. Drawn by rejection in standard units."""
    attr_defaults = {"seed": 0, "seed2": 0}
    input_names = ("shape", "mean", "stdevs", "min", "max")
    _NAMES = ("mean", "stdevs", "min", "max")

    def infer(self, shape, *params):
        shape = static_shape(self.name, shape)
        if len(shape) < 1:
            raise ValueError("For 'ParameterizedTruncatedNormal', 'shape' must have at least 1 dimension (the batch).")
        for name, p in zip(self._NAMES, params):
            check_tensor(self.name, name, p)
            if p.dtype not in _FLOATS:
                raise TypeError(f"For 'ParameterizedTruncatedNormal', '{name}' must be float16, float32 or float64, "
                                f"but got {p.dtype}.")
            if len(p.shape) > 1 or (len(p.shape) == 1 and p.shape[0] not in (1, shape[0])):
                raise ValueError(f"For 'ParameterizedTruncatedNormal', '{name}' must be a scalar or 1-D of the batch "
                                 f"size {shape[0]}, but got shape {list(p.shape)}.")
        return AbstractTensor(shape, params[0].dtype)

    def draw(self, shape, mean, stdevs, low, high):
        shape = static_shape(self.name, shape)
        cols = (shape[0],) + (1,) * (len(shape) - 1)
        mu, sd, lo, hi = (np.broadcast_to(p.astype(np.float64).reshape(-1), (shape[0],)).reshape(cols)
                          for p in (mean, stdevs, low, high))
        if bool((sd <= 0).any()) or bool((lo >= hi).any()):
            raise ValueError("For 'ParameterizedTruncatedNormal', 'stdevs' must be positive and 'min' less than 'max'.")
        a, b = np.broadcast_to((lo - mu) / sd, shape), np.broadcast_to((hi - mu) / sd, shape)
        gen = self.generator()
        z = gen.standard_normal(shape)
        bad = (z < a) | (z > b)
        for _ in range(1000):
            if not bad.any():
                break
            z[bad] = gen.standard_normal(int(bad.sum()))
            bad = (z < a) | (z > b)
        if bad.any():
            raise ValueError("For 'ParameterizedTruncatedNormal', [min, max] holds too little of the normal's mass to "
                             "sample by rejection (more than 1000 redraws).")
        return (mu + sd * z).astype(mean.dtype)

    @classmethod
    def samples(cls, rng):
        yield Sample((2, 3), np.array([0.0, 1.0], np.float32), np.array([1.0, 0.5], np.float32),
                     np.array([-1.0, 0.5], np.float32), np.array([1.0, 2.0], np.float32))
        yield Sample((3, 2), np.array([0.0], np.float64), np.array([2.0], np.float64), np.array([-0.5], np.float64),
                     np.array([3.0], np.float64), attrs={"seed": 2}, name="scalar_params")


@register
class NonDeterministicInts(_HostRandom):
    """NonDeterministicInts(dtype=int64)(shape): integers over the dtype's whole range. MindSpore draws them from
    an entropy source; here they come from the global stream (so they also repeat under `set_seed`)."""
    attr_defaults = {"dtype": mstype.int64}
    input_names = ("shape",)
    seed_names = ()

    def check_attrs(self):
        if self.dtype not in (mstype.int32, mstype.int64, mstype.uint32, mstype.uint64):
            raise TypeError(f"For 'NonDeterministicInts', 'dtype' must be int32, int64, uint32 or uint64, but got "
                            f"{self.dtype}.")

    def generator(self):
        return host_random.default_generator()

    def infer(self, shape):
        return AbstractTensor(static_shape(self.name, shape), self.dtype)

    def draw(self, shape):
        info = np.iinfo(self.dtype.np_dtype)
        return self.generator().integers(info.min, info.max, size=static_shape(self.name, shape),
                                         dtype=self.dtype.np_dtype, endpoint=True)

    @classmethod
    def samples(cls, rng):
        yield Sample((2, 3))
        yield Sample(np.array([4], np.int64), attrs={"dtype": mstype.int32}, name="int32")


@register
class RandomChoiceWithMask(_HostRandom):
    """RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x): the indices of `count` randomly chosen True
    entries of a boolean tensor (int32, shape (count, rank)) and a mask telling which rows are real (False rows,
    zero indices, pad when fewer than `count` entries are True)."""
    attr_defaults = {"count": 256, "seed": 0, "seed2": 0}
    input_names = ("input_x",)

    def check_attrs(self):
        super().check_attrs()
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count <= 0:
            raise ValueError(f"For 'RandomChoiceWithMask', 'count' must be a positive int, but got {self.count!r}.")

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        if x.dtype is not mstype.bool_:
            raise TypeError(f"For 'RandomChoiceWithMask', 'input_x' must be a bool Tensor, but got {x.dtype}.")
        if not 1 <= len(x.shape) <= 5:
            raise ValueError(f"For 'RandomChoiceWithMask', 'input_x' must have rank 1 to 5, but got shape "
                             f"{list(x.shape)}.")
        return AbstractTensor((self.count, len(x.shape)), mstype.int32), AbstractTensor((self.count,), mstype.bool_)

    def draw(self, x):
        true = np.argwhere(x)
        chosen = true[self.generator().permutation(len(true))[:self.count]]
        index = np.zeros((self.count, x.ndim), np.int32)
        mask = np.zeros((self.count,), np.bool_)
        index[:len(chosen)], mask[:len(chosen)] = chosen, True
        return index, mask

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[True, False, True], [False, True, True]]), attrs={"count": 3})
        yield Sample(np.array([True, False, True, False]), attrs={"count": 4, "seed": 2}, name="padded")


@register
class MultinomialWithReplacement(_HostRandom):
    """MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset): `numsamples` class indices
    (int64) per row of x (1-D or 2-D non-negative weights). The draw is a pure function of the (seed, offset)
    tensors; seed −1 with offset 0 reads the global stream instead."""
    attr_defaults = {"numsamples": 1, "replacement": False}
    input_names = ("x", "seed", "offset")
    seed_names = ()

    def check_attrs(self):
        if isinstance(self.numsamples, bool) or not isinstance(self.numsamples, int) or self.numsamples <= 0:
            raise ValueError(f"For 'MultinomialWithReplacement', 'numsamples' must be a positive int, but got "
                             f"{self.numsamples!r}.")

    def infer(self, x, seed, offset):
        check_tensor(self.name, "x", x)
        check_dtype(self.name, "x", x, ("float",))
        check_rank(self.name, "x", x, (1, 2))
        if not self.replacement and self.numsamples > x.shape[-1]:
            raise ValueError(f"For 'MultinomialWithReplacement', without replacement 'numsamples' "
                             f"({self.numsamples}) cannot exceed the number of categories ({x.shape[-1]}).")
        return AbstractTensor(tuple(x.shape[:-1]) + (self.numsamples,), mstype.int64)

    def draw(self, x, seed, offset):
        seed, offset = _int_value(self.name, "seed", seed), _int_value(self.name, "offset", offset)
        gen = (host_random.default_generator() if seed == -1 and offset == 0
               else np.random.Generator(np.random.Philox([seed & (2 ** 63 - 1), offset & (2 ** 63 - 1)])))
        p = x.astype(np.float64).reshape(-1, x.shape[-1])
        if not bool(np.isfinite(p).all()) or bool((p < 0).any()) or bool((p.sum(-1) <= 0).any()):
            raise ValueError("For 'MultinomialWithReplacement', every row of 'x' must hold finite, non-negative "
                             "weights with a positive sum.")
        k = self.numsamples
        if self.replacement:
            cdf = np.cumsum(p, axis=1)
            u = gen.random((p.shape[0], k)) * cdf[:, -1:]
            idx = np.stack([np.searchsorted(cdf[r], u[r], side="right") for r in range(p.shape[0])])
            idx = np.minimum(idx, p.shape[1] - 1)
        else:  # exponential race: the k smallest Exp(1)/p are a draw without replacement
            with np.errstate(divide="ignore"):
                keys = gen.standard_exponential(p.shape) / p
            idx = np.argsort(keys, axis=1, kind="stable")[:, :k]
        return idx.reshape(tuple(x.shape[:-1]) + (k,)).astype(np.int64)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([0.0, 9.0, 4.0, 0.0], np.float32), np.array(5, np.int64), np.array(0, np.int64),
                     attrs={"numsamples": 2})
        yield Sample(rand_float(rng, (3, 5), 0.1, 1.0), np.array(1, np.int64), np.array(2, np.int64),
                     attrs={"numsamples": 6, "replacement": True}, name="replacement")


# ---- candidate samplers (sampled softmax) ----------------------------------------------------------------------------
class _CandidateSampler(_HostRandom):
    """Base: draws `num_sampled` classes from [0, range_max) and reports each class's expected count."""
    input_names = ("true_classes",)
    seed_names = ("seed",)

    def generator(self):
        if self.seed == 0:
            return host_random.default_generator()
        stream = self.__dict__.get("_stream")
        if stream is None or stream[0] != _SEED_EPOCH[0]:
            stream = (_SEED_EPOCH[0], host_random.generator_for(self.seed, 0))
            self.__dict__["_stream"] = stream
        return stream[1]

    def check_attrs(self):
        super().check_attrs()
        for name in ("num_true", "num_sampled", "range_max"):
            v = self.attrs[name]
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For '{self.name}', '{name}' must be a positive int, but got {v!r}.")
        if self.unique and self.num_sampled > self.range_max:
            raise ValueError(f"For '{self.name}', with unique=True 'num_sampled' ({self.num_sampled}) cannot exceed "
                             f"'range_max' ({self.range_max}).")

    def infer(self, true_classes):
        check_tensor(self.name, "true_classes", true_classes)
        check_dtype(self.name, "true_classes", true_classes, ("int",))
        check_rank(self.name, "true_classes", true_classes, 2)
        if true_classes.shape[1] != self.num_true:
            raise ValueError(f"For '{self.name}', 'true_classes' must have num_true={self.num_true} columns, but got "
                             f"shape {list(true_classes.shape)}.")
        return (AbstractTensor((self.num_sampled,), true_classes.dtype),
                AbstractTensor(tuple(true_classes.shape), mstype.float32),
                AbstractTensor((self.num_sampled,), mstype.float32))

    def _expected(self, classes, tries):
        p = self.probability(classes.astype(np.float64))
        if self.unique and tries != self.num_sampled:
            # draws were rejected as repeats: the chance a class shows up at least once in `tries` draws
            return (-np.expm1(tries * np.log1p(-p))).astype(np.float32)
        # no draw was rejected (or repeats are kept): num_sampled draws, each of the class with chance p, as
        # MindSpore's CPU sampler counts it
        return (self.num_sampled * p).astype(np.float32)

    def draw(self, true_classes):
        if true_classes.size and (true_classes.min() < 0 or true_classes.max() >= self.range_max):
            raise ValueError(f"For '{self.name}', 'true_classes' must lie in [0, {self.range_max}).")
        gen = self.generator()
        if self.unique:
            picked, tries = [], 0
            while len(picked) < self.num_sampled:
                for c in self.sample_classes(gen, self.num_sampled):
                    tries += 1
                    if c not in picked:
                        picked.append(int(c))
                        if len(picked) == self.num_sampled:
                            break
            sampled = np.array(picked, np.int64)
        else:
            sampled, tries = self.sample_classes(gen, self.num_sampled), self.num_sampled
        return (sampled.astype(true_classes.dtype), self._expected(true_classes, tries),
                self._expected(sampled, tries))


@register
class UniformCandidateSampler(_CandidateSampler):
    """UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0, remove_accidental_hits=False)
    (true_classes): classes drawn uniformly from [0, range_max) → (sampled_candidates, true_expected_count,
    sampled_expected_count)."""
    attr_defaults = {"num_true": 1, "num_sampled": 1, "unique": True, "range_max": 1, "seed": 0,
                     "remove_accidental_hits": False}

    def probability(self, classes):
        return np.full(classes.shape, 1.0 / self.range_max)

    def sample_classes(self, gen, n):
        return gen.integers(0, self.range_max, size=n)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[1, 3], [0, 4]], np.int32), attrs={"num_true": 2, "num_sampled": 3, "unique": True,
                                                                  "range_max": 5, "seed": 1})
        yield Sample(np.array([[2], [7]], np.int64), attrs={"num_true": 1, "num_sampled": 6, "unique": False,
                                                            "range_max": 8}, name="repeats")


@register
class LogUniformCandidateSampler(_CandidateSampler):
    """LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, range_max=5, seed=0)(true_classes):
    classes drawn with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1) (Zipf-like, for frequency-sorted
    vocabularies)."""
    attr_defaults = {"num_true": 1, "num_sampled": 5, "unique": True, "range_max": 5, "seed": 0}

    def probability(self, classes):
        return np.log((classes + 2.0) / (classes + 1.0)) / np.log(self.range_max + 1.0)

    def sample_classes(self, gen, n):
        k = np.floor(np.exp(gen.random(n) * np.log(self.range_max + 1.0))).astype(np.int64) - 1
        return np.clip(k, 0, self.range_max - 1)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[1, 6], [0, 0]], np.int64), attrs={"num_true": 2, "num_sampled": 4, "range_max": 7})
        yield Sample(np.array([[3]], np.int32), attrs={"num_sampled": 5, "unique": False, "range_max": 10, "seed": 5},
                     name="repeats")


@register
class ComputeAccidentalHits(Primitive):
    """ComputeAccidentalHits(num_true=1)(true_classes, sampled_candidates): where a sampled class equals one of a
    row's true classes → (row indices int32, sampled positions int32, weights float32 of −FLT_MAX) — the
    logits sampled softmax must mask."""
    attr_defaults = {"num_true": 1}
    input_names = ("true_classes", "sampled_candidates")
    differentiable = False
    nondiff_reason = "its outputs are positions and a constant weight, not functions of real-valued inputs"

    def infer(self, true_classes, sampled):
        check_tensor(self.name, "true_classes", true_classes)
        check_rank(self.name, "true_classes", true_classes, 2)
        check_rank(self.name, "sampled_candidates", sampled, 1)
        check_dtype(self.name, "true_classes", true_classes, ("int",))
        if true_classes.shape[1] != self.num_true:
            raise ValueError(f"For 'ComputeAccidentalHits', 'true_classes' must have num_true={self.num_true} "
                             f"columns, but got shape {list(true_classes.shape)}.")
        return (AbstractTensor((-1,), mstype.int32), AbstractTensor((-1,), mstype.int32),
                AbstractTensor((-1,), mstype.float32))

    def numpy(self, np, true_classes, sampled):
        rows, cols = [], []
        for r in range(true_classes.shape[0]):
            hits = np.nonzero(np.isin(sampled, true_classes[r]))[0]
            rows.extend([r] * len(hits))
            cols.extend(hits.tolist())
        weights = np.full((len(rows),), -np.finfo(np.float32).max, np.float32)
        return np.array(rows, np.int32), np.array(cols, np.int32), weights

    def torch(self, torch, true_classes, sampled):
        return _to_torch(torch, self.numpy(np, *_host_args((true_classes, sampled))), true_classes)

    @classmethod
    def samples(cls, rng):
        yield Sample(np.array([[1, 2], [0, 4], [3, 3]], np.int64), np.array([0, 1, 2, 3, 4], np.int64),
                     attrs={"num_true": 2})


not_exportable(RANDOM, Gamma, RandomGamma, Poisson, RandomPoisson, ParameterizedTruncatedNormal, NonDeterministicInts,
               RandomChoiceWithMask, MultinomialWithReplacement, UniformCandidateSampler, LogUniformCandidateSampler)
not_exportable("a sampled-softmax helper with data-dependent output sizes: no MindIR writer or ONNX converter is "
               "written for it", ComputeAccidentalHits)
