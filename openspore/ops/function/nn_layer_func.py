"""Functional NN layers: convolution, bias, pooling, normalization, dropout (MindSpore 2.x signatures), built
on the NN primitives.

1-D variants run the 2-D primitives on an inserted H=1 axis. Primitive instances are the shared ones per attribute
set (`core.registry.prim`, as MindSpore's `_get_cache_prim`), which also keeps op-seeded random streams advancing
across calls.
"""
import numpy as np

from ...core.primitive import PRIMITIVES
from ...core.registry import prim
from ...core.tensor import Tensor
from ..defs._nn_util import hw_pair, pad_four

__all__ = ["conv1d", "conv2d", "conv_transpose2d", "bias_add", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "batch_norm", "layer_norm", "group_norm", "dropout", "dropout2d", "interpolate", "upsample",
           "unfold", "fold", "deformable_conv2d"]

def _reshape(x, shape):
    return prim("Reshape")(x, tuple(shape))


def _one(op, name, value):
    """An int or a 1-tuple (1-D APIs)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise ValueError(f"For '{op}', the '{name}' must be an int or a tuple of one int, but got {value!r}.")
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{op}', the '{name}' must be an int, but got {value!r}.")
    return value


def _check_rank(op, x, ranks):
    if len(x.shape) not in ranks:
        raise ValueError(f"For '{op}', the input must have rank {' or '.join(map(str, ranks))}, "
                         f"but got shape {list(x.shape)}.")


def _as_4d(op, x):
    """(C, H, W) inputs run batched; returns the 4-D tensor and a function restoring the rank."""
    _check_rank(op, x, (3, 4))
    if len(x.shape) == 4:
        return x, lambda t: t
    return _reshape(x, (1,) + tuple(x.shape)), lambda t: _reshape(t, tuple(t.shape[1:]))


# ---- convolution -------------------------------------------------------------------------------------------
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """conv2d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1, groups=1): 2-D
    convolution of an (N, C, H, W) input with an (out, C/groups, kh, kw) weight.

    >>> import numpy as np, openspore as ms
    >>> x = ms.Tensor(np.ones((1, 3, 10, 10), np.float32)); w = ms.Tensor(np.ones((8, 3, 3, 3), np.float32))
    >>> ms.ops.conv2d(x, w, pad_mode='same').shape
    (1, 8, 10, 10)
    """
    op = prim("Conv2D", out_channel=weight.shape[0], kernel_size=tuple(weight.shape[2:]), pad_mode=pad_mode,
                     pad=pad_four("conv2d", "padding", padding), stride=stride, dilation=dilation, group=groups)
    out = op(input, weight)
    return bias_add(out, bias) if bias is not None else out


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1), groups=1,
                      deformable_groups=1, modulated=True):
    """deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1),
    groups=1, deformable_groups=1, modulated=True): a deformable convolution — DeformableOffsets samples each
    kernel point at its learned offset (scaled by its mask), then a convolution with stride = kernel_size
    combines the samples. `strides`/`dilations` are 4-tuples (N, C, H, W), `padding` (top, bottom, left, right).

    >>> import numpy as np, openspore as ms
    >>> x = ms.Tensor(np.ones((1, 1, 3, 3), np.float32)); w = ms.Tensor(np.ones((1, 1, 2, 2), np.float32))
    >>> offsets = np.zeros((1, 12, 2, 2), np.float32); offsets[:, 8:] = 1.0
    >>> ms.ops.deformable_conv2d(x, w, ms.Tensor(offsets), (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)).asnumpy().tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    kernel_size = tuple(kernel_size)
    if len(kernel_size) != 2 or tuple(weight.shape[2:]) != kernel_size:
        raise ValueError(f"For 'deformable_conv2d', 'kernel_size' {kernel_size} must be the weight's spatial shape "
                         f"{list(weight.shape[2:])}.")
    sampled = prim("DeformableOffsets", strides=tuple(strides), pads=tuple(padding), ksize=kernel_size,
                   dilations=tuple(dilations), data_format="NCHW", deformable_groups=deformable_groups,
                   modulated=modulated)(x, offsets)
    return conv2d(sampled, weight, bias, stride=kernel_size, groups=groups)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """conv1d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1, groups=1): 1-D
    convolution of an (N, C, L) input with an (out, C/groups, k) weight."""
    if len(input.shape) != 3 or len(weight.shape) != 3:
        raise ValueError(f"For 'conv1d', the input and weight must be 3-D, but got shapes {list(input.shape)} and "
                         f"{list(weight.shape)}.")
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        left, right = padding
    else:
        left = right = _one("conv1d", "padding", padding)
    x4 = _reshape(input, (input.shape[0], input.shape[1], 1, input.shape[2]))
    w4 = _reshape(weight, (weight.shape[0], weight.shape[1], 1, weight.shape[2]))
    out = conv2d(x4, w4, None, (1, _one("conv1d", "stride", stride)), pad_mode, (0, 0, left, right),
                 (1, _one("conv1d", "dilation", dilation)), groups)
    out = _reshape(out, (out.shape[0], out.shape[1], out.shape[3]))
    return bias_add(out, bias) if bias is not None else out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    the transposed 2-D convolution; weight is (C_in, C_out/groups, kh, kw); output size
    (H-1)*stride - 2*padding + dilation*(kh-1) + output_padding + 1."""
    if len(input.shape) != 4 or len(weight.shape) != 4:
        raise ValueError(f"For 'conv_transpose2d', the input and weight must be 4-D, but got shapes "
                         f"{list(input.shape)} and {list(weight.shape)}.")
    s = hw_pair("conv_transpose2d", "stride", stride)
    d = hw_pair("conv_transpose2d", "dilation", dilation)
    p = hw_pair("conv_transpose2d", "padding", padding, allow_zero=True)
    extra = hw_pair("conv_transpose2d", "output_padding", output_padding, allow_zero=True)
    for axis in range(2):
        if extra[axis] >= s[axis]:
            raise ValueError(f"For 'conv_transpose2d', the 'output_padding' must be smaller than 'stride', "
                             f"but got output_padding {output_padding} and stride {stride}.")
    k = tuple(weight.shape[2:])
    size = tuple((input.shape[2 + a] - 1) * s[a] - 2 * p[a] + d[a] * (k[a] - 1) + extra[a] + 1 for a in range(2))
    if min(size) <= 0:
        raise ValueError(f"For 'conv_transpose2d', the output size {size} must be positive.")
    op = prim("Conv2DTranspose", out_channel=weight.shape[0], kernel_size=k, pad_mode="pad",
                     pad=(p[0], p[0], p[1], p[1]), stride=s, dilation=d, group=groups)
    out = op(input, weight, (input.shape[0], weight.shape[1] * groups) + size)
    return bias_add(out, bias) if bias is not None else out


def bias_add(input_x, bias):
    """bias_add(input_x, bias): add a (C,) bias along axis 1."""
    return prim("BiasAdd")(input_x, bias)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """unfold(input, kernel_size, dilation=1, padding=0, stride=1): sliding blocks of an (N, C, H, W) input as
    (N, C*kh*kw, L) columns."""
    return prim("Im2Col", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)(input)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1): sum (N, C*kh*kw, L) columns back
    into an (N, C, H, W) tensor (the adjoint of unfold)."""
    if hasattr(output_size, "asnumpy"):
        output_size = tuple(output_size.asnumpy().tolist())
    op = prim("Col2Im", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    return op(input, output_size)


# ---- pooling -----------------------------------------------------------------------------------------------
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    2-D max pooling; with return_indices also the int64 flat index of each maximum in its H*W plane."""
    x4, back = _as_4d("max_pool2d", x)
    op = prim("MaxPoolWithArgmaxV2", kernel_size=kernel_size, strides=stride, pads=padding,
                     dilation=hw_pair("max_pool2d", "dilation", dilation), ceil_mode=bool(ceil_mode))
    out, argmax = op(x4)
    return (back(out), back(argmax)) if return_indices else back(out)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    1-D max pooling over the last axis of an (N, C, L) or (C, L) input."""
    _check_rank("max_pool1d", input, (2, 3))
    k = _one("max_pool1d", "kernel_size", kernel_size)
    s = k if stride is None else _one("max_pool1d", "stride", stride)
    x4 = _reshape(input, tuple(input.shape[:-1]) + (1, input.shape[-1]))
    res = max_pool2d(x4, (1, k), (1, s), (0, _one("max_pool1d", "padding", padding)),
                     (1, _one("max_pool1d", "dilation", dilation)), True, ceil_mode)
    out, argmax = (_reshape(t, tuple(t.shape[:-2]) + (t.shape[-1],)) for t in res)
    return (out, argmax) if return_indices else out


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=0): 2-D average pooling (padding: int, (h, w) or (top, bottom, left, right))."""
    x4, back = _as_4d("avg_pool2d", input_x)
    pads = pad_four("avg_pool2d", "padding", padding)
    op = prim("AvgPool2D", kernel_size=kernel_size, strides=stride, pad_mode="pad" if any(pads) else "valid",
                     pad=pads, ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                     divisor_override=divisor_override or 0)
    return back(op(x4))


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    1-D average pooling over the last axis of an (N, C, L) input (padding: int or (left, right))."""
    _check_rank("avg_pool1d", input_x, (2, 3))
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        left, right = padding
    else:
        left = right = _one("avg_pool1d", "padding", padding)
    k = _one("avg_pool1d", "kernel_size", kernel_size)
    s = k if stride is None else _one("avg_pool1d", "stride", stride)
    x4 = _reshape(input_x, tuple(input_x.shape[:-1]) + (1, input_x.shape[-1]))
    out = avg_pool2d(x4, (1, k), (1, s), (0, 0, left, right), ceil_mode, count_include_pad)
    return _reshape(out, tuple(out.shape[:-2]) + (out.shape[-1],))


