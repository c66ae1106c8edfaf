"""Vision transforms that change pixel values by a given amount, and their random forms: brightness, contrast,
saturation, hue, gamma, sharpness, auto-contrast, equalize, posterize, solarize, blur, lighting, colour spaces.

>>> import numpy as np
>>> img = np.full((2, 2, 3), 100, np.uint8)
>>> int(AdjustBrightness(1.5)(img)[0, 0, 0]), int(Posterize(4)(img)[0, 0, 0]), int(Solarize(90)(img)[0, 0, 0])
(150, 96, 155)
"""
import enum
import numbers

import cv2
import numpy as np

from ..transforms import image_ops as K
from ..transforms.base import TensorOperation, check_prob, rng
from ._common import _back, _to_array


def _number(value, where, name, low=0.0, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Number) or value < low or (
            high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"For '{where}', '{name}' must be a number {bound}, but got {value!r}.")
    return float(value)


def _pair(value, where, name, low=0.0, high=None):
    if not isinstance(value, (list, tuple)) or len(value) != 2 or value[0] > value[1]:
        raise ValueError(f"For '{where}', '{name}' must be a (min, max) sequence with min <= max, but got {value!r}.")
    return tuple(_number(v, where, name, low, high) for v in value)


def _rgb(img, where):
    img, was_pil = _to_array(img, where)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"For '{where}', the input must be an RGB image <H, W, 3>, but got shape {img.shape}.")
    return img, was_pil


def _uint8(img, where):
    img, was_pil = _to_array(img, where)
    if img.dtype != np.uint8 or img.ndim not in (2, 3):
        raise TypeError(f"For '{where}', the input must be a uint8 image <H, W> or <H, W, C>, but got "
                        f"{img.dtype} of shape {img.shape}.")
    return img, was_pil


class AdjustBrightness(TensorOperation):
    """`AdjustBrightness(brightness_factor)`: blend with black; 0 gives black, 1 the original, 2 twice as bright."""

    def __init__(self, brightness_factor):
        self.brightness_factor = _number(brightness_factor, "AdjustBrightness", "brightness_factor")

    def _execute(self, img):
        img, was_pil = _rgb(img, "AdjustBrightness")
        return _back(K.adjust_brightness(img, self.brightness_factor), was_pil)


class AdjustContrast(TensorOperation):
    """`AdjustContrast(contrast_factor)`: blend with the mean grey level; 0 gives a grey image."""

    def __init__(self, contrast_factor):
        self.contrast_factor = _number(contrast_factor, "AdjustContrast", "contrast_factor")

    def _execute(self, img):
        img, was_pil = _rgb(img, "AdjustContrast")
        return _back(K.adjust_contrast(img, self.contrast_factor), was_pil)


class AdjustSaturation(TensorOperation):
    """`AdjustSaturation(saturation_factor)`: blend with the grey image; 0 gives grey, 2 doubles the saturation."""

    def __init__(self, saturation_factor):
        self.saturation_factor = _number(saturation_factor, "AdjustSaturation", "saturation_factor")

    def _execute(self, img):
        img, was_pil = _rgb(img, "AdjustSaturation")
        return _back(K.adjust_saturation(img, self.saturation_factor), was_pil)


class AdjustHue(TensorOperation):
    """`AdjustHue(hue_factor)`: rotate the hue by `hue_factor` turns, in [-0.5, 0.5]."""

    def __init__(self, hue_factor):
        self.hue_factor = _number(hue_factor, "AdjustHue", "hue_factor", -0.5, 0.5)

    def _execute(self, img):
        img, was_pil = _rgb(img, "AdjustHue")
        return _back(K.adjust_hue(img, self.hue_factor), was_pil)


def _gamma(img, gamma, gain):
    if img.dtype == np.uint8:  # a 256-entry table: 255 * gain * (v / 255) ** gamma, rounded and saturated
        # (MindSpore 2.10 differs by 1 on a few levels)
        table = K.cast_like(255.0 * gain * (np.arange(256) / 255.0) ** gamma, np.uint8)
        return table[img]
    return K.cast_like(gain * np.power(img.astype(np.float32), gamma), img.dtype)


