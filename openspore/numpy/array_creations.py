"""`mindspore.numpy` array creation: array/asarray, zeros/ones/full/empty (and *_like), eye/identity, arange,
linspace/logspace/geomspace, tri/tril/triu, diag, meshgrid, windows. Results are Tensors.

>>> import openspore.numpy as mnp
>>> mnp.arange(3).asnumpy().tolist(), mnp.full((2,), 7.0).asnumpy().tolist()
([0, 1, 2], [7.0, 7.0])
"""
import numpy as onp

from ..common import dtype as mstype
from ..core.tensor import Tensor
from .. import ops

__all__ = ["array", "asarray", "asfarray", "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "eye", "identity", "arange", "linspace", "logspace", "geomspace", "tri", "tril", "triu",
           "diag", "diagflat", "meshgrid", "bartlett", "blackman", "hamming", "hanning", "indices", "tril_indices",
           "triu_indices", "diag_indices", "vander"]


def _np_dtype(dtype):
    return None if dtype is None else mstype.to_dtype(dtype, "mindspore.numpy").np_dtype


def _tensor(value, dtype=None):
    arr = onp.asarray(value, _np_dtype(dtype))
    if dtype is None and arr.dtype == onp.float64:
        arr = arr.astype(onp.float32)  # MindSpore's default float is float32
    if dtype is None and arr.dtype == onp.int64 and not isinstance(value, onp.ndarray):
        arr = arr.astype(onp.int32)  # Python ints become int32 in mindspore.numpy
    return Tensor(arr)


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor from a Tensor, numpy array, list or number (float64 data becomes float32 unless dtype says)."""
    if isinstance(obj, Tensor):
        out = obj if dtype is None else ops.cast(obj, mstype.to_dtype(dtype, "array"))
        out = Tensor(out.asnumpy().copy()) if copy and out is obj else out
    else:
        out = _tensor(obj, dtype)
    while len(out.shape) < ndmin:
        out = ops.expand_dims(out, 0)
    return out


def asarray(a, dtype=None):
    """array() without a copy for Tensors of the same dtype."""
    if isinstance(a, Tensor) and (dtype is None or mstype.to_dtype(dtype, "asarray") == a.dtype):
        return a
    return array(a, dtype, copy=False)


def asfarray(a, dtype=mstype.float32):
    """asarray() with a float dtype."""
    return asarray(a, dtype)


def zeros(shape, dtype=mstype.float32):
    """A Tensor of zeros."""
    return Tensor(onp.zeros(shape, _np_dtype(dtype)))


def ones(shape, dtype=mstype.float32):
    """A Tensor of ones."""
    return Tensor(onp.ones(shape, _np_dtype(dtype)))


def full(shape, fill_value, dtype=None):
    """A Tensor filled with `fill_value`."""
    if isinstance(fill_value, Tensor):
        return ops.broadcast_to(fill_value if dtype is None else ops.cast(fill_value, dtype),
                                (shape,) if isinstance(shape, int) else tuple(shape))
    return _tensor(onp.full(shape, fill_value, _np_dtype(dtype)), dtype)


def empty(shape, dtype=mstype.float32):
    """A Tensor of the shape (zero-filled: openspore never hands out uninitialised memory)."""
    return zeros(shape, dtype)


def _like(a, dtype, shape):
    ref = asarray(a)
    return (ref.dtype if dtype is None else dtype), (tuple(ref.shape) if shape is None else shape)


def zeros_like(a, dtype=None, shape=None):
    """zeros of a's shape and dtype."""
    dtype, shape = _like(a, dtype, shape)
    return zeros(shape, dtype)


def ones_like(a, dtype=None, shape=None):
    """ones of a's shape and dtype."""
    dtype, shape = _like(a, dtype, shape)
    return ones(shape, dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    """full of a's shape and dtype."""
    dtype, shape = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def empty_like(prototype, dtype=None, shape=None):
    """zeros_like (see `empty`)."""
    return zeros_like(prototype, dtype, shape)


def eye(N, M=None, k=0, dtype=mstype.float32):
    """Ones on diagonal k."""
    return Tensor(onp.eye(N, M, k, _np_dtype(dtype)))


def identity(n, dtype=mstype.float32):
    """The n × n identity."""
    return eye(n, dtype=dtype)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop)."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    values = onp.arange(start, stop, step)
    if dtype is None and values.dtype == onp.int64 and not any(isinstance(v, onp.ndarray) for v in (start, stop, step)):
        values = values.astype(onp.int32)  # integer ranges are int32, as in MindSpore
    return _tensor(values, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values (float32 unless dtype says)."""
    values, step = onp.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
    out = _tensor(values, dtype or mstype.float32)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop)."""
    return _tensor(onp.logspace(start, stop, num, endpoint, base, axis=axis), dtype or mstype.float32)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """A geometric progression from start to stop."""
    return _tensor(onp.geomspace(start, stop, num, endpoint, axis=axis), dtype or mstype.float32)


def tri(N, M=None, k=0, dtype=mstype.float32):
    """Ones at and below diagonal k."""
    return Tensor(onp.tri(N, M, k, _np_dtype(dtype)))


def tril(m, k=0):
    """The lower triangle (last two axes)."""
    return ops.tril(asarray(m), k)


def triu(m, k=0):
    """The upper triangle (last two axes)."""
    return ops.triu(asarray(m), k)


def diag(v, k=0):
    """A 2-D input's diagonal k, or a 2-D tensor with the 1-D input on diagonal k."""
    v = asarray(v)
    if len(v.shape) == 1:
        return ops.diagflat(v, k)
    return ops.diagonal(v, k)


def diagflat(v, k=0):
    """A 2-D tensor with the flattened input on diagonal k."""
    return ops.diagflat(asarray(v), k)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate grids from 1-D coordinate vectors."""
    grids = ops.meshgrid(*[asarray(x) for x in xi], indexing=indexing)
    if sparse:
        raise ValueError("For 'mindspore.numpy.meshgrid', sparse=True is not supported by openspore.")
    return list(grids)


def _window(fn, M):
    return Tensor(fn(M).astype(onp.float32))


def bartlett(M):
    """Bartlett window."""
    return _window(onp.bartlett, M)


def blackman(M):
    """Blackman window."""
    return _window(onp.blackman, M)


def hamming(M):
    """Hamming window."""
    return _window(onp.hamming, M)


def hanning(M):
    """Hann window."""
    return _window(onp.hanning, M)


def indices(dimensions, dtype=mstype.int32, sparse=False):
    """The index grid of an array of shape `dimensions` (one Tensor per axis, stacked)."""
    out = onp.indices(dimensions, _np_dtype(dtype), sparse)
    return tuple(Tensor(o) for o in out) if sparse else Tensor(out)


def tril_indices(n, k=0, m=None):
    """(rows, cols) of the lower triangle."""
    return tuple(Tensor(i.astype(onp.int32)) for i in onp.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """(rows, cols) of the upper triangle."""
    return tuple(Tensor(i.astype(onp.int32)) for i in onp.triu_indices(n, k, m))


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an n × … × n array."""
    return tuple(Tensor(i.astype(onp.int32)) for i in onp.diag_indices(n, ndim))


def vander(x, N=None, increasing=False):
    """Vandermonde matrix (powers decreasing unless `increasing`)."""
    out = ops.vander(asarray(x), N)
    return ops.flip(out, (1,)) if increasing else out
