"""Shared pieces of the NN-layer primitives: attribute normalization, 2-D window geometry (conv and pooling pad
modes) and the window/col2im array helpers both backends' kernels are built on.

Geometry is computed from shapes only, so `infer` and both kernels agree by construction.
"""
import numpy as np

PAD_MODES = ("valid", "same", "pad")


# ---- attribute normalization ---------------------------------------------------------------------
def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def hw_pair(op, name, value, allow_zero=False):
    """int, (h, w) or MindSpore's (1, 1, h, w) → (h, w) of positive ints."""
    if _is_int(value):
        pair = (int(value), int(value))
    elif isinstance(value, (tuple, list)) and len(value) in (1, 2, 4) and all(_is_int(v) for v in value):
        if len(value) == 1:
            pair = (int(value[0]), int(value[0]))
        elif len(value) == 2:
            pair = (int(value[0]), int(value[1]))
        else:
            if tuple(value[:2]) != (1, 1):
                raise ValueError(f"For '{op}', a 4-element '{name}' must be (1, 1, h, w), but got {tuple(value)}.")
            pair = (int(value[2]), int(value[3]))
    else:
        raise TypeError(f"For '{op}', the '{name}' must be an int or a tuple of 2 (or 4) ints, but got {value!r}.")
    low = 0 if allow_zero else 1
    if pair[0] < low or pair[1] < low:
        raise ValueError(f"For '{op}', the '{name}' must be {'non-negative' if allow_zero else 'positive'}, "
                         f"but got {value!r}.")
    return pair


def pad_four(op, name, value):
    """int, (h, w) or (top, bottom, left, right) → (top, bottom, left, right) of non-negative ints."""
    if _is_int(value):
        pads = (int(value),) * 4
    elif isinstance(value, (tuple, list)) and len(value) in (1, 2, 4) and all(_is_int(v) for v in value):
        if len(value) == 1:
            pads = (int(value[0]),) * 4
        elif len(value) == 2:
            pads = (int(value[0]), int(value[0]), int(value[1]), int(value[1]))
        else:
            pads = tuple(int(v) for v in value)
    else:
        raise TypeError(f"For '{op}', the '{name}' must be an int or a tuple of 2 or 4 ints, but got {value!r}.")
    if min(pads) < 0:
        raise ValueError(f"For '{op}', the '{name}' must be non-negative, but got {value!r}.")
    return pads


def pad_mode_of(op, value, modes=PAD_MODES):
    if not isinstance(value, str) or value.lower() not in modes:
        raise ValueError(f"For '{op}', the 'pad_mode' must be one of {list(modes)} (case insensitive), but got {value!r}.")
    return value.lower()


def check_format(op, value, allowed=("NCHW",)):
    if value not in allowed:
        raise ValueError(f"For '{op}', the 'data_format' must be one of {list(allowed)} on this backend, "
                         f"but got {value!r}.")


def set_attr(prim, name, value):
    prim.attrs[name] = value
    setattr(prim, name, value)


CLASSIC_POOL_DEFAULTS = {"kernel_size": 1, "strides": 1, "pad_mode": "valid", "data_format": "NCHW"}


def check_classic_pool_attrs(prim):
    """MaxPool/AvgPool attributes: check them, keep (kernel, stride, mode) as `_k`, `_s`, `_mode`, and store
    kernel_size and strides as MindSpore does, 4-tuples (1, 1, h, w)."""
    prim._k = hw_pair(prim.name, "kernel_size", prim.kernel_size)
    prim._s = hw_pair(prim.name, "strides", prim.strides)
    prim._mode = pad_mode_of(prim.name, prim.pad_mode, ("valid", "same"))
    set_attr(prim, "kernel_size", (1, 1) + prim._k)
    set_attr(prim, "strides", (1, 1) + prim._s)
    set_attr(prim, "pad_mode", prim._mode)
    check_format(prim.name, prim.data_format)


# ---- geometry ------------------------------------------------------------------------------------
_GEOMETRY = {}  # argument tuple -> result: a network asks for the same few windows at every step


def window_geometry(op, in_hw, kernel, stride, dilation, pad_mode, pads=(0, 0, 0, 0), ceil_mode=False):
    """Pads (top, bottom, left, right) actually applied and the output (oh, ow) (see _window_geometry)."""
    try:
        key = (op, tuple(in_hw), tuple(kernel), tuple(stride), tuple(dilation), pad_mode, tuple(pads), ceil_mode)
        found = _GEOMETRY.get(key)
    except TypeError:
        return _window_geometry(op, in_hw, kernel, stride, dilation, pad_mode, pads, ceil_mode)
    if found is None:
        found = _window_geometry(op, in_hw, kernel, stride, dilation, pad_mode, pads, ceil_mode)
        if len(_GEOMETRY) < 4096:
            _GEOMETRY[key] = found
    return found


