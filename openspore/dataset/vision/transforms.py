"""`mindspore.dataset.vision` transforms on images: numpy arrays (H, W) / (H, W, C), or Pillow images."""
import math
import numbers

import numpy as np

from ..transforms import image_ops as K
from ..transforms.base import TensorOperation, _is_pil, check_prob, rng
from ..transforms.transforms import TypeCast
from .utils import Border, Inter, border_mode, pil_method, resize_method


def _to_array(img, where):
    """(numpy image, whether the input was a Pillow image)."""
    if _is_pil(img):
        return np.asarray(img), True
    if not isinstance(img, np.ndarray):
        raise TypeError(f"For '{where}', the input must be a numpy array or a PIL image, but got {type(img).__name__}.")
    return img, False


def _back(out, was_pil):
    if was_pil and out.dtype == np.uint8 and (out.ndim == 2 or out.shape[2] in (1, 3, 4)):
        from PIL import Image
        return Image.fromarray(out[:, :, 0] if out.ndim == 3 and out.shape[2] == 1 else out)
    return out


def _size_pair(size, where, allow_int=True):
    if allow_int and isinstance(size, int) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"For '{where}', 'size' must be positive, but got {size}.")
        return size, size
    if isinstance(size, (list, tuple)) and len(size) == 2 and all(
            isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
        return tuple(size)
    raise ValueError(f"For '{where}', 'size' must be a positive int or a sequence of 2 positive ints (h, w), but got {size!r}.")


def _padding4(padding, where):
    """(left, top, right, bottom) from an int, (left/right, top/bottom) or (left, top, right, bottom)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        values = (padding,) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        values = (padding[0], padding[1], padding[0], padding[1])
    elif isinstance(padding, (list, tuple)) and len(padding) == 4:
        values = tuple(padding)
    else:
        raise ValueError(f"For '{where}', 'padding' must be an int or a sequence of 2 or 4 ints, but got {padding!r}.")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise ValueError(f"For '{where}', padding values must be non-negative ints, but got {padding!r}.")
    return values


def _range(value, where, name, center, low=0.0):
    """A factor range: a number v gives [max(low, center - v), center + v]; a pair is taken as is."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"For '{where}', '{name}' must be non-negative, but got {value}.")
        return max(low, center - value), center + value
    if isinstance(value, (list, tuple)) and len(value) == 2 and value[0] <= value[1]:
        return float(value[0]), float(value[1])
    raise ValueError(f"For '{where}', '{name}' must be a non-negative number or a (min, max) pair, but got {value!r}.")


class Decode(TensorOperation):
    """`Decode(to_pil=False)`: encoded bytes → RGB uint8 (H, W, 3) array (or a Pillow image with to_pil=True)."""

    def __init__(self, to_pil=False):
        self.to_pil = bool(to_pil)

    def _execute(self, data):
        img = K.decode(data)
        return _back(img, True) if self.to_pil else img


class Resize(TensorOperation):
    """`Resize(size, interpolation=Inter.BILINEAR)`: to (h, w), or the shorter side to `size` keeping the aspect."""

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


class Normalize(TensorOperation):
    """`Normalize(mean, std, is_hwc=True)`: (image - mean) / std per channel, float32 out."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, dtype=np.float32).reshape(-1)
        self.std = np.asarray(std, dtype=np.float32).reshape(-1)
        if self.mean.size == 0 or self.mean.size != self.std.size:
            raise ValueError(f"For 'Normalize', 'mean' and 'std' must have the same non-zero length, but got {mean!r} "
                             f"and {std!r}.")
        if np.any(self.std <= 0):
            raise ValueError(f"For 'Normalize', every value of 'std' must be positive, but got {std!r}.")
        self.is_hwc = bool(is_hwc)

    def _execute(self, img):
        img, _ = _to_array(img, "Normalize")
        channels = 1 if img.ndim == 2 else img.shape[2 if self.is_hwc else 0]
        if self.mean.size not in (1, channels) or img.ndim not in (2, 3):
            raise ValueError(f"For 'Normalize', an image of shape {img.shape} needs {channels} mean/std values, but "
                             f"got {self.mean.size}.")
        shape = (-1,) if self.is_hwc or img.ndim == 2 else (-1, 1, 1)
        return ((img.astype(np.float32) - self.mean.reshape(shape)) / self.std.reshape(shape)).astype(np.float32)


class HWC2CHW(TensorOperation):
    """`HWC2CHW()`: (H, W, C) → (C, H, W); a 2-D image is returned unchanged."""

    def _execute(self, img):
        img, _ = _to_array(img, "HWC2CHW")
        if img.ndim == 2:
            return img
        if img.ndim != 3:
            raise ValueError(f"For 'HWC2CHW', the input must be <H, W> or <H, W, C>, but got shape {img.shape}.")
        return np.ascontiguousarray(img.transpose(2, 0, 1))


class Rescale(TensorOperation):
    """`Rescale(rescale, shift)`: image * rescale + shift, float32 out."""

    def __init__(self, rescale, shift):
        for name, v in (("rescale", rescale), ("shift", shift)):
            if isinstance(v, bool) or not isinstance(v, numbers.Number):
                raise TypeError(f"For 'Rescale', '{name}' must be a number, but got {v!r}.")
        self.rescale, self.shift = float(rescale), float(shift)

    def _execute(self, img):
        img, _ = _to_array(img, "Rescale")
        return (img.astype(np.float32) * np.float32(self.rescale) + np.float32(self.shift)).astype(np.float32)


class ToTensor(TensorOperation):
    """`ToTensor(output_type=np.float32)`: HWC image in [0, 255] → CHW in [0, 1] of `output_type`."""

    def __init__(self, output_type=np.float32):
        self.output_type = output_type
        self._dtype = output_type.np_dtype if getattr(output_type, "np_dtype", None) is not None else np.dtype(output_type)

    def _execute(self, img):
        img, _ = _to_array(img, "ToTensor")
        if img.ndim == 2:
            img = img[:, :, None]
        if img.ndim != 3:
            raise ValueError(f"For 'ToTensor', the input must be <H, W> or <H, W, C>, but got shape {img.shape}.")
        return (img.astype(np.float32) / 255.0).transpose(2, 0, 1).astype(self._dtype)


class RandomColorAdjust(TensorOperation):
    """`RandomColorAdjust(brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0))`: random factors applied
    in that order to an RGB image (brightness, contrast and saturation blend with black, the grey mean and the grey
    image; hue rotates the colour wheel by up to 0.5 turns)."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _range(brightness, "RandomColorAdjust", "brightness", 1.0)
        self.contrast = _range(contrast, "RandomColorAdjust", "contrast", 1.0)
        self.saturation = _range(saturation, "RandomColorAdjust", "saturation", 1.0)
        self.hue = _range(hue, "RandomColorAdjust", "hue", 0.0, low=-0.5)
        if not -0.5 <= self.hue[0] <= self.hue[1] <= 0.5:
            raise ValueError(f"For 'RandomColorAdjust', 'hue' must lie in [-0.5, 0.5], but got {hue!r}.")

    def _execute(self, img):
        img, was_pil = _to_array(img, "RandomColorAdjust")
        if img.ndim != 3 or img.shape[2] != 3:
            raise ValueError(f"For 'RandomColorAdjust', the input must be an RGB image <H, W, 3>, but got {img.shape}.")
        b, c, s, h = (rng().uniform(*r) for r in (self.brightness, self.contrast, self.saturation, self.hue))
        out = img
        if b != 1:
            out = K.adjust_brightness(out, b)
        if c != 1:
            out = K.adjust_contrast(out, c)
        if s != 1:
            out = K.adjust_saturation(out, s)
        if h != 0:
            out = K.adjust_hue(out, h)
        return _back(out, was_pil)


class Grayscale(TensorOperation):
    """`Grayscale(num_output_channels=1)`: RGB → luma, as 1 or 3 identical channels (H, W, C)."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError(f"For 'Grayscale', 'num_output_channels' must be 1 or 3, but got {num_output_channels!r}.")
        self.num_output_channels = num_output_channels

    def _execute(self, img):
        img, was_pil = _to_array(img, "Grayscale")
        if img.ndim != 3 or img.shape[2] != 3:
            raise ValueError(f"For 'Grayscale', the input must be an RGB image <H, W, 3>, but got {img.shape}.")
        gray = K.cast_like(K.to_gray(img), img.dtype)[:, :, None]
        return _back(np.repeat(gray, self.num_output_channels, axis=2), was_pil)


class Invert(TensorOperation):
    """`Invert()`: 255 - image for uint8 RGB images."""

    def _execute(self, img):
        img, was_pil = _to_array(img, "Invert")
        if img.dtype != np.uint8:
            raise TypeError(f"For 'Invert', the input must be uint8, but got {img.dtype}.")
        return _back(255 - img, was_pil)


class ToPIL(TensorOperation):
    """`ToPIL()`: a uint8 numpy image → Pillow image."""

    def _execute(self, img):
        if _is_pil(img):
            return img
        if img.dtype != np.uint8:
            raise TypeError(f"For 'ToPIL', the input must be uint8, but got {img.dtype}.")
        return _back(img, True)


class ToType(TypeCast):
    """`ToType(data_type)`: the vision name of TypeCast."""
