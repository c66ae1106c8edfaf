"""More of MindSpore's neural-network and detection functions, composed from primitives: box arithmetic (`iou`,
`bounding_box_encode`/`decode`, `check_valid`), `intopk`, `lrn`, `affine_grid`, `multilabel_margin_loss`, `rrelu`
and the Laplace samplers. The box conventions (pixel-inclusive widths, +1) follow MindSpore's kernels and were
checked against MindSpore 2.10.

>>> import numpy as np, openspore as ms
>>> a = ms.Tensor(np.array([[0, 0, 10, 10]], np.float32))
>>> g = ms.Tensor(np.array([[2, 3, 8, 12]], np.float32))
>>> round(float(ms.ops.iou(a, g).asnumpy()[0, 0]), 4)
0.4148
"""
import math as _math

import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "intopk", "lrn", "affine_grid",
           "multilabel_margin_loss", "rrelu", "laplace", "standard_laplace"]


def _check(op, name, value, rank=None, last=None):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(value).__name__}.")
    if (rank is not None and len(value.shape) != rank) or (last is not None and value.shape[-1] != last):
        want = f"rank {rank}" + (f" with last dimension {last}" if last is not None else "")
        raise ValueError(f"For '{op}', '{name}' must have {want}, but got shape {list(value.shape)}.")


def _cols(boxes):
    return [F.narrow(boxes, -1, i, 1) for i in range(4)]


# ---- boxes (x1, y1, x2, y2), widths counted inclusively as MindSpore does ----------------------------------------
def iou(anchor_boxes, gt_boxes, mode="iou"):
    """(M, N) overlaps of M gt boxes with N anchors: intersection over union ('iou') or over the gt box's
    area ('iof')."""
    _check("iou", "anchor_boxes", anchor_boxes, 2, 4)
    _check("iou", "gt_boxes", gt_boxes, 2, 4)
    if mode not in ("iou", "iof"):
        raise ValueError(f"For 'iou', 'mode' must be 'iou' or 'iof', but got {mode!r}.")
    ax1, ay1, ax2, ay2 = [F.reshape(c, (1, -1)) for c in _cols(anchor_boxes)]
    gx1, gy1, gx2, gy2 = _cols(gt_boxes)
    w = F.clamp(F.minimum(ax2, gx2) - F.maximum(ax1, gx1) + 1.0, 0.0, None)
    h = F.clamp(F.minimum(ay2, gy2) - F.maximum(ay1, gy1) + 1.0, 0.0, None)
    inter = w * h
    area_g = (gx2 - gx1 + 1.0) * (gy2 - gy1 + 1.0)
    if mode == "iof":
        return inter / area_g
    area_a = (ax2 - ax1 + 1.0) * (ay2 - ay1 + 1.0)
    return inter / (area_a + area_g - inter)


def _centres(boxes):
    x1, y1, x2, y2 = _cols(boxes)
    w, h = x2 - x1 + 1.0, y2 - y1 + 1.0
    return x1 + 0.5 * (w - 1.0), y1 + 0.5 * (h - 1.0), w, h


def _per_coordinate(values, like):
    return Tensor(np.asarray(values, like.dtype.np_dtype).reshape(1, 4))


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """The (dx, dy, dw, dh) deltas taking each anchor to its ground-truth box, normalised by means and stds."""
    _check("bounding_box_encode", "anchor_box", anchor_box, 2, 4)
    _check("bounding_box_encode", "groundtruth_box", groundtruth_box, 2, 4)
    px, py, pw, ph = _centres(anchor_box)
    gx, gy, gw, gh = _centres(groundtruth_box)
    deltas = F.concat([(gx - px) / pw, (gy - py) / ph, F.log(gw / pw), F.log(gh / ph)], -1)
    return (deltas - _per_coordinate(means, deltas)) / _per_coordinate(stds, deltas)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """The boxes that `deltas` (denormalised by stds and means) make of the anchors, width/height ratios clipped
    to |log(wh_ratio_clip)|, coordinates clipped to the (height, width) in max_shape."""
    _check("bounding_box_decode", "anchor_box", anchor_box, 2, 4)
    _check("bounding_box_decode", "deltas", deltas, 2, 4)
    d = deltas * _per_coordinate(stds, deltas) + _per_coordinate(means, deltas)
    dx, dy, dw, dh = _cols(d)
    limit = abs(_math.log(wh_ratio_clip))
    dw, dh = F.clamp(dw, -limit, limit), F.clamp(dh, -limit, limit)
    px, py, pw, ph = _centres(anchor_box)
    gx, gy = px + pw * dx, py + ph * dy
    gw, gh = pw * F.exp(dw), ph * F.exp(dh)
    height, width = float(max_shape[0]), float(max_shape[1])
    x1 = F.clamp(gx - 0.5 * gw + 0.5, 0.0, width)
    y1 = F.clamp(gy - 0.5 * gh + 0.5, 0.0, height)
    x2 = F.clamp(gx + 0.5 * gw - 0.5, 0.0, width)
    y2 = F.clamp(gy + 0.5 * gh - 0.5, 0.0, height)
    return F.concat([x1, y1, x2, y2], -1)


def check_valid(bboxes, img_metas):
    """Whether each box lies inside the image: x1, y1 ≥ 0 and x2 ≤ width·ratio − 1, y2 ≤ height·ratio − 1, with
    img_metas = (height, width, ratio)."""
    _check("check_valid", "bboxes", bboxes, 2, 4)
    _check("check_valid", "img_metas", img_metas, 1, 3)
    meta = F.cast(img_metas, bboxes.dtype)
    height = F.narrow(meta, 0, 0, 1) * F.narrow(meta, 0, 2, 1)
    width = F.narrow(meta, 0, 1, 1) * F.narrow(meta, 0, 2, 1)
    x1, y1, x2, y2 = _cols(bboxes)
    ok = (x1 >= 0) & (y1 >= 0) & (x2 <= width - 1.0) & (y2 <= height - 1.0)
    return F.reshape(ok, (-1,))


