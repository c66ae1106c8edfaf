"""Vision augmentations that cut, paste, mix or warp: erase, cut-out, random erasing, five/ten crops, slice
patches, pad to size, resized crop, affine and perspective warps, batch mix-up and cut-mix, policies.

>>> import numpy as np
>>> img = np.ones((4, 4, 3), np.uint8)
>>> int(Erase(1, 1, 2, 2, value=0)(img).sum()), [p.shape for p in FiveCrop(2)(img)][0]
(36, (2, 2, 3))
"""
import enum
import math
import numbers

import cv2
import numpy as np

from ..transforms import image_ops as K
from ..transforms.base import TensorOperation, check_prob, check_transforms, rng, run_chain
from ._common import _back, _size_pair, _to_array
from .geometry import HorizontalFlip, RandomResizedCrop, VerticalFlip, _center_crop
from .utils import Border, ImageBatchFormat, Inter, border_mode, resize_method


def _int(value, where, name, low=0):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"For '{where}', '{name}' must be an int >= {low}, but got {value!r}.")
    return value


def _fill(value, where):
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)) and len(value) == 3:
        return tuple(value)
    raise ValueError(f"For '{where}', 'value' must be a number or an (R, G, B) triple, but got {value!r}.")


class Erase(TensorOperation):
    """`Erase(top, left, height, width, value=0, inplace=False)`: fill a region of an HWC image with `value`."""

    def __init__(self, top, left, height, width, value=0, inplace=False):
        self.top, self.left = _int(top, "Erase", "top"), _int(left, "Erase", "left")
        self.height, self.width = _int(height, "Erase", "height", 1), _int(width, "Erase", "width", 1)
        self.value, self.inplace = _fill(value, "Erase"), bool(inplace)

    def _execute(self, img):
        img, was_pil = _to_array(img, "Erase")
        out = img if self.inplace and img.flags.writeable else img.copy()
        out[self.top:self.top + self.height, self.left:self.left + self.width] = self.value
        return _back(out, was_pil)


class CutOut(TensorOperation):
    """`CutOut(length, num_patches=1, is_hwc=True)`: zero `num_patches` random length x length squares (each may
    stick out of the image)."""

    def __init__(self, length, num_patches=1, is_hwc=True):
        self.length, self.num_patches = _int(length, "CutOut", "length", 1), _int(num_patches, "CutOut", "num_patches", 1)
        self.is_hwc = bool(is_hwc)

    def _execute(self, img):
        img, was_pil = _to_array(img, "CutOut")
        out = img.copy()
        view = out if self.is_hwc or out.ndim == 2 else np.moveaxis(out, 0, 2)
        h, w = view.shape[:2]
        for _ in range(self.num_patches):
            y, x = int(rng().integers(h)), int(rng().integers(w))
            half = self.length // 2
            view[max(0, y - half):min(h, y - half + self.length), max(0, x - half):min(w, x - half + self.length)] = 0
        return _back(out, was_pil)


