"""Automatic augmentation policies (`RandAugment`, `TrivialAugmentWide`) and the crops that carry bounding
boxes along (`RandomCropWithBBox`, `RandomResizedCropWithBBox`, `BoundingBoxAugment`).

RandAugment applies `num_ops` operations drawn uniformly from its list, all at one magnitude (bin `magnitude` of
`num_magnitude_bins`); TrivialAugmentWide applies one operation at a uniformly drawn magnitude bin over wider
ranges. Geometric operations (shear, translate, rotate) and the signed colour factors take a random sign.

>>> import numpy as np
>>> from openspore.dataset import vision
>>> image = np.zeros((8, 8, 3), np.uint8)
>>> boxes = np.array([[2, 2, 4, 4]], np.float32)
>>> out, new = vision.RandomCropWithBBox(6)(image, boxes)
>>> out.shape, new.shape
((6, 6, 3), (1, 4))
"""
import math

import numpy as np

from ..transforms import image_ops as K
from ..transforms.base import TensorOperation, check_prob, rng
from ._common import _back, _to_array
from .adjust import AutoContrast, Equalize, Posterize, Solarize
from .augment import _affine_matrix, _warp, _warp_inter
from .bbox import check_bboxes
from .geometry import RandomCrop, RandomResizedCrop
from .utils import Inter


def _shift_boxes(bboxes, top, left, height, width):
    """Boxes moved into a crop at (top, left) of (height, width): clipped to it; boxes left outside dropped."""
    boxes = np.array(bboxes, dtype=np.asarray(bboxes).dtype)
    x0 = np.clip(boxes[:, 0] - left, 0, width)
    y0 = np.clip(boxes[:, 1] - top, 0, height)
    x1 = np.clip(boxes[:, 0] + boxes[:, 2] - left, 0, width)
    y1 = np.clip(boxes[:, 1] + boxes[:, 3] - top, 0, height)
    keep = (x1 > x0) & (y1 > y0)
    boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3] = x0, y0, x1 - x0, y1 - y0
    return boxes[keep]


class RandomCropWithBBox(RandomCrop):
    """`RandomCropWithBBox(size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT)`:
    RandomCrop on the image; the boxes follow the padding and the crop (clipped to it; boxes outside it dropped)."""

    def _execute(self, img, bboxes):
        check_bboxes(img, bboxes, "RandomCropWithBBox")
        arr, was_pil = _to_array(img, "RandomCropWithBBox")
        boxes = np.array(bboxes, dtype=np.asarray(bboxes).dtype)
        th, tw = self.size
        if self.padding is not None:
            left, top, right, bottom = self.padding
            arr = K.pad(arr, left, top, right, bottom, fill=self.fill_value, mode=self._mode)
            boxes[:, 0] += left
            boxes[:, 1] += top
        h, w = arr.shape[:2]
        if self.pad_if_needed and (h < th or w < tw):
            dh, dw = max(0, th - h), max(0, tw - w)
            arr = K.pad(arr, dw, dh, dw, dh, fill=self.fill_value, mode=self._mode)
            boxes[:, 0] += dw
            boxes[:, 1] += dh
            h, w = arr.shape[:2]
        if h < th or w < tw:
            raise ValueError(f"For 'RandomCropWithBBox', the crop size {self.size} is greater than the image size "
                             f"{(h, w)}; set 'padding' or 'pad_if_needed'.")
        top, left = int(rng().integers(h - th + 1)), int(rng().integers(w - tw + 1))
        return _back(K.crop(arr, top, left, th, tw), was_pil), _shift_boxes(boxes, top, left, th, tw)