class AdjustGamma(TensorOperation):
    """`AdjustGamma(gamma, gain=1)`: out = gain * in ** gamma on [0, 1] intensities (uint8 scaled by 255)."""

    def __init__(self, gamma, gain=1):
        self.gamma = _number(gamma, "AdjustGamma", "gamma")
        if isinstance(gain, bool) or not isinstance(gain, numbers.Number):
            raise TypeError(f"For 'AdjustGamma', 'gain' must be a number, but got {gain!r}.")
        self.gain = float(gain)

    def _execute(self, img):
        img, was_pil = _to_array(img, "AdjustGamma")
        return _back(_gamma(img, self.gamma, self.gain), was_pil)


def _sharpness(img, factor):
    """Blend with a smoothed copy (3x3 kernel [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13, border pixels kept)."""
    kernel = np.ones((3, 3), np.float32)
    kernel[1, 1] = 5.0
    kernel /= 13.0
    work = img.astype(np.float32)
    smooth = cv2.filter2D(work, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    smooth = smooth.reshape(work.shape)
    if img.shape[0] > 2 and img.shape[1] > 2:
        edge = np.ones(img.shape[:2], bool)
        edge[1:-1, 1:-1] = False
        smooth[edge] = work[edge]
    if img.dtype == np.uint8:
        smooth = K.cast_like(smooth, np.uint8).astype(np.float32)
    return K.cast_like(smooth + factor * (work - smooth), img.dtype)


class AdjustSharpness(TensorOperation):
    """`AdjustSharpness(sharpness_factor)`: 0 gives a blurred image, 1 the original, 2 a sharpened one."""

    def __init__(self, sharpness_factor):
        self.sharpness_factor = _number(sharpness_factor, "AdjustSharpness", "sharpness_factor")

    def _execute(self, img):
        img, was_pil = _to_array(img, "AdjustSharpness")
        return _back(_sharpness(img, self.sharpness_factor), was_pil)


def _auto_contrast(img, cutoff, ignore):
    """Stretch each channel so that its darkest (brightest) `cutoff` percent of pixels map to 0 (255)."""
    img3 = img[:, :, None] if img.ndim == 2 else img
    out = np.empty_like(img3)
    for c in range(img3.shape[2]):
        channel = img3[:, :, c]
        hist = np.bincount(channel.ravel(), minlength=256).astype(np.int64)
        for value in ignore:
            hist[value] = 0
        total = int(hist.sum())
        if cutoff > 0 and total:
            cut = int(total * cutoff / 100.0)
            low_cut, high_cut = hist.copy(), hist.copy()
            cum = np.cumsum(low_cut)
            low_cut = np.clip(low_cut - np.clip(cut - (cum - low_cut), 0, None), 0, None)
            rev = np.cumsum(high_cut[::-1])[::-1]
            high_cut = np.clip(high_cut - np.clip(cut - (rev - high_cut), 0, None), 0, None)
            hist = np.minimum(low_cut, high_cut)
        present = np.nonzero(hist)[0]
        if present.size == 0 or present[0] >= present[-1]:
            out[:, :, c] = channel
            continue
        lo, hi = int(present[0]), int(present[-1])
        scale = 255.0 / (hi - lo)  # truncated, not rounded, as MindSpore 2.10 maps (checked against it)
        table = np.clip(np.floor((np.arange(256) - lo) * scale), 0, 255).astype(np.uint8)
        out[:, :, c] = table[channel]
    return out[:, :, 0] if img.ndim == 2 else out


def _check_ignore(ignore, where):
    if ignore is None:
        return []
    values = [ignore] if isinstance(ignore, int) else ignore
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, int) and 0 <= v <= 255 for v in values):
        raise ValueError(f"For '{where}', 'ignore' must be an int or a sequence of ints in [0, 255], got {ignore!r}.")
    return list(values)


class AutoContrast(TensorOperation):
    """`AutoContrast(cutoff=0.0, ignore=None)`: per channel, map the darkest pixel to 0 and the brightest to 255
    after dropping `cutoff` percent of the histogram at each end; the grey levels in `ignore` are not counted."""

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff = _number(cutoff, "AutoContrast", "cutoff", 0.0, 50.0)
        self.ignore = _check_ignore(ignore, "AutoContrast")

    def _execute(self, img):
        img, was_pil = _uint8(img, "AutoContrast")
        return _back(_auto_contrast(img, self.cutoff, self.ignore), was_pil)


def _equalize(img):
    if img.ndim == 2:
        return cv2.equalizeHist(img)
    return np.stack([cv2.equalizeHist(np.ascontiguousarray(img[:, :, c])) for c in range(img.shape[2])], axis=2)


