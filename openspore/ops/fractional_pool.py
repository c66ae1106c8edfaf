"""Fractional max pooling with a fixed kernel (torch/MindSpore's `fractional_max_pool2d/3d` and the
FractionalMaxPool*WithFixedKsize primitives): window starts follow a pseudo-random sequence driven by one sample in
[0, 1) per plane and axis, so outputs of any size between in/k and in are reachable. Written as a gather over the
windows, so the result differentiates; the argmax is the flat index in each input plane.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(49, dtype=np.float32).reshape(1, 1, 7, 7))
>>> samples = ms.Tensor(np.array([[[0.3, 0.7]]], np.float32))
>>> ms.ops.fractional_max_pool2d(x, 2, output_size=3, _random_samples=samples).asnumpy().ravel().tolist()
[8.0, 11.0, 13.0, 29.0, 32.0, 34.0, 43.0, 46.0, 48.0]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.registry import prim
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "FractionalMaxPoolWithFixedKsize",
           "FractionalMaxPool3DWithFixedKsize"]


def _starts(sample, n_in, n_out, k):
    """Window starts on one axis: ⌊(i + u)·α⌋ − ⌊u·α⌋ with α = (n_in − k)/(n_out − 1), the last at n_in − k."""
    if n_out == 1:
        return np.array([n_in - k])
    alpha = (n_in - k) / (n_out - 1)
    i = np.arange(n_out - 1)
    return np.concatenate([(np.floor((i + sample) * alpha) - np.floor(sample * alpha)).astype(np.int64), [n_in - k]])


def _pool(op, x, kernel, output_size, output_ratio, samples, dims):
    if not isinstance(x, Tensor) or len(x.shape) not in (dims + 1, dims + 2):
        raise ValueError(f"For '{op}', the input must be a {dims + 1}-D or {dims + 2}-D Tensor, but got "
                         f"{getattr(x, 'shape', x)!r}.")
    batched = len(x.shape) == dims + 2
    x4 = x if batched else F.expand_dims(x, 0)
    n, c = x4.shape[:2]
    spatial = tuple(x4.shape[2:])
    kernel = tuple(kernel) if isinstance(kernel, (tuple, list)) else (kernel,) * dims
    if output_size is not None:
        out = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    elif output_ratio is not None:
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * dims
        out = tuple(int(s * r) for s, r in zip(spatial, ratio))
    else:
        raise ValueError(f"For '{op}', one of 'output_size' and 'output_ratio' must be given.")
    if any(o + k - 1 > s or o < 1 for o, k, s in zip(out, kernel, spatial)):
        raise ValueError(f"For '{op}', output size {list(out)} with kernel {list(kernel)} does not fit the input's "
                         f"spatial shape {list(spatial)}.")
    if samples is None:
        u = prim("UniformReal", seed=0, seed2=0)((n, c, dims)).asnumpy().astype(np.float64)
    else:
        u = samples.asnumpy().astype(np.float64)
        if u.shape != (n, c, dims) or (u < 0).any() or (u >= 1).any():
            raise ValueError(f"For '{op}', '_random_samples' must be ({n}, {c}, {dims}) values in [0, 1), but got "
                             f"shape {list(u.shape)}.")
    strides = np.cumprod((1,) + spatial[::-1])[:-1][::-1]  # flat-index step of each spatial axis
    offsets = np.zeros((1,) * dims)
    for a in range(dims):  # every position inside one window, as flat offsets
        shape = [1] * dims
        shape[a] = kernel[a]
        offsets = offsets + (np.arange(kernel[a]) * strides[a]).reshape(shape)
    index = np.zeros((n, c) + out + (int(np.prod(kernel)),), np.int64)
    for b in range(n):
        for ch in range(c):
            base = np.zeros(out)
            for a in range(dims):  # 2-D: width reads sample 0 then height; 3-D: depth, height, width in order
                shape = [1] * dims
                shape[a] = out[a]
                which = dims - 1 - a if dims == 2 else a
                base = base + (_starts(u[b, ch, which], spatial[a], out[a], kernel[a]) * strides[a]).reshape(
                    shape)
            index[b, ch] = (base[..., None] + offsets.reshape(-1)).astype(np.int64)
    flat = F.reshape(x4, (n, c, -1))
    windows = F.gather_elements(flat, 2, Tensor(index.reshape(n, c, -1)))
    windows = F.reshape(windows, (n, c) + out + (index.shape[-1],))
    values = F.amax(windows, -1)
    arg = F.gather_elements(Tensor(index), len(index.shape) - 1,
                            F.expand_dims(F.argmax(windows, -1), -1))
    arg = F.cast(F.squeeze(arg, -1), mstype.int64)
    if not batched:
        values, arg = F.squeeze(values, 0), F.squeeze(arg, 0)
    return values, arg


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) with a kh×kw kernel to output_size (or in·ratio)."""
    out, idx = _pool("fractional_max_pool2d", input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (out, idx) if return_indices else out


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, D, H, W) or (C, D, H, W) with a kd×kh×kw kernel."""
    out, idx = _pool("fractional_max_pool3d", input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (out, idx) if return_indices else out


def _fixed(dims, op):
    def call(self, x, random_samples):
        fmt = self.data_format
        if fmt not in ("NCHW", "NCDHW"):
            raise ValueError(f"For '{op}', only channels-first data_format is supported, but got {fmt!r}.")
        return _pool(op, x, self.ksize, self.output_shape, None, random_samples, dims)
    return call


FractionalMaxPoolWithFixedKsize = _primitive(
    "FractionalMaxPoolWithFixedKsize", _fixed(2, "FractionalMaxPoolWithFixedKsize"),
    attrs=[("ksize", 1), ("output_shape", 1), ("data_format", "NCHW")],
    doc="FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format='NCHW')(input_x, random_samples): "
        "(pooled, int64 flat argmax).")
FractionalMaxPool3DWithFixedKsize = _primitive(
    "FractionalMaxPool3DWithFixedKsize", _fixed(3, "FractionalMaxPool3DWithFixedKsize"),
    attrs=[("ksize", 1), ("output_shape", 1), ("data_format", "NCDHW")],
    doc="FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format='NCDHW')(x, random_samples): "
        "(pooled, int64 flat argmax).")



# ---- TensorFlow-style fractional pooling over NHWC (pooling_ratio, random pooling sequences) ----------------------------
def _sequence(rng, n_in, n_out, pseudo_random):
    """Cumulative window boundaries 0 = s_0 < … < s_out = n_in (TensorFlow's two generators)."""
    if pseudo_random:
        alpha = n_in / n_out
        u_max = min((n_in + 2) / alpha - (n_out + 1), 1.0)  # keeps every window at least one wide
        u = rng.uniform(0.0, max(u_max, 0.0))
        seq = np.ceil(alpha * (np.arange(n_out + 1) + u)).astype(np.int64) - 1
        seq[0], seq[-1] = 0, n_in
        return np.maximum.accumulate(seq)
    k, extra = divmod(n_in, n_out)
    sizes = np.full(n_out, k, np.int64)
    sizes[rng.permutation(n_out)[:extra]] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def _fractional_tf(self, x, reduce):
    if len(x.shape) != 4:
        raise ValueError(f"For '{self.name}', 'x' must be 4-D (N, H, W, C), but got {list(x.shape)}.")
    ratio = tuple(self.pooling_ratio)
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0 or min(ratio[1:3]) < 1.0:
        raise ValueError(f"For '{self.name}', 'pooling_ratio' must be [1.0, >=1, >=1, 1.0], but got {list(ratio)}.")
    n_h, n_w = int(x.shape[1] / ratio[1]), int(x.shape[2] / ratio[2])
    seed = (self.seed, self.seed2) if (self.seed or self.seed2) else None
    rng = np.random.Generator(np.random.Philox(list(seed))) if self.deterministic and seed else \
        np.random.default_rng(prim("UniformInt", seed=0, seed2=0)((2,), 0, 2 ** 31 - 1).asnumpy())
    rows = _sequence(rng, x.shape[1], n_h, self.pseudo_random)
    cols = _sequence(rng, x.shape[2], n_w, self.pseudo_random)

    def pool(t, axis, seq):
        parts = []
        for i in range(len(seq) - 1):
            end = min(seq[i + 1] + (1 if self.overlapping else 0), t.shape[axis])
            parts.append(reduce(F.narrow(t, axis, int(seq[i]), int(end - seq[i])), axis))
        return F.stack(parts, axis)

    out = pool(pool(x, 1, rows), 2, cols) if reduce is _max else _avg2d(x, rows, cols, self.overlapping)
    return out, Tensor(rows), Tensor(cols)


def _max(t, axis):
    return F.amax(t, axis)


def _avg2d(x, rows, cols, overlapping):
    """Mean over each (row window × column window): not separable when windows overlap unevenly, so per cell."""
    cells = []
    for i in range(len(rows) - 1):
        r_end = min(rows[i + 1] + (1 if overlapping else 0), x.shape[1])
        band = F.narrow(x, 1, int(rows[i]), int(r_end - rows[i]))
        line = []
        for j in range(len(cols) - 1):
            c_end = min(cols[j + 1] + (1 if overlapping else 0), x.shape[2])
            line.append(F.mean(F.narrow(band, 2, int(cols[j]), int(c_end - cols[j])), (1, 2)))
        cells.append(F.stack(line, 1))
    return F.stack(cells, 1)


_TF_ATTRS = [("pooling_ratio", (1.0, 1.0, 1.0, 1.0)), ("pseudo_random", False), ("overlapping", False),
             ("deterministic", False), ("seed", 0), ("seed2", 0)]
FractionalMaxPool = _primitive(
    "FractionalMaxPool", lambda self, x: _fractional_tf(self, x, _max), attrs=_TF_ATTRS,
    doc="FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0, "
        "seed2=0)(x NHWC): (max over fractional windows, row boundaries, column boundaries).")
FractionalAvgPool = _primitive(
    "FractionalAvgPool", lambda self, x: _fractional_tf(self, x, None), attrs=_TF_ATTRS,
    doc="FractionalAvgPool(pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0, "
        "seed2=0)(x NHWC): (mean over fractional windows, row boundaries, column boundaries).")
__all__ += ["FractionalMaxPool", "FractionalAvgPool"]
