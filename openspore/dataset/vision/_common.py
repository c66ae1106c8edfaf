"""Helpers shared by the vision transforms: Pillow/numpy conversion and argument parsing."""
import numbers

import numpy as np

from ..transforms.base import _is_pil


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
