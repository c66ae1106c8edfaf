"""`mindspore.mint.nn.functional`: PyTorch-style neural-network functions on openspore ops.

>>> import openspore as ms
>>> from openspore.mint.nn import functional as F
>>> F.linear(ms.ops.ones((2, 3)), ms.ops.ones((4, 3))).shape
(2, 4)
"""
from ... import ops as _ops

_SHARED = ["relu", "relu6", "sigmoid", "silu", "tanh", "elu", "leaky_relu", "logsigmoid", "prelu", "glu", "one_hot",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "kl_div",
           "soft_margin_loss", "interpolate", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "conv_transpose2d", "pixel_shuffle",
           "fold", "unfold", "dropout", "dropout2d", "hardtanh", "threshold", "embedding", "nll_loss",
           "cross_entropy", "mse_loss", "layer_norm", "group_norm", "batch_norm", "adaptive_avg_pool3d",
           "grid_sample", "max_unpool2d"]
globals().update({name: getattr(_ops, name) for name in _SHARED if hasattr(_ops, name)})


def gelu(input, approximate="none"):
    """GELU (exact, or the tanh form with approximate='tanh')."""
    return _ops.gelu(input, approximate)


def softmax(input, dim=None, dtype=None):
    """Softmax along `dim` (the last axis when None)."""
    return _ops.softmax(input if dtype is None else _ops.cast(input, dtype), -1 if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):
    """log-softmax along `dim`."""
    return _ops.log_softmax(input if dtype is None else _ops.cast(input, dtype), -1 if dim is None else dim)


def linear(input, weight, bias=None):
    """input @ weightᵀ + bias."""
    out = _ops.matmul(input, _ops.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(‖input‖_p along dim, eps)."""
    n = _ops.pow(_ops.sum(_ops.pow(_ops.abs(input), p), dim, keepdim=True), 1.0 / p)
    return input / _ops.clamp(n, eps, None)


def pad(input, pad, mode="constant", value=None):
    """Padded by `pad` (pairs from the last axis backwards)."""
    return _ops.pad(input, tuple(pad), mode, value)


def flatten(input, start_dim=1, end_dim=-1):
    """Axes start_dim..end_dim merged."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, *, ceil_mode=False, return_indices=False):
    """2-D max pooling (stride defaults to kernel_size)."""
    return _ops.max_pool2d(input, kernel_size, kernel_size if stride is None else stride, padding, dilation,
                           return_indices, ceil_mode)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """`interpolate` under its older name."""
    return _ops.interpolate(input, size, scale_factor, mode, align_corners)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling (stride defaults to kernel_size)."""
    return _ops.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                           count_include_pad, 0 if divisor_override is None else divisor_override)


# In-place forms: the result is written back into `input`, which is returned.
def relu_(input):
    """relu, in place."""
    return input.copy_(_ops.relu(input))


def sigmoid_(input):
    """sigmoid, in place."""
    return input.copy_(_ops.sigmoid(input))


def elu_(input, alpha=1.0):
    """elu, in place."""
    return input.copy_(_ops.elu(input, alpha))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh, in place."""
    return input.copy_(_ops.hardtanh(input, min_val, max_val))


def threshold_(input, threshold, value):
    """threshold (input where input > threshold, else value), in place."""
    return input.copy_(_ops.threshold(input, threshold, value))


# PyTorch's convolution arguments: padding is per spatial axis (both sides alike) or 'same'/'valid'; ops.conv*d
# take MindSpore's pad_mode before padding.
def _conv(fn, input, weight, bias, stride, padding, dilation, groups):
    if isinstance(padding, str):
        return fn(input, weight, bias, stride, padding, 0, dilation, groups)
    return fn(input, weight, bias, stride, "pad", padding, dilation, groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (PyTorch's arguments)."""
    return _conv(_ops.conv1d, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (PyTorch's arguments)."""
    return _conv(_ops.conv2d, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (PyTorch's arguments)."""
    return _conv(_ops.conv3d, input, weight, bias, stride, padding, dilation, groups)