def _window_geometry(op, in_hw, kernel, stride, dilation, pad_mode, pads, ceil_mode):
    """Pads (top, bottom, left, right) actually applied and the output (oh, ow).

    'valid': no padding; 'same': TensorFlow style, output ceil(in / stride) with the odd pixel of padding at the
    bottom/right; 'pad': the given pads. With ceil_mode the last window may hang over the end (extra bottom/right
    padding), but never starts inside the end padding only.
    """
    out, applied = [], []
    for axis in range(2):
        size, k, s, d = in_hw[axis], kernel[axis], stride[axis], dilation[axis]
        span = d * (k - 1) + 1
        if pad_mode == "same":
            n = -(-size // s)
            need = max(0, (n - 1) * s + span - size)
            lo, hi = need // 2, need - need // 2
        else:
            lo, hi = (pads[2 * axis], pads[2 * axis + 1]) if pad_mode == "pad" else (0, 0)
            room = size + lo + hi - span
            if room < 0:
                raise ValueError(f"For '{op}', the kernel (size {k}, dilation {d}) is larger than the padded input: "
                                 f"input size {size} with padding ({lo}, {hi}) along {'HW'[axis]}.")
            n = (-(-room // s) if ceil_mode else room // s) + 1
            if ceil_mode and (n - 1) * s >= size + lo:
                n -= 1
            hi += max(0, (n - 1) * s + span - (size + lo + hi))
        if n <= 0:
            raise ValueError(f"For '{op}', the output size along {'HW'[axis]} must be positive, but got {n} "
                             f"(input {size}, kernel {k}, stride {s}, dilation {d}).")
        out.append(n)
        applied += [lo, hi]
    return tuple(applied), tuple(out)


def adaptive_bins(in_size, out_size):
    """PyTorch-style bins: start = floor(i*in/out), end = ceil((i+1)*in/out)."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    return start, end


def adaptive_output(op, output_size, in_hw):
    if _is_int(output_size) or output_size is None:
        output_size = (output_size, output_size)
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 2:
        raise TypeError(f"For '{op}', the 'output_size' must be an int or a tuple of 2 ints/None, but got {output_size!r}.")
    out = []
    for v, s in zip(output_size, in_hw):
        if v is None:
            v = s
        if not _is_int(v) or v <= 0:
            raise ValueError(f"For '{op}', the 'output_size' must hold positive ints or None, but got {output_size!r}.")
        out.append(int(v))
    return tuple(out)


def adaptive_avg_matrix(in_size, out_size):
    """(out, in) averaging matrix of the adaptive bins (rows sum to 1): adaptive average pooling is separable."""
    start, end = adaptive_bins(in_size, out_size)
    cols = np.arange(in_size)
    inside = (cols[None, :] >= start[:, None]) & (cols[None, :] < end[:, None])
    return inside / (end - start)[:, None].astype(np.float64)


def avg_divisor(in_hw, pads, declared, out_hw, kernel, stride, count_region, divisor_override=0):
    """(oh, ow) float64 divisors of average pooling: how many counted cells each window covers.

    pads: applied (top, bottom, left, right); declared: the user's pads (applied may add a ceil-mode overhang).
    count_region: 'input' counts only real cells, 'padded' also the declared padding (never the overhang).
    """
    if divisor_override:
        return np.full(out_hw, float(divisor_override))
    per_axis = []
    for axis in range(2):
        lo = pads[2 * axis]
        size, k, s, n = in_hw[axis], kernel[axis], stride[axis], out_hw[axis]
        begin = np.arange(n) * s
        if count_region == "input":
            first, last = lo, lo + size
        else:
            first, last = 0, lo + size + declared[2 * axis + 1]
        counted = np.minimum(begin + k, last) - np.maximum(begin, first)
        per_axis.append(np.maximum(counted, 0))
    div = np.outer(per_axis[0], per_axis[1]).astype(np.float64)
    return np.maximum(div, 1.0)


# ---- numpy helpers --------------------------------------------------------------------------------
def np_pad(np, x, pads, value=0):
    if not any(pads):
        return x
    t, b, l, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def np_windows(np, xp, kernel, stride, dilation, out_hw):
    """Strided view (N, C, oh, ow, kh, kw) of the windows of a padded NCHW array (no copy)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    span = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
    view = np.lib.stride_tricks.sliding_window_view(xp, span, axis=(2, 3))
    return view[:, :, : (out_hw[0] - 1) * sh + 1: sh, : (out_hw[1] - 1) * sw + 1: sw, ::dh, ::dw]


def np_col2im(np, cols, padded_hw, kernel, stride, dilation):
    """Adjoint of np_windows: sum (N, C, oh, ow, kh, kw) window values back onto the padded (N, C, Hp, Wp) grid.

    One vectorized add per kernel offset (kh*kw of them), never per element.
    """
    n, c, oh, ow, kh, kw = cols.shape
    (sh, sw), (dh, dw) = stride, dilation
    out = np.zeros((n, c) + tuple(padded_hw), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh: i * dh + (oh - 1) * sh + 1: sh, j * dw: j * dw + (ow - 1) * sw + 1: sw] += cols[..., i, j]
    return out


def np_crop(x, pads):
    t, b, l, r = pads
    h, w = x.shape[2], x.shape[3]
    return x[:, :, t: h - b, l: w - r]


# ---- torch helpers --------------------------------------------------------------------------------
def torch_pad(torch, x, pads, value=0.0):
    if not any(pads):
        return x
    t, b, l, r = pads
    return torch.nn.functional.pad(x, (l, r, t, b), value=value)


def torch_fit(torch, full, top, left, hw):
    """Rows [top, top+H) and columns [left, left+W) of `full`, zero-filled where `full` is too short."""
    h, w = hw
    fh, fw = full.shape[2], full.shape[3]
    out = torch.nn.functional.pad(full, (-left, left + w - fw, -top, top + h - fh))
    return out.contiguous()


def symmetric(pads):
    return pads[0] == pads[1] and pads[2] == pads[3]