class Equalize(TensorOperation):
    """`Equalize()`: histogram equalisation of each channel of a uint8 image."""

    def _execute(self, img):
        img, was_pil = _uint8(img, "Equalize")
        return _back(_equalize(img), was_pil)


class Posterize(TensorOperation):
    """`Posterize(bits)`: keep the `bits` high bits of each uint8 value (0 gives black)."""

    def __init__(self, bits):
        if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits <= 8:
            raise ValueError(f"For 'Posterize', 'bits' must be an int in [0, 8], but got {bits!r}.")
        self.bits = bits

    def _execute(self, img):
        img, was_pil = _uint8(img, "Posterize")
        mask = np.uint8((0xFF << (8 - self.bits)) & 0xFF)
        return _back(img & mask, was_pil)


def _solarize(img, low, high):
    top = 255 if img.dtype == np.uint8 else 1.0
    inside = (img >= low) & (img <= high)
    return np.where(inside, top - img, img).astype(img.dtype)


class Solarize(TensorOperation):
    """`Solarize(threshold)`: invert the pixels whose value lies in [min, max]; a single number t (or min == max)
    inverts every pixel >= t."""

    def __init__(self, threshold):
        if isinstance(threshold, (list, tuple)):
            low, high = _pair(threshold, "Solarize", "threshold", 0.0, 255.0)
        else:
            low = high = _number(threshold, "Solarize", "threshold", 0.0, 255.0)
        self.threshold = (low, high)

    def _execute(self, img):
        img, was_pil = _to_array(img, "Solarize")
        low, high = self.threshold
        return _back(_solarize(img, low, 255.0 if low == high else high), was_pil)


class GaussianBlur(TensorOperation):
    """`GaussianBlur(kernel_size, sigma=None)`: blur with an odd-sized Gaussian kernel (width, height) and sigma
    (sigma_x, sigma_y); a missing sigma is ((width - 1) * 0.5 - 1) * 0.3 + 0.8 for both axes."""

    def __init__(self, kernel_size, sigma=None):
        sizes = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(sizes) != 2 or not all(isinstance(s, int) and s > 0 and s % 2 == 1 for s in sizes):
            raise ValueError(f"For 'GaussianBlur', 'kernel_size' must be a positive odd int or two of them, but got "
                             f"{kernel_size!r}.")
        if sigma is None:
            # one sigma from the width for both axes, as MindSpore 2.10 blurs (checked against it)
            sigmas = (((sizes[0] - 1) * 0.5 - 1) * 0.3 + 0.8,) * 2
        else:
            sigmas = (sigma, sigma) if isinstance(sigma, numbers.Number) else tuple(sigma)
            if len(sigmas) != 2 or not all(isinstance(s, numbers.Number) and s > 0 for s in sigmas):
                raise ValueError(f"For 'GaussianBlur', 'sigma' must be a positive number or two of them, got {sigma!r}.")
        self.kernel_size, self.sigma = sizes, tuple(float(s) for s in sigmas)

    def _execute(self, img):
        img, was_pil = _to_array(img, "GaussianBlur")
        (kw, kh), (sw, sh) = self.kernel_size, self.sigma
        out = K._cv_call(img, lambda x: cv2.GaussianBlur(x, (kw, kh), sigmaX=sw, sigmaY=sh,
                                                         borderType=cv2.BORDER_REFLECT_101))
        return _back(out, was_pil)


class ConvertMode(enum.IntEnum):
    """Colour conversions of `ConvertColor` (OpenCV's cvtColor codes)."""
    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ConvertColor(TensorOperation):
    """`ConvertColor(convert_mode)`: change the colour space of an image by a `ConvertMode`."""

    def __init__(self, convert_mode):
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(f"For 'ConvertColor', 'convert_mode' must be a ConvertMode, but got {convert_mode!r}.")
        self.convert_mode = convert_mode
        self._code = getattr(cv2, convert_mode.name)

    def _execute(self, img):
        img, was_pil = _to_array(img, "ConvertColor")
        return _back(cv2.cvtColor(np.ascontiguousarray(img), self._code), was_pil)