def adaptive_avg_pool2d(input, output_size):
    """adaptive_avg_pool2d(input, output_size): average pooling to a fixed (H, W) output (None keeps a size)."""
    return prim("AdaptiveAvgPool2D", output_size=output_size)(input)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """adaptive_max_pool2d(input, output_size, return_indices=False): max pooling to a fixed (H, W) output."""
    out, argmax = prim("AdaptiveMaxPool2D", output_size=output_size)(input)
    return (out, argmax) if return_indices else out


def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool1d(input, output_size): average pooling of the last axis to `output_size` bins."""
    _check_rank("adaptive_avg_pool1d", input, (2, 3))
    size = _one("adaptive_avg_pool1d", "output_size", output_size)
    x = _reshape(input, tuple(input.shape[:-1]) + (1, input.shape[-1]))
    out = adaptive_avg_pool2d(x, (1, size))
    return _reshape(out, tuple(input.shape[:-1]) + (size,))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool1d(input, output_size, return_indices=False): max pooling of the last axis to
    `output_size` bins."""
    _check_rank("adaptive_max_pool1d", input, (2, 3))
    size = _one("adaptive_max_pool1d", "output_size", output_size)
    x = _reshape(input, tuple(input.shape[:-1]) + (1, input.shape[-1]))
    out, argmax = adaptive_max_pool2d(x, (1, size), True)
    out, argmax = (_reshape(t, tuple(input.shape[:-1]) + (size,)) for t in (out, argmax))
    return (out, argmax) if return_indices else out


