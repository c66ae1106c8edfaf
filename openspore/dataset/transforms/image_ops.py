"""Image kernels on numpy arrays (H, W) or (H, W, C): decode, resize, crop, pad, flip, rotate, colour.

Resizing follows OpenCV's conventions (half-pixel centres, no antialiasing, uint8 results rounded and
saturated), which is what MindSpore's C++ ops compute; Pillow decodes and rotates.
"""
import io

import numpy as np


def decode(data):
    """Encoded image bytes (1-D uint8 array or bytes) → RGB uint8 array (H, W, 3)."""
    from PIL import Image
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError(f"For 'Decode', the input must be encoded image bytes as a 1-D uint8 array, but got "
                            f"{data.dtype} with shape {data.shape}.")
        data = data.tobytes()
    elif not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"For 'Decode', the input must be bytes or a 1-D uint8 array, but got {type(data).__name__}.")
    try:
        with Image.open(io.BytesIO(data)) as img:
            return np.asarray(img.convert("RGB"))
    except Exception as exc:  # noqa: BLE001 - Pillow raises several types for bad data
        raise RuntimeError(f"For 'Decode', the input could not be decoded as an image: {exc}") from exc


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
    """Float results back to `dtype`, rounding and saturating integers as OpenCV does."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    if dtype == np.bool_:
        return values > 0.5
    return values.astype(dtype, copy=False)


def _cubic(x, a=-0.75):
    x = np.abs(x)
    return np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))


def _weights(out_n, in_n, method):
    """Dense (out_n, in_n) interpolation matrix for one axis."""
    scale = in_n / out_n
    rows = np.arange(out_n)
    w = np.zeros((out_n, in_n))
    if method == "area" and scale > 1:  # each output pixel averages the input span it covers
        lo = np.maximum(rows[:, None] * scale, np.arange(in_n)[None, :])
        hi = np.minimum((rows[:, None] + 1) * scale, np.arange(in_n)[None, :] + 1)
        return np.clip(hi - lo, 0, None) / scale
    src = (rows + 0.5) * scale - 0.5
    if method == "cubic":
        i0 = np.floor(src).astype(np.int64)
        t = src - i0
        for k in range(-1, 3):
            np.add.at(w, (rows, np.clip(i0 + k, 0, in_n - 1)), _cubic(t - k))
        return w
    src = np.clip(src, 0, in_n - 1)
    i0 = np.floor(src).astype(np.int64)
    frac = src - i0
    np.add.at(w, (rows, i0), 1 - frac)
    np.add.at(w, (rows, np.minimum(i0 + 1, in_n - 1)), frac)
    return w


def resize(img, size, method="linear"):
    """Resize to size=(h, w) with method nearest | linear | cubic | area | pilcubic | antialias."""
    img, was_2d = as_hwc(np.asarray(img), "Resize")
    h, w = size
    in_h, in_w, c = img.shape
    if (h, w) == (in_h, in_w):
        return restore(img.copy(), was_2d)
    if method == "nearest":
        ys = np.minimum(np.floor(np.arange(h) * (in_h / h)).astype(np.int64), in_h - 1)
        xs = np.minimum(np.floor(np.arange(w) * (in_w / w)).astype(np.int64), in_w - 1)
        return restore(img[ys][:, xs], was_2d)
    if method in ("pilcubic", "antialias"):
        return restore(_pil_per_channel(img, lambda im, f: im.resize((w, h), f),
                                        "bicubic" if method == "pilcubic" else "lanczos"), was_2d)
    dtype = img.dtype
    x = img.astype(np.float32 if dtype != np.float64 else np.float64)
    wy = _weights(h, in_h, method).astype(x.dtype)
    wx = _weights(w, in_w, method).astype(x.dtype)
    tmp = np.tensordot(wy, x, axes=(1, 0))  # (h, in_w, c)
    out = np.tensordot(wx, tmp, axes=(1, 1)).transpose(1, 0, 2)  # (h, w, c)
    return restore(cast_like(out, dtype), was_2d)


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


def pad(img, left, top, right, bottom, fill=0, mode="constant"):
    """Pad an image; `fill` is a number or one value per channel (constant mode)."""
    img, was_2d = as_hwc(np.asarray(img), "Pad")
    widths = ((top, bottom), (left, right), (0, 0))
    if mode != "constant":
        return restore(np.pad(img, widths, mode=mode), was_2d)
    fills = np.broadcast_to(np.asarray(fill, dtype=np.float64).reshape(-1), (img.shape[2],)) \
        if np.size(fill) in (1, img.shape[2]) else None
    if fills is None:
        raise ValueError(f"For 'Pad', 'fill_value' must be one number or one per channel ({img.shape[2]}), but got {fill!r}.")
    out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right, img.shape[2]), dtype=img.dtype)
    out[...] = fills.astype(img.dtype)
    out[top:top + img.shape[0], left:left + img.shape[1]] = img
    return restore(out, was_2d)


def rotate(img, degrees, resample="nearest", expand=False, center=None, fill=0):
    """Rotate counter-clockwise by `degrees` around `center` (x, y; default the image centre)."""
    img, was_2d = as_hwc(np.asarray(img), "Rotate")
    fills = [float(v) for v in np.broadcast_to(np.asarray(fill, dtype=np.float64).reshape(-1), (img.shape[2],))]
    if img.dtype == np.uint8:
        fills = [int(v) for v in fills]
    out = _pil_per_channel(img, lambda im, f, c: im.rotate(degrees, resample=f, expand=expand, center=center,
                                                               fillcolor=c), resample, fills)
    return restore(out, was_2d)


def to_gray(img):
    """ITU-R 601-2 luma of an RGB image (H, W, 3) → float (H, W)."""
    img = img.astype(np.float32)
    return img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114


def _blend(img, degenerate, factor):
    return cast_like(degenerate + factor * (img.astype(np.float32) - degenerate), img.dtype)


def adjust_brightness(img, factor):
    return _blend(img, np.zeros((), np.float32), factor)


def adjust_contrast(img, factor):
    mean = np.float32(np.mean(to_gray(img) if img.shape[-1] == 3 else img))
    return _blend(img, mean, factor)


def adjust_saturation(img, factor):
    return _blend(img, to_gray(img)[..., None], factor)


def adjust_hue(img, shift):
    """Rotate the hue of an RGB image by `shift` turns (in [-0.5, 0.5])."""
    scale = 255.0 if img.dtype == np.uint8 else 1.0
    rgb = img.astype(np.float32) / scale
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    delta = v - rgb.min(-1)
    s = np.where(v > 0, delta / np.where(v > 0, v, 1), 0)
    safe = np.where(delta > 0, delta, 1)
    h = np.where(v == r, (g - b) / safe, np.where(v == g, 2 + (b - r) / safe, 4 + (r - g) / safe))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0) + shift
    h = (h % 1.0) * 6
    i = np.floor(h).astype(np.int64) % 6
    f = h - np.floor(h)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [np.stack(c, -1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))]
    out = np.choose(i[..., None], choices)
    return cast_like(out * scale, img.dtype)
