"""MindSpore 2.10's `*_ext` spellings of functions openspore already has (isnan_ext, diff_ext, float_power_ext,
mse_loss_ext, baddbmm_ext, einsum_ext, adaptive_avg_pool2d_ext; the mint-style signatures), tensor_range and
mirror_pad (REFLECT / SYMMETRIC padding as one index Gather per axis, so it is differentiable).

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
>>> ms.ops.mirror_pad(x, ms.Tensor([[0, 0], [2, 1]]), "REFLECT").asnumpy().tolist()
[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
>>> ms.ops.mirror_pad(x, ms.Tensor([[0, 0], [2, 1]]), "SYMMETRIC").asnumpy().tolist()
[[2.0, 1.0, 1.0, 2.0, 3.0, 3.0]]
"""
import numpy as np

from ...core.tensor import Tensor
from . import array_extra_func, math_extra_func, math_more_func
from ._base_ops import F

__all__ = ["isnan_ext", "diff_ext", "float_power_ext", "mse_loss_ext", "baddbmm_ext", "einsum_ext",
           "adaptive_avg_pool2d_ext", "tensor_range", "mirror_pad"]


def isnan_ext(tensor):
    """Where `tensor` is NaN (ops.isnan)."""
    return F.isnan(tensor)


def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along `dim` (ops.diff with the mint argument name)."""
    return math_extra_func.diff(input, n, dim, prepend, append)


def float_power_ext(input, exponent):
    """input ** exponent computed in double precision (ops.float_power)."""
    return math_extra_func.float_power(input, exponent)


def mse_loss_ext(input, target, reduction="mean"):
    """The mean squared error (ops.mse_loss)."""
    return F.mse_loss(input, target, reduction)


def baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1):
    """beta·input + alpha·(batch1 @ batch2) (ops.baddbmm with keyword-only scales)."""
    return math_extra_func.baddbmm(input, batch1, batch2, beta, alpha)


def einsum_ext(equation, *operands):
    """Einstein summation (ops.einsum)."""
    return math_more_func.einsum(equation, *operands)


def adaptive_avg_pool2d_ext(input, output_size):
    """2-D adaptive average pooling (ops.adaptive_avg_pool2d)."""
    return F.adaptive_avg_pool2d(input, output_size)


def tensor_range(start, end, step):
    """The 1-D Tensor start, start+step, … (< end) (ops.range)."""
    return array_extra_func.range(start, end, step)


def mirror_pad(input_x, paddings, mode):
    """Pad every axis by paddings[axis] = (before, after) rows mirrored from the input: "REFLECT" excludes the
    edge row (each pad < the axis length), "SYMMETRIC" repeats it (each pad ≤ the axis length)."""
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'mirror_pad', 'mode' must be 'REFLECT' or 'SYMMETRIC', but got {mode!r}.")
    pads = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings)
    if pads.shape != (len(input_x.shape), 2) or pads.dtype.kind not in "iu" or (pads < 0).any():
        raise ValueError(f"For 'mirror_pad', 'paddings' must be non-negative integers of shape "
                         f"({len(input_x.shape)}, 2), but got {pads.tolist()}.")
    out, edge = input_x, 1 if mode == "REFLECT" else 0
    for axis, (before, after) in enumerate(pads.tolist()):
        n = input_x.shape[axis]
        if max(before, after) > n - edge:
            raise ValueError(f"For 'mirror_pad', the paddings {before, after} of axis {axis} must be at most "
                             f"{n - edge} in {mode} mode for an axis of length {n}.")
        if before == after == 0:
            continue
        rows = np.concatenate([np.arange(before, 0, -1) - 1 + edge, np.arange(n),
                               n - 1 - edge - np.arange(after)]).astype(np.int64)
        out = F.gather(out, Tensor(rows), axis)
    return out