# ---- normalization ----------------------------------------------------------------------------------------
def _filled(value, shape, dtype):
    return Tensor(np.full(shape, value, dtype.np_dtype))


def _assign(ref, value):
    """Write `value` into `ref` in place (the running statistics of batch_norm)."""
    if "Assign" in PRIMITIVES:
        prim("Assign")(ref, value)
        return
    if value.dtype is not ref.dtype:
        value = prim("Cast")(value, ref.dtype)
    ref._set_data_ref(value.data_ref(), ref.dtype)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-05):
    """batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-05):
    batch normalization over the channel axis 1. In training the batch statistics normalize and the running
    ones are updated in place: running = (1 - momentum) * running + momentum * batch (unbiased variance)."""
    channels = input_x.shape[1]
    if weight is None:
        weight = _filled(1.0, (channels,), running_mean.dtype)
    if bias is None:
        bias = _filled(0.0, (channels,), running_mean.dtype)
    op = prim("BatchNorm", is_training=bool(training), epsilon=float(eps), momentum=float(momentum))
    y, batch_mean, batch_var = op(input_x, weight, bias, running_mean, running_var)
    if training:
        count = input_x.size // channels
        mul, add = prim("Mul"), prim("Add")
        unbiased = mul(batch_var, float(count) / max(count - 1, 1))
        keep = 1.0 - float(momentum)
        _assign(running_mean, add(mul(running_mean, keep), mul(batch_mean, float(momentum))))
        _assign(running_var, add(mul(running_var, keep), mul(unbiased, float(momentum))))
    return y


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05): normalize over the trailing
    `normalized_shape` axes, then scale by weight and shift by bias (both of that shape)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = len(input.shape) - len(shape)
    if axis < 0 or tuple(input.shape[axis:]) != shape:
        raise ValueError(f"For 'layer_norm', the 'normalized_shape' {list(shape)} must match the trailing "
                         f"dimensions of the input shape {list(input.shape)}.")
    weight = weight if weight is not None else _filled(1.0, shape, input.dtype)
    bias = bias if bias is not None else _filled(0.0, shape, input.dtype)
    return prim("LayerNorm", begin_norm_axis=axis, begin_params_axis=axis, epsilon=float(eps))(input, weight, bias)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05): normalize each of `num_groups`
    channel groups of an (N, C, *) input over its channels and positions, then apply the per-channel affine."""
    if len(input.shape) < 2:
        raise ValueError(f"For 'group_norm', the input must have rank at least 2, but got {len(input.shape)}.")
    n, channels = input.shape[:2]
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups <= 0 or channels % num_groups:
        raise ValueError(f"For 'group_norm', the 'num_groups' must be a positive int dividing the {channels} "
                         f"channels, but got {num_groups!r}.")
    grouped = _reshape(input, (n, num_groups, -1))
    size = grouped.shape[2]
    op = prim("LayerNorm", begin_norm_axis=2, begin_params_axis=2, epsilon=float(eps))
    y = op(grouped, _filled(1.0, (size,), input.dtype), _filled(0.0, (size,), input.dtype))[0]
    y = _reshape(y, input.shape)
    per_channel = (1, channels) + (1,) * (len(input.shape) - 2)
    if weight is not None:
        y = prim("Mul")(y, _reshape(weight, per_channel))
    if bias is not None:
        y = prim("Add")(y, _reshape(bias, per_channel))
    return y


# ---- dropout ----------------------------------------------------------------------------------------------
def _check_p(op, p):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"For '{op}', the 'p' must be a float in range [0, 1], but got {p!r}.")


def dropout(input, p=0.5, training=True, seed=None):
    """dropout(input, p=0.5, training=True, seed=None): zero elements with probability p and scale the rest by
    1/(1-p) while training; the identity otherwise."""
    _check_p("dropout", p)
    if not training or p == 0:
        return input
    if p == 1:
        return prim("ZerosLike")(input)
    return prim("Dropout", keep_prob=1.0 - p, Seed0=int(seed or 0), Seed1=0)(input)[0]


def dropout2d(input, p=0.5, training=True):
    """dropout2d(input, p=0.5, training=True): zero whole channels of an (N, C, H, W) input with probability p
    and scale the rest by 1/(1-p) while training."""
    _check_p("dropout2d", p)
    if not training or p == 0:
        return input
    if p == 1:
        return prim("ZerosLike")(input)
    return prim("Dropout2D", keep_prob=1.0 - p)(input)[0]


# ---- resizing ---------------------------------------------------------------------------------------------
_RESIZE_MODES = {3: ("nearest", "linear", "area"), 4: ("nearest", "bilinear", "area")}


def _per_axis(op, name, value, n, kind, kind_name):
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(values) != n or not all(isinstance(v, kind) and not isinstance(v, bool) and v > 0 for v in values):
        raise ValueError(f"For '{op}', the '{name}' must be a positive {kind_name} or a tuple of {n} of them, "
                         f"but got {value!r}.")
    return values


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None): resize the spatial axes of an (N, C, L) or (N, C, H, W) input.

    Modes: 'nearest' (3-D/4-D), 'linear' (3-D), 'bilinear' (4-D), 'area' (adaptive average pooling).
    """
    rank = len(input.shape)
    if rank not in _RESIZE_MODES or mode not in _RESIZE_MODES[rank]:
        supported = "; ".join(f"{r}-D: {', '.join(m)}" for r, m in _RESIZE_MODES.items())
        raise ValueError(f"For 'interpolate', mode {mode!r} is not supported for a {rank}-D input (supported: "
                         f"{supported}).")
    if (size is None) == (scale_factor is None):
        raise ValueError("For 'interpolate', exactly one of 'size' and 'scale_factor' must be given.")
    if align_corners is not None and mode not in ("linear", "bilinear"):
        raise ValueError(f"For 'interpolate', 'align_corners' can only be set with the modes 'linear' and "
                         f"'bilinear', but got mode {mode!r}.")
    n = rank - 2
    in_sizes = tuple(input.shape[2:])
    scales = None
    if size is not None:
        out = _per_axis("interpolate", "size", size, n, int, "int")
    else:
        factors = _per_axis("interpolate", "scale_factor", scale_factor, n, (int, float), "number")
        out = tuple(int(i * float(f)) for i, f in zip(in_sizes, factors))
        scales = None if recompute_scale_factor else tuple(float(f) for f in factors)
    if mode == "area":
        return adaptive_avg_pool1d(input, out[0]) if n == 1 else adaptive_avg_pool2d(input, out)
    x = input
    if n == 1:  # a 1-D resize is the 2-D one with H kept at 1
        x = _reshape(input, tuple(input.shape[:2]) + (1, in_sizes[0]))
        out, scales = (1, out[0]), (None if scales is None else (1.0, scales[0]))
    if mode == "nearest":
        op = prim("UpsampleNearest2D", output_size=out, scales=scales)
    else:
        op = prim("UpsampleBilinear2D", output_size=out, scales=scales, align_corners=bool(align_corners))
    y = op(x)
    return _reshape(y, tuple(input.shape[:2]) + (out[1],)) if n == 1 else y


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """upsample(...): the same as interpolate."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)