class RandomResizedCropWithBBox(RandomResizedCrop):
    """`RandomResizedCropWithBBox(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)`: RandomResizedCrop on the image; the boxes are cropped with it and scaled to `size`."""

    def _execute(self, img, bboxes):
        check_bboxes(img, bboxes, "RandomResizedCropWithBBox")
        arr, was_pil = _to_array(img, "RandomResizedCropWithBBox")
        top, left, ch, cw = self._region(*arr.shape[:2])
        out = K.resize(K.crop(arr, top, left, ch, cw), self.size, self._method)
        boxes = _shift_boxes(bboxes, top, left, ch, cw)
        boxes[:, [0, 2]] *= self.size[1] / cw
        boxes[:, [1, 3]] *= self.size[0] / ch
        return _back(out, was_pil), boxes


class BoundingBoxAugment(TensorOperation):
    """`BoundingBoxAugment(transform, ratio=0.3)`: apply `transform` to the image region of a random `ratio` of
    the boxes (each region transformed on its own and put back, resized to the box if the transform changed its
    size); the boxes are unchanged."""

    def __init__(self, transform, ratio=0.3):
        if not callable(transform):
            raise TypeError(f"For 'BoundingBoxAugment', 'transform' must be callable, but got "
                            f"{type(transform).__name__}.")
        self.transform, self.ratio = transform, check_prob(ratio, "BoundingBoxAugment")

    def _execute(self, img, bboxes):
        check_bboxes(img, bboxes, "BoundingBoxAugment")
        arr, was_pil = _to_array(img, "BoundingBoxAugment")
        out = np.array(arr)
        boxes = np.asarray(bboxes)
        count = int(len(boxes) * self.ratio)
        for k in rng().permutation(len(boxes))[:count]:
            x, y, bw, bh = (int(v) for v in boxes[k, :4])
            if bw < 1 or bh < 1:
                continue
            region = np.asarray(self.transform(np.ascontiguousarray(out[y:y + bh, x:x + bw])))
            if region.shape[:2] != (bh, bw):
                region = K.resize(region, (bh, bw), "linear")
            out[y:y + bh, x:x + bw] = region.reshape(out[y:y + bh, x:x + bw].shape).astype(out.dtype)
        return _back(out, was_pil), np.array(bboxes)


def _geometric(img, inter, fill, degrees=0.0, shift=(0.0, 0.0), shear=(0.0, 0.0)):
    h, w = img.shape[:2]
    matrix = _affine_matrix(((w - 1) * 0.5, (h - 1) * 0.5), degrees, shift, 1.0, shear)
    return _warp(img, matrix, inter, fill)


def _apply(name, img, magnitude, inter, fill):
    """One named operation at a signed magnitude on a uint8 HWC image."""
    if name == "Identity":
        return img
    if name in ("ShearX", "ShearY"):
        degrees = math.degrees(math.atan(magnitude))
        return _geometric(img, inter, fill, shear=(degrees, 0.0) if name == "ShearX" else (0.0, degrees))
    if name == "TranslateX":
        return _geometric(img, inter, fill, shift=(magnitude, 0.0))
    if name == "TranslateY":
        return _geometric(img, inter, fill, shift=(0.0, magnitude))
    if name == "Rotate":
        return _geometric(img, inter, fill, degrees=magnitude)
    if name == "Brightness":
        return K.adjust_brightness(img, 1.0 + magnitude)
    if name == "Color":
        return K.adjust_saturation(img, 1.0 + magnitude)
    if name == "Contrast":
        return K.adjust_contrast(img, 1.0 + magnitude)
    if name == "Sharpness":
        from .adjust import _sharpness
        return _sharpness(img, 1.0 + magnitude)
    if name == "Posterize":
        return Posterize(int(magnitude))(img)
    if name == "Solarize":
        return Solarize(float(magnitude))(img)
    if name == "AutoContrast":
        return AutoContrast()(img)
    if name == "Equalize":
        return Equalize()(img)
    raise ValueError(f"unknown augmentation {name}")


_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast", "Sharpness"}


def _check_bins(value, name, where, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"For '{where}', '{name}' must be an int >= {low}, but got {value!r}.")
    return value