class RandomErasing(TensorOperation):
    """`RandomErasing(prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10)`:
    with probability `prob`, fill a random rectangle of a CHW image (area fraction in `scale`, aspect in `ratio`)
    with `value` (a number, a per-channel triple, or 'random' for normal noise)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10):
        self.prob = check_prob(prob, "RandomErasing")
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1] or len(ratio) != 2 or not 0 < ratio[0] <= ratio[1]:
            raise ValueError(f"For 'RandomErasing', 'scale' and 'ratio' must be (min, max) pairs, got {scale!r}, {ratio!r}.")
        self.scale, self.ratio, self.inplace = tuple(scale), tuple(ratio), bool(inplace)
        self.value = value if value == "random" else _fill(value, "RandomErasing")
        self.max_attempts = _int(max_attempts, "RandomErasing", "max_attempts", 1)

    def _execute(self, img):
        img, _ = _to_array(img, "RandomErasing")
        if img.ndim != 3:
            raise ValueError(f"For 'RandomErasing', the input must be a <C, H, W> image, but got shape {img.shape}.")
        if rng().random() >= self.prob:
            return img
        c, h, w = img.shape
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            area = h * w * rng().uniform(*self.scale)
            aspect = math.exp(rng().uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh < h and ew < w:
                top, left = int(rng().integers(h - eh + 1)), int(rng().integers(w - ew + 1))
                out = img if self.inplace and img.flags.writeable else img.copy()
                if self.value == "random":
                    patch = rng().normal(size=(c, eh, ew))
                else:
                    patch = np.asarray(self.value, np.float64).reshape(-1, 1, 1)
                out[:, top:top + eh, left:left + ew] = patch
                return out
        return img


class FiveCrop(TensorOperation):
    """`FiveCrop(size)`: the four corner crops and the centre crop of `size` (h, w), as a tuple."""

    def __init__(self, size):
        self.size = _size_pair(size, "FiveCrop")

    def _execute(self, img):
        img, was_pil = _to_array(img, "FiveCrop")
        (th, tw), (h, w) = self.size, img.shape[:2]
        if th > h or tw > w:
            raise ValueError(f"For 'FiveCrop', the crop size {self.size} is bigger than the image ({h}, {w}).")
        crops = (img[:th, :tw], img[:th, w - tw:], img[h - th:, :tw], img[h - th:, w - tw:], _center_crop(img, th, tw))
        return tuple(_back(np.ascontiguousarray(c), was_pil) for c in crops)


class TenCrop(TensorOperation):
    """`TenCrop(size, use_vertical_flip=False)`: `FiveCrop` of the image and of its mirror image (left-right, or
    top-bottom with use_vertical_flip), ten crops in all."""

    def __init__(self, size, use_vertical_flip=False):
        self.size, self.use_vertical_flip = _size_pair(size, "TenCrop"), bool(use_vertical_flip)

    def _execute(self, img):
        flip = VerticalFlip() if self.use_vertical_flip else HorizontalFlip()
        five = FiveCrop(self.size)
        return five(img) + five(flip(img))


class SliceMode(enum.IntEnum):
    """How `SlicePatches` treats a remainder: PAD the image up to a multiple, or DROP the remainder."""
    PAD = 0
    DROP = 1


class SlicePatches(TensorOperation):
    """`SlicePatches(num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0)`: cut an HWC image into a
    grid of num_height x num_width equal patches (row by row), returned as a tuple."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        self.num_height = _int(num_height, "SlicePatches", "num_height", 1)
        self.num_width = _int(num_width, "SlicePatches", "num_width", 1)
        if not isinstance(slice_mode, SliceMode):
            raise TypeError(f"For 'SlicePatches', 'slice_mode' must be a SliceMode, but got {slice_mode!r}.")
        self.slice_mode, self.fill_value = slice_mode, _int(fill_value, "SlicePatches", "fill_value")

    def _execute(self, img):
        img, _ = _to_array(img, "SlicePatches")
        h, w = img.shape[:2]
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-h // self.num_height), -(-w // self.num_width)
            img = K.pad(img, 0, 0, pw * self.num_width - w, ph * self.num_height - h, fill=self.fill_value)
        else:
            ph, pw = h // self.num_height, w // self.num_width
        return tuple(np.ascontiguousarray(img[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(self.num_height) for j in range(self.num_width))


class PadToSize(TensorOperation):
    """`PadToSize(size, offset=None, fill_value=0, padding_mode=Border.CONSTANT)`: pad an HWC image to `size`
    (h, w); `offset` (top, left) places the image, by default centred (the odd pixel goes bottom/right)."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size_pair(size, "PadToSize")
        if offset is not None:
            offset = (offset, offset) if isinstance(offset, int) else tuple(offset)
            if len(offset) != 2 or not all(isinstance(o, int) and o >= 0 for o in offset):
                raise ValueError(f"For 'PadToSize', 'offset' must be None, an int or (top, left) >= 0, got {offset!r}.")
        self.offset, self.fill_value = offset, fill_value
        self.padding_mode, self._mode = padding_mode, border_mode(padding_mode, "PadToSize")

    def _execute(self, img):
        img, was_pil = _to_array(img, "PadToSize")
        (th, tw), (h, w) = self.size, img.shape[:2]
        top, left = self.offset if self.offset is not None else ((th - h) // 2, (tw - w) // 2)
        if th < h + top or tw < w + left:
            raise ValueError(f"For 'PadToSize', the target size {self.size} is smaller than the image ({h}, {w}) "
                             f"placed at offset ({top}, {left}).")
        return _back(K.pad(img, left, top, tw - w - left, th - h - top, self.fill_value, self._mode), was_pil)


class ResizedCrop(TensorOperation):
    """`ResizedCrop(top, left, height, width, size, interpolation=Inter.BILINEAR)`: crop the region, then resize
    it to `size`."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        self.top, self.left = _int(top, "ResizedCrop", "top"), _int(left, "ResizedCrop", "left")
        self.height, self.width = _int(height, "ResizedCrop", "height", 1), _int(width, "ResizedCrop", "width", 1)
        self.size, self.interpolation = _size_pair(size, "ResizedCrop"), interpolation
        self._method = resize_method(interpolation, "ResizedCrop")

    def _execute(self, img):
        img, was_pil = _to_array(img, "ResizedCrop")
        h, w = img.shape[:2]
        if self.top + self.height > h or self.left + self.width > w:
            raise ValueError(f"For 'ResizedCrop', the region ({self.top}, {self.left}, {self.height}, {self.width}) "
                             f"exceeds the image ({h}, {w}).")
        return _back(K.resize(K.crop(img, self.top, self.left, self.height, self.width), self.size, self._method),
                     was_pil)


class RandomResize(TensorOperation):
    """`RandomResize(size)`: `Resize(size)` with an interpolation drawn from nearest, bilinear, bicubic and area."""

    _METHODS = ("nearest", "linear", "cubic", "area")

    def __init__(self, size):
        from .geometry import Resize
        Resize(size)  # validates the size the same way
        self.size = size

    def _execute(self, img):
        from .geometry import Resize
        choice = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)[int(rng().integers(4))]
        return Resize(self.size, choice)(img)


class RandomCropDecodeResize(TensorOperation):
    """`RandomCropDecodeResize(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)`: decode encoded bytes, then `RandomResizedCrop` with these arguments."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self._crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self.size, self.scale, self.ratio = size, scale, ratio
        self.interpolation, self.max_attempts = interpolation, max_attempts

    def _execute(self, data):
        return self._crop(K.decode(data))


def _warp_inter(interpolation, where):
    method = resize_method(interpolation, where)
    if method not in K._INTER:
        raise ValueError(f"For '{where}', interpolation must be NEAREST, BILINEAR, BICUBIC or AREA, got {interpolation!r}.")
    return K._INTER[method]


def _affine_matrix(center, degrees, translate, scale, shear):
    """2x3 forward matrix (source → output pixel) in image coordinates (y down): about `center`, shear by
    (x, y) degrees (a positive x shear moves the rows above the centre right), scale, rotate clockwise as seen by
    `degrees`, then translate by (dx, dy) pixels; directions as MindSpore 2.10 warps (checked against it)."""
    cx, cy = center
    t = math.radians(-degrees)
    rotate = np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])
    shear_m = np.array([[1.0, -math.tan(math.radians(shear[0]))], [-math.tan(math.radians(shear[1])), 1.0]])
    m = rotate @ shear_m * scale
    offset = np.array([cx + translate[0], cy + translate[1]]) - m @ np.array([cx, cy])
    return np.hstack([m, offset[:, None]])


def _check_shear(shear, where):
    if isinstance(shear, numbers.Number):
        return float(shear), 0.0
    if isinstance(shear, (list, tuple)) and len(shear) in (2,):
        return float(shear[0]), float(shear[1])
    raise ValueError(f"For '{where}', 'shear' must be a number or (x, y), but got {shear!r}.")


def _warp(img, matrix, inter, fill, perspective=False):
    fill3 = tuple(fill) if isinstance(fill, (list, tuple)) else (fill,) * 3
    h, w = img.shape[:2]
    if perspective:
        return K._cv_call(img, lambda x: cv2.warpPerspective(x, matrix, (w, h), flags=inter,
                                                             borderMode=cv2.BORDER_CONSTANT, borderValue=fill3))
    return K._cv_call(img, lambda x: cv2.warpAffine(x, matrix, (w, h), flags=inter, borderMode=cv2.BORDER_CONSTANT,
                                                    borderValue=fill3))


class Affine(TensorOperation):
    """`Affine(degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0)`: rotate about the centre
    (degrees, clockwise as seen), translate by (dx, dy) fractions of the width and height (in [-1, 1]), scale, and
    shear by (x, y) degrees."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        if isinstance(scale, bool) or not isinstance(scale, numbers.Number) or scale <= 0:
            raise ValueError(f"For 'Affine', 'scale' must be a positive number, but got {scale!r}.")
        if not isinstance(translate, (list, tuple)) or len(translate) != 2 or not all(-1 <= t <= 1 for t in translate):
            raise ValueError(f"For 'Affine', 'translate' must be (dx, dy) fractions in [-1, 1], but got {translate!r}.")
        self.degrees, self.translate, self.scale = float(degrees), tuple(translate), float(scale)
        self.shear, self.resample, self.fill_value = _check_shear(shear, "Affine"), resample, fill_value
        self._inter = _warp_inter(resample, "Affine")

    def _execute(self, img):
        img, was_pil = _to_array(img, "Affine")
        h, w = img.shape[:2]
        shift = (self.translate[0] * w, self.translate[1] * h)
        matrix = _affine_matrix(((w - 1) * 0.5, (h - 1) * 0.5), self.degrees, shift, self.scale, self.shear)
        return _back(_warp(img, matrix, self._inter, self.fill_value), was_pil)


class RandomAffine(TensorOperation):
    """`RandomAffine(degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0)`:
    `Affine` with parameters drawn from the ranges: degrees (a number d gives (-d, d)), translate as fractions of
    the width/height (max_dx, max_dy), scale (min, max), shear (a number s gives x in (-s, s))."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0):
        self.degrees = (-float(degrees), float(degrees)) if isinstance(degrees, numbers.Number) else tuple(degrees)
        if len(self.degrees) != 2 or self.degrees[0] > self.degrees[1]:
            raise ValueError(f"For 'RandomAffine', 'degrees' must be a number or (min, max), but got {degrees!r}.")
        if translate is not None and (len(translate) not in (2, 4) or not all(0 <= abs(t) <= 1 for t in translate)):
            raise ValueError(f"For 'RandomAffine', 'translate' must hold 2 or 4 fractions in [-1, 1], got {translate!r}.")
        if scale is not None and (len(scale) != 2 or not 0 < scale[0] <= scale[1]):
            raise ValueError(f"For 'RandomAffine', 'scale' must be (min, max) with 0 < min <= max, got {scale!r}.")
        if isinstance(shear, numbers.Number):
            shear = (-float(shear), float(shear))
        self.translate, self.scale, self.shear = translate, scale, shear
        self.resample, self.fill_value = resample, fill_value
        _warp_inter(resample, "RandomAffine")

    def _execute(self, img):
        arr, _ = _to_array(img, "RandomAffine")
        h, w = arr.shape[:2]
        degrees = rng().uniform(*self.degrees)
        tx = ty = 0.0
        if self.translate is not None:
            t = self.translate
            xr, yr = ((-t[0], t[0]), (-t[1], t[1])) if len(t) == 2 else ((t[0], t[1]), (t[2], t[3]))
            tx, ty = rng().uniform(*xr), rng().uniform(*yr)
        scale = rng().uniform(*self.scale) if self.scale is not None else 1.0
        sx = sy = 0.0
        if self.shear is not None:
            sx = rng().uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                sy = rng().uniform(self.shear[2], self.shear[3])
        return Affine(degrees, (tx, ty), scale, (sx, sy), self.resample, self.fill_value)(img)


def _check_points(points, where, name):
    if not isinstance(points, (list, tuple)) or len(points) != 4 or not all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in points):
        raise ValueError(f"For '{where}', '{name}' must be four (x, y) points, but got {points!r}.")
    return np.asarray(points, np.float32)


class Perspective(TensorOperation):
    """`Perspective(start_points, end_points, interpolation=Inter.BILINEAR)`: the projective warp that moves the
    four `start_points` (top-left, top-right, bottom-right, bottom-left) onto `end_points`."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points = _check_points(start_points, "Perspective", "start_points")
        self.end_points = _check_points(end_points, "Perspective", "end_points")
        self.interpolation, self._inter = interpolation, _warp_inter(interpolation, "Perspective")

    def _execute(self, img):
        img, was_pil = _to_array(img, "Perspective")
        matrix = cv2.getPerspectiveTransform(self.start_points, self.end_points)
        return _back(_warp(img, matrix, self._inter, 0, perspective=True), was_pil)


class RandomPerspective(TensorOperation):
    """`RandomPerspective(distortion_scale=0.5, prob=0.5, interpolation=Inter.BILINEAR)`: with probability `prob`,
    move each corner inwards by up to `distortion_scale` of half the width/height and warp accordingly."""

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BILINEAR):
        if isinstance(distortion_scale, bool) or not 0 <= distortion_scale <= 1:
            raise ValueError(f"For 'RandomPerspective', 'distortion_scale' must be in [0, 1], got {distortion_scale!r}.")
        self.distortion_scale, self.prob = float(distortion_scale), check_prob(prob, "RandomPerspective")
        self.interpolation = interpolation
        _warp_inter(interpolation, "RandomPerspective")

    def _execute(self, img):
        if rng().random() >= self.prob:
            return img
        h, w = _to_array(img, "RandomPerspective")[0].shape[:2]
        dx, dy = int(self.distortion_scale * w / 2), int(self.distortion_scale * h / 2)
        r = lambda n: int(rng().integers(0, n + 1))  # noqa: E731
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        end = [[r(dx), r(dy)], [w - 1 - r(dx), r(dy)], [w - 1 - r(dx), h - 1 - r(dy)], [r(dx), h - 1 - r(dy)]]
        return Perspective(start, end, self.interpolation)(img)


