"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d.

With default arguments the layers use MindSpore's classic primitives (`MaxPool`, `AvgPool`); padding, dilation,
ceil mode or returned indices switch to the general ones (`MaxPoolWithArgmaxV2`, `AvgPool2D`), as MindSpore does.
1-D layers pool an (N, C, 1, L) view. Unbatched (C, H, W) / (C, L) inputs are accepted.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> nn.MaxPool2d(2, 2)(ms.Tensor(np.ones((1, 1, 5, 5), np.float32))).shape
(1, 1, 2, 2)
"""
from ... import ops
from ..cell import Cell
from ._common import check_bool, int_tuple, is_int, pad_mode_of


def _batched(x, rank):
    """(x with a batch axis, whether one was added)."""
    if len(x.shape) == rank - 1:
        return ops.expand_dims(x, 0), True
    if len(x.shape) != rank:
        raise ValueError(f"For the pooling layer, the input must be {rank - 1}-D or {rank}-D, but got shape "
                         f"{list(x.shape)}.")
    return x, False


def _pool_padding(name, padding, dims, pad_mode):
    if dims == 1:
        if not is_int(padding) or padding < 0:
            raise ValueError(f"For '{name}', the 'padding' must be a non-negative int, but got {padding!r}.")
        pads = (0, int(padding))
    elif is_int(padding):
        pads = (int(padding),) * 2
    elif isinstance(padding, (tuple, list)) and len(padding) in (2, 4) and all(is_int(p) for p in padding):
        pads = tuple(int(p) for p in padding)
    else:
        raise TypeError(f"For '{name}', the 'padding' must be an int or a tuple of 2 ints, but got {padding!r}.")
    if min(pads) < 0:
        raise ValueError(f"For '{name}', the 'padding' must be non-negative, but got {padding!r}.")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{name}', the 'padding' must be 0 unless 'pad_mode' is 'pad', but got {padding!r}.")
    return pads


class _Pool(Cell):
    def __init__(self, name, dims, kernel_size, stride, pad_mode, padding):
        super().__init__()
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, dims)
        self.stride = int_tuple(name, "stride", stride, dims)
        self.pad_mode = pad_mode_of(name, pad_mode)
        self.padding = padding
        self._pads = _pool_padding(name, padding, dims, self.pad_mode)
        self._dims = dims
        self._k2 = self.kernel_size if dims == 2 else (1,) + self.kernel_size
        self._s2 = self.stride if dims == 2 else (1,) + self.stride

    def _run(self, x):
        rank = self._dims + 2
        x, added = _batched(x, rank)
        if self._dims == 1:
            n, c, length = x.shape
            out = self._pool(ops.reshape(x, (n, c, 1, length)))
            if isinstance(out, tuple):
                out = tuple(ops.reshape(o, (n, c, o.shape[3])) for o in out)
            else:
                out = ops.reshape(out, (n, c, out.shape[3]))
        else:
            out = self._pool(x)
        if added:
            out = tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
        return out

    def construct(self, x):
        return self._run(x)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}"


class _MaxPool(_Pool):
    def __init__(self, name, dims, kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode):
        super().__init__(name, dims, kernel_size, stride, pad_mode, padding)
        self.dilation = int_tuple(name, "dilation", dilation, dims)
        self.return_indices = check_bool(name, "return_indices", return_indices)
        self.ceil_mode = check_bool(name, "ceil_mode", ceil_mode)
        general = (self.pad_mode == "pad" or any(self._pads) or max(self.dilation) > 1 or self.return_indices
                   or self.ceil_mode)
        if general and self.pad_mode == "same":
            raise ValueError(f"For '{name}', pad_mode 'same' does not combine with dilation, ceil_mode or "
                             "return_indices; use pad_mode 'pad'.")
        self._general = general
        if len(self._pads) == 4:
            raise ValueError(f"For '{name}', the 'padding' pads both sides alike: give an int or (pad_h, pad_w), "
                             f"but got {padding!r}.")
        if general:
            d2 = self.dilation if dims == 2 else (1,) + self.dilation
            pads = self._pads if dims == 2 else (0, self._pads[1])
            self.max_pool = ops.MaxPoolWithArgmaxV2(kernel_size=self._k2, strides=self._s2, pads=pads[:2],
                                                    dilation=d2, ceil_mode=self.ceil_mode)
        else:
            self.max_pool = ops.MaxPool(kernel_size=self._k2, strides=self._s2, pad_mode=self.pad_mode)
            self.max_pool_argmax = self.max_pool.argmax_twin()

    def _pool(self, x):
        if not self._general:
            # MaxPool's values with the argmax kept for the backward rule (which would otherwise pool again),
            # in PyNative and captured graphs alike; export writes MindSpore's MaxPool (see MaxPool.argmax_twin)
            return self.max_pool_argmax(x)[0]
        out, indices = self.max_pool(x)
        return (out, indices) if self.return_indices else out


class MaxPool2d(_MaxPool):
    """`MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, return_indices=False,
    ceil_mode=False, data_format='NCHW')`: max over kernel windows of an (N, C, H, W) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        if data_format != "NCHW":
            raise ValueError(f"For 'MaxPool2d', the 'data_format' must be 'NCHW', but got {data_format!r}.")
        super().__init__("MaxPool2d", 2, kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode)