def _hsv_axis(img, is_hwc, where):
    if img.ndim != 3 or img.shape[2 if is_hwc else 0] != 3:
        layout = "<H, W, 3>" if is_hwc else "<3, H, W>"
        raise ValueError(f"For '{where}', the input must be {layout}, but got shape {img.shape}.")
    return np.moveaxis(img.astype(np.float64), 0 if not is_hwc else 2, 0)


class RgbToHsv(TensorOperation):
    """`RgbToHsv(is_hwc=False)`: RGB values in [0, 1] → HSV in [0, 1] (hue as a fraction of a turn)."""

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    def _execute(self, img):
        img, _ = _to_array(img, "RgbToHsv")
        r, g, b = _hsv_axis(img, self.is_hwc, "RgbToHsv")  # float64 out, as MindSpore returns
        v = np.maximum(np.maximum(r, g), b)
        c = v - np.minimum(np.minimum(r, g), b)
        s = np.where(v > 0, c / np.where(v > 0, v, 1), 0.0)
        safe = np.where(c > 0, c, 1)
        h = np.where(v == r, (g - b) / safe, np.where(v == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
        h = np.where(c > 0, np.mod(h / 6.0, 1.0), 0.0)
        return np.moveaxis(np.stack([h, s, v]), 0, 2 if self.is_hwc else 0)


class HsvToRgb(TensorOperation):
    """`HsvToRgb(is_hwc=False)`: HSV in [0, 1] → RGB in [0, 1]; the inverse of `RgbToHsv`."""

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    def _execute(self, img):
        img, _ = _to_array(img, "HsvToRgb")
        h, s, v = _hsv_axis(img, self.is_hwc, "HsvToRgb")
        sector = np.floor(h * 6.0)
        f = h * 6.0 - sector
        p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
        sector = sector.astype(np.int64) % 6
        r = np.choose(sector, [v, q, p, p, t, v])
        g = np.choose(sector, [t, v, v, q, p, p])
        b = np.choose(sector, [p, p, t, v, v, q])
        return np.moveaxis(np.stack([r, g, b]), 0, 2 if self.is_hwc else 0)


class LinearTransformation(TensorOperation):
    """`LinearTransformation(transformation_matrix, mean_vector)`: flatten the image (D values), subtract
    `mean_vector` (D,), multiply by the (D, D) matrix, and restore the shape (whitening, for instance)."""

    def __init__(self, transformation_matrix, mean_vector):
        matrix, mean = np.asarray(transformation_matrix), np.asarray(mean_vector)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or mean.shape != (matrix.shape[0],):
            raise ValueError(f"For 'LinearTransformation', 'transformation_matrix' must be square (D, D) and "
                             f"'mean_vector' (D,), but got {matrix.shape} and {mean.shape}.")
        self.transformation_matrix, self.mean_vector = matrix, mean

    def _execute(self, img):
        img, _ = _to_array(img, "LinearTransformation")
        if img.size != self.mean_vector.shape[0]:
            raise ValueError(f"For 'LinearTransformation', the image has {img.size} values but the matrix is "
                             f"{self.transformation_matrix.shape}.")
        flat = img.reshape(1, -1) - self.mean_vector
        return np.dot(flat, self.transformation_matrix).reshape(img.shape)


class _RandomApplyOne(TensorOperation):
    """Apply `self._op(img)` with probability `prob`."""

    def _execute(self, img):
        return self._op(img) if rng().random() < self.prob else img


class RandomAdjustSharpness(_RandomApplyOne):
    """`RandomAdjustSharpness(degree, prob=0.5)`: `AdjustSharpness(degree)` with probability `prob`."""

    def __init__(self, degree, prob=0.5):
        self.degree, self.prob = _number(degree, "RandomAdjustSharpness", "degree"), check_prob(prob, "RandomAdjustSharpness")
        self._op = AdjustSharpness(self.degree)


class RandomAutoContrast(_RandomApplyOne):
    """`RandomAutoContrast(cutoff=0.0, ignore=None, prob=0.5)`: `AutoContrast` with probability `prob`."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self._op = AutoContrast(cutoff, ignore)
        self.cutoff, self.ignore, self.prob = cutoff, ignore, check_prob(prob, "RandomAutoContrast")


class RandomEqualize(_RandomApplyOne):
    """`RandomEqualize(prob=0.5)`: `Equalize` with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob, self._op = check_prob(prob, "RandomEqualize"), Equalize()


class RandomInvert(_RandomApplyOne):
    """`RandomInvert(prob=0.5)`: 255 - image with probability `prob`."""

    def __init__(self, prob=0.5):
        from .color import Invert
        self.prob, self._op = check_prob(prob, "RandomInvert"), Invert()


class RandomGrayscale(_RandomApplyOne):
    """`RandomGrayscale(prob=0.1)`: grey with as many channels as the input (3), with probability `prob`."""

    def __init__(self, prob=0.1):
        from .color import Grayscale
        self.prob, self._op = check_prob(prob, "RandomGrayscale"), Grayscale(3)


class RandomPosterize(TensorOperation):
    """`RandomPosterize(bits=(8, 8))`: `Posterize` with a bit count drawn from [min, max]."""

    def __init__(self, bits=(8, 8)):
        bits = (bits, bits) if isinstance(bits, int) else bits
        if not isinstance(bits, (list, tuple)) or len(bits) != 2 or not all(
                isinstance(b, int) and 1 <= b <= 8 for b in bits) or bits[0] > bits[1]:
            raise ValueError(f"For 'RandomPosterize', 'bits' must be an int or (min, max) in [1, 8], but got {bits!r}.")
        self.bits = tuple(bits)

    def _execute(self, img):
        return Posterize(int(rng().integers(self.bits[0], self.bits[1] + 1)))(img)


class RandomSolarize(TensorOperation):
    """`RandomSolarize(threshold=(0, 255))`: `Solarize` with a threshold range [a, b] drawn from the range given."""

    def __init__(self, threshold=(0, 255)):
        self.threshold = _pair(threshold, "RandomSolarize", "threshold", 0.0, 255.0)

    def _execute(self, img):
        a, b = sorted(rng().uniform(*self.threshold, size=2))
        img, was_pil = _to_array(img, "RandomSolarize")
        return _back(_solarize(img, a, b), was_pil)


class RandomSharpness(TensorOperation):
    """`RandomSharpness(degrees=(0.1, 1.9))`: `AdjustSharpness` with a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _pair(degrees, "RandomSharpness", "degrees")

    def _execute(self, img):
        return AdjustSharpness(rng().uniform(*self.degrees))(img)


class RandomColor(TensorOperation):
    """`RandomColor(degrees=(0.1, 1.9))`: `AdjustSaturation` with a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _pair(degrees, "RandomColor", "degrees")

    def _execute(self, img):
        return AdjustSaturation(rng().uniform(*self.degrees))(img)


# Principal components of ImageNet's RGB pixels (AlexNet's "lighting" noise): eigenvalues and eigenvectors.
_EIGVAL = np.array([0.2175, 0.0188, 0.0045], np.float32)
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]], np.float32)


