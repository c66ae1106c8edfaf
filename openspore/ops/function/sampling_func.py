"""Resampling composed from gathers and weights: `ops.grid_sample` (bilinear/nearest, zeros/border padding),
`ops.crop_and_resize` (TensorFlow-style box crops, NHWC) and `ops.adaptive_avg_pool3d` (separable window means).
All differentiate with respect to the sampled input (grid_sample also with respect to the grid, bilinear mode).

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2))
>>> grid = ms.Tensor(np.zeros((1, 1, 1, 2), np.float32))  # the centre
>>> ms.ops.grid_sample(x, grid, align_corners=True).asnumpy().ravel().tolist()
[1.5]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["grid_sample", "crop_and_resize", "adaptive_avg_pool3d"]


def _unnormalise(coord, size, align_corners):
    if align_corners:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _gather_2d(flat, ix, iy, width, channels):
    """flat (N, C, H·W); ix/iy (N, Ho, Wo) integer tensors in range → (N, C, Ho, Wo)."""
    n, ho, wo = ix.shape
    index = F.reshape(iy * width + ix, (n, 1, ho * wo))
    index = F.broadcast_to(index, (n, channels, ho * wo))
    return F.reshape(F.gather_elements(flat, 2, index), (n, channels, ho, wo))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Sample the (N, C, H, W) input at the normalised (x, y) ∈ [−1, 1] positions of grid (N, Ho, Wo, 2)."""
    if len(input.shape) != 4 or len(grid.shape) != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise ValueError(f"For 'grid_sample', input must be (N, C, H, W) and grid (N, Ho, Wo, 2), but got "
                         f"{list(input.shape)} and {list(grid.shape)}.")
    if mode not in ("bilinear", "nearest") or padding_mode not in ("zeros", "border"):
        raise ValueError(f"For 'grid_sample', mode must be 'bilinear' or 'nearest' and padding_mode 'zeros' or "
                         f"'border', but got {mode!r} and {padding_mode!r}.")
    n, c, h, w = input.shape
    flat = F.reshape(input, (n, c, h * w))
    x = _unnormalise(F.narrow(grid, 3, 0, 1), w, align_corners)
    y = _unnormalise(F.narrow(grid, 3, 1, 1), h, align_corners)
    x, y = F.squeeze(x, 3), F.squeeze(y, 3)
    if padding_mode == "border":
        x, y = F.clamp(x, 0.0, float(w - 1)), F.clamp(y, 0.0, float(h - 1))

    def corner(cx, cy):
        inside = (cx >= 0) & (cx <= w - 1) & (cy >= 0) & (cy <= h - 1)
        ix = F.cast(F.clamp(cx, 0.0, float(w - 1)), mstype.int64)
        iy = F.cast(F.clamp(cy, 0.0, float(h - 1)), mstype.int64)
        values = _gather_2d(flat, ix, iy, w, c)
        return values * F.expand_dims(F.cast(inside, input.dtype), 1)

    if mode == "nearest":
        return corner(F.round(x), F.round(y))
    x0, y0 = F.floor(x), F.floor(y)
    wx, wy = F.expand_dims(x - x0, 1), F.expand_dims(y - y0, 1)
    top = corner(x0, y0) * (1 - wx) + corner(x0 + 1, y0) * wx
    bottom = corner(x0, y0 + 1) * (1 - wx) + corner(x0 + 1, y0 + 1) * wx
    return top * (1 - wy) + bottom * wy


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0):
    """Crops of the NHWC image at normalised boxes (y1, x1, y2, x2), each resized to crop_size (h, w):
    (num_boxes, h, w, C); sample points outside the image take extrapolation_value."""
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"For 'crop_and_resize', method must be 'bilinear' or 'nearest', but got {method!r}.")
    if len(image.shape) != 4:
        raise ValueError(f"For 'crop_and_resize', image must be (N, H, W, C), but got {list(image.shape)}.")
    n, h, w, c = image.shape
    b = np.asarray(boxes.asnumpy(), np.float32).reshape(-1, 4)  # float32 arithmetic, as the kernels round
    which = np.asarray(box_indices.asnumpy()).astype(np.int64).reshape(-1)
    ch, cw = (int(v) for v in crop_size)

    def positions(lo, hi, size, out):
        scale = np.float32(size - 1)
        step = (hi - lo) * scale / np.float32(out - 1) if out > 1 else np.zeros_like(lo)
        start = lo * scale if out > 1 else np.float32(0.5) * (lo + hi) * scale
        return start[:, None] + np.arange(out, dtype=np.float32)[None, :] * step[:, None]
    ys, xs = positions(b[:, 0], b[:, 2], h, ch), positions(b[:, 1], b[:, 3], w, cw)   # (B, ch), (B, cw)
    flat = F.reshape(image, (n * h * w, c))

    def fetch(yi, xi):
        index = (which[:, None, None] * h + yi[:, :, None]) * w + xi[:, None, :]
        return F.gather(flat, Tensor(index.reshape(-1)), 0)

    inside = (ys >= 0) & (ys <= h - 1)
    inside = inside[:, :, None] & ((xs >= 0) & (xs <= w - 1))[:, None, :]
    if method == "nearest":
        # TensorFlow's (and MindSpore's) rounding: halves away from zero, not numpy's halves-to-even
        half_up = lambda v, size: np.clip(np.floor(v + 0.5), 0, size - 1).astype(np.int64)  # noqa: E731
        yi, xi = half_up(ys, h), half_up(xs, w)
        out = fetch(yi, xi)
    else:
        y0, x0 = np.floor(ys), np.floor(xs)
        wy = Tensor(np.repeat((ys - y0)[:, :, None], cw, 2).reshape(-1, 1).astype(image.dtype.np_dtype))
        wx = Tensor(np.repeat((xs - x0)[:, None, :], ch, 1).reshape(-1, 1).astype(image.dtype.np_dtype))
        cy = lambda v: np.clip(v, 0, h - 1).astype(np.int64)  # noqa: E731
        cx = lambda v: np.clip(v, 0, w - 1).astype(np.int64)  # noqa: E731
        top = fetch(cy(y0), cx(x0)) * (1 - wx) + fetch(cy(y0), cx(x0 + 1)) * wx
        bottom = fetch(cy(y0 + 1), cx(x0)) * (1 - wx) + fetch(cy(y0 + 1), cx(x0 + 1)) * wx
        out = top * (1 - wy) + bottom * wy
    mask = Tensor(inside.reshape(-1, 1))
    out = F.where(mask, F.cast(out, mstype.float32), F.full_like(F.cast(out, mstype.float32), extrapolation_value))
    return F.reshape(out, (b.shape[0], ch, cw, c))


def _window_matrix(n_in, n_out, dtype):
    """Row i averages the input interval [floor(i·n_in/n_out), ceil((i+1)·n_in/n_out))."""
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return Tensor(m.astype(dtype.np_dtype))


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of the last three axes of a (N, C, D, H, W) or (C, D, H, W) input: output cell
    i averages the input interval [floor(i·in/out), ceil((i+1)·in/out)) on each axis (separable)."""
    if len(input.shape) not in (4, 5):
        raise ValueError(f"For 'adaptive_avg_pool3d', the input must be 4-D or 5-D, but got {list(input.shape)}.")
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    out = input
    for k, size in enumerate(sizes):
        axis = len(input.shape) - 3 + k
        target = input.shape[axis] if size is None else int(size)
        m = _window_matrix(out.shape[axis], target, input.dtype)
        moved = F.moveaxis(out, axis, -1)
        out = F.moveaxis(F.matmul(moved, F.transpose(m, (1, 0))), -1, axis)
    return out
