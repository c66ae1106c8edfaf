"""3-D convolution as a sum of 2-D ones: conv3d and the Conv3D class, conv3d_transpose and Conv3DTranspose.

A kernel of depth kd is kd planar kernels: output depth slice z is Σᵢ conv2d(input depth slice z·stride + i·dilation
(after depth padding), weight[:, :, i]). Each term gathers its depth slices into the batch, so the work is kd
Conv2D calls; the transposed convolution places each depth slice's conv_transpose2d at depths
z·stride + i·dilation and crops the padding. Gradients (and gradients of gradients) come from Conv2D's, Gather's and Pad's own rules.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.ones((1, 2, 4, 5, 5), np.float32)); w = ms.Tensor(np.ones((3, 2, 2, 3, 3), np.float32))
>>> y = ms.ops.conv3d(x, w)
>>> y.shape, float(y.asnumpy()[0, 0, 0, 0, 0])
((1, 3, 3, 3, 3), 36.0)
"""
import numpy as np

from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["conv3d", "conv3d_transpose"]


def _triple(name, value, allow_zero=False):
    vals = (value,) * 3 if isinstance(value, int) and not isinstance(value, bool) else value
    if (not isinstance(vals, (tuple, list)) or len(vals) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
            or min(vals) < (0 if allow_zero else 1)):
        raise ValueError(f"For 'conv3d', '{name}' must be an int or a tuple of 3 ints "
                         f"({'non-negative' if allow_zero else 'positive'}), but got {value!r}.")
    return tuple(vals)


