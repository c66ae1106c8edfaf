"""`mindspore.numpy` random arrays: rand (uniform [0, 1)), randn (standard normal) and randint (integers in
[minval, maxval)). They draw from the global seed (`set_seed`) through the same primitives as `ops.rand` /
`ops.randn` / `ops.randint`, so a seeded script repeats itself.

>>> import openspore as ms
>>> import openspore.numpy as mnp
>>> mnp.randn(2, 3).shape, mnp.rand((4,)).dtype, mnp.randint(1, 10, (2, 2)).dtype
((2, 3), mindspore.float32, mindspore.int32)
>>> bool(((mnp.randint(5, shape=(100,)).asnumpy() >= 0) & (mnp.randint(5, shape=(100,)).asnumpy() < 5)).all())
True
"""
from ..common import dtype as mstype
from .. import ops

__all__ = ["rand", "randn", "randint"]

_FLOAT_NAMES = ("float", "float16", "float32", "float64")


def _shape(name, shape):
    # mnp.randn(2, 3) and mnp.randn((2, 3)) are the same call, as in NumPy's rand/randn family.
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 0:
            raise TypeError(f"For mindspore.numpy.{name}, the shape must be non-negative ints, but got {shape}.")
    return tuple(shape)


def _float_dtype(name, dtype):
    if isinstance(dtype, str):
        if dtype not in _FLOAT_NAMES:
            raise ValueError(f"For mindspore.numpy.{name}, a str 'dtype' must be one of {list(_FLOAT_NAMES)}, "
                             f"but got {dtype}.")
        dtype = mstype.float32 if dtype == "float" else getattr(mstype, dtype)
    dtype = mstype.to_dtype(dtype, f"mindspore.numpy.{name}")
    if dtype.kind != "float":
        raise ValueError(f"For mindspore.numpy.{name}, 'dtype' must be a float type, but got {dtype}.")
    return dtype


def rand(*shape, dtype=mstype.float32):
    """rand(*shape, dtype=float32): samples from the uniform distribution on [0, 1)."""
    return ops.rand(*_shape("rand", shape), dtype=_float_dtype("rand", dtype))


def randn(*shape, dtype=mstype.float32):
    """randn(*shape, dtype=float32): samples from the standard normal distribution."""
    return ops.randn(*_shape("randn", shape), dtype=_float_dtype("randn", dtype))


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """randint(minval, maxval=None, shape=None, dtype=int32): integers in [minval, maxval); with one bound the
    range is [0, minval)."""
    for label, value in (("minval", minval), ("maxval", maxval)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"For mindspore.numpy.randint, the type of the argument '{label}' must be int, "
                            f"but got {type(value)}.")
    if maxval is None:
        minval, maxval = 0, minval
    if minval >= maxval:
        raise ValueError(f"For mindspore.numpy.randint, 'maxval' ({maxval}) must be greater than 'minval' "
                         f"({minval}).")
    dtype = mstype.to_dtype(dtype, "mindspore.numpy.randint")
    if dtype not in (mstype.int64, mstype.int32, mstype.int16, mstype.int8):
        raise ValueError(f"For 'mindspore.numpy.randint', the argument 'dtype' must be 'mindspore.int64', "
                         f"'mindspore.int32', 'mindspore.int16' or 'mindspore.int8', but got {dtype}.")
    if shape is None:
        shape = ()
    elif isinstance(shape, int):
        shape = (shape,)
    return ops.randint(minval, maxval, tuple(shape), dtype=dtype)
