"""Image kernels on numpy arrays (H, W) or (H, W, C), computed by OpenCV as MindSpore's C++ operators compute them.

Why OpenCV: it is what MindSpore's own CPU operators call (cv::imdecode / libjpeg-turbo, cv::resize,
cv::warpAffine, cv::copyMakeBorder, cv::cvtColor, cv::addWeighted), so interpolation, rounding (round half to
even, saturation) and borders agree by construction, and it is a maintained, vectorised, wheel-installable
library (opencv-python-headless). Pillow only serves PILCUBIC / ANTIALIAS resizing, as in MindSpore.

>>> import numpy as np
>>> resize(np.arange(16, dtype=np.uint8).reshape(4, 4), (2, 2), "nearest").tolist()
[[0, 2], [8, 10]]
"""
import cv2
import numpy as np

_INTER = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "cubic": cv2.INTER_CUBIC, "area": cv2.INTER_AREA}
_BORDER = {"constant": cv2.BORDER_CONSTANT, "edge": cv2.BORDER_REPLICATE, "reflect": cv2.BORDER_REFLECT_101,
           "symmetric": cv2.BORDER_REFLECT}
# dtypes cv::resize / cv::warpAffine take directly; others go through float64 and back
_CV_DTYPES = (np.uint8, np.uint16, np.int16, np.float32, np.float64)
_DECODE_FLAGS = cv2.IMREAD_IGNORE_ORIENTATION | getattr(cv2, "IMREAD_COLOR_RGB", cv2.IMREAD_COLOR)
_NEEDS_SWAP = not hasattr(cv2, "IMREAD_COLOR_RGB")
_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