def intopk(x1, x2, k):
    """Whether each target class x2[i] is among the k largest predictions x1[i, :] (ties counted in)."""
    _check("intopk", "x1", x1, 2)
    _check("intopk", "x2", x2, 1)
    target = F.gather_elements(x1, 1, F.reshape(F.cast(x2, mstype.int64), (-1, 1)))
    above = F.sum(F.cast(x1 > target, mstype.int32), 1)
    return above < k


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation across channels of an NCHW input:
    x / (bias + alpha · Σ_{|c' − c| ≤ depth_radius} x[c']²) ** beta."""
    _check("lrn", "x", x, 4)
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For 'lrn', 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
    r, c = int(depth_radius), x.shape[1]
    squares = F.pad(F.transpose(F.square(x), (0, 2, 3, 1)), (r, r))
    window = F.narrow(squares, 3, 0, c)
    for k in range(1, 2 * r + 1):
        window = window + F.narrow(squares, 3, k, c)
    return x / F.pow(bias + alpha * F.transpose(window, (0, 3, 1, 2)), beta)


def affine_grid(theta, size, align_corners=False):
    """The sampling grid (N, H, W, 2) — or (N, D, H, W, 3) — that the affine matrices theta (N, 2, 3) —
    or (N, 3, 4) — make of a normalised [−1, 1] output grid of `size` (N, C, H, W) — or (N, C, D, H, W)."""
    _check("affine_grid", "theta", theta, 3)
    size = tuple(int(s) for s in size)
    spatial = size[2:]
    if len(spatial) not in (2, 3) or tuple(theta.shape[1:]) != (len(spatial), len(spatial) + 1):
        raise ValueError(f"For 'affine_grid', theta must be (N, 2, 3) with a 4-D size or (N, 3, 4) with a 5-D "
                         f"size, but got theta {list(theta.shape)} and size {list(size)}.")

    def axis(n):
        if align_corners:
            return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        return (np.arange(n) * 2.0 + 1.0) / n - 1.0
    coords = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")
    base = np.stack(list(coords[::-1]) + [np.ones(spatial)], -1).reshape(-1, len(spatial) + 1)  # (x, y[, z], 1)
    base = Tensor(base.astype(theta.dtype.np_dtype))
    grid = F.matmul(base, F.transpose(theta, (0, 2, 1)))
    return F.reshape(grid, (size[0],) + spatial + (len(spatial),))


def multilabel_margin_loss(input, target, reduction="mean"):
    """Σ_j Σ_i max(0, 1 − (x[y_j] − x[i])) / C over target classes y_j (the entries of `target` before its
    first −1) and non-target classes i, per sample, then reduced."""
    _check("multilabel_margin_loss", "input", input)
    _check("multilabel_margin_loss", "target", target)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"For 'multilabel_margin_loss', 'reduction' must be 'mean', 'sum' or 'none', but got "
                         f"{reduction!r}.")
    x = F.reshape(input, (1, -1)) if len(input.shape) == 1 else input
    t = F.reshape(target, (1, -1)) if len(target.shape) == 1 else target
    c = x.shape[1]
    tgt = t.asnumpy().astype(np.int64)
    valid = np.cumprod(tgt >= 0, axis=1).astype(bool)   # targets end at the first −1
    is_target = np.zeros(x.shape, bool)
    for row in range(tgt.shape[0]):
        is_target[row, tgt[row][valid[row]]] = True
    safe = Tensor(np.where(valid, tgt, 0))
    picked = F.gather_elements(x, 1, safe)                                   # x[y_j], (N, C)
    margins = F.relu(1.0 - (F.expand_dims(picked, 2) - F.expand_dims(x, 1)))  # (N, j, i)
    mask = Tensor((valid[:, :, None] & ~is_target[:, None, :]).astype(x.dtype.np_dtype))
    loss = F.sum(margins * mask, (1, 2)) / float(c)
    loss = F.reshape(loss, ()) if len(input.shape) == 1 else loss
    return F.mean(loss) if reduction == "mean" else F.sum(loss) if reduction == "sum" else loss


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """Randomised leaky ReLU: negative entries scaled by a slope drawn uniformly from [lower, upper]."""
    _check("rrelu", "input", input)
    if not lower <= upper:
        raise ValueError(f"For 'rrelu', 'lower' ({lower}) must not exceed 'upper' ({upper}).")
    slope = F.uniform(tuple(input.shape), Tensor(float(lower)), Tensor(float(upper)))
    return F.where(input >= 0, input, input * F.cast(slope, input.dtype))


def standard_laplace(shape, seed=None):
    """Samples of the standard Laplace distribution (float32), by inverting its CDF on uniform draws."""
    u = F.uniform(tuple(shape), Tensor(-0.5), Tensor(0.5), seed)
    # clamp keeps log finite at the (measure-zero) end point u = −0.5
    return -F.sign(u) * F.log(F.clamp(1.0 - 2.0 * F.abs(u), 1e-38, None))


def laplace(shape, mean, lambda_param, seed=None):
    """Samples of Laplace(mean, lambda_param): mean + lambda_param · standard Laplace draws."""
    return standard_laplace(shape, seed) * lambda_param + mean