class _PolicyAugment(TensorOperation):
    _where = "augment"

    def _table(self, bins, h, w):
        raise NotImplementedError

    def _run(self, img, ops):
        arr, was_pil = _to_array(img, self._where)
        if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
            raise TypeError(f"For '{self._where}', the image must be uint8 RGB (H, W, 3), but got {arr.dtype} of "
                            f"shape {arr.shape}.")
        for name, magnitude in ops:
            if name in _SIGNED and rng().random() < 0.5:
                magnitude = -magnitude
            arr = _apply(name, arr, float(magnitude), self._inter, self.fill_value)
        return _back(arr, was_pil)


class RandAugment(_PolicyAugment):
    """`RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0)`:
    `num_ops` operations from Identity, ShearX/Y (up to 0.3), TranslateX/Y (up to 150/331 of the side), Rotate (up
    to 30 degrees), Brightness, Color, Contrast, Sharpness (factor 1 ± up to 0.9), Posterize (8 down to 4 bits),
    Solarize (threshold 255 down to 0), AutoContrast and Equalize, each at bin `magnitude`."""

    _where = "RandAugment"
    OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
           "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize")

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_ops = _check_bins(num_ops, "num_ops", self._where, 0)
        self.num_magnitude_bins = _check_bins(num_magnitude_bins, "num_magnitude_bins", self._where, 2)
        if isinstance(magnitude, bool) or not isinstance(magnitude, int) or not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"For 'RandAugment', 'magnitude' must be an int in [0, {num_magnitude_bins}), but got "
                             f"{magnitude!r}.")
        self.magnitude, self.interpolation, self.fill_value = magnitude, interpolation, fill_value
        self._inter = _warp_inter(interpolation, self._where)

    def _value(self, name, h, w):
        b, k = self.num_magnitude_bins, self.magnitude
        frac = k / (b - 1)
        return {"Identity": 0.0, "ShearX": 0.3 * frac, "ShearY": 0.3 * frac, "TranslateX": 150.0 / 331.0 * w * frac,
                "TranslateY": 150.0 / 331.0 * h * frac, "Rotate": 30.0 * frac, "Brightness": 0.9 * frac,
                "Color": 0.9 * frac, "Contrast": 0.9 * frac, "Sharpness": 0.9 * frac,
                "Posterize": 8 - round(k / ((b - 1) / 4)), "Solarize": 255.0 * (1 - frac), "AutoContrast": 0.0,
                "Equalize": 0.0}[name]

    def _execute(self, img):
        arr, _ = _to_array(img, self._where)
        h, w = arr.shape[:2]
        names = [self.OPS[int(rng().integers(len(self.OPS)))] for _ in range(self.num_ops)]
        return self._run(img, [(n, self._value(n, h, w)) for n in names])


class TrivialAugmentWide(_PolicyAugment):
    """`TrivialAugmentWide(num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0)`: one operation of
    RandAugment's list at a random bin, over the wide ranges: shear up to 0.99, translate up to 32 pixels, rotate
    up to 135 degrees, colour factors 1 ± up to 0.99, Posterize 8 down to 2 bits."""

    _where = "TrivialAugmentWide"

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = _check_bins(num_magnitude_bins, "num_magnitude_bins", self._where, 2)
        self.interpolation, self.fill_value = interpolation, fill_value
        self._inter = _warp_inter(interpolation, self._where)

    def _execute(self, img):
        b = self.num_magnitude_bins
        name = RandAugment.OPS[int(rng().integers(len(RandAugment.OPS)))]
        k = int(rng().integers(b))
        frac = k / (b - 1)
        value = {"ShearX": 0.99 * frac, "ShearY": 0.99 * frac, "TranslateX": 32.0 * frac, "TranslateY": 32.0 * frac,
                 "Rotate": 135.0 * frac, "Brightness": 0.99 * frac, "Color": 0.99 * frac, "Contrast": 0.99 * frac,
                 "Sharpness": 0.99 * frac, "Posterize": 8 - round(k / ((b - 1) / 6)),
                 "Solarize": 255.0 * (1 - frac)}.get(name, 0.0)
        return self._run(img, [(name, value)])