def encoded_bytes(data, where="Decode"):
    """The encoded image as a 1-D uint8 array: from bytes, a 1-D uint8 array, or MindDataset's (1,) bytes array."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(data, dtype=np.uint8)
    if isinstance(data, np.ndarray):
        if data.dtype.kind == "S" and data.size == 1:
            return np.frombuffer(data.tobytes(), dtype=np.uint8)
        if data.dtype == np.uint8 and data.ndim == 1:
            return data
        raise TypeError(f"For '{where}', the input must be encoded image bytes as a 1-D uint8 array, but got "
                        f"{data.dtype} with shape {data.shape}.")
    raise TypeError(f"For '{where}', the input must be bytes or a 1-D uint8 array, but got {type(data).__name__}.")


def is_jpeg(buf):
    return buf.size > 3 and buf[0] == 0xFF and buf[1] == 0xD8 and buf[2] == 0xFF


def decode(data, reduce=1):
    """Encoded image → RGB uint8 (H, W, 3), EXIF orientation ignored (as MindSpore's Decode). `reduce` 2/4/8 decodes
    a JPEG at 1/reduce scale through DCT scaling (ceil of each side)."""
    buf = encoded_bytes(data)
    img = None
    if buf.size:
        flags = _DECODE_FLAGS if reduce == 1 else (_REDUCED[reduce] | cv2.IMREAD_IGNORE_ORIENTATION)
        img = cv2.imdecode(buf, flags)
        if img is not None and (reduce != 1 or _NEEDS_SWAP):
            img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    if img is None:
        img = _decode_with_pillow(buf)
    return img


def _decode_with_pillow(buf):
    """Formats OpenCV does not read (e.g. GIF frames in some builds) still decode; garbage gets a clear error."""
    import io

    from PIL import Image
    try:
        with Image.open(io.BytesIO(buf.tobytes())) as img:
            return np.asarray(img.convert("RGB"))
    except Exception as exc:  # noqa: BLE001 - Pillow raises several types for bad data
        raise RuntimeError(f"For 'Decode', the input could not be decoded as an image ({buf.size} bytes, starting "
                           f"{buf[:4].tobytes()!r}): {exc}") from exc


def as_hwc(img, where):
    """(array as (H, W, C), whether the input was 2-D)."""
    if img.ndim == 2:
        return img[:, :, None], True
    if img.ndim == 3:
        return img, False
    raise ValueError(f"For '{where}', the input must be an image of shape <H, W> or <H, W, C>, but got shape {img.shape}.")


def restore(img, was_2d):
    return img[:, :, 0] if was_2d else img


def cast_like(values, dtype):
    """Float results back to `dtype`, rounding half to even and saturating integers as OpenCV does."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    if dtype == np.bool_:
        return values > 0.5
    return values.astype(dtype, copy=False)


def _cv_call(img, fn):
    """fn(image as OpenCV takes it) with the channel axis kept, for any dtype and channel count."""
    img, was_2d = as_hwc(np.asarray(img), "image")
    dtype = img.dtype
    work = img if dtype in _CV_DTYPES else img.astype(np.float64)
    if img.shape[2] <= 4:
        out = fn(np.ascontiguousarray(work))
        out = out[:, :, None] if out.ndim == 2 else out
    else:  # OpenCV caps some kernels at 4 channels: run in groups of 4
        out = np.concatenate([np.atleast_3d(fn(np.ascontiguousarray(work[:, :, k:k + 4])))
                              for k in range(0, img.shape[2], 4)], axis=2)
    if out.dtype != dtype:
        out = cast_like(out, dtype)
    return restore(out, was_2d)


def resize(img, size, method="linear"):
    """Resize to size=(h, w) with method nearest | linear | cubic | area (OpenCV) | pilcubic | antialias (Pillow)."""
    img = np.asarray(img)
    h, w = size
    if img.shape[:2] == (h, w):
        return img.copy()
    if method in ("pilcubic", "antialias"):
        img3, was_2d = as_hwc(img, "Resize")
        return restore(_pil_per_channel(img3, lambda im, f: im.resize((w, h), f),
                                        "bicubic" if method == "pilcubic" else "lanczos"), was_2d)
    inter = _INTER[method]
    return _cv_call(img, lambda x: cv2.resize(x, (w, h), interpolation=inter))


def _pil_per_channel(img, fn, resample, fill=None):
    """Apply a Pillow geometric op to each channel (8-bit as 'L', anything else as 32-bit float 'F')."""
    from PIL import Image
    filters = {"nearest": Image.Resampling.NEAREST, "bilinear": Image.Resampling.BILINEAR,
               "bicubic": Image.Resampling.BICUBIC, "lanczos": Image.Resampling.LANCZOS}
    channels = []
    for k in range(img.shape[2]):
        ch = img[:, :, k]
        if img.dtype == np.uint8:
            im = Image.fromarray(np.ascontiguousarray(ch), mode="L")
        else:
            im = Image.fromarray(np.ascontiguousarray(ch, dtype=np.float32), mode="F")
        args = (filters[resample],) if fill is None else (filters[resample], fill[k])
        channels.append(np.asarray(fn(im, *args), dtype=np.float32 if img.dtype != np.uint8 else np.uint8))
    out = np.stack(channels, axis=2)
    return out if img.dtype == np.uint8 else cast_like(out, img.dtype)


def crop(img, top, left, height, width):
    return img[top:top + height, left:left + width].copy()


def _fill_values(fill, channels, where):
    values = np.asarray(fill, dtype=np.float64).reshape(-1)
    if values.size not in (1, channels):
        raise ValueError(f"For '{where}', 'fill_value' must be one number or one per channel ({channels}), but got "
                         f"{fill!r}.")
    return np.broadcast_to(values, (channels,))


def pad(img, left, top, right, bottom, fill=0, mode="constant"):
    """Pad an image (cv::copyMakeBorder); `fill` is a number or one value per channel (constant mode)."""
    img3, was_2d = as_hwc(np.asarray(img), "Pad")
    fills = _fill_values(fill, img3.shape[2], "Pad")
    if mode == "constant" and img3.shape[2] > 4:
        out = np.empty((img3.shape[0] + top + bottom, img3.shape[1] + left + right, img3.shape[2]), img3.dtype)
        out[...] = fills.astype(img3.dtype)
        out[top:top + img3.shape[0], left:left + img3.shape[1]] = img3
        return restore(out, was_2d)
    value = [float(v) for v in fills] + [0.0] * (4 - len(fills)) if mode == "constant" else None
    return restore(_cv_call(img3, lambda x: cv2.copyMakeBorder(x, top, bottom, left, right, _BORDER[mode],
                                                              value=value)), was_2d)


def rotate(img, degrees, resample="nearest", expand=False, center=None, fill=0):
    """Rotate counter-clockwise by `degrees` around `center` (x, y; default the centre ((w-1)/2, (h-1)/2)) with
    cv::warpAffine; `expand` grows the output to hold the whole rotated image."""
    img3, was_2d = as_hwc(np.asarray(img), "Rotate")
    h, w = img3.shape[:2]
    cx, cy = ((w - 1) / 2.0, (h - 1) / 2.0) if center is None else (float(center[0]), float(center[1]))
    matrix = cv2.getRotationMatrix2D((cx, cy), float(degrees), 1.0)
    out_w, out_h = w, h
    if expand:
        corners = np.array([[0, 0, 1], [w - 1, 0, 1], [0, h - 1, 1], [w - 1, h - 1, 1]], np.float64)
        moved = corners @ matrix.T
        lo, hi = moved.min(axis=0), moved.max(axis=0)
        out_w, out_h = int(np.round(hi[0] - lo[0])) + 1, int(np.round(hi[1] - lo[1])) + 1
        matrix[0, 2] -= lo[0]
        matrix[1, 2] -= lo[1]
    inter = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "bicubic": cv2.INTER_CUBIC}[resample]
    fills = [float(v) for v in _fill_values(fill, img3.shape[2], "Rotate")]
    value = (fills + [0.0] * 4)[:4]
    out = _cv_call(img3, lambda x: cv2.warpAffine(x, matrix, (out_w, out_h), flags=inter,
                                                  borderMode=cv2.BORDER_CONSTANT, borderValue=value))
    return restore(out, was_2d)


