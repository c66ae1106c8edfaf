"""Image and file I/O functions of `mindspore.dataset.vision`: read/write raw files, decode, encode JPEG/PNG.

Files are written to a temporary name and renamed, so a crash never leaves half an image behind.

>>> import numpy as np, os, tempfile
>>> img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
>>> path = os.path.join(tempfile.mkdtemp(), "x.png")
>>> write_png(path, img); bool((read_image(path) == img).all())
True
"""
import enum
import os

import cv2
import numpy as np

from ...common.files import write_atomic
from ..transforms.base import to_numpy


class ImageReadMode(enum.IntEnum):
    """How `read_image` decodes: UNCHANGED keeps the stored channels, GRAYSCALE gives one, COLOR gives RGB."""
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def _path(filename, where, must_exist=True):
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"For '{where}', 'filename' must be a str, but got {type(filename).__name__}.")
    filename = os.fspath(filename)
    if must_exist and not os.path.isfile(filename):
        raise ValueError(f"For '{where}', no such file: {filename!r}.")
    return filename


def read_file(filename):
    """The bytes of a file as a 1-D uint8 array."""
    with open(_path(filename, "read_file"), "rb") as f:
        return np.frombuffer(f.read(), np.uint8).copy()


def write_file(filename, data):
    """Write a 1-D uint8 array as the file's bytes."""
    data = to_numpy(data)
    if data.dtype != np.uint8 or data.ndim != 1:
        raise TypeError(f"For 'write_file', 'data' must be a 1-D uint8 array, but got {data.dtype} {data.shape}.")
    write_atomic(_path(filename, "write_file", must_exist=False), [data.tobytes()], read_only=False)


def decode_image(data, mode=ImageReadMode.UNCHANGED):
    """Decode encoded image bytes to an HWC uint8 array (RGB order) as `mode` asks."""
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"For 'read_image', 'mode' must be an ImageReadMode, but got {mode!r}.")
    flag = {ImageReadMode.UNCHANGED: cv2.IMREAD_UNCHANGED, ImageReadMode.GRAYSCALE: cv2.IMREAD_GRAYSCALE,
            ImageReadMode.COLOR: cv2.IMREAD_COLOR}[mode]
    img = cv2.imdecode(np.asarray(data, np.uint8), flag)
    if img is None:
        raise RuntimeError("For 'read_image', the data is not an image OpenCV can decode (JPEG, PNG, BMP, TIFF).")
    if img.ndim == 3 and img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    elif img.ndim == 3 and img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
    return img[:, :, None] if img.ndim == 2 else img


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """Read a JPEG/PNG/BMP/TIFF file to an <H, W, C> uint8 array."""
    return decode_image(read_file(filename), mode)


def _image(image, where):
    image = to_numpy(image)
    if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3)):
        raise TypeError(f"For '{where}', the image must be uint8 <H, W>, <H, W, 1> or <H, W, 3>, but got "
                        f"{image.dtype} {image.shape}.")
    return image if image.ndim == 2 or image.shape[2] == 1 else cv2.cvtColor(image, cv2.COLOR_RGB2BGR)


def encode_jpeg(image, quality=75):
    """Encode an RGB or grey uint8 image as JPEG bytes (a 1-D uint8 array); quality in [1, 100]."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"For 'encode_jpeg', 'quality' must be an int in [1, 100], but got {quality!r}.")
    ok, buf = cv2.imencode(".jpg", _image(image, "encode_jpeg"), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.reshape(-1)


def encode_png(image, compression_level=6):
    """Encode an RGB or grey uint8 image as PNG bytes; compression_level in [0, 9]."""
    if isinstance(compression_level, bool) or not isinstance(compression_level, int) or not 0 <= compression_level <= 9:
        raise ValueError(f"For 'encode_png', 'compression_level' must be an int in [0, 9], got {compression_level!r}.")
    ok, buf = cv2.imencode(".png", _image(image, "encode_png"), [cv2.IMWRITE_PNG_COMPRESSION, compression_level])
    return buf.reshape(-1)


def write_jpeg(filename, image, quality=75):
    """Encode as JPEG and write the file."""
    write_file(filename, encode_jpeg(image, quality))


def write_png(filename, image, compression_level=6):
    """Encode as PNG and write the file."""
    write_file(filename, encode_png(image, compression_level))
