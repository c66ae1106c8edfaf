"""Geometric vision transforms: resize, crops, flips, rotation, padding."""
import math
import numbers

import numpy as np

from ..transforms import image_ops as K
from ..transforms.base import TensorOperation, check_prob, rng
from ._common import _back, _padding4, _range, _size_pair, _to_array
from .utils import Border, Inter, border_mode, pil_method, resize_method


class Resize(TensorOperation):
    """`Resize(size, interpolation=Inter.BILINEAR)`: to (h, w), or the shorter side to `size` keeping the aspect."""

    _native = True  # runs in OpenCV with the GIL released: map may run it on threads

    def __init__(self, size, interpolation=Inter.BILINEAR):
        if isinstance(size, int) and not isinstance(size, bool):
            _size_pair(size, "Resize")
        else:
            size = _size_pair(size, "Resize", allow_int=False)
        self.size, self.interpolation = size, interpolation
        self._method = resize_method(interpolation, "Resize")

    def _execute(self, img):
        img, was_pil = _to_array(img, "Resize")
        h, w = img.shape[:2]
        if isinstance(self.size, int):
            target = (self.size, int(self.size * w / h)) if h <= w else (int(self.size * h / w), self.size)
        else:
            target = self.size
        return _back(K.resize(img, target, self._method), was_pil)


def _center_crop(img, th, tw):
    h, w = img.shape[:2]
    if th > h or tw > w:  # zero-pad first so the crop fits, centred
        top, left = max(0, th - h) // 2, max(0, tw - w) // 2
        img = K.pad(img, left, top, max(0, tw - w) - left, max(0, th - h) - top)
        h, w = img.shape[:2]
    top, left = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
    return K.crop(img, top, left, th, tw)


class CenterCrop(TensorOperation):
    """`CenterCrop(size)`: the central (h, w) region (zero-padded first if the image is smaller)."""

    def __init__(self, size):
        self.size = _size_pair(size, "CenterCrop")

    def _execute(self, img):
        img, was_pil = _to_array(img, "CenterCrop")
        return _back(_center_crop(img, *self.size), was_pil)


class Crop(TensorOperation):
    """`Crop(coordinates, size)`: the region of `size` (h, w) whose top-left corner is `coordinates` (top, left)."""

    def __init__(self, coordinates, size):
        if not (isinstance(coordinates, (list, tuple)) and len(coordinates) == 2
                and all(isinstance(c, int) and c >= 0 for c in coordinates)):
            raise ValueError(f"For 'Crop', 'coordinates' must be two non-negative ints (top, left), but got {coordinates!r}.")
        self.coordinates, self.size = tuple(coordinates), _size_pair(size, "Crop")

    def _execute(self, img):
        img, was_pil = _to_array(img, "Crop")
        (top, left), (h, w) = self.coordinates, self.size
        if top + h > img.shape[0] or left + w > img.shape[1]:
            raise ValueError(f"For 'Crop', the region at {self.coordinates} of size {self.size} exceeds the image "
                             f"of shape {img.shape}.")
        return _back(K.crop(img, top, left, h, w), was_pil)


