"""MindSpore's resize Primitive classes — ResizeNearestNeighbor, ResizeNearestNeighborV2, ResizeBilinearV2,
ResizeLinear1D — composed per axis from Gather and elementwise weights, so every coordinate convention they
document is exact (align_corners, half_pixel_centers, the legacy asymmetric one) and the results differentiate
and compile like any op sequence.

Source coordinate of output index d on an axis resized from `n_in` to `n_out`:
align_corners: d·(n_in − 1)/(n_out − 1); half_pixel: (d + ½)·n_in/n_out − ½; asymmetric: d·n_in/n_out.
Nearest rounds it (align_corners) or floors it (the others, after the half-pixel shift back); linear blends the
two neighbours, clamped to the edge.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 4))
>>> ms.ops.ResizeLinear1D("align_corners")(x, (7,)).asnumpy().ravel().tolist()
[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
"""
import numpy as np

from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive


def _source(mode, n_in, n_out):
    d = np.arange(n_out, dtype=np.float64)
    if mode == "align_corners":
        return d * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    if mode == "half_pixel":
        return (d + 0.5) * (n_in / n_out) - 0.5
    if mode == "asymmetric":
        return d * (n_in / n_out)
    raise ValueError(f"Resize: coordinate mode must be 'align_corners', 'half_pixel' or 'asymmetric', "
                     f"but got {mode!r}.")


def _nearest_axis(x, axis, n_out, mode):
    n_in = x.shape[axis]
    src = _source(mode, n_in, n_out)
    index = np.floor(src + 0.5) if mode == "align_corners" else np.floor(src + 0.5 if mode == "half_pixel" else src)
    index = np.clip(index, 0, n_in - 1).astype(np.int64)
    return F.gather(x, Tensor(index), axis)


def _linear_axis(x, axis, n_out, mode):
    n_in = x.shape[axis]
    src = np.clip(_source(mode, n_in, n_out), 0, n_in - 1)
    low = np.floor(src).astype(np.int64)
    high = np.minimum(low + 1, n_in - 1)
    shape = [1] * len(x.shape)
    shape[axis] = n_out
    weight = Tensor((src - low).reshape(shape).astype(x.dtype.np_dtype))
    a, b = F.gather(x, Tensor(low), axis), F.gather(x, Tensor(high), axis)
    return a + (b - a) * weight


def _sizes(op, size, n):
    values = size.asnumpy().tolist() if isinstance(size, Tensor) else list(size) if isinstance(size, (tuple, list)) \
        else [size]
    if len(values) != n or not all(int(v) > 0 for v in values):
        raise ValueError(f"For '{op}', 'size' must hold {n} positive ints, but got {size!r}.")
    return [int(v) for v in values]


def _resize(op, x, size, resize_axis, mode):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    n = 1 if op == "ResizeLinear1D" else 2
    if len(x.shape) != n + 2:
        raise ValueError(f"For '{op}', the input must be {n + 2}-D (N, C, {'W' if n == 1 else 'H, W'}), but got "
                         f"shape {list(x.shape)}.")
    for i, n_out in enumerate(_sizes(op, size, n)):
        x = resize_axis(x, 2 + i, n_out, mode)
    return x


def _mode(align_corners, half_pixel_centers=False):
    if align_corners and half_pixel_centers:
        raise ValueError("Resize: 'align_corners' and 'half_pixel_centers' cannot both be True.")
    return "align_corners" if align_corners else "half_pixel" if half_pixel_centers else "asymmetric"


ResizeNearestNeighbor = _primitive(
    "ResizeNearestNeighbor", lambda self, x: _resize("ResizeNearestNeighbor", x, self.size, _nearest_axis,
                                                     _mode(self.align_corners)),
    attrs=[("size", (1, 1)), ("align_corners", False)],
    doc="ResizeNearestNeighbor(size, align_corners=False)(x): nearest-neighbour resize of an NCHW input.")
ResizeNearestNeighborV2 = _primitive(
    "ResizeNearestNeighborV2", lambda self, x, size: _resize("ResizeNearestNeighborV2", x, size, _nearest_axis,
                                                             _mode(self.align_corners, self.half_pixel_centers)),
    attrs=[("align_corners", False), ("half_pixel_centers", False)],
    doc="ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(x, size): nearest resize, NCHW.")
ResizeBilinearV2 = _primitive(
    "ResizeBilinearV2", lambda self, x, size: _resize("ResizeBilinearV2", x, size, _linear_axis,
                                                      _mode(self.align_corners, self.half_pixel_centers)),
    attrs=[("align_corners", False), ("half_pixel_centers", False)],
    doc="ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size): bilinear resize, NCHW.")
ResizeLinear1D = _primitive(
    "ResizeLinear1D", lambda self, x, size: _resize("ResizeLinear1D", x, size, _linear_axis,
                                                    self.coordinate_transformation_mode),
    attrs=[("coordinate_transformation_mode", "align_corners")],
    doc="ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size): linear resize of (N, C, W).")

__all__ = ["ResizeNearestNeighbor", "ResizeNearestNeighborV2", "ResizeBilinearV2", "ResizeLinear1D"]
