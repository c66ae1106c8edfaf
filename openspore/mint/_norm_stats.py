"""`mint`'s pieces of a synchronised batch norm (`batch_norm_stats`, `batch_norm_gather_stats_with_counts`,
`batch_norm_elemt`), `conv_tbc` and the in-place `addr_`, composed from openspore ops.

A synchronised batch norm computes per-device statistics (`batch_norm_stats`), gathers every device's (mean,
invstd, count) and merges them (`batch_norm_gather_stats_with_counts`), then normalises (`batch_norm_elemt`); on
one device the merge of one row is the identity.

>>> import numpy as np, openspore as ms
>>> from openspore import mint
>>> x = ms.Tensor(np.array([[1.0, 10.0], [3.0, 30.0]], np.float32))
>>> mean, invstd = mint.batch_norm_stats(x, 0.0)
>>> mean.asnumpy().tolist(), invstd.asnumpy().tolist()
([2.0, 20.0], [1.0, 0.10000000149011612])
>>> mint.batch_norm_elemt(x, None, None, mean, invstd, 0.0).asnumpy().tolist()
[[-1.0, -1.0], [1.0, 1.0]]
"""
from .. import ops as _ops
from ..core.tensor import Tensor as _Tensor
from ..ops.tensor_methods import _inplace

__all__ = ["batch_norm_stats", "batch_norm_gather_stats_with_counts", "batch_norm_elemt", "conv_tbc", "addr_"]


def _check(name, label, value, ndim=None):
    if not isinstance(value, _Tensor):
        raise TypeError(f"For '{name}', '{label}' must be a Tensor, but got {type(value).__name__}.")
    if ndim is not None and len(value.shape) not in ndim:
        raise ValueError(f"For '{name}', '{label}' must be {' or '.join(map(str, ndim))}-D, but got shape "
                         f"{list(value.shape)}.")


def _per_channel(value, ndim):
    """A (C,) vector shaped to broadcast over axis 1 of an ndim-D input."""
    return _ops.reshape(value, (1, -1) + (1,) * (ndim - 2))


def batch_norm_stats(input, eps):
    """(mean, 1 / sqrt(biased variance + eps)) per channel (axis 1), over every other axis."""
    _check("batch_norm_stats", "input", input)
    if len(input.shape) < 2:
        raise ValueError(f"For 'batch_norm_stats', 'input' must be at least 2-D (N, C, ...), but got shape "
                         f"{list(input.shape)}.")
    axes = (0,) + tuple(range(2, len(input.shape)))
    mean = _ops.mean(input, axes)
    var = _ops.mean(_ops.square(input - _per_channel(mean, len(input.shape))), axes)
    return mean, _ops.rsqrt(var + eps)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None, momentum=0.1,
                                        eps=1e-5, counts=None):
    """Merge per-device rows of (mean, invstd), each over counts[i] elements, into the global (mean, invstd);
    running_mean/running_var, when given, move towards them by `momentum` (the variance unbiased)."""
    name = "batch_norm_gather_stats_with_counts"
    _check(name, "input", input)
    _check(name, "mean", mean, (2,))
    _check(name, "invstd", invstd, (2,))
    if counts is None:
        raise ValueError(f"For '{name}', 'counts' (the element count behind each row of 'mean') is required.")
    counts = counts if isinstance(counts, _Tensor) else _Tensor(list(counts), mean.dtype)
    if tuple(counts.shape) != (mean.shape[0],) or tuple(invstd.shape) != tuple(mean.shape):
        raise ValueError(f"For '{name}', 'mean' and 'invstd' must both be (devices, C) and 'counts' (devices,), but "
                         f"got {list(mean.shape)}, {list(invstd.shape)} and {list(counts.shape)}.")
    n = _ops.reshape(_ops.cast(counts, mean.dtype), (-1, 1))
    total = _ops.sum(n)
    global_mean = _ops.sum(mean * n, 0) / total
    # each row's biased variance, plus its mean's spread around the global mean (the parallel-variance formula)
    row_var = 1.0 / _ops.square(invstd) - eps
    var = _ops.sum((row_var + _ops.square(mean - global_mean)) * n, 0) / total
    if running_mean is not None:
        _inplace(running_mean, running_mean * (1 - momentum) + global_mean * momentum)
    if running_var is not None:
        unbiased = var * total / _ops.maximum(total - 1, _ops.ones_like(total))
        _inplace(running_var, running_var * (1 - momentum) + unbiased * momentum)
    return global_mean, _ops.rsqrt(var + eps)


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-5):
    """(input − mean) · invstd · weight + bias per channel (axis 1); `eps` is already inside invstd."""
    name = "batch_norm_elemt"
    _check(name, "input", input)
    _check(name, "mean", mean)
    _check(name, "invstd", invstd)
    ndim = len(input.shape)
    out = (input - _per_channel(mean, ndim)) * _per_channel(invstd, ndim)
    if weight is not None:
        out = out * _per_channel(weight, ndim)
    if bias is not None:
        out = out + _per_channel(bias, ndim)
    return out


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a time-first input (time, batch, in) with weight (kernel, in, out) and bias (out,),
    both ends of time padded by `pad`; the output is (time', batch, out)."""
    _check("conv_tbc", "input", input, (3,))
    _check("conv_tbc", "weight", weight, (3,))
    if weight.shape[1] != input.shape[2]:
        raise ValueError(f"For 'conv_tbc', weight's input channels ({weight.shape[1]}) must equal input's "
                         f"({input.shape[2]}).")
    if isinstance(pad, bool) or not isinstance(pad, int) or pad < 0:
        raise ValueError(f"For 'conv_tbc', 'pad' must be a non-negative int, but got {pad!r}.")
    out = _ops.conv1d(_ops.transpose(input, (1, 2, 0)), _ops.transpose(weight, (2, 1, 0)), bias,
                      pad_mode="pad", padding=pad)
    return _ops.transpose(out, (2, 0, 1))


def addr_(input, vec1, vec2, beta=1, alpha=1):
    """In place: input ← beta · input + alpha · outer(vec1, vec2); returns input."""
    _check("addr_", "input", input, (2,))
    return _inplace(input, _ops.addr(input, vec1, vec2, beta=beta, alpha=alpha))
