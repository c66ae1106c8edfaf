"""Convolution layers: Conv2d, Conv1d, Conv2dTranspose, Conv1dTranspose.

MindSpore defaults differ from PyTorch: `pad_mode='same'` and `has_bias=False`. Weights are
(out, in/group, kh, kw) for convolutions and (in, out/group, kh, kw) for transposed ones; default init is
HeUniform(sqrt(5)) for the weight and Uniform(1/sqrt(fan_in)) for the bias. 1-D layers run the 2-D primitives on
an (N, C, 1, L) view, as MindSpore does.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> nn.Conv2d(3, 8, 3)(ms.Tensor(np.ones((1, 3, 10, 10), np.float32))).shape
(1, 8, 10, 10)
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform
from ..cell import Cell
from ._common import (check_bool, check_dtype, compute_cast, init_repr, int_tuple, is_int, make_param,
                      pad_mode_of, positive_int)


def _pads(cls_name, pad_mode, padding, dims):
    """padding → (top, bottom, left, right) for dims 1 and 2 (2 ints pad left/right when dims=1), and the 6
    (head, tail, top, bottom, left, right) for dims 3; an int pads every side."""
    if dims in (2, 3):
        sides = 2 * dims
        if is_int(padding):
            pads = (int(padding),) * sides
        elif isinstance(padding, (tuple, list)) and len(padding) == sides and all(is_int(p) for p in padding):
            pads = tuple(int(p) for p in padding)
        else:
            raise TypeError(f"For '{cls_name}', the 'padding' must be an int or a tuple of {sides} ints, "
                            f"but got {padding!r}.")
    else:
        if is_int(padding):
            pads = (0, 0, int(padding), int(padding))
        elif isinstance(padding, (tuple, list)) and len(padding) == 2 and all(is_int(p) for p in padding):
            pads = (0, 0, int(padding[0]), int(padding[1]))
        else:
            raise TypeError(f"For '{cls_name}', the 'padding' must be an int or a tuple of 2 ints, "
                            f"but got {padding!r}.")
    if min(pads) < 0:
        raise ValueError(f"For '{cls_name}', the 'padding' must be non-negative, but got {padding!r}.")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{cls_name}', the 'padding' must be 0 when 'pad_mode' is not 'pad', but got "
                         f"padding={padding!r} with pad_mode={pad_mode!r}.")
    return pads


class _Conv(Cell):
    """Argument handling and parameters shared by the convolution layers (2-D geometry throughout)."""

    def __init__(self, name, dims, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                 group, has_bias, weight_init, bias_init, data_format, dtype, transposed):
        super().__init__()
        self.in_channels = positive_int(name, "in_channels", in_channels)
        self.out_channels = positive_int(name, "out_channels", out_channels)
        self.group = positive_int(name, "group", group)
        if self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"For '{name}', the 'in_channels' ({in_channels}) and 'out_channels' ({out_channels}) "
                             f"must both be divisible by 'group' ({group}).")
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, dims)
        self.stride = int_tuple(name, "stride", stride, dims)
        self.dilation = int_tuple(name, "dilation", dilation, dims)
        self.pad_mode = pad_mode_of(name, pad_mode)
        self.padding = padding
        self.pads = _pads(name, self.pad_mode, padding, dims)
        self.has_bias = check_bool(name, "has_bias", has_bias)
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', the 'data_format' must be 'NCHW', but got {data_format!r}.")
        self.format = data_format
        dtype = check_dtype(name, dtype)
        # 1-D layers work on (N, C, 1, L): the 2-D geometry gets a unit leading axis
        self._k2 = self.kernel_size if dims == 2 else (1,) + self.kernel_size
        self._s2 = self.stride if dims == 2 else (1,) + self.stride
        self._d2 = self.dilation if dims == 2 else (1,) + self.dilation
        if transposed:
            shape = (self.in_channels, self.out_channels // self.group) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
        self.weight_init = weight_init if weight_init is not None else HeUniform(math.sqrt(5))
        self.weight = make_param(self.weight_init, shape, dtype, "weight")
        self.bias_init = bias_init
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                fan_in = shape[1] * math.prod(self.kernel_size)
                bias_init = Uniform(1.0 / math.sqrt(fan_in))
            self.bias = make_param(bias_init, (self.out_channels,), dtype, "bias")
            self.bias_add = ops.BiasAdd()

    def _weights(self):
        if self._mixed_dtype is None:
            return self.weight, self.bias
        return compute_cast(self, self.weight), (compute_cast(self, self.bias) if self.has_bias else None)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}, "
                f"weight_init={init_repr(self.weight_init)}, bias_init={init_repr(self.bias_init)}, "
                f"format={self.format}")


class Conv2d(_Conv):
    """`Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1, group=1,
    has_bias=False, weight_init=None, bias_init=None, data_format='NCHW', dtype=mstype.float32)`.

    pad_mode: 'same' (output ceil(in / stride)), 'valid' (no padding) or 'pad' (`padding`: int or
    (top, bottom, left, right)).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCHW",
                 dtype=mstype.float32):
        super().__init__("Conv2d", 2, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, data_format, dtype, transposed=False)
        self.conv2d = ops.Conv2D(out_channel=self.out_channels, kernel_size=self.kernel_size, mode=1,
                                 pad_mode=self.pad_mode, pad=self.pads, stride=self.stride, dilation=self.dilation,
                                 group=self.group)

    def construct(self, x):
        weight, bias = self._weights()
        out = self.conv2d(x, weight)
        if self.has_bias:
            out = self.bias_add(out, bias)
        return out