def to_gray(img):
    """ITU-R 601-2 luma of an RGB image (H, W, 3) → float32 (H, W), 0.299 R + 0.587 G + 0.114 B."""
    if img.dtype in (np.uint8, np.uint16, np.float32):
        return cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_RGB2GRAY).astype(np.float32)
    img = img.astype(np.float32)
    return img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114


def _blend(img, degenerate, factor):
    """factor * img + (1 - factor) * degenerate, rounded and saturated (cv::addWeighted for uint8)."""
    if img.dtype == np.uint8:
        other = np.broadcast_to(np.asarray(degenerate, dtype=np.float32), img.shape).astype(np.uint8) \
            if np.ndim(degenerate) else np.full(img.shape, np.float32(degenerate), np.float32)
        if other.dtype == np.uint8:
            return cv2.addWeighted(img, float(factor), other, float(1 - factor), 0.0)
        return cv2.addWeighted(img.astype(np.float32), float(factor), other, float(1 - factor), 0.0,
                               dtype=cv2.CV_8U)
    return cast_like(degenerate + factor * (img.astype(np.float32) - degenerate), img.dtype)


def adjust_brightness(img, factor):
    return _blend(img, np.zeros((), np.float32), factor)


def adjust_contrast(img, factor):
    mean = np.float32(np.mean(to_gray(img) if img.shape[-1] == 3 else img))
    return _blend(img, mean, factor)


def adjust_saturation(img, factor):
    gray = to_gray(img)
    if img.dtype == np.uint8:
        gray = cast_like(gray, np.uint8)
    return _blend(img, np.repeat(gray[..., None], img.shape[-1], axis=-1), factor)


