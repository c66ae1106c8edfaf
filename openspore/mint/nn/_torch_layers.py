"""mint.nn's convolutions and Fold: PyTorch's constructor arguments (`padding` per spatial axis or 'same'/'valid',
`groups`, `bias=True`) mapped onto openspore.nn's layers, which take MindSpore's (`pad_mode`, per-side `padding`,
`group`, `has_bias=False`).

>>> import openspore as ms
>>> from openspore.mint import nn
>>> nn.Conv2d(2, 4, 3, padding=1)(ms.ops.ones((1, 2, 5, 5))).shape
(1, 4, 5, 5)
"""
from ... import nn as _nn
from ... import ops as _ops

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "Fold"]


def _conv_args(name, dims, padding, padding_mode, groups, bias):
    if padding_mode != "zeros":
        raise ValueError(f"For '{name}', padding_mode {padding_mode!r} is not supported in openspore; only 'zeros'.")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"For '{name}', a string padding must be 'same' or 'valid', but got {padding!r}.")
        pad_mode, sides = padding, 0
    else:
        per_axis = (padding,) * dims if isinstance(padding, int) else tuple(padding)
        if len(per_axis) != dims:
            raise ValueError(f"For '{name}', padding must be an int or {dims} ints, but got {padding!r}.")
        # PyTorch pads both sides of each axis alike; MindSpore lists (before, after) per axis
        pad_mode, sides = "pad", per_axis[0] if dims == 1 else tuple(p for p in per_axis for _ in (0, 1))
    return dict(pad_mode=pad_mode, padding=sides, group=groups, has_bias=bias)


def _dtype(dtype):
    return {} if dtype is None else {"dtype": dtype}


class Conv1d(_nn.Conv1d):
    """`Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', dtype=None)`."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, dilation=dilation, **_dtype(dtype),
                         **_conv_args("Conv1d", 1, padding, padding_mode, groups, bias))


class Conv2d(_nn.Conv2d):
    """`Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', dtype=None)`."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, dilation=dilation, **_dtype(dtype),
                         **_conv_args("Conv2d", 2, padding, padding_mode, groups, bias))


class Conv3d(_nn.Conv3d):
    """`Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', dtype=None)`."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, dilation=dilation, **_dtype(dtype),
                         **_conv_args("Conv3d", 3, padding, padding_mode, groups, bias))


def _pair(name, label, value):
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in pair):
        raise ValueError(f"For '{name}', '{label}' must be a non-negative int or two of them, but got {value!r}.")
    return pair


class ConvTranspose2d(_nn.Conv2dTranspose):
    """`ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
    bias=True, dilation=1, padding_mode='zeros', dtype=None)`: weight (in, out/groups, kh, kw); output size per
    axis (in − 1)·stride − 2·padding + dilation·(k − 1) + output_padding + 1."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f"For 'ConvTranspose2d', padding_mode {padding_mode!r} is not supported; only 'zeros'.")
        ph, pw = _pair("ConvTranspose2d", "padding", padding)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode="pad", padding=(ph, ph, pw, pw),
                         output_padding=_pair("ConvTranspose2d", "output_padding", output_padding),
                         dilation=dilation, group=groups, has_bias=bias, **_dtype(dtype))


class Fold(_nn.Cell):
    """`Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)`: sums sliding-window columns (N, C·kh·kw,
    L), or unbatched (C·kh·kw, L), back into (N, C, H, W) — the adjoint of Unfold."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = _pair("Fold", "output_size", output_size)
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def construct(self, input):
        if len(input.shape) not in (2, 3):
            raise ValueError(f"For 'Fold', the input must be (N, C*kh*kw, L) or (C*kh*kw, L), but got shape "
                             f"{list(input.shape)}.")
        batched = input if len(input.shape) == 3 else _ops.expand_dims(input, 0)
        out = _ops.fold(batched, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)
        return out if len(input.shape) == 3 else _ops.squeeze(out, 0)