class Conv1d(_Conv):
    """`Conv1d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1, group=1,
    has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32)`: weight (out, in/group, k);
    input (N, C, L)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32):
        super().__init__("Conv1d", 1, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, "NCHW", dtype, transposed=False)
        self.conv2d = ops.Conv2D(out_channel=self.out_channels, kernel_size=self._k2, mode=1,
                                 pad_mode=self.pad_mode, pad=self.pads, stride=self._s2, dilation=self._d2,
                                 group=self.group)
        self._weight_shape4 = tuple(self.weight.shape[:2]) + self._k2

    def construct(self, x):
        weight, bias = self._weights()
        if len(x.shape) != 3:
            raise ValueError(f"For 'Conv1d', the input must be 3-D (N, C, L), but got shape {list(x.shape)}.")
        n, c, length = x.shape
        out = self.conv2d(ops.reshape(x, (n, c, 1, length)), ops.reshape(weight, self._weight_shape4))
        out = ops.reshape(out, (n, self.out_channels, out.shape[3]))
        if self.has_bias:
            out = self.bias_add(out, bias)
        return out


def _transposed_size(size, k, s, d, pad_mode, pads, extra):
    span = d * (k - 1) + 1
    if pad_mode == "same":
        return size * s
    if pad_mode == "valid":
        return size * s + max(span - s, 0)
    return (size - 1) * s - pads[0] - pads[1] + span + extra


class _ConvTranspose(_Conv):
    def _setup(self, name, output_padding, dims):
        self.output_padding = int_tuple(name, "output_padding", output_padding, dims, allow_zero=True)
        self._op2 = self.output_padding if dims == 2 else (0,) + self.output_padding
        for extra, s, d in zip(self.output_padding, self.stride, self.dilation):
            if extra and (self.pad_mode != "pad" or extra >= max(s, d)):
                raise ValueError(f"For '{name}', the 'output_padding' must be smaller than 'stride' or 'dilation' and "
                                 f"is only used with pad_mode 'pad', but got output_padding={output_padding!r}.")
        self.conv2d_transpose = ops.Conv2DTranspose(out_channel=self.in_channels, kernel_size=self._k2,
                                                    pad_mode=self.pad_mode, pad=self.pads, mode=1, stride=self._s2,
                                                    dilation=self._d2, group=self.group)

    def _out_hw(self, h, w):
        pads = (self.pads[:2], self.pads[2:])
        return tuple(_transposed_size(size, self._k2[a], self._s2[a], self._d2[a], self.pad_mode, pads[a],
                                      self._op2[a]) for a, size in enumerate((h, w)))


class Conv2dTranspose(_ConvTranspose):
    """`Conv2dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
    dtype=mstype.float32)`: the adjoint of Conv2d; weight (in, out/group, kh, kw).

    Output size: 'same' in*stride; 'valid' in*stride + max(span - stride, 0);
    'pad' (in-1)*stride - (pad_before + pad_after) + span + output_padding, span = dilation*(k-1)+1.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        super().__init__("Conv2dTranspose", 2, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype, transposed=True)
        self._setup("Conv2dTranspose", output_padding, 2)

    def construct(self, x):
        weight, bias = self._weights()
        n, _, h, w = x.shape
        out = self.conv2d_transpose(x, weight, (n, self.out_channels) + self._out_hw(h, w))
        if self.has_bias:
            out = self.bias_add(out, bias)
        return out


class Conv1dTranspose(_ConvTranspose):
    """`Conv1dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
    dtype=mstype.float32)`: the adjoint of Conv1d; weight (in, out/group, k); input (N, C, L)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        super().__init__("Conv1dTranspose", 1, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype, transposed=True)
        self._setup("Conv1dTranspose", output_padding, 1)
        self._weight_shape4 = tuple(self.weight.shape[:2]) + self._k2

    def construct(self, x):
        weight, bias = self._weights()
        if len(x.shape) != 3:
            raise ValueError(f"For 'Conv1dTranspose', the input must be 3-D (N, C, L), but got shape "
                             f"{list(x.shape)}.")
        n, c, length = x.shape
        size = self._out_hw(1, length)
        out = self.conv2d_transpose(ops.reshape(x, (n, c, 1, length)), ops.reshape(weight, self._weight_shape4),
                                    (n, self.out_channels) + size)
        out = ops.reshape(out, (n, self.out_channels, size[1]))
        if self.has_bias:
            out = self.bias_add(out, bias)
        return out


__all__ = ["Conv2d", "Conv1d", "Conv2dTranspose", "Conv1dTranspose"]