class MaxPool1d(_MaxPool):
    """`MaxPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, return_indices=False,
    ceil_mode=False)`: max over kernel windows of an (N, C, L) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__("MaxPool1d", 1, kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode)


class _AvgPool(_Pool):
    def __init__(self, name, dims, kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad,
                 divisor_override):
        super().__init__(name, dims, kernel_size, stride, pad_mode, padding)
        self.ceil_mode = check_bool(name, "ceil_mode", ceil_mode)
        self.count_include_pad = check_bool(name, "count_include_pad", count_include_pad)
        if divisor_override is not None and (not is_int(divisor_override) or divisor_override <= 0):
            raise ValueError(f"For '{name}', the 'divisor_override' must be a positive int or None, "
                             f"but got {divisor_override!r}.")
        self.divisor_override = divisor_override
        general = (self.pad_mode == "pad" or self.ceil_mode or not self.count_include_pad
                   or divisor_override is not None)
        if general:
            pads = self._pads if dims == 2 else (0, 0, self._pads[1], self._pads[1])
            self.avg_pool = ops.AvgPool2D(kernel_size=self._k2, strides=self._s2, pad_mode=self.pad_mode, pad=pads,
                                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad,
                                          divisor_override=divisor_override or 0)
        else:
            self.avg_pool = ops.AvgPool(kernel_size=self._k2, strides=self._s2, pad_mode=self.pad_mode)

    def _pool(self, x):
        return self.avg_pool(x)


class AvgPool2d(_AvgPool):
    """`AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None, data_format='NCHW')`: mean over kernel windows of an (N, C, H, W) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, data_format="NCHW"):
        if data_format != "NCHW":
            raise ValueError(f"For 'AvgPool2d', the 'data_format' must be 'NCHW', but got {data_format!r}.")
        super().__init__("AvgPool2d", 2, kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad,
                         divisor_override)


class AvgPool1d(_AvgPool):
    """`AvgPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False, count_include_pad=True)`:
    mean over kernel windows of an (N, C, L) input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__("AvgPool1d", 1, kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad, None)


def _output_size(name, output_size, dims):
    items = (output_size,) * dims if is_int(output_size) or output_size is None else output_size
    if (not isinstance(items, (tuple, list)) or len(items) != dims
            or not all(v is None or (is_int(v) and v > 0) for v in items)):
        raise ValueError(f"For '{name}', the 'output_size' must be a positive int or a tuple of {dims} positive "
                         f"ints (None keeps that size), but got {output_size!r}.")
    return tuple(items)


class _Adaptive(Cell):
    def __init__(self, name, dims, output_size):
        super().__init__()
        self.output_size = output_size
        self._size = _output_size(name, output_size, dims)
        if dims == 1 and self._size[0] is None:
            raise ValueError(f"For '{name}', the 'output_size' must be a positive int, but got None.")
        self._dims = dims

    def _run(self, x):
        if self._dims == 2:
            return self._pool(x)
        if len(x.shape) not in (2, 3):
            raise ValueError(f"For '{type(self).__name__}', the input must be 2-D or 3-D, but got shape "
                             f"{list(x.shape)}.")
        lead = tuple(x.shape[:-1])
        out = self._pool(ops.expand_dims(x, -2))
        reshape = lambda o: ops.reshape(o, lead + (o.shape[-1],))  # noqa: E731
        return tuple(reshape(o) for o in out) if isinstance(out, tuple) else reshape(out)

    def construct(self, x):
        return self._run(x)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_Adaptive):
    """`AdaptiveAvgPool2d(output_size)`: mean over adaptive bins of the last two axes (None keeps a size)."""

    def __init__(self, output_size):
        super().__init__("AdaptiveAvgPool2d", 2, output_size)
        self.adaptive_avgpool2d = ops.AdaptiveAvgPool2D(output_size=self._size)

    def _pool(self, x):
        return self.adaptive_avgpool2d(x)


class AdaptiveAvgPool1d(_Adaptive):
    """`AdaptiveAvgPool1d(output_size)`: mean over adaptive bins of the last axis of an (N, C, L) input."""

    def __init__(self, output_size):
        super().__init__("AdaptiveAvgPool1d", 1, output_size)
        self.adaptive_avgpool2d = ops.AdaptiveAvgPool2D(output_size=(1, self._size[0]))

    def _pool(self, x):
        return self.adaptive_avgpool2d(x)


class _AdaptiveMax(_Adaptive):
    def __init__(self, name, dims, output_size, return_indices):
        super().__init__(name, dims, output_size)
        self.return_indices = check_bool(name, "return_indices", return_indices)
        size = self._size if dims == 2 else (1, self._size[0])
        self.adaptive_maxpool2d = ops.AdaptiveMaxPool2D(output_size=size)

    def _pool(self, x):
        out, indices = self.adaptive_maxpool2d(x)
        return (out, indices) if self.return_indices else out


class AdaptiveMaxPool2d(_AdaptiveMax):
    """`AdaptiveMaxPool2d(output_size, return_indices=False)`: max over adaptive bins of the last two axes."""

    def __init__(self, output_size, return_indices=False):
        super().__init__("AdaptiveMaxPool2d", 2, output_size, return_indices)


class AdaptiveMaxPool1d(_AdaptiveMax):
    """`AdaptiveMaxPool1d(output_size, return_indices=False)`: max over adaptive bins of the last axis."""

    def __init__(self, output_size, return_indices=False):
        super().__init__("AdaptiveMaxPool1d", 1, output_size, return_indices)


__all__ = ["MaxPool2d", "MaxPool1d", "AvgPool2d", "AvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool1d"]