def _batch_layout(images, labels, fmt, where):
    if images.ndim != 4:
        raise ValueError(f"For '{where}', the images must be a batch <N, H, W, C> or <N, C, H, W>, got {images.shape}.")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise ValueError(f"For '{where}', the labels must be one-hot <N, num_classes> for the same N, got {labels.shape}.")
    return images if fmt == ImageBatchFormat.NHWC else np.moveaxis(images, 1, 3)


class MixUpBatch(TensorOperation):
    """`MixUpBatch(alpha=1.0)`: on a batch (images, one-hot labels), blend each sample with another sample of the
    batch (a random permutation) by lam ~ Beta(alpha, alpha); labels are blended by the same lam."""

    def __init__(self, alpha=1.0):
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Number) or alpha <= 0:
            raise ValueError(f"For 'MixUpBatch', 'alpha' must be a positive number, but got {alpha!r}.")
        self.alpha = float(alpha)

    def _execute(self, images, labels):
        _batch_layout(images, labels, ImageBatchFormat.NHWC, "MixUpBatch")
        lam = rng().beta(self.alpha, self.alpha)
        order = rng().permutation(images.shape[0])
        mixed = lam * images.astype(np.float32) + (1 - lam) * images[order].astype(np.float32)
        out_labels = lam * labels.astype(np.float32) + (1 - lam) * labels[order].astype(np.float32)
        return K.cast_like(mixed, images.dtype), out_labels.astype(labels.dtype if labels.dtype.kind == "f"
                                                                    else np.float32)


