"""Max unpooling (`ops.max_unpool1d`, `ops.max_unpool2d`, `ops.max_unpool3d`), `ops.nanmedian` and MindSpore's functional in-place
names (`ops.zero_`, `ops.clamp_`, `ops.tanh_`, `ops.erfinv_`, `ops.fills`), composed from primitives.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.array([[[5.0, 7.0]]], np.float32))
>>> ms.ops.max_unpool1d(x, ms.Tensor(np.array([[[1, 2]]])), 2).asnumpy().tolist()
[[[0.0, 5.0, 7.0, 0.0]]]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d", "nanmedian", "zero_", "clamp_", "tanh_", "erfinv_", "fills"]


def _pair(op, name, value, n):
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(values) != n or not all(isinstance(v, int) and v >= 0 for v in values):
        raise ValueError(f"For '{op}', '{name}' must be a non-negative int or {n} of them, but got {value!r}.")
    return values


def _unpool(op, x, indices, kernel_size, stride, padding, output_size, n):
    if not isinstance(x, Tensor) or not isinstance(indices, Tensor):
        raise TypeError(f"For '{op}', 'x' and 'indices' must be Tensors.")
    if tuple(x.shape) != tuple(indices.shape):
        raise ValueError(f"For '{op}', 'indices' must have the shape of 'x' {list(x.shape)}, but got "
                         f"{list(indices.shape)}.")
    kernel = _pair(op, "kernel_size", kernel_size, n)
    strides = _pair(op, "stride", stride if stride is not None else kernel_size, n)
    pads = _pair(op, "padding", padding, n)
    spatial = tuple(x.shape[-n:])
    if output_size is None or len(output_size) == 0:
        out_spatial = tuple((s - 1) * st - 2 * p + k for s, st, p, k in zip(spatial, strides, pads, kernel))
    else:
        out_spatial = tuple(int(v) for v in tuple(output_size)[-n:])
    lead = tuple(x.shape[:-n])
    planes = int(np.prod(lead)) if lead else 1
    size = int(np.prod(out_spatial))
    idx = indices.asnumpy().reshape(planes, -1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise ValueError(f"For '{op}', 'indices' must lie in [0, {size}) for output size {list(out_spatial)}.")
    plane = np.repeat(np.arange(planes), idx.shape[1])
    coords = Tensor(np.stack([plane, idx.reshape(-1)], -1))
    out = F.tensor_scatter_update(F.zeros((planes, size), x.dtype), coords, F.reshape(x, (-1,)))
    return F.reshape(out, lead + out_spatial)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d: x's values written at `indices` (flat positions in each output row), zeros
    elsewhere; the output length defaults to (L − 1)·stride − 2·padding + kernel_size."""
    return _unpool("max_unpool1d", x, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: x's values written at `indices` (flat positions in each H·W output plane)."""
    return _unpool("max_unpool2d", x, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: x's values written at `indices` (flat positions in each D·H·W output volume)."""
    return _unpool("max_unpool3d", x, indices, kernel_size, stride, padding, output_size, 3)


def nanmedian(input, axis=-1, keepdims=False):
    """(values, indices): the lower median of the non-NaN entries along `axis` (NaN when all are NaN)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'nanmedian', 'input' must be a Tensor, but got {type(input).__name__}.")
    axis = axis % len(input.shape) if input.shape else 0
    nan = F.isnan(input)
    filled = F.where(nan, F.full_like(input, float("inf")), input)
    values, order = F.sort(filled, axis)
    count = F.sum(F.cast(F.logical_not(nan), mstype.int64), axis, keepdim=True)
    k = F.maximum(F.floor_divide(count - 1, 2), F.zeros_like(count))
    k = F.cast(k, order.dtype)
    value = F.gather_elements(values, axis, k)
    index = F.gather_elements(order, axis, k)
    value = F.where(count == 0, F.full_like(value, float("nan")), value)
    if not keepdims:
        value, index = F.squeeze(value, axis), F.squeeze(index, axis)
    return value, F.cast(index, mstype.int64)


def _rebind(input, value):
    from ..tensor_methods import _inplace
    return _inplace(input, value)


def zero_(input):
    """In place: input filled with zeros; returns input."""
    return _rebind(input, F.zeros_like(input))


def clamp_(input, min=None, max=None):
    """In place: input clamped to [min, max]; returns input."""
    return _rebind(input, F.clamp(input, min, max))


def tanh_(input):
    """In place: input = tanh(input); returns input."""
    return _rebind(input, F.tanh(input))


def erfinv_(input):
    """In place: input = erfinv(input); returns input."""
    from .math_special_func import erfinv
    return _rebind(input, erfinv(input))


def fills(x, value):
    """A tensor of x's shape and dtype filled with `value`."""
    return F.full_like(x, float(value.asnumpy()) if isinstance(value, Tensor) else value)
