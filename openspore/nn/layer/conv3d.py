"""3-D convolution layers: Conv3d and Conv3dTranspose over `ops.conv3d` / `ops.conv3d_transpose`.

MindSpore's defaults as for the 2-D layers: `pad_mode='same'`, `has_bias=False`, HeUniform(sqrt(5)) weights and
Uniform(1/sqrt(fan_in)) biases. Weights are (out, in/group, kd, kh, kw) for Conv3d and (in, out/group, kd, kh, kw)
for Conv3dTranspose; `padding` is an int or 6 ints (head, tail, top, bottom, left, right) with pad_mode 'pad'.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> nn.Conv3d(2, 4, 3)(ms.Tensor(np.ones((1, 2, 5, 6, 6), np.float32))).shape
(1, 4, 5, 6, 6)
>>> nn.Conv3dTranspose(2, 3, 2, stride=2)(ms.Tensor(np.ones((1, 2, 2, 3, 3), np.float32))).shape
(1, 3, 4, 6, 6)
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform
from ..cell import Cell
from .conv import _pads
from ._common import check_bool, check_dtype, init_repr, int_tuple, make_param, pad_mode_of, positive_int


class _Conv3dBase(Cell):
    def __init__(self, name, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                 has_bias, weight_init, bias_init, data_format, dtype, transposed):
        super().__init__()
        self.in_channels = positive_int(name, "in_channels", in_channels)
        self.out_channels = positive_int(name, "out_channels", out_channels)
        self.group = positive_int(name, "group", group)
        if self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(f"For '{name}', the 'in_channels' ({in_channels}) and 'out_channels' ({out_channels}) "
                             f"must both be divisible by 'group' ({group}).")
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, 3)
        self.stride = int_tuple(name, "stride", stride, 3)
        self.dilation = int_tuple(name, "dilation", dilation, 3)
        self.pad_mode = pad_mode_of(name, pad_mode)
        self.padding = _pads(name, self.pad_mode, padding, dims=3)
        self.has_bias = check_bool(name, "has_bias", has_bias)
        if data_format != "NCDHW":
            raise ValueError(f"For '{name}', the 'data_format' must be 'NCDHW', but got {data_format!r}.")
        self.format = data_format
        dtype = check_dtype(name, dtype)
        io = (self.in_channels, self.out_channels // self.group) if transposed else \
            (self.out_channels, self.in_channels // self.group)
        shape = io + self.kernel_size
        self.weight_init = weight_init if weight_init is not None else HeUniform(math.sqrt(5))
        self.weight = make_param(self.weight_init, shape, dtype, "weight")
        self.bias_init = bias_init
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                bias_init = Uniform(1.0 / math.sqrt(shape[1] * math.prod(self.kernel_size)))
            self.bias = make_param(bias_init, (self.out_channels,), dtype, "bias")

    def _check_input(self, name, x):
        if len(x.shape) != 5:
            raise ValueError(f"For '{name}', the input must be 5-D (N, C, D, H, W), but got shape {list(x.shape)}.")

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}, "
                f"weight_init={init_repr(self.weight_init)}, bias_init={init_repr(self.bias_init)}")


class Conv3d(_Conv3dBase):
    """`Conv3d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1, group=1,
    has_bias=False, weight_init=None, bias_init=None, data_format='NCDHW', dtype=mstype.float32)`: input
    (N, C_in, D, H, W) → (N, C_out, D_out, H_out, W_out)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=mstype.float32):
        super().__init__("Conv3d", in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, weight_init, bias_init, data_format, dtype, transposed=False)

    def construct(self, x):
        self._check_input("Conv3d", x)
        return ops.conv3d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding, self.dilation,
                          self.group)


class Conv3dTranspose(_Conv3dBase):
    """`Conv3dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1,
    group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format='NCDHW',
    dtype=mstype.float32)`: the adjoint of Conv3d. Output size per axis: 'same' in·stride; 'valid'
    (in−1)·stride + dilation·(k−1) + 1; 'pad' that minus head and tail padding, plus output_padding."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=mstype.float32):
        super().__init__("Conv3dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype, transposed=True)
        self.output_padding = int_tuple("Conv3dTranspose", "output_padding", output_padding, 3, allow_zero=True)
        for extra, s, d in zip(self.output_padding, self.stride, self.dilation):
            if extra >= max(s, d):
                raise ValueError(f"For 'Conv3dTranspose', the 'output_padding' must be smaller than 'stride' or "
                                 f"'dilation', but got output_padding={output_padding!r}.")

    def construct(self, x):
        self._check_input("Conv3dTranspose", x)
        out = ops.conv3d_transpose(x, self.weight, self.pad_mode, self.padding, self.stride, self.dilation,
                                   self.group, self.output_padding)
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, -1, 1, 1, 1))
        return out


__all__ = ["Conv3d", "Conv3dTranspose"]