class CutMixBatch(TensorOperation):
    """`CutMixBatch(image_batch_format, alpha=1.0, prob=1.0)`: on a batch (images, one-hot labels), with probability
    `prob` per sample paste a random box from another sample (area fraction 1 - lam, lam ~ Beta(alpha, alpha))
    and mix the labels by the box's actual area."""

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        if not isinstance(image_batch_format, ImageBatchFormat):
            raise TypeError(f"For 'CutMixBatch', 'image_batch_format' must be an ImageBatchFormat, got "
                            f"{image_batch_format!r}.")
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Number) or alpha <= 0:
            raise ValueError(f"For 'CutMixBatch', 'alpha' must be a positive number, but got {alpha!r}.")
        self.image_batch_format, self.alpha, self.prob = image_batch_format, float(alpha), check_prob(prob, "CutMixBatch")

    def _execute(self, images, labels):
        hwc = _batch_layout(images, labels, self.image_batch_format, "CutMixBatch")
        n, h, w = hwc.shape[:3]
        out, out_labels = hwc.copy(), labels.astype(np.float32).copy()
        order = rng().permutation(n)
        for i in range(n):
            if rng().random() >= self.prob:
                continue
            lam = rng().beta(self.alpha, self.alpha)
            ch, cw = int(h * math.sqrt(1 - lam)), int(w * math.sqrt(1 - lam))
            y, x = int(rng().integers(h)), int(rng().integers(w))
            y0, y1, x0, x1 = max(0, y - ch // 2), min(h, y + ch // 2), max(0, x - cw // 2), min(w, x + cw // 2)
            out[i, y0:y1, x0:x1] = hwc[order[i], y0:y1, x0:x1]
            kept = 1 - (y1 - y0) * (x1 - x0) / float(h * w)
            out_labels[i] = kept * labels[i] + (1 - kept) * labels[order[i]]
        if self.image_batch_format == ImageBatchFormat.NCHW:
            out = np.moveaxis(out, 3, 1)
        return np.ascontiguousarray(out), out_labels


class MixUp(TensorOperation):
    """`MixUp(batch_size, alpha, is_single=True)`: mix-up of a batch (images, one-hot labels): with is_single each
    sample is blended with the previous one in the batch by its own lam ~ Beta(alpha, alpha), otherwise one lam
    for the whole batch."""

    def __init__(self, batch_size, alpha, is_single=True):
        self.batch_size = _int(batch_size, "MixUp", "batch_size", 1)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Number) or alpha <= 0:
            raise ValueError(f"For 'MixUp', 'alpha' must be a positive number, but got {alpha!r}.")
        self.alpha, self.is_single = float(alpha), bool(is_single)

    def _execute(self, images, labels):
        n = images.shape[0]
        lam = rng().beta(self.alpha, self.alpha, size=n if self.is_single else 1)
        lam = np.broadcast_to(lam, (n,)).astype(np.float32)
        prev = np.roll(np.arange(n), 1)
        shape = (n,) + (1,) * (images.ndim - 1)
        mixed = lam.reshape(shape) * images.astype(np.float32) + (1 - lam.reshape(shape)) * images[prev]
        lshape = (n,) + (1,) * (labels.ndim - 1)
        mixed_labels = lam.reshape(lshape) * labels + (1 - lam.reshape(lshape)) * labels[prev]
        return mixed.astype(np.float32), mixed_labels.astype(np.float32)


