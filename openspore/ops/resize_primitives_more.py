"""More resize/sampling/patch Primitive classes composed from Gather, MatMul and elementwise weights (so they
differentiate and compile): bicubic and area resizes, 3-D grid sampling, 3-D max pooling with its argmax,
volume patches, col2im and the short-time Fourier transform.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
>>> ms.ops.ResizeArea()(x, ms.Tensor(np.array([2, 2], np.int32))).asnumpy().ravel().tolist()
[2.5, 4.5, 10.5, 12.5]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive
from .resize_primitives import _sizes, _source


def _apply_matrix(x, axis, matrix):
    """Contract axis `axis` of x with matrix (n_out, n_in): out[..., o, ...] = Σ_i matrix[o, i] x[..., i, ...]."""
    moved = F.swapaxes(x, axis, len(x.shape) - 1)
    out = F.matmul(moved, Tensor(matrix.T.astype(x.dtype.np_dtype)))
    return F.swapaxes(out, axis, len(x.shape) - 1)


# ---- bicubic and area resizes --------------------------------------------------------------------------------------
def _cubic(t, a):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def _bicubic_matrix(n_in, n_out, mode):
    # half-pixel centres use Keys' a = −0.5 and drop taps outside the image (renormalising); the other
    # conventions use a = −0.75 and clamp taps to the edge, as MindSpore's (TensorFlow's) kernel does
    src = _source(mode, n_in, n_out)
    a = -0.5 if mode == "half_pixel" else -0.75
    base = np.floor(src).astype(np.int64)
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        for k in range(-1, 3):
            i = base[o] + k
            w = _cubic(src[o] - i, a)
            if mode == "half_pixel":
                if 0 <= i < n_in:
                    m[o, i] += w
            else:
                m[o, min(max(i, 0), n_in - 1)] += w
        if mode == "half_pixel":
            m[o] /= m[o].sum()
    return m


def _resize_bicubic(self, images, size):
    if len(images.shape) != 4:
        raise ValueError(f"For 'ResizeBicubic', 'images' must be 4-D (N, C, H, W), but got {list(images.shape)}.")
    if self.align_corners and self.half_pixel_centers:
        raise ValueError("For 'ResizeBicubic', 'align_corners' and 'half_pixel_centers' cannot both be True.")
    mode = "align_corners" if self.align_corners else "half_pixel" if self.half_pixel_centers else "asymmetric"
    out = images if images.dtype.kind == "float" else F.cast(images, mstype.float32)
    for i, n_out in enumerate(_sizes("ResizeBicubic", size, 2)):
        out = _apply_matrix(out, 2 + i, _bicubic_matrix(images.shape[2 + i], n_out, mode))
    return out


ResizeBicubic = _primitive("ResizeBicubic", _resize_bicubic, attrs=[("align_corners", False),
                                                                   ("half_pixel_centers", False)],
                           doc="ResizeBicubic(align_corners=False, half_pixel_centers=False)(images NCHW, size): "
                               "bicubic resize (Keys kernel).")


def _area_matrix(n_in, n_out, align_corners):
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        start, end = o * scale, (o + 1) * scale
        for i in range(int(np.floor(start)), min(int(np.ceil(end)), n_in)):
            m[o, i] = max(0.0, min(end, i + 1) - max(start, i))
        m[o] /= scale  # an average over the covered area
    return m


def _resize_area(self, images, size):
    if len(images.shape) != 4:
        raise ValueError(f"For 'ResizeArea', 'images' must be 4-D (N, H, W, C), but got {list(images.shape)}.")
    out = F.cast(images, mstype.float32)
    for i, n_out in enumerate(_sizes("ResizeArea", size, 2)):
        out = _apply_matrix(out, 1 + i, _area_matrix(images.shape[1 + i], n_out, self.align_corners))
    return out


ResizeArea = _primitive("ResizeArea", _resize_area, attrs=[("align_corners", False)],
                        doc="ResizeArea(align_corners=False)(images NHWC, size): each output pixel the "
                            "area-weighted mean of the input pixels it covers (float32).")


# ---- 3-D sampling, pooling, patches --------------------------------------------------------------------------------------
def _grid_sample_3d(self, input, grid):
    if len(input.shape) != 5 or len(grid.shape) != 5 or grid.shape[-1] != 3:
        raise ValueError(f"For 'GridSampler3D', input must be (N, C, D, H, W) and grid (N, D', H', W', 3), but got "
                         f"{list(input.shape)} and {list(grid.shape)}.")
    if self.interpolation_mode not in ("bilinear", "nearest") or self.padding_mode not in ("zeros", "border"):
        raise ValueError("For 'GridSampler3D', interpolation_mode must be 'bilinear' or 'nearest' and padding_mode "
                         f"'zeros' or 'border', but got {self.interpolation_mode!r}, {self.padding_mode!r}.")
    n, c, d, h, w = input.shape
    sizes = (w, h, d)
    coords = []
    for k, size in enumerate(sizes):  # grid's last axis is (x, y, z) = (W, H, D)
        g = F.squeeze(F.narrow(grid, 4, k, 1), 4)
        pos = (g + 1.0) * (size - 1) / 2.0 if self.align_corners else ((g + 1.0) * size - 1.0) / 2.0
        coords.append(F.clamp(pos, 0.0, float(size - 1)) if self.padding_mode == "border" else pos)
    flat = F.reshape(input, (n, c, d * h * w))
    out_shape = tuple(grid.shape[1:4])

    def corner(ix, iy, iz):
        inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1) & (iz >= 0) & (iz <= d - 1)
        cx, cy, cz = (F.cast(F.clamp(v, 0.0, float(s - 1)), mstype.int64) for v, s in ((ix, w), (iy, h), (iz, d)))
        index = F.reshape((cz * h + cy) * w + cx, (n, 1, -1))
        values = F.gather_elements(flat, 2, F.broadcast_to(index, (n, c, index.shape[2])))
        values = F.reshape(values, (n, c) + out_shape)
        return values * F.expand_dims(F.cast(inside, input.dtype), 1)

    x, y, z = coords
    if self.interpolation_mode == "nearest":
        return corner(F.round(x), F.round(y), F.round(z))
    x0, y0, z0 = F.floor(x), F.floor(y), F.floor(z)
    fx, fy, fz = (F.expand_dims(v - v0, 1) for v, v0 in ((x, x0), (y, y0), (z, z0)))
    out = None
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                weight = (fx if dx else 1.0 - fx) * (fy if dy else 1.0 - fy) * (fz if dz else 1.0 - fz)
                term = corner(x0 + dx, y0 + dy, z0 + dz) * weight
                out = term if out is None else out + term
    return out


GridSampler3D = _primitive("GridSampler3D", _grid_sample_3d,
                           attrs=[("interpolation_mode", "bilinear"), ("padding_mode", "zeros"),
                                  ("align_corners", False)],
                           doc="GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros', "
                               "align_corners=False)(input (N, C, D, H, W), grid (N, D', H', W', 3)).")


def _triple(value):
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3
    return values[-3:] if len(values) == 5 else values


def _windows(x, kernel, strides, pads, dilation, fill):
    """(stacked (N, C, kd·kh·kw, oD, oH, oW) windows, flat D·H·W input index of each tap)."""
    d, h, w = x.shape[2:]
    padded = F.pad(x, (pads[2], pads[2], pads[1], pads[1], pads[0], pads[0]), value=fill) if any(pads) else x
    outs = [(n + 2 * p - dl * (k - 1) - 1) // s + 1 for n, p, dl, k, s in zip((d, h, w), pads, dilation, kernel,
                                                                                 strides)]
    taps, where = [], []
    for i in range(kernel[0]):
        zi = np.arange(outs[0]) * strides[0] + i * dilation[0]
        a = F.gather(padded, Tensor(zi), 2)
        for j in range(kernel[1]):
            yi = np.arange(outs[1]) * strides[1] + j * dilation[1]
            b = F.gather(a, Tensor(yi), 3)
            for k in range(kernel[2]):
                xi = np.arange(outs[2]) * strides[2] + k * dilation[2]
                taps.append(F.gather(b, Tensor(xi), 4))
                zz, yy, xx = np.meshgrid(zi - pads[0], yi - pads[1], xi - pads[2], indexing="ij")
                where.append((zz * h + yy) * w + xx)
    return F.stack(taps, 2), np.stack(where)


def _max_pool3d_argmax(self, x):
    if len(x.shape) != 5:
        raise ValueError(f"For 'MaxPool3DWithArgmax', 'x' must be 5-D (N, C, D, H, W), but got {list(x.shape)}.")
    if self.ceil_mode:
        raise ValueError("For 'MaxPool3DWithArgmax', ceil_mode=True is not implemented in openspore.")
    low = float(np.finfo(x.dtype.np_dtype).min) if x.dtype.kind == "float" else int(np.iinfo(x.dtype.np_dtype).min)
    stacked, where = _windows(x, _triple(self.ksize), _triple(self.strides), _triple(self.pads),
                              _triple(self.dilation), low)
    best = F.argmax(stacked, 2)
    flat_where = Tensor(where.reshape(where.shape[0], -1))
    picked = F.gather_elements(F.broadcast_to(F.reshape(flat_where, (1, 1) + tuple(flat_where.shape)),
                                              tuple(x.shape[:2]) + tuple(flat_where.shape)),
                               2, F.reshape(best, tuple(x.shape[:2]) + (1, -1)))
    argmax = F.reshape(picked, tuple(best.shape))
    return F.amax(stacked, 2), F.cast(argmax, mstype.to_dtype(self.argmax_type, "MaxPool3DWithArgmax"))


MaxPool3DWithArgmax = _primitive(
    "MaxPool3DWithArgmax", _max_pool3d_argmax,
    attrs=[("ksize", 1), ("strides", 1), ("pads", 0), ("dilation", (1, 1, 1)), ("ceil_mode", False),
           ("data_format", "NCDHW"), ("argmax_type", mstype.int64)],
    doc="MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1,1,1), ceil_mode=False, data_format='NCDHW', "
        "argmax_type=int64)(x): (max over each window, flat D·H·W index of the maximum).")


def _extract_volume_patches(self, x):
    kernel, strides = _triple(self.kernel_size), _triple(self.strides)
    if self.padding.upper() not in ("VALID", "SAME"):
        raise ValueError(f"For 'ExtractVolumePatches', 'padding' must be 'VALID' or 'SAME', but got {self.padding!r}.")
    pads = (0, 0, 0)
    if self.padding.upper() == "SAME":
        totals = [max((-(-n // s) - 1) * s + k - n, 0) for n, s, k in zip(x.shape[2:], strides, kernel)]
        x = F.pad(x, (totals[2] // 2, totals[2] - totals[2] // 2, totals[1] // 2, totals[1] - totals[1] // 2,
                      totals[0] // 2, totals[0] - totals[0] // 2))
    stacked, _ = _windows(x, kernel, strides, pads, (1, 1, 1), 0.0)
    n, c, taps = stacked.shape[:3]
    return F.reshape(stacked, (n, c * taps) + tuple(stacked.shape[3:]))


ExtractVolumePatches = _primitive(
    "ExtractVolumePatches", _extract_volume_patches,
    attrs=[("kernel_size", 1), ("strides", 1), ("padding", "VALID")],
    doc="ExtractVolumePatches(kernel_size, strides, padding)(x (N, C, D, H, W)): each kd×kh×kw patch as a depth "
        "column (N, C·kd·kh·kw, oD, oH, oW), channel slowest.")


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Sum sliding-window columns (N, C, kh·kw, L) — or (N, C·kh·kw, L) — back into (N, C, H, W) (the adjoint of
    im2col; MindSpore's fold)."""
    if len(input_x.shape) == 4:
        n, c, k, l_ = input_x.shape
        input_x = F.reshape(input_x, (n, c * k, l_))
    return F.fold(input_x, output_size, kernel_size, dilation, padding_value, stride)