def adjust_hue(img, shift):
    """Rotate the hue of an RGB image by `shift` turns (in [-0.5, 0.5])."""
    scale = 255.0 if img.dtype == np.uint8 else 1.0
    rgb = np.ascontiguousarray(img.astype(np.float32) / scale)
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)  # float: H in degrees [0, 360)
    hsv[..., 0] = np.mod(hsv[..., 0] + shift * 360.0, 360.0)
    out = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
    return cast_like(out * scale, img.dtype)


_LUT_DEPTHS = (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.float16, np.float32, np.float64)


def normalize_table(mean, std, dtype=np.float32):
    """(256, C) table of (v - mean) / std computed in float32 exactly as Normalize computes each pixel, then cast
    to `dtype` as a following TypeCast would."""
    values = np.arange(256, dtype=np.float32)[:, None]
    return ((values - mean.reshape(1, -1)) / std.reshape(1, -1)).astype(np.float32).astype(dtype)


_SPLIT_DTYPES = (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.float32, np.float64)


def hwc_to_chw(img):
    """(H, W, C) → contiguous (C, H, W). cv::split writes each plane straight into the output (one sequential pass,
    ~10× faster than numpy's strided copy of a transpose for uint8); other dtypes take the numpy copy.

    >>> hwc_to_chw(np.arange(12, dtype=np.uint8).reshape(2, 2, 3))[1].tolist()
    [[1, 4], [7, 10]]
    """
    h, w, c = img.shape
    if c < 2 or img.dtype.type not in _SPLIT_DTYPES or not h or not w:
        return np.ascontiguousarray(img.transpose(2, 0, 1))
    out = np.empty((c, h, w), img.dtype)
    planes = [out[k] for k in range(c)]
    written = cv2.split(np.ascontiguousarray(img), planes)
    if any(p.ctypes.data != q.ctypes.data for p, q in zip(planes, written)):  # OpenCV chose its own buffers
        return np.stack(written)
    return out


def normalize_u8_hwc(img, mean, std):
    """uint8 (H, W, C), C <= 4 → float32 (img - mean) / std, the very values `normalize_table` holds, in two passes
    that vectorise: cv::subtract with a per-channel scalar widens and subtracts at once (a 3-channel float LUT does
    not vectorise), then one divide over rows long enough for numpy's SIMD loop (a trailing axis of 3 is not).

    >>> normalize_u8_hwc(np.full((1, 2, 3), 10, np.uint8), np.float32([0, 5, 10]), np.float32([2, 5, 1]))[0, 0].tolist()
    [5.0, 1.0, 0.0]
    """
    h, w, c = img.shape
    scalar = tuple(float(m) for m in np.broadcast_to(mean, (c,))) + (0.0,) * (4 - c)
    out = cv2.subtract(np.ascontiguousarray(img), scalar, dtype=cv2.CV_32F)
    rows = out.reshape(h, w * c)
    np.divide(rows, np.tile(np.broadcast_to(std, (c,)), w), out=rows)
    return out.reshape(h, w, c)


def lut_map(img, table, chw):
    """uint8 image (H, W, C) → table[pixel, channel] in one pass per plane, laid out (C, H, W) when `chw`."""
    h, w, c = img.shape
    dtype = table.dtype
    native = dtype.type in _LUT_DEPTHS
    if not chw:
        if native and c <= 4:
            return cv2.LUT(img, np.ascontiguousarray(table.reshape(1, 256, c) if c > 1 else table[:, 0]))\
                .reshape(h, w, c)
        return np.stack([np.take(table[:, k], img[:, :, k]) for k in range(c)], axis=2)
    out = np.empty((c, h, w), dtype)
    planes = cv2.split(img) if c > 1 else [img[:, :, 0]]
    for k in range(c):
        column = np.ascontiguousarray(table[:, k])
        if native:
            cv2.LUT(np.ascontiguousarray(planes[k]), column, dst=out[k])
        else:
            np.take(column, planes[k], out=out[k])
    return out
