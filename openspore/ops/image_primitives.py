"""MindSpore's image Primitive classes computed as composites (the pattern of composite_primitives.py): colour
space conversions and adjustments, patch extraction, morphological dilation, and the non-maximum suppressions.

The colour and patch ops are written with the functional API, so they differentiate and compile; the
suppressions return indices and masks (no gradient) and run greedily on the host.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.RGBToHSV()(ms.Tensor(np.array([[1.0, 0.0, 0.0]], np.float32))).asnumpy().tolist()
[[0.0, 1.0, 1.0]]
>>> boxes = ms.Tensor(np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6]], np.float32))
>>> ops.NonMaxSuppressionV3()(boxes, ms.Tensor(np.array([0.9, 0.8, 0.7], np.float32)), 3, 0.5, 0.0).asnumpy().tolist()
[0, 2]
"""
import numpy as np

from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive


def _host(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _check_rgb(op, x):
    if not isinstance(x, Tensor) or not x.shape or x.shape[-1] != 3 or x.dtype.kind != "float":
        raise ValueError(f"For '{op}', the input must be a float Tensor whose last dimension is 3, but got "
                         f"{getattr(x, 'shape', x)!r}.")


# ---- colour spaces ----------------------------------------------------------------------------------------------------
def rgb_to_hsv(images):
    """RGB in [0, 1] (last axis) → HSV with hue in [0, 1)."""
    r, g, b = (F.narrow(images, -1, i, 1) for i in range(3))
    value = F.maximum(F.maximum(r, g), b)
    delta = value - F.minimum(F.minimum(r, g), b)
    safe = F.where(delta > 0, delta, F.ones_like(delta))
    hue = F.where(value == r, (g - b) / safe, F.where(value == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    hue = F.where(delta > 0, hue / 6.0, F.zeros_like(hue))
    hue = hue - F.floor(hue)  # wrap negative hues (red side) into [0, 1)
    sat = F.where(value > 0, delta / F.where(value > 0, value, F.ones_like(value)), F.zeros_like(value))
    return F.concat((hue, sat, value), -1)


def hsv_to_rgb(images):
    """HSV (hue in [0, 1)) → RGB: each channel is a clipped triangle wave of the hue, scaled by s and v."""
    h, s, v = (F.narrow(images, -1, i, 1) for i in range(3))
    dh = h * 6.0
    red = F.clamp(F.abs(dh - 3.0) - 1.0, 0.0, 1.0)
    green = F.clamp(2.0 - F.abs(dh - 2.0), 0.0, 1.0)
    blue = F.clamp(2.0 - F.abs(dh - 4.0), 0.0, 1.0)
    return F.concat(tuple(((c - 1.0) * s + 1.0) * v for c in (red, green, blue)), -1)


def _checked(op, fn):
    def call(self, images, *args):
        _check_rgb(op, images)
        return fn(self, images, *args)
    return call


def _adjust_hue(self, image, delta):
    hsv = rgb_to_hsv(image)
    hue = F.narrow(hsv, -1, 0, 1) + delta
    hue = hue - F.floor(hue)
    return hsv_to_rgb(F.concat((hue, F.narrow(hsv, -1, 1, 2)), -1))


def _adjust_saturation(self, image, scale):
    hsv = rgb_to_hsv(image)
    sat = F.clamp(F.narrow(hsv, -1, 1, 1) * scale, 0.0, 1.0)
    return hsv_to_rgb(F.concat((F.narrow(hsv, -1, 0, 1), sat, F.narrow(hsv, -1, 2, 1)), -1))


RGBToHSV = _primitive("RGBToHSV", _checked("RGBToHSV", lambda self, x: rgb_to_hsv(x)),
                      doc="RGBToHSV()(images): RGB in [0, 1] along the last axis → HSV (hue in [0, 1)).")
HSVToRGB = _primitive("HSVToRGB", _checked("HSVToRGB", lambda self, x: hsv_to_rgb(x)),
                      doc="HSVToRGB()(x): HSV along the last axis → RGB.")
AdjustHue = _primitive("AdjustHue", _checked("AdjustHue", _adjust_hue),
                       doc="AdjustHue()(image, delta): rotate the hue by delta (a fraction of the colour wheel).")
AdjustSaturation = _primitive("AdjustSaturation", _checked("AdjustSaturation", _adjust_saturation),
                              doc="AdjustSaturation()(image, scale): saturation times scale, clipped to [0, 1].")


# ---- patches and dilation ----------------------------------------------------------------------------------------------
def _spatial(op, name, value, channels_first=False, n=2):
    """(1, a, b, 1) — or (1, 1, a, b) when channels_first — / (a, b) / a → (a, b)."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(values) == n + 2:
        values = values[2:] if channels_first else values[1:-1]
    if len(values) != n or not all(isinstance(v, int) and v >= 1 for v in values):
        raise ValueError(f"For '{op}', '{name}' must be {n} positive ints (or 1, ..., 1 around them), but got "
                         f"{value!r}.")
    return values


def _pads(size, kernel, stride, rate, same):
    span = (kernel - 1) * rate + 1
    if not same:
        out = (size - span) // stride + 1
        return out, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def _taps(op, x, kernel, strides, rates, padding, fill):
    """For each kernel offset (row-major), the strided (N, C, out_h, out_w) view of the padded input."""
    if padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"For '{op}', 'padding' must be 'SAME' or 'VALID', but got {padding!r}.")
    same = padding.upper() == "SAME"
    geo = [_pads(x.shape[2 + i], kernel[i], strides[i], rates[i], same) for i in range(2)]
    if min(g[0] for g in geo) < 1:
        raise ValueError(f"For '{op}', the window does not fit the input of spatial shape {list(x.shape[2:])}.")
    padded = F.pad(x, (geo[1][1], geo[1][2], geo[0][1], geo[0][2]), value=fill) if same else x
    out = []
    for i in range(kernel[0]):
        rows = F.gather(padded, Tensor(np.arange(geo[0][0]) * strides[0] + i * rates[0]), 2)
        for j in range(kernel[1]):
            out.append(F.gather(rows, Tensor(np.arange(geo[1][0]) * strides[1] + j * rates[1]), 3))
    return out


def _extract_image_patches(self, x):
    k = _spatial("ExtractImagePatches", "ksizes", self.ksizes)
    taps = _taps("ExtractImagePatches", x, k, _spatial("ExtractImagePatches", "strides", self.strides),
                 _spatial("ExtractImagePatches", "rates", self.rates), self.padding, 0.0)
    n, c, oh, ow = taps[0].shape
    # depth ordered (row, col, channel) with the channel fastest, as MindSpore (and TensorFlow) lay it out
    return F.reshape(F.stack(taps, 1), (n, k[0] * k[1] * c, oh, ow))


ExtractImagePatches = _primitive(
    "ExtractImagePatches", _extract_image_patches,
    attrs=[("ksizes", (1, 1, 1, 1)), ("strides", (1, 1, 1, 1)), ("rates", (1, 1, 1, 1)), ("padding", "valid")],
    doc="ExtractImagePatches(ksizes, strides, rates, padding='valid')(x (N, C, H, W)): each kh×kw patch as a "
        "depth column (N, kh·kw·C, out_h, out_w), channel fastest.")


def _dilation2d(self, x, filter):
    if self.data_format != "NCHW":
        raise ValueError(f"For 'Dilation2D', only data_format 'NCHW' is supported, but got {self.data_format!r}.")
    c, kh, kw = filter.shape
    low = float(np.finfo(x.dtype.np_dtype).min)
    taps = _taps("Dilation2D", x, (kh, kw), _spatial("Dilation2D", "stride", self.stride, True),
                 _spatial("Dilation2D", "dilation", self.dilation, True), self.pad_mode, low)
    weights = F.reshape(filter, (1, c, kh * kw, 1, 1))
    return F.amax(F.stack(taps, 2) + weights, 2)


Dilation2D = _primitive(
    "Dilation2D", _dilation2d, attrs=[("stride", 1), ("dilation", 1), ("pad_mode", "SAME"), ("data_format", "NCHW")],
    doc="Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter (C, kh, kw)): grey-scale "
        "morphological dilation, max over the window of x + filter.")


# ---- non-maximum suppression ---------------------------------------------------------------------------------------------
def _iou_matrix(boxes):
    """Pairwise IoU of (N, 4) boxes given by two opposite corners (any order)."""
    lo, hi = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
    area = np.prod(hi - lo, axis=1)
    inter = np.prod(np.clip(np.minimum(hi[:, None], hi[None]) - np.maximum(lo[:, None], lo[None]), 0, None), axis=2)
    union = area[:, None] + area[None] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _greedy(overlaps, scores, limit, threshold, score_threshold):
    """Indices kept by greedy suppression: best first; a box goes when it overlaps a kept one above threshold."""
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > score_threshold]
    kept = []
    for i in order:
        if len(kept) >= limit:
            break
        if all(overlaps[i, j] <= threshold for j in kept):
            kept.append(int(i))
    return kept


def _scalar(v):
    return _host(v).reshape(-1)[0].item()


def _nms_v3(self, boxes, scores, max_output_size, iou_threshold, score_threshold):
    b = _host(boxes).astype(np.float64)
    kept = _greedy(_iou_matrix(b), _host(scores).astype(np.float64), int(_scalar(max_output_size)),
                   float(_scalar(iou_threshold)), float(_scalar(score_threshold)))
    return Tensor(np.array(kept, np.int32))


def _nms_overlaps(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    kept = _greedy(_host(overlaps).astype(np.float64), _host(scores).astype(np.float64),
                   int(_scalar(max_output_size)), float(_scalar(overlap_threshold)), float(_scalar(score_threshold)))
    return Tensor(np.array(kept, np.int32))


def _nms_with_mask(self, bboxes):
    data = _host(bboxes)
    if data.ndim != 2 or data.shape[1] != 5:
        raise ValueError(f"For 'NMSWithMask', 'bboxes' must be (N, 5) [x1, y1, x2, y2, score], but got "
                         f"{list(data.shape)}.")
    order = np.argsort(-data[:, 4].astype(np.float64), kind="stable")
    ranked = data[order]
    kept = set(_greedy(_iou_matrix(ranked[:, :4].astype(np.float64)), -np.arange(len(order), dtype=np.float64),
                       len(order), float(self.iou_threshold), -np.inf))
    mask = np.array([i in kept for i in range(len(order))])
    return Tensor(ranked), Tensor(order.astype(np.int32)), Tensor(mask)


def _combined_nms(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold):
    b, s = _host(boxes).astype(np.float64), _host(scores).astype(np.float64)
    per_class, total = int(_scalar(max_output_size_per_class)), int(_scalar(max_total_size))
    iou, floor = float(_scalar(iou_threshold)), float(_scalar(score_threshold))
    batch, _, q, _ = b.shape
    classes = s.shape[2]
    size = min(total, per_class * classes) if self.pad_per_class else total
    out_boxes, out_scores = np.zeros((batch, size, 4)), np.zeros((batch, size))
    out_classes, valid = np.zeros((batch, size)), np.zeros((batch,), np.int32)
    for n in range(batch):
        found = []
        for c in range(classes):
            cb = b[n, :, c if q > 1 else 0]
            for i in _greedy(_iou_matrix(cb), s[n, :, c], per_class, iou, floor):
                found.append((s[n, i, c], cb[i], c))
        found.sort(key=lambda t: -t[0])
        found = found[:size]
        valid[n] = len(found)
        for k, (score, box, c) in enumerate(found):
            out_boxes[n, k], out_scores[n, k], out_classes[n, k] = (np.clip(box, 0, 1) if self.clip_boxes else box,
                                                                      score, c)
    dtype = scores.dtype.np_dtype
    return (Tensor(out_boxes.astype(dtype)), Tensor(out_scores.astype(dtype)), Tensor(out_classes.astype(dtype)),
            Tensor(valid))


NonMaxSuppressionV3 = _primitive(
    "NonMaxSuppressionV3", _nms_v3,
    doc="NonMaxSuppressionV3()(boxes (N, 4), scores, max_output_size, iou_threshold, score_threshold): int32 indices "
        "kept by greedy suppression, best score first.")
NonMaxSuppressionWithOverlaps = _primitive(
    "NonMaxSuppressionWithOverlaps", _nms_overlaps,
    doc="NonMaxSuppressionWithOverlaps()(overlaps (N, N), scores, max_output_size, overlap_threshold, "
        "score_threshold): greedy suppression on a given overlap matrix.")
NMSWithMask = _primitive(
    "NMSWithMask", _nms_with_mask, attrs=[("iou_threshold", 0.5)],
    doc="NMSWithMask(iou_threshold=0.5)(bboxes (N, 5)): (boxes sorted by score, their original indices, mask of "
        "the kept ones).")
CombinedNonMaxSuppression = _primitive(
    "CombinedNonMaxSuppression", _combined_nms, attrs=[("pad_per_class", False), ("clip_boxes", True)],
    doc="CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes (B, N, q, 4), scores (B, N, C), "
        "max_output_size_per_class, max_total_size, iou_threshold, score_threshold): per-class suppression, then "
        "the best max_total_size → (boxes, scores, classes, valid_detections).")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive)