# ---- short-time Fourier transform --------------------------------------------------------------------------------------
def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT", normalized=False,
         onesided=None, return_complex=None):
    """Fourier transforms of windowed frames of a 1-D (or batched 2-D) signal: (…, freqs, frames), complex, or
    real with a trailing (re, im) axis when return_complex is False."""
    if not isinstance(x, Tensor) or len(x.shape) not in (1, 2):
        raise ValueError(f"For 'stft', 'x' must be a 1-D or 2-D Tensor, but got {getattr(x, 'shape', x)!r}.")
    hop = hop_length or n_fft // 4
    win_length = win_length or n_fft
    if window is None:
        window = F.ones((win_length,), x.dtype if x.dtype.kind == "float" else mstype.float32)
    if window.shape[0] < n_fft:  # centre a shorter window inside n_fft
        left = (n_fft - window.shape[0]) // 2
        window = F.pad(window, (left, n_fft - window.shape[0] - left))
    signal = F.expand_dims(x, 0) if len(x.shape) == 1 else x
    if center:
        mode = pad_mode.lower()
        signal = F.squeeze(F.pad(F.expand_dims(signal, 1), (n_fft // 2, n_fft // 2), mode=mode), 1)
    length = signal.shape[-1]
    if length < n_fft:
        raise ValueError(f"For 'stft', the (padded) signal length {length} is shorter than n_fft={n_fft}.")
    frames = (length - n_fft) // hop + 1
    index = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None]
    framed = F.gather(signal, Tensor(index.reshape(-1)), 1)
    framed = F.reshape(framed, (signal.shape[0], frames, n_fft)) * window
    complex_input = x.dtype.kind == "complex" or window.dtype.kind == "complex"
    onesided = (not complex_input) if onesided is None else onesided
    spec = F.rfft(framed, dim=-1) if onesided else F.fft(F.cast(framed, mstype.complex64), dim=-1)
    if normalized:
        spec = spec / float(np.sqrt(n_fft))
    spec = F.swapaxes(spec, 1, 2)
    if len(x.shape) == 1:
        spec = F.squeeze(spec, 0)
    if return_complex is False:
        return F.stack((F.real(spec), F.imag(spec)), -1)
    return spec


STFT = _primitive("STFT", lambda self, x, window=None: stft(x, self.n_fft, self.hop_length, self.win_length, window,
                                                            False, "REFLECT", self.normalized, self.onesided,
                                                            self.return_complex),
                  attrs=[("n_fft", 400), ("hop_length", None), ("win_length", None), ("normalized", False),
                         ("onesided", True), ("return_complex", True)],
                  doc="STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window): stft "
                      "of already padded frames (center=False).")

__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive) + [
    "col2im", "stft"]
