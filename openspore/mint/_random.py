"""`mint`'s random functions: PyTorch-style signatures (`size` as varargs or one tuple, `generator=`, `dtype=`) on
openspore's random primitives.

Without a `generator` they draw from the global stream, which `ms.set_seed` and `ms.manual_seed` restart; with
an `ms.Generator` they draw from that generator's own stream, which its `manual_seed` restarts and its
`get_state`/`set_state` save and replay. `device` is accepted for MindSpore's signatures and has no effect:
openspore has one global device.

>>> import openspore as ms
>>> from openspore import mint
>>> g = ms.Generator().manual_seed(3)
>>> a = mint.rand(2, 3, generator=g)
>>> _ = g.manual_seed(3)
>>> print(bool((mint.rand((2, 3), generator=g) == a).all()), a.shape, a.dtype)
True (2, 3) Float32
>>> print(mint.randint(10, (4,)).dtype, mint.randperm(5).shape)
Int64 (5,)
"""
import numpy as np

from .. import ops as _ops
from ..common import dtype as _mstype
from ..core.registry import prim as _prim
from ..core.tensor import Tensor as _Tensor
from ..ops import operations as _P
from ..ops.defs.random import bound_to as _bound_to

__all__ = ["rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm", "normal", "bernoulli",
           "multinomial"]


def _op(cls, generator, **attrs):
    """`cls` drawing from `generator`, or the shared instance on the global stream when there is none."""
    from ..generator import default_generator
    if generator is None or generator is default_generator:
        return _prim(cls, **{name: 0 for name in cls.seed_names}, **attrs)  # seeds 0: the global stream
    return _bound_to(cls, generator, **attrs)


def _size(name, size):
    """size as varargs, or one tuple/list: rand(2, 3), rand((2, 3)) and rand([2, 3]) all mean (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"For '{name}', 'size' must be non-negative ints (varargs or one tuple), but got "
                             f"{tuple(size)!r}.")
    return tuple(int(s) for s in size)


def _dtype(name, dtype, default, kinds):
    dtype = default if dtype is None else _mstype.to_dtype(dtype, name)
    if dtype.kind not in kinds:
        raise TypeError(f"For '{name}', 'dtype' must be a {' or '.join(kinds)} dtype, but got {dtype}.")
    return dtype


def _cast(x, dtype):
    return x if x.dtype is dtype else _ops.cast(x, dtype)


def rand(*size, generator=None, dtype=None, device=None):
    """Samples from [0, 1) of shape `size` (float32 unless `dtype`)."""
    dtype = _dtype("rand", dtype, _mstype.float32, ("float",))
    return _cast(_op(_P.UniformReal, generator)(_size("rand", size)), dtype)


def rand_like(input, *, dtype=None, device=None):
    """Samples from [0, 1) in input's shape (and dtype unless `dtype`)."""
    return rand(tuple(input.shape), dtype=dtype or input.dtype)


def randn(*size, generator=None, dtype=None, device=None):
    """Samples from N(0, 1) of shape `size` (float32 unless `dtype`)."""
    dtype = _dtype("randn", dtype, _mstype.float32, ("float",))
    return _cast(_op(_P.StandardNormal, generator)(_size("randn", size)), dtype)


def randn_like(input, *, dtype=None, device=None):
    """Samples from N(0, 1) in input's shape (and dtype unless `dtype`)."""
    return randn(tuple(input.shape), dtype=dtype or input.dtype)


def _bounds(name, args, count):
    """(low, high, rest) from `count` leading positional arguments that are [low,] high, rest..."""
    if len(args) not in (count, count + 1):
        raise TypeError(f"For '{name}', expected {'(input, ' if name.endswith('_like') else '('}[low,] high"
                        f"{', size' if not name.endswith('_like') else ''}) arguments, but got {len(args)}.")
    low, high, rest = (0, args[0], args[1:]) if len(args) == count else (args[0], args[1], args[2:])
    for label, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For '{name}', '{label}' must be an int, but got {type(v).__name__}.")
    if low >= high:
        raise ValueError(f"For '{name}', 'low' must be less than 'high', but got {low} and {high}.")
    return int(low), int(high), rest


def _randint(name, shape, low, high, generator, dtype):
    out = _op(_P.UniformInt, generator)(shape, low, high)
    return _cast(out, _dtype(name, dtype, _mstype.int64, ("int", "uint", "float")))


def randint(*args, generator=None, dtype=None, device=None):
    """randint([low=0,] high, size, *, generator=None, dtype=None): integers from [low, high) (int64 unless
    `dtype`)."""
    low, high, rest = _bounds("randint", args, 2)
    size = rest[0] if len(rest) == 1 else rest
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"For 'randint', 'size' must be a tuple or list of ints, but got {type(size).__name__}.")
    return _randint("randint", _size("randint", (size,)), low, high, generator, dtype)


def randint_like(*args, dtype=None, device=None):
    """randint_like(input, [low=0,] high, *, dtype=None): integers from [low, high) in input's shape (and dtype
    unless `dtype`)."""
    if not args or not isinstance(args[0], _Tensor):
        raise TypeError("For 'randint_like', the first argument must be a Tensor.")
    low, high, _ = _bounds("randint_like", args[1:], 1)
    return _randint("randint_like", tuple(args[0].shape), low, high, None, dtype or args[0].dtype)


def randperm(n, *, generator=None, dtype=_mstype.int64):
    """A random permutation of 0 .. n-1 (int64 unless `dtype`)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"For 'randperm', 'n' must be a non-negative int, but got {n!r}.")
    return _op(_P.RandpermV2, generator, dtype=_mstype.to_dtype(dtype, "randperm"))(int(n))


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """N(mean, std²) samples. Tensor mean and/or std: their broadcast shape (and dtype); two floats: shape `size`
    (float32)."""
    tensors = [v for v in (mean, std) if isinstance(v, _Tensor)]
    for label, v in (("mean", mean), ("std", std)):
        if not isinstance(v, _Tensor) and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"For 'normal', '{label}' must be a float or a Tensor, but got {type(v).__name__}.")
    if not isinstance(std, _Tensor) and std < 0:
        raise ValueError(f"For 'normal', 'std' must be non-negative, but got {std}.")
    if tensors:
        if size is not None:
            raise ValueError("For 'normal', 'size' is only taken when 'mean' and 'std' are both floats.")
        shape = tuple(np.broadcast_shapes(*(tuple(v.shape) for v in tensors)))
        dtype = tensors[0].dtype
    else:
        if size is None:
            raise ValueError("For 'normal', 'size' is required when 'mean' and 'std' are both floats.")
        shape, dtype = _size("normal", (size,)), _mstype.float32
    unit = _cast(_op(_P.StandardNormal, generator)(shape), dtype)
    return unit * std + mean


def bernoulli(input, *, generator=None):
    """0/1 draws in input's shape and dtype, each 1 with the probability held in `input` (values in [0, 1])."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"For 'bernoulli', 'input' must be a Tensor, but got {type(input).__name__}.")
    return _op(_P.Bernoulli, generator)(input, input)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """For each row of non-negative weights `input` (1-D or 2-D), `num_samples` class indices (int64), drawn
    with or without replacement."""
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"For 'multinomial', 'num_samples' must be an int, but got {type(num_samples).__name__}.")
    return _op(_P.Multinomial, generator, dtype=_mstype.int64, replacement=bool(replacement))(input, int(num_samples))