class RandomCrop(TensorOperation):
    """`RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT)`."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size_pair(size, "RandomCrop")
        self.padding = None if padding is None else _padding4(padding, "RandomCrop")
        self.pad_if_needed, self.fill_value, self.padding_mode = bool(pad_if_needed), fill_value, padding_mode
        self._mode = border_mode(padding_mode, "RandomCrop")

    def _execute(self, img):
        img, was_pil = _to_array(img, "RandomCrop")
        th, tw = self.size
        if self.padding is not None:
            img = K.pad(img, *self.padding, fill=self.fill_value, mode=self._mode)
        h, w = img.shape[:2]
        if self.pad_if_needed and (h < th or w < tw):
            dh, dw = max(0, th - h), max(0, tw - w)
            img = K.pad(img, dw, dh, dw, dh, fill=self.fill_value, mode=self._mode)
            h, w = img.shape[:2]
        if h < th or w < tw:
            raise ValueError(f"For 'RandomCrop', the crop size {self.size} is greater than the image size {(h, w)}; "
                             f"set 'padding' or 'pad_if_needed'.")
        top, left = int(rng().integers(h - th + 1)), int(rng().integers(w - tw + 1))
        return _back(K.crop(img, top, left, th, tw), was_pil)


class RandomResizedCrop(TensorOperation):
    """`RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR, max_attempts=10)`:
    a random region of random area and aspect ratio, resized to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size = _size_pair(size, "RandomResizedCrop")
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1]:
            raise ValueError(f"For 'RandomResizedCrop', 'scale' must be (min, max) with 0 <= min <= max, but got {scale!r}.")
        if len(ratio) != 2 or not 0 < ratio[0] <= ratio[1]:
            raise ValueError(f"For 'RandomResizedCrop', 'ratio' must be (min, max) with 0 < min <= max, but got {ratio!r}.")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"For 'RandomResizedCrop', 'max_attempts' must be a positive int, but got {max_attempts!r}.")
        self.scale, self.ratio, self.interpolation, self.max_attempts = tuple(scale), tuple(ratio), interpolation, max_attempts
        self._method = resize_method(interpolation, "RandomResizedCrop")

    def _region(self, h, w):
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng().uniform(*self.scale)
            aspect = math.exp(rng().uniform(*log_ratio))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(rng().integers(h - ch + 1)), int(rng().integers(w - cw + 1)), ch, cw
        in_ratio = w / h  # fall back to the whole image, clipped to the ratio range, centred
        if in_ratio < self.ratio[0]:
            cw, ch = w, int(round(w / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            ch, cw = h, int(round(h * self.ratio[1]))
        else:
            cw, ch = w, h
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def _execute(self, img):
        img, was_pil = _to_array(img, "RandomResizedCrop")
        top, left, ch, cw = self._region(*img.shape[:2])
        return _back(K.resize(K.crop(img, top, left, ch, cw), self.size, self._method), was_pil)


class HorizontalFlip(TensorOperation):
    """`HorizontalFlip()`: mirror left-right."""

    def _execute(self, img):
        img, was_pil = _to_array(img, "HorizontalFlip")
        return _back(np.ascontiguousarray(img[:, ::-1]), was_pil)


class VerticalFlip(TensorOperation):
    """`VerticalFlip()`: mirror top-bottom."""

    def _execute(self, img):
        img, was_pil = _to_array(img, "VerticalFlip")
        return _back(np.ascontiguousarray(img[::-1]), was_pil)


class RandomHorizontalFlip(TensorOperation):
    """`RandomHorizontalFlip(prob=0.5)`: mirror left-right with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob, "RandomHorizontalFlip")

    def _execute(self, img):
        return HorizontalFlip()(img) if rng().random() < self.prob else img


class RandomVerticalFlip(TensorOperation):
    """`RandomVerticalFlip(prob=0.5)`: mirror top-bottom with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob, "RandomVerticalFlip")

    def _execute(self, img):
        return VerticalFlip()(img) if rng().random() < self.prob else img


class Rotate(TensorOperation):
    """`Rotate(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)`: counter-clockwise rotation."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        if isinstance(degrees, bool) or not isinstance(degrees, numbers.Number):
            raise TypeError(f"For '{type(self).__name__}', 'degrees' must be a number, but got {degrees!r}.")
        self.degrees, self.resample, self.expand, self.center, self.fill_value = degrees, resample, expand, center, fill_value
        self._method = pil_method(resample, type(self).__name__)

    def _angle(self):
        return float(self.degrees)

    def _execute(self, img):
        img, was_pil = _to_array(img, type(self).__name__)
        out = K.rotate(img, self._angle(), self._method, bool(self.expand),
                       None if self.center is None else tuple(self.center), self.fill_value)
        return _back(out, was_pil)


class RandomRotation(Rotate):
    """`RandomRotation(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)`: an angle drawn from
    [-degrees, degrees] (or the given (min, max))."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        lo, hi = _range(degrees, "RandomRotation", "degrees", 0.0, low=-math.inf)
        super().__init__(0, resample, expand, center, fill_value)
        self.degrees = degrees
        self._bounds = (lo, hi)

    def _angle(self):
        return float(rng().uniform(*self._bounds))


class Pad(TensorOperation):
    """`Pad(padding, fill_value=0, padding_mode=Border.CONSTANT)`: padding is int, (l/r, t/b) or (l, t, r, b)."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding4(padding, "Pad")
        self.fill_value, self.padding_mode = fill_value, padding_mode
        self._mode = border_mode(padding_mode, "Pad")

    def _execute(self, img):
        img, was_pil = _to_array(img, "Pad")
        return _back(K.pad(img, *self.padding, fill=self.fill_value, mode=self._mode), was_pil)
