"""3-D pooling layers (AvgPool3d, MaxPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d), max unpooling
(MaxUnpool1d/2d/3d) and LRN, over the functional ops.

Max pooling that returns indices, and adaptive max pooling, gather every window's elements by flat position
(a window that is shorter or overhangs the padding repeats one of its own elements, which changes neither the
maximum nor its first position) and take max/argmax over the window axis, so gradients flow through Gather.
Indices are flat positions in each (D, H, W) input volume, as MaxUnpool3d reads them.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2))
>>> out, idx = nn.MaxPool3d(2, 2, return_indices=True)(x)
>>> out.asnumpy().ravel().tolist(), idx.asnumpy().ravel().tolist()
([7.0], [7])
>>> nn.MaxUnpool3d(2)(out, idx).shape
(1, 1, 2, 2, 2)
"""
import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ..cell import Cell
from ._common import check_bool, int_tuple, is_int, pad_mode_of

__all__ = ["AvgPool3d", "MaxPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "LRN"]


def _batched5(name, x):
    if len(x.shape) == 4:
        return ops.expand_dims(x, 0), True
    if len(x.shape) != 5:
        raise ValueError(f"For '{name}', the input must be 4-D (C, D, H, W) or 5-D (N, C, D, H, W), but got shape "
                         f"{list(x.shape)}.")
    return x, False


def _pads6(name, pad_mode, padding, sizes, kernel, stride, dilation):
    """((head, tail) per axis) for 'valid', 'same' (output ceil(in / stride), odd leftover at the tail) or 'pad'."""
    if pad_mode == "same":
        out = []
        for n, k, s, d in zip(sizes, kernel, stride, dilation):
            total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
            out.append((total // 2, total - total // 2))
        return tuple(out)
    if is_int(padding):
        flat = (int(padding),) * 6
    elif isinstance(padding, (tuple, list)) and len(padding) == 3 and all(is_int(p) for p in padding):
        flat = tuple(int(p) for p in padding for _ in range(2))
    elif isinstance(padding, (tuple, list)) and len(padding) == 6 and all(is_int(p) for p in padding):
        flat = tuple(int(p) for p in padding)
    else:
        raise TypeError(f"For '{name}', the 'padding' must be an int or a tuple of 3 or 6 ints, but got {padding!r}.")
    if min(flat) < 0:
        raise ValueError(f"For '{name}', the 'padding' must be non-negative, but got {padding!r}.")
    if pad_mode == "valid" and any(flat):
        raise ValueError(f"For '{name}', the 'padding' must be 0 when 'pad_mode' is 'valid', but got {padding!r}.")
    return tuple(zip(flat[0::2], flat[1::2]))


def _pad(x, pads, value=0.0):
    widths = []
    for head, tail in reversed(pads):  # F.pad takes the last axis first
        widths += [head, tail]
    return ops.pad(x, tuple(widths), value=value) if any(widths) else x


def _lowest(x):
    return float(np.finfo(x.dtype.np_dtype).min) if x.dtype.kind == "float" else int(np.iinfo(x.dtype.np_dtype).min)


def _gather_max(x, windows):
    """(max, flat index of the max) of x's (D, H, W) volume over each row of `windows` (P, K), for an output of
    spatial shape windows.shape[0] (reshaped by the caller)."""
    n, c = x.shape[:2]
    volume = ops.reshape(x, (n, c, -1))
    p, k = windows.shape
    taken = ops.reshape(ops.gather(volume, Tensor(windows.reshape(-1)), 2), (n, c, p, k))
    values = ops.amax(taken, -1)
    pos = ops.argmax(taken, -1)
    table = ops.broadcast_to(Tensor(windows), (n, c, p, k))
    index = ops.squeeze(ops.gather_elements(table, 3, ops.expand_dims(pos, -1)), -1)
    return values, index


def _grid(axes):
    """Every combination of per-axis (flat offset, valid) choices: (positions, valid) arrays of shape (P, K)."""
    pos, ok = np.zeros((1, 1), np.int64), np.ones((1, 1), bool)
    for offsets, valid in axes:  # offsets/valid: (out_i, k_i)
        o, kk = offsets.shape
        pos = (pos[:, None, :, None] + offsets[None, :, None, :]).reshape(pos.shape[0] * o, -1)
        ok = (ok[:, None, :, None] & valid[None, :, None, :]).reshape(ok.shape[0] * o, -1)
    return pos, ok


def _fill_invalid(pos, ok, name):
    if not ok.any(axis=1).all():
        raise ValueError(f"For '{name}', a pooling window lies entirely in the padding; the padding must be "
                         f"smaller than the kernel.")
    first = pos[np.arange(pos.shape[0]), ok.argmax(axis=1)]
    return np.where(ok, pos, first[:, None])


class AvgPool3d(Cell):
    """`AvgPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)`: the mean of each window of a (N, C, D, H, W) or (C, D, H, W) input; `padding`
    (pad_mode 'pad') is an int, 3 ints or 6 (head, tail, top, bottom, left, right)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = int_tuple("AvgPool3d", "kernel_size", kernel_size, 3)
        self.stride = int_tuple("AvgPool3d", "stride", stride, 3)
        self.pad_mode = pad_mode_of("AvgPool3d", pad_mode)
        self.padding = padding
        _pads6("AvgPool3d", self.pad_mode, padding, (1, 1, 1), self.kernel_size, self.stride, (1, 1, 1))
        if check_bool("AvgPool3d", "ceil_mode", ceil_mode):
            raise ValueError("For 'AvgPool3d', ceil_mode=True is not implemented in openspore; use ceil_mode=False.")
        self.count_include_pad = check_bool("AvgPool3d", "count_include_pad", count_include_pad)
        if divisor_override is not None and (not is_int(divisor_override) or divisor_override <= 0):
            raise ValueError(f"For 'AvgPool3d', the 'divisor_override' must be a positive int or None, but got "
                             f"{divisor_override!r}.")
        self.divisor_override = divisor_override

    def construct(self, x):
        x, added = _batched5("AvgPool3d", x)
        pads = _pads6("AvgPool3d", self.pad_mode, self.padding, x.shape[2:], self.kernel_size, self.stride,
                      (1, 1, 1))
        volume = float(np.prod(self.kernel_size))
        total = ops.avg_pool3d(_pad(x, pads), self.kernel_size, self.stride) * volume
        if self.divisor_override:
            out = total / float(self.divisor_override)
        elif self.count_include_pad or not any(sum(pads, ())):
            out = total / volume
        else:
            ones = Tensor(np.pad(np.ones((1, 1) + tuple(x.shape[2:]), x.dtype.np_dtype), ((0, 0), (0, 0)) + pads))
            out = total / (ops.avg_pool3d(ones, self.kernel_size, self.stride) * volume)
        return ops.squeeze(out, 0) if added else out


class MaxPool3d(Cell):
    """`MaxPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, return_indices=False,
    ceil_mode=False)`: the maximum of each window (padding never wins); with return_indices, also each maximum's
    flat position in its input (D, H, W) volume."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = int_tuple("MaxPool3d", "kernel_size", kernel_size, 3)
        self.stride = int_tuple("MaxPool3d", "stride", stride, 3)
        self.dilation = int_tuple("MaxPool3d", "dilation", dilation, 3)
        self.pad_mode = pad_mode_of("MaxPool3d", pad_mode)
        self.padding = padding
        _pads6("MaxPool3d", self.pad_mode, padding, (1, 1, 1), self.kernel_size, self.stride, self.dilation)
        self.return_indices = check_bool("MaxPool3d", "return_indices", return_indices)
        if check_bool("MaxPool3d", "ceil_mode", ceil_mode):
            raise ValueError("For 'MaxPool3d', ceil_mode=True is not implemented in openspore; use ceil_mode=False.")

    def _windows(self, sizes, pads):
        axes, strides = [], (sizes[1] * sizes[2], sizes[2], 1)
        for n, k, s, d, (head, tail), step in zip(sizes, self.kernel_size, self.stride, self.dilation, pads, strides):
            out = (n + head + tail - d * (k - 1) - 1) // s + 1
            if out < 1:
                raise ValueError(f"For 'MaxPool3d', the window does not fit the padded input of size {n + head + tail}.")
            at = np.arange(out)[:, None] * s + np.arange(k)[None, :] * d - head
            axes.append((np.clip(at, 0, n - 1) * step, (at >= 0) & (at < n)))
        pos, ok = _grid(axes)
        return _fill_invalid(pos, ok, "MaxPool3d"), tuple(a[0].shape[0] for a in axes)

    def construct(self, x):
        x, added = _batched5("MaxPool3d", x)
        pads = _pads6("MaxPool3d", self.pad_mode, self.padding, x.shape[2:], self.kernel_size, self.stride,
                      self.dilation)
        if not self.return_indices:
            out = ops.max_pool3d(_pad(x, pads, _lowest(x)), self.kernel_size, self.stride, 0, self.dilation)
            return ops.squeeze(out, 0) if added else out
        windows, spatial = self._windows(tuple(x.shape[2:]), pads)
        out, index = (ops.reshape(t, tuple(x.shape[:2]) + spatial) for t in _gather_max(x, windows))
        return (ops.squeeze(out, 0), ops.squeeze(index, 0)) if added else (out, index)


def _output_size3(name, output_size, sizes):
    values = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    if len(values) != 3 or not all(v is None or (is_int(v) and v > 0) for v in values):
        raise ValueError(f"For '{name}', the 'output_size' must be a positive int or 3 of them (None keeps an "
                         f"input size), but got {output_size!r}.")
    return tuple(n if v is None else int(v) for v, n in zip(values, sizes))


class AdaptiveAvgPool3d(Cell):
    """`AdaptiveAvgPool3d(output_size)`: output cell i averages the input interval
    [floor(i·in/out), ceil((i+1)·in/out)) on each of the last three axes."""

    def __init__(self, output_size):
        super().__init__()
        _output_size3("AdaptiveAvgPool3d", output_size, (1, 1, 1))
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool3d(Cell):
    """`AdaptiveMaxPool3d(output_size, return_indices=False)`: the maximum of each adaptive window (as
    AdaptiveAvgPool3d's), and with return_indices its flat position in the input (D, H, W) volume."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        _output_size3("AdaptiveMaxPool3d", output_size, (1, 1, 1))
        self.output_size = output_size
        self.return_indices = check_bool("AdaptiveMaxPool3d", "return_indices", return_indices)

    def construct(self, x):
        x, added = _batched5("AdaptiveMaxPool3d", x)
        sizes = tuple(x.shape[2:])
        outs = _output_size3("AdaptiveMaxPool3d", self.output_size, sizes)
        axes, steps = [], (sizes[1] * sizes[2], sizes[2], 1)
        for n, o, step in zip(sizes, outs, steps):
            starts = (np.arange(o) * n) // o
            ends = -((-(np.arange(o) + 1) * n) // o)
            width = int((ends - starts).max())
            at = starts[:, None] + np.arange(width)[None, :]
            axes.append((np.minimum(at, ends[:, None] - 1) * step, np.ones(at.shape, bool)))
        windows, _ = _grid(axes)
        out, index = (ops.reshape(t, tuple(x.shape[:2]) + outs) for t in _gather_max(x, windows))
        index = ops.cast(index, mstype.int32)  # MindSpore's AdaptiveMaxPool3D gives int32 positions
        if added:
            out, index = ops.squeeze(out, 0), ops.squeeze(index, 0)
        return (out, index) if self.return_indices else out


class _MaxUnpool(Cell):
    _dims = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, self._dims)
        self.stride = self.kernel_size if stride is None else int_tuple(name, "stride", stride, self._dims)
        self.padding = int_tuple(name, "padding", padding, self._dims, allow_zero=True)
        self._fn = (ops.max_unpool1d, ops.max_unpool2d, ops.max_unpool3d)[self._dims - 1]

    def construct(self, x, indices, output_size=None):
        return self._fn(x, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpool):
    """`MaxUnpool1d(kernel_size, stride=None, padding=0)(x, indices, output_size=None)`: the partial inverse of
    MaxPool1d: x's values at `indices`, zeros elsewhere; length (L−1)·stride − 2·padding + kernel_size."""
    _dims = 1


class MaxUnpool2d(_MaxUnpool):
    """`MaxUnpool2d(kernel_size, stride=None, padding=0)(x, indices, output_size=None)`: the partial inverse of
    MaxPool2d; indices are flat positions in each H·W output plane."""
    _dims = 2


class MaxUnpool3d(_MaxUnpool):
    """`MaxUnpool3d(kernel_size, stride=None, padding=0)(x, indices, output_size=None)`: the partial inverse of
    MaxPool3d; indices are flat positions in each D·H·W output volume."""
    _dims = 3


class LRN(Cell):
    """`LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')`: local response
    normalization of a (N, C, H, W) input, x / (bias + alpha · Σ x² over 2·depth_radius+1 channels) ** beta."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if not is_int(depth_radius) or depth_radius < 0:
            raise ValueError(f"For 'LRN', the 'depth_radius' must be a non-negative int, but got {depth_radius!r}.")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', the 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
        self.depth_radius, self.bias, self.alpha, self.beta = int(depth_radius), float(bias), float(alpha), float(beta)
        self.norm_region = norm_region

    def construct(self, x):
        return ops.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)
