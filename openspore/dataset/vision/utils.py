"""Enums of `mindspore.dataset.vision`: interpolation, border mode, batch image layout."""
import enum


class Inter(enum.IntEnum):
    """Interpolation: NEAREST, LINEAR/BILINEAR, CUBIC/BICUBIC, AREA (OpenCV style); PILCUBIC, ANTIALIAS (Pillow)."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, enum.Enum):
    """Padding mode: CONSTANT (fill value), EDGE (repeat the edge), REFLECT (mirror without the edge), SYMMETRIC."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ImageBatchFormat(enum.IntEnum):
    """Layout of a batch of images."""
    NHWC = 0
    NCHW = 1


_RESIZE_METHOD = {Inter.NEAREST: "nearest", Inter.LINEAR: "linear", Inter.CUBIC: "cubic", Inter.AREA: "area",
                  Inter.PILCUBIC: "pilcubic", Inter.ANTIALIAS: "antialias"}
_PIL_METHOD = {Inter.NEAREST: "nearest", Inter.LINEAR: "bilinear", Inter.CUBIC: "bicubic"}


def resize_method(interpolation, where):
    if not isinstance(interpolation, Inter):
        raise TypeError(f"For '{where}', 'interpolation' must be an Inter, but got {interpolation!r}.")
    return _RESIZE_METHOD[interpolation]


def pil_method(resample, where):
    if not isinstance(resample, Inter) or resample not in _PIL_METHOD:
        raise ValueError(f"For '{where}', 'resample' must be Inter.NEAREST, Inter.BILINEAR or Inter.BICUBIC, but got "
                         f"{resample!r}.")
    return _PIL_METHOD[resample]


def border_mode(mode, where):
    if not isinstance(mode, Border):
        raise TypeError(f"For '{where}', 'padding_mode' must be a Border, but got {mode!r}.")
    return mode.value