def _pads(pad_mode, padding, in_dhw, kernel, stride, dilation):
    """(head, tail) per spatial axis for MindSpore's pad modes: 'valid' none; 'pad' the given ones (3 symmetric
    or 6 explicit); 'same' the output ceil(in/stride), the odd leftover at the tail."""
    if pad_mode == "valid":
        return ((0, 0),) * 3
    if pad_mode == "same":
        pads = []
        for n, k, s, d in zip(in_dhw, kernel, stride, dilation):
            total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
            pads.append((total // 2, total - total // 2))
        return tuple(pads)
    if pad_mode == "pad":
        if isinstance(padding, (tuple, list)) and len(padding) == 6:
            if not all(isinstance(p, int) and p >= 0 for p in padding):
                raise ValueError(f"For 'conv3d', 'padding' must hold non-negative ints, but got {padding!r}.")
            return tuple(zip(padding[0::2], padding[1::2]))
        return tuple((p, p) for p in _triple("padding", padding, allow_zero=True))
    raise ValueError(f"For 'conv3d', 'pad_mode' must be 'valid', 'same' or 'pad', but got {pad_mode!r}.")


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """3-D convolution of an (N, C, D, H, W) input with an (out, C/groups, kd, kh, kw) weight (pad_mode 'valid',
    'same' or 'pad' with `padding` an int, 3 ints or 6 ints (head, tail, top, bottom, left, right))."""
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor) or len(t.shape) != 5:
            raise ValueError(f"For 'conv3d', '{name}' must be a 5-D Tensor, but got "
                             f"{list(t.shape) if isinstance(t, Tensor) else type(t).__name__}.")
    if pad_mode != "pad" and padding not in (0, (0, 0, 0), (0,) * 6):
        raise ValueError(f"For 'conv3d', 'padding' must be 0 when 'pad_mode' is {pad_mode!r}, but got {padding!r}.")
    stride, dilation = _triple("stride", stride), _triple("dilation", dilation)
    n, c, depth, h, w = input.shape
    kd = weight.shape[2]
    pads = _pads(pad_mode, padding, (depth, h, w), tuple(weight.shape[2:]), stride, dilation)
    x = input
    if any(pads[0]):
        x = F.pad(x, (0, 0, 0, 0) + tuple(pads[0]))
    padded_depth = depth + pads[0][0] + pads[0][1]
    out_depth = (padded_depth - dilation[0] * (kd - 1) - 1) // stride[0] + 1
    if out_depth <= 0:
        raise ValueError(f"For 'conv3d', the padded input depth {padded_depth} is smaller than the dilated kernel "
                         f"depth {dilation[0] * (kd - 1) + 1}.")
    out = None
    for i in range(kd):
        rows = Tensor(np.arange(out_depth, dtype=np.int64) * stride[0] + i * dilation[0])
        planes = F.transpose(F.gather(x, rows, 2), (0, 2, 1, 3, 4))
        planes = F.reshape(planes, (n * out_depth, c, h, w))
        kernel = F.reshape(F.gather(weight, Tensor(np.array([i], np.int64)), 2),
                           (weight.shape[0], weight.shape[1]) + tuple(weight.shape[3:]))
        term = F.conv2d(planes, kernel, None, stride[1:], "pad", pads[1] + pads[2], dilation[1:], groups)
        out = term if out is None else out + term
    out = F.transpose(F.reshape(out, (n, out_depth) + tuple(out.shape[1:])), (0, 2, 1, 3, 4))
    if bias is not None:
        out = out + F.reshape(bias, (1, -1, 1, 1, 1))
    return out


def _take(x, axis, start, length):
    """`length` entries of `axis` from `start`, zeros past the end (output_padding beyond the computed rows)."""
    have = min(length, x.shape[axis] - start)
    out = F.gather(x, Tensor(np.arange(start, start + have, dtype=np.int64)), axis)
    if have < length:
        widths = [0] * (2 * len(x.shape))
        widths[2 * (len(x.shape) - 1 - axis) + 1] = length - have  # torch order: last axis first
        out = F.pad(out, tuple(widths))
    return out


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1, output_padding=0):
    """The transposed 3-D convolution (conv3d's input gradient) of (N, C_in, D, H, W) `inputs` with a
    (C_in, C_out/group, kd, kh, kw) weight. Output size per axis: (in−1)·stride + dilation·(k−1) + 1 minus the
    padding (head + tail for 'pad'; down to in·stride for 'same') plus output_padding."""
    for name, t in (("inputs", inputs), ("weight", weight)):
        if not isinstance(t, Tensor) or len(t.shape) != 5:
            raise ValueError(f"For 'conv3d_transpose', '{name}' must be a 5-D Tensor, but got "
                             f"{list(t.shape) if isinstance(t, Tensor) else type(t).__name__}.")
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"For 'conv3d_transpose', 'pad_mode' must be 'valid', 'same' or 'pad', but got {pad_mode!r}.")
    stride, dilation = _triple("stride", stride), _triple("dilation", dilation)
    extra = _triple("output_padding", output_padding, allow_zero=True)
    n, c, depth, h, w = inputs.shape
    kernel = tuple(weight.shape[2:])
    full = tuple((size - 1) * s + d * (k - 1) + 1 for size, s, d, k in zip((depth, h, w), stride, dilation, kernel))
    if pad_mode == "pad":
        pads = _pads("pad", padding, (depth, h, w), kernel, stride, dilation)
    elif pad_mode == "same":
        pads = tuple((max(f - size * s, 0) // 2, max(f - size * s, 0) - max(f - size * s, 0) // 2)
                     for f, size, s in zip(full, (depth, h, w), stride))
    else:
        if padding not in (0, (0, 0, 0), (0,) * 6):
            raise ValueError(f"For 'conv3d_transpose', 'padding' must be 0 when 'pad_mode' is 'valid', "
                             f"but got {padding!r}.")
        pads = ((0, 0),) * 3
    planes = F.reshape(F.transpose(inputs, (0, 2, 1, 3, 4)), (n * depth, c, h, w))
    out = None
    for i in range(kernel[0]):
        kern = F.reshape(F.gather(weight, Tensor(np.array([i], np.int64)), 2),
                         (weight.shape[0], weight.shape[1]) + kernel[1:])
        term = F.conv_transpose2d(planes, kern, None, stride[1:], 0, 0, group, dilation[1:])
        term = F.reshape(term, (n, depth) + tuple(term.shape[1:]))
        if stride[0] > 1:  # interleave stride−1 zero slices, then drop the trailing ones
            spread = F.stack([term] + [F.zeros_like(term)] * (stride[0] - 1), 2)
            term = _take(F.reshape(spread, (n, depth * stride[0]) + tuple(term.shape[2:])), 1, 0,
                         (depth - 1) * stride[0] + 1)
        head = i * dilation[0]
        widths = (0, 0, 0, 0, 0, 0, head, full[0] - head - term.shape[1])
        term = F.pad(term, widths)
        out = term if out is None else out + term
    out = F.transpose(out, (0, 2, 1, 3, 4))
    for axis, (size, (head, tail), more) in enumerate(zip(full, pads, extra)):
        out = _take(out, axis + 2, head, size - head - tail + more)
    return out
