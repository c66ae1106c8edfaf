"""`mindspore.scipy.fft`: the orthonormal type-II discrete cosine transform (`dct`, `dctn`) and its inverse
(`idct`, `idctn`, SciPy's ``idct(type=2)``, i.e. the type-III transform), as MindSpore 2.10 offers them: only
``type=2`` and ``norm="ortho"`` (None means "ortho"); anything else is a ValueError, as there.

The transform along one axis is a product with the orthonormal N×N cosine matrix C (C[k, j] =
sqrt(2/N)·c_k·cos(π k (2j+1) / 2N), c_0 = 1/√2), built with the input's float dtype: a matmul gives gradients
and Graph mode for free, and for the lengths `mindscience` uses an O(N²) product is cheap. C is orthogonal, so the
inverse multiplies by Cᵀ. Integer and float16 inputs compute in float32; complex inputs transform their real and
imaginary parts.

>>> import openspore as ms
>>> from openspore.scipy import fft
>>> fft.dct(ms.Tensor([1.0, 2.0, 3.0])).asnumpy().astype("float64").round(4).tolist()
[3.4641, -1.4142, 0.0]
>>> fft.idct(fft.dct(ms.Tensor([1.0, 2.0, 3.0]))).asnumpy().astype("float64").round(4).tolist()
[1.0, 2.0, 3.0]
"""
import math

import numpy as np

from .. import ops as _ops
from ..common import dtype as _mstype
from ..core.tensor import Tensor

__all__ = ["dct", "idct", "dctn", "idctn"]


def _cosine_matrix(n, dtype):
    k = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    c = np.sqrt(2.0 / n) * np.cos(np.pi * k * (2 * j + 1) / (2 * n))
    c[0] /= math.sqrt(2.0)
    return Tensor(c, dtype)


def _check(fn, x, type, norm):  # noqa: A002 (SciPy's argument name)
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{fn}', 'x' must be a Tensor, but got {x.__class__.__name__}.")
    if type != 2:
        raise ValueError(f"For '{fn}', only dct type II is supported (type=2), but got type={type!r}.")
    if norm not in (None, "ortho"):
        raise ValueError(f"For '{fn}', only norm 'ortho' (or None, meaning 'ortho') is supported, but got {norm!r}.")


def _axis(fn, axis, ndim):
    if not isinstance(axis, int) or isinstance(axis, bool) or not -ndim <= axis < ndim:
        raise ValueError(f"For '{fn}', the axis must be an int in [{-ndim}, {ndim}), but got {axis!r}.")
    return axis % ndim


def _resized(fn, x, n, axis):
    """x zero-padded or truncated to length n along axis (None: unchanged)."""
    if n is None:
        return x
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"For '{fn}', the transform length must be an int >= 1, but got {n!r}.")
    size = x.shape[axis]
    if n < size:
        return _ops.narrow(x, axis, 0, n)
    if n > size:
        widths = [0, 0] * (x.ndim - 1 - axis) + [0, n - size]
        return _ops.pad(x, tuple(widths))
    return x


def _along(x, axis, inverse):
    """The (inverse) transform of a real floating x along one axis."""
    matrix = _cosine_matrix(x.shape[axis], x.dtype)
    moved = _ops.moveaxis(x, axis, -1)
    out = _ops.matmul(moved, matrix if inverse else _ops.t(matrix))
    return _ops.moveaxis(out, -1, axis)


def _real_transform(fn, x, lengths, axes, inverse):
    for n, axis in zip(lengths, axes):
        x = _along(_resized(fn, x, n, axis), axis, inverse)
    return x


def _transform(fn, x, lengths, axes, inverse):
    if x.dtype in (_mstype.complex64, _mstype.complex128):  # the transform is real-linear: part by part
        return _ops.Complex()(_real_transform(fn, _ops.real(x), lengths, axes, inverse),
                              _real_transform(fn, _ops.imag(x), lengths, axes, inverse))
    if x.dtype != _mstype.float64:
        x = _ops.cast(x, _mstype.float32)
    return _real_transform(fn, x, lengths, axes, inverse)


def _one(fn, x, type, n, axis, norm, inverse):  # noqa: A002
    _check(fn, x, type, norm)
    return _transform(fn, x, [n], [_axis(fn, axis, x.ndim)], inverse)


def _many(fn, x, type, s, axes, norm, inverse):  # noqa: A002
    _check(fn, x, type, norm)
    s = (s,) if isinstance(s, int) else s
    axes = (axes,) if isinstance(axes, int) else axes
    if axes is None:
        axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
    axes = [_axis(fn, a, x.ndim) for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"For '{fn}', the axes must be distinct, but got {list(axes)}.")
    if s is None:
        s = [None] * len(axes)
    elif len(s) != len(axes):
        raise ValueError(f"For '{fn}', 's' and 'axes' must have the same length, but got {len(s)} and {len(axes)}.")
    return _transform(fn, x, list(s), axes, inverse)


def dct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """Orthonormal DCT-II of `x` along `axis`, zero-padded or truncated to `n` first."""
    return _one("dct", x, type, n, axis, norm, False)


def idct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """Inverse of `dct` (the orthonormal DCT-III) along `axis`, zero-padded or truncated to `n` first."""
    return _one("idct", x, type, n, axis, norm, True)


def dctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """`dct` over each of `axes` (all, or the last len(s), when None), with lengths `s`."""
    return _many("dctn", x, type, s, axes, norm, False)


def idctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """Inverse of `dctn`."""
    return _many("idctn", x, type, s, axes, norm, True)
