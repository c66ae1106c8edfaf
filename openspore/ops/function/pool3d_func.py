"""3-D pooling (`ops.max_pool3d`, `ops.avg_pool3d` and the MaxPool3D / AvgPool3D classes), composed from Gather:
a box window is a product of intervals, so max and average pooling are separable — pooled along D, then H, then W.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2))
>>> ms.ops.max_pool3d(x, 2).asnumpy().ravel().tolist(), ms.ops.avg_pool3d(x, 2).asnumpy().ravel().tolist()
([7.0], [3.5])
"""
import numpy as np

from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["max_pool3d", "avg_pool3d"]


def _triple(op, name, value, minimum):
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3
    values = values[-3:] if len(values) == 5 else values
    if len(values) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in values):
        raise ValueError(f"For '{op}', '{name}' must be an int >= {minimum} or 3 of them, but got {value!r}.")
    return values


def _pool_axis(x, axis, kernel, stride, dilation, reduce):
    n = x.shape[axis]
    out = (n - dilation * (kernel - 1) - 1) // stride + 1
    if out < 1:
        raise ValueError(f"3-D pooling: the window ({kernel}, dilation {dilation}) does not fit a (padded) "
                         f"dimension of size {n}.")
    starts = np.arange(out) * stride
    taps = [F.gather(x, Tensor(starts + j * dilation), axis) for j in range(kernel)]
    acc = taps[0]
    for t in taps[1:]:
        acc = reduce(acc, t)
    return acc


def _check_input(op, x, ceil_mode):
    if not isinstance(x, Tensor) or len(x.shape) not in (4, 5):
        raise ValueError(f"For '{op}', the input must be a 4-D or 5-D Tensor (N, C, D, H, W), but got "
                         f"{getattr(x, 'shape', x)!r}.")
    if ceil_mode:
        raise ValueError(f"For '{op}', ceil_mode=True is not implemented in openspore; use ceil_mode=False.")


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum over each (dilated) kernel window of the last three axes, padded with −inf."""
    _check_input("max_pool3d", x, ceil_mode)
    if return_indices:
        raise ValueError("For 'max_pool3d', return_indices=True is not implemented in openspore.")
    k = _triple("max_pool3d", "kernel_size", kernel_size, 1)
    s = _triple("max_pool3d", "stride", stride if stride else kernel_size, 1)
    p = _triple("max_pool3d", "padding", padding, 0)
    d = _triple("max_pool3d", "dilation", dilation, 1)
    out = x
    if any(p):
        low = float(np.finfo(x.dtype.np_dtype).min) if x.dtype.kind == "float" else int(np.iinfo(x.dtype.np_dtype).min)
        out = F.pad(x, (p[2], p[2], p[1], p[1], p[0], p[0]), value=low)
    for i in range(3):
        out = _pool_axis(out, len(x.shape) - 3 + i, k[i], s[i], d[i], F.maximum)
    return out


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """The mean over each kernel window of the last three axes (zero padding counted unless
    count_include_pad=False; divisor_override replaces the window size when non-zero)."""
    _check_input("avg_pool3d", input_x, ceil_mode)
    k = _triple("avg_pool3d", "kernel_size", kernel_size, 1)
    s = _triple("avg_pool3d", "stride", stride, 1)
    p = _triple("avg_pool3d", "padding", padding, 0)
    x = F.pad(input_x, (p[2], p[2], p[1], p[1], p[0], p[0])) if any(p) else input_x
    total = x
    for i in range(3):
        total = _pool_axis(total, len(x.shape) - 3 + i, k[i], s[i], 1, F.add)
    if divisor_override:
        return total / float(divisor_override)
    if count_include_pad or not any(p):
        return total / float(np.prod(k))
    ones = np.ones(tuple(input_x.shape[-3:]), input_x.dtype.np_dtype)
    count = Tensor(np.pad(ones, [(v, v) for v in p]))
    for i in range(3):
        count = _pool_axis(count, i, k[i], s[i], 1, F.add)
    return total / count