class NormalizePad(TensorOperation):
    """`NormalizePad(mean, std, dtype="float32", is_hwc=True)`: `Normalize`, then one more channel of zeros
    (3 → 4 channels, an aligned layout for some kernels)."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        from .color import Normalize
        if dtype not in ("float32", "float16"):
            raise ValueError(f"For 'NormalizePad', 'dtype' must be 'float32' or 'float16', but got {dtype!r}.")
        self._normalize = Normalize(mean, std, is_hwc)
        self.mean, self.std, self.dtype, self.is_hwc = mean, std, dtype, bool(is_hwc)

    def _execute(self, img):
        out = self._normalize(img).astype(self.dtype)
        axis = 2 if self.is_hwc else 0
        zeros_shape = list(out.shape)
        zeros_shape[axis] = 1
        return np.concatenate([out, np.zeros(zeros_shape, out.dtype)], axis=axis)


class UniformAugment(TensorOperation):
    """`UniformAugment(transforms, num_ops=2)`: apply `num_ops` transforms chosen at random (without repetition)
    from the list, each with probability 1/2, in the chosen order."""

    def __init__(self, transforms, num_ops=2):
        self.transforms = check_transforms(transforms, "UniformAugment")
        self.num_ops = _int(num_ops, "UniformAugment", "num_ops", 1)
        if self.num_ops > len(self.transforms):
            raise ValueError(f"For 'UniformAugment', 'num_ops' ({num_ops}) exceeds the number of transforms "
                             f"({len(self.transforms)}).")

    def _execute(self, *args):
        chosen = rng().choice(len(self.transforms), self.num_ops, replace=False)
        ops = [self.transforms[i] for i in chosen if rng().random() < 0.5]
        return run_chain(ops, args) if ops else (args[0] if len(args) == 1 else args)


class RandomSelectSubpolicy(TensorOperation):
    """`RandomSelectSubpolicy(policy)`: pick one sub-policy at random; a sub-policy is a list of (transform, prob)
    pairs, each transform applied with its probability, in order."""

    def __init__(self, policy):
        if not isinstance(policy, (list, tuple)) or not policy or not all(
                isinstance(sub, (list, tuple)) and sub and all(
                    isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[0]) and 0 <= p[1] <= 1 for p in sub)
                for sub in policy):
            raise ValueError(f"For 'RandomSelectSubpolicy', 'policy' must be a list of sub-policies, each a list of "
                             f"(transform, prob) pairs, but got {policy!r}.")
        self.policy = [list(sub) for sub in policy]

    def _execute(self, *args):
        sub = self.policy[int(rng().integers(len(self.policy)))]
        ops = [op for op, prob in sub if rng().random() < prob]
        return run_chain(ops, args) if ops else (args[0] if len(args) == 1 else args)


class ToNumpy(TensorOperation):
    """`ToNumpy()`: a Pillow image (or anything array-like) → numpy array."""

    def _execute(self, img):
        return np.asarray(img)
