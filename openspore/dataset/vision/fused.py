"""Fused image preprocessing: a run of `Decode → Resize → CenterCrop → Normalize → HWC2CHW → TypeCast` (each
optional, in this order, at least two of them) becomes one operation that makes as few passes over memory as it
can: the decode, the resize, a crop that is only a view, and one table lookup per channel that normalizes, casts
and writes the channel-first layout at once. `map` applies it automatically (`ds.config.set_enable_fusion`).

Results equal the unfused sequence exactly: the resize is the same cv::resize call and the lookup tables hold the
very float32 values Normalize computes (then TypeCast's cast). Only with `ds.config.set_enable_reduced_decode(True)`
does a JPEG followed by a fixed-size Resize decode at 1/2, 1/4 or 1/8 scale first (DCT scaling) — faster, with
the pixels of a smoother downscale.

>>> import numpy as np
>>> from openspore.dataset import vision, transforms
>>> ops = [vision.Resize((4, 4)), vision.Normalize([0.0] * 3, [255.0] * 3), vision.HWC2CHW()]
>>> fused = fuse_operations(ops)
>>> len(fused), type(fused[0]).__name__
(1, 'FusedImagePipeline')
>>> img = np.arange(8 * 8 * 3, dtype=np.uint8).reshape(8, 8, 3)
>>> np.array_equal(fused[0](img), ops[2](ops[1](ops[0](img))))
True
"""
import numpy as np

from .. import config
from ..transforms import image_ops as K
from ..transforms.base import TensorOperation
from ..transforms.transforms import TypeCast
from .color import HWC2CHW, Decode, Normalize
from .geometry import CenterCrop, Resize, _center_crop

_STAGES = ("decode", "resize", "crop", "normalize", "chw", "cast")


def _stage(op):
    """Which fusable stage an operation is, or None. Exact classes only: a subclass may change the behaviour."""
    kind = type(op)
    if kind is Decode and not op.to_pil:
        return "decode"
    if kind is Resize and op._method in ("nearest", "linear", "cubic", "area"):
        return "resize"
    if kind is CenterCrop:
        return "crop"
    if kind is Normalize and op.is_hwc:
        return "normalize"
    if kind is HWC2CHW:
        return "chw"
    if kind is TypeCast:
        return "cast"
    return None


def jpeg_size(buf):
    """(height, width) from a baseline/progressive JPEG's SOF marker, or None."""
    n, i = buf.size, 2
    while i + 9 < n:
        if buf[i] != 0xFF:
            return None
        marker = buf[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            i += 2
            continue
        length = (int(buf[i + 2]) << 8) | int(buf[i + 3])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return (int(buf[i + 5]) << 8) | int(buf[i + 6]), (int(buf[i + 7]) << 8) | int(buf[i + 8])
        i += 2 + length
    return None


class FusedImagePipeline(TensorOperation):
    """One operation standing for a run of fusable operations (`source_ops`, in order)."""

    _native = True  # runs in OpenCV with the GIL released: map may run it on threads

    def __init__(self, source_ops):
        self.source_ops = list(source_ops)
        self._by_stage = {_stage(op): op for op in self.source_ops}
        cast = self._by_stage.get("cast")
        self._out_dtype = np.dtype(cast._dtype) if cast is not None else np.dtype(np.float32)
        self._tables = {}

    def __repr__(self):
        return f"FusedImagePipeline({' + '.join(type(op).__name__ for op in self.source_ops)})"

    @property
    def name(self):
        return "Fused[" + "+".join(type(op).__name__ for op in self.source_ops) + "]"

    def _target(self, h, w):
        resize = self._by_stage["resize"]
        if isinstance(resize.size, int):
            s = resize.size
            return (s, int(s * w / h)) if h <= w else (int(s * h / w), s)
        return resize.size

    def _decode(self, data):
        buf = K.encoded_bytes(data)
        if "resize" in self._by_stage and config.get_enable_reduced_decode() and K.is_jpeg(buf):
            size = jpeg_size(buf)
            if size is not None:
                th, tw = self._target(*size)
                for r in (8, 4, 2):  # the strongest DCT scaling that still leaves at least the target size
                    if -(-size[0] // r) >= th and -(-size[1] // r) >= tw:
                        img = K.decode(buf, r)
                        return img, size
        img = K.decode(buf)
        return img, img.shape[:2]

    def _execute(self, x):
        stages = self._by_stage
        if "decode" in stages:
            img, full_size = self._decode(x)
        else:
            if not isinstance(x, np.ndarray) or x.ndim != 3:  # Pillow images and 2-D arrays run op by op
                return self._unfused(x)
            img, full_size = x, x.shape[:2]
        if "resize" in stages:
            th, tw = self._target(*full_size)
            img = K.resize(img, (th, tw), stages["resize"]._method)
        if "crop" in stages:
            img = _center_crop(img, *stages["crop"].size)
        return self._tail(img)

    def _tail(self, img):
        """Normalize / HWC2CHW / TypeCast on an (H, W, C) image, in one pass when the image is uint8."""
        stages = self._by_stage
        norm = stages.get("normalize")
        if norm is not None and img.dtype == np.uint8 and norm.mean.size in (1, img.shape[2]):
            if "chw" not in stages and img.shape[2] <= 4 and self._out_dtype == np.float32:
                return K.normalize_u8_hwc(img, norm.mean, norm.std)
            key = (img.shape[2], self._out_dtype.str)
            if key not in self._tables:
                self._tables[key] = norm._table(img.shape[2], self._out_dtype if "cast" in stages else np.float32)
            return K.lut_map(img, self._tables[key], chw="chw" in stages)
        rest = [stages[s] for s in ("normalize", "chw", "cast") if s in stages]
        for op in rest:
            img = op(img)
        return img

    def _unfused(self, img):
        for op in self.source_ops:
            img = op(img)
        return img


def fuse_operations(operations):
    """`operations` with each fusable run (two or more in stage order) replaced by one FusedImagePipeline."""
    out, run, last = [], [], -1
    for op in list(operations) + [None]:
        stage = _stage(op) if op is not None else None
        position = _STAGES.index(stage) if stage is not None else -1
        if stage is not None and position > last:
            run.append(op)
            last = position
            continue
        if len(run) >= 2:
            out.append(FusedImagePipeline(run))
        else:
            out.extend(run)
        run, last = [], -1
        if stage is not None:
            run, last = [op], position
        elif op is not None:
            out.append(op)
    return out