class RandomLighting(TensorOperation):
    """`RandomLighting(alpha=0.05)`: add the RGB principal components of ImageNet scaled by their eigenvalues and
    by weights drawn from N(0, alpha) (AlexNet's PCA lighting), in 0..255 units."""

    def __init__(self, alpha=0.05):
        self.alpha = _number(alpha, "RandomLighting", "alpha")

    def _execute(self, img):
        img, was_pil = _rgb(img, "RandomLighting")
        weights = rng().normal(0.0, self.alpha, 3).astype(np.float32)
        shift = _EIGVEC @ (weights * _EIGVAL) * 255.0
        return _back(K.cast_like(img.astype(np.float32) + shift, img.dtype), was_pil)


def get_image_num_channels(image):
    """The channel count of an HWC numpy image (1 for <H, W>) or a Pillow image.

    >>> get_image_num_channels(np.zeros((4, 5, 3), np.uint8))
    3
    """
    image, was_pil = _to_array(image, "get_image_num_channels")
    if image.ndim == 2:
        return 1
    if image.ndim != 3:
        raise ValueError(f"For 'get_image_num_channels', the image must be <H, W> or <H, W, C>, got {image.shape}.")
    return int(image.shape[2])


def get_image_size(image):
    """[height, width] of an HWC numpy image or a Pillow image.

    >>> get_image_size(np.zeros((4, 5, 3), np.uint8))
    [4, 5]
    """
    image, _ = _to_array(image, "get_image_size")
    if image.ndim not in (2, 3):
        raise ValueError(f"For 'get_image_size', the image must be <H, W> or <H, W, C>, but got {image.shape}.")
    return [int(image.shape[0]), int(image.shape[1])]
