"""mint.nn's convolutions and batch norms: PyTorch's constructor arguments (`padding` per spatial axis or
'same'/'valid', `groups`, `bias=True`, `momentum=0.1`, `track_running_stats`) mapped onto openspore.nn's layers,
which take MindSpore's (`pad_mode`, per-side `padding`, `group`, `has_bias=False`, `momentum=0.9`).

>>> import openspore as ms
>>> from openspore.mint import nn
>>> nn.Conv2d(2, 4, 3, padding=1)(ms.ops.ones((1, 2, 5, 5))).shape
(1, 4, 5, 5)
"""
from ... import nn as _nn

__all__ = ["Conv1d", "Conv2d", "Conv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


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


def _bn_args(momentum, affine, track_running_stats, dtype):
    # PyTorch's running = (1 - momentum)·running + momentum·batch is MindSpore's with momentum 1 - momentum;
    # without running statistics the batch's are used in training and evaluation alike
    return dict(momentum=1.0 - momentum, affine=affine,
                use_batch_statistics=None if track_running_stats else True, **_dtype(dtype))


class BatchNorm1d(_nn.BatchNorm1d):
    """`BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None)`."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__(num_features, eps, **_bn_args(momentum, affine, track_running_stats, dtype))


class BatchNorm2d(_nn.BatchNorm2d):
    """`BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None)`."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__(num_features, eps, **_bn_args(momentum, affine, track_running_stats, dtype))


class BatchNorm3d(_nn.BatchNorm3d):
    """`BatchNorm3d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None)`."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__(num_features, eps, **_bn_args(momentum, affine, track_running_stats, dtype))
