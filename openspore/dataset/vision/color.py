"""Vision transforms on pixel values and layout: decode, normalize, rescale, HWC2CHW, ToTensor, colour."""
import numbers

import numpy as np

from ..transforms import image_ops as K
from ..transforms.base import TensorOperation, _is_pil, rng
from ..transforms.transforms import TypeCast
from ._common import _back, _range, _to_array


class Decode(TensorOperation):
    """`Decode(to_pil=False)`: encoded bytes → RGB uint8 (H, W, 3) array (or a Pillow image with to_pil=True)."""

    _native = True  # runs in OpenCV with the GIL released: map may run it on threads

    def __init__(self, to_pil=False):
        self.to_pil = bool(to_pil)

    def _execute(self, data):
        img = K.decode(data)
        return _back(img, True) if self.to_pil else img


class Normalize(TensorOperation):
    """`Normalize(mean, std, is_hwc=True)`: (image - mean) / std per channel, float32 out."""

    _native = True  # runs in OpenCV with the GIL released: map may run it on threads

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
        if img.dtype == np.uint8 and img.ndim == 3:  # 256-entry table per channel: one pass, same float32 values
            if self.is_hwc and channels <= 4:
                return K.normalize_u8_hwc(img, self.mean, self.std)
            table = self._table(channels)
            if self.is_hwc:
                return K.lut_map(img, table, chw=False)
            return K.lut_map(np.ascontiguousarray(img.transpose(1, 2, 0)), table, chw=True)
        out = img.astype(np.float32)
        if self.is_hwc and img.ndim == 3 and out.size:
            # over whole rows with the per-channel values tiled: numpy's inner loop then runs W*C long, not C long
            h, w, c = out.shape
            rows = out.reshape(h, w * c)
            rows -= np.tile(np.broadcast_to(self.mean, (c,)), w)
            rows /= np.tile(np.broadcast_to(self.std, (c,)), w)
            return out
        shape = (-1,) if self.is_hwc or img.ndim == 2 else (-1, 1, 1)
        out -= self.mean.reshape(shape)
        out /= self.std.reshape(shape)
        return out

    def _table(self, channels, dtype=np.float32):
        """(256, channels) table of normalized values, cached per (channels, dtype)."""
        key = (channels, np.dtype(dtype).str)
        cache = self.__dict__.setdefault("_tables", {})
        if key not in cache:
            mean = np.broadcast_to(self.mean, (channels,)).astype(np.float32)
            std = np.broadcast_to(self.std, (channels,)).astype(np.float32)
            cache[key] = K.normalize_table(mean, std, dtype)
        return cache[key]


class HWC2CHW(TensorOperation):
    """`HWC2CHW()`: (H, W, C) → (C, H, W); a 2-D image is returned unchanged."""

    def _execute(self, img):
        img, _ = _to_array(img, "HWC2CHW")
        if img.ndim == 2:
            return img
        if img.ndim != 3:
            raise ValueError(f"For 'HWC2CHW', the input must be <H, W> or <H, W, C>, but got shape {img.shape}.")
        return K.hwc_to_chw(img)


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
        if img.dtype == np.uint8:
            table = np.repeat((np.arange(256, dtype=np.float32) / 255.0).astype(self._dtype)[:, None], img.shape[2], 1)
            return K.lut_map(img, table, chw=True)
        return np.ascontiguousarray((img.astype(np.float32) / 255.0).transpose(2, 0, 1).astype(self._dtype))


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
