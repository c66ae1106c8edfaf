"""Primitives: 2-D nearest and bilinear upsampling (the kernels behind ops.interpolate) and their adjoints.

Both resizes are linear and separable: y = A_h · x · A_wᵀ with (out, in) interpolation matrices that depend on
shapes only. The numpy kernels use those matrices; the torch kernels call the native upsample kernels. Each
forward primitive's gradient is its adjoint primitive and vice versa, so any order of derivative works.
Coordinates follow PyTorch: nearest src = floor(dst * in/out); bilinear src = (dst + 0.5) * in/out - 0.5
(clamped at 0) or dst * (in-1)/(out-1) with align_corners; a given scale factor s replaces in/out by 1/s.
"""
import math

import numpy as np

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._util import check_dtype, check_tensor, prim, rand_float


def resize_matrix(in_size, out_size, mode, align_corners=False, scale=None):
    """The (out_size, in_size) float64 interpolation matrix along one axis."""
    rows = np.arange(out_size)
    mat = np.zeros((out_size, in_size))
    if mode == "nearest":
        # Nearest indices are computed in float32 like the native kernels, so boundaries round the same way.
        ratio = np.float32(1.0 / scale) if scale else np.float32(in_size) / np.float32(out_size)
        src = np.minimum(np.floor(rows.astype(np.float32) * ratio).astype(np.int64), in_size - 1)
        mat[rows, src] = 1.0
        return mat
    if align_corners:
        src = rows * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        ratio = 1.0 / scale if scale else in_size / out_size
        src = np.maximum((rows + 0.5) * ratio - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    high = np.minimum(low + 1, in_size - 1)
    frac = src - low
    np.add.at(mat, (rows, low), 1.0 - frac)
    np.add.at(mat, (rows, high), frac)
    return mat


class _ResizeBase(Primitive):
    """Attributes: output_size (oh, ow) and/or scales (sh, sw) (scale factors, out/in)."""
    mode = "nearest"

    def check_attrs(self):
        op = self.name
        size, scales = self.output_size, self.scales
        if size is None and scales is None:
            raise ValueError(f"For '{op}', either 'output_size' or 'scales' must be given.")
        if size is not None:
            if not isinstance(size, (tuple, list)) or len(size) != 2 or not all(
                    isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
                raise ValueError(f"For '{op}', the 'output_size' must be a tuple of 2 positive ints, but got {size!r}.")
            self.attrs["output_size"] = self.output_size = tuple(size)
        if scales is not None:
            if not isinstance(scales, (tuple, list)) or len(scales) != 2 or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in scales):
                raise ValueError(f"For '{op}', the 'scales' must be a tuple of 2 positive floats, but got {scales!r}.")
            self.attrs["scales"] = self.scales = tuple(float(v) for v in scales)

    def out_hw(self, in_hw):
        if self.output_size is not None:
            return tuple(self.output_size)
        return tuple(int(math.floor(i * s)) for i, s in zip(in_hw, self.scales))

    def _scale(self, axis):
        return self.scales[axis] if self.scales is not None else None

    def matrices(self, in_hw):
        out = self.out_hw(in_hw)
        align = self.attrs.get("align_corners", False)
        return [resize_matrix(in_hw[a], out[a], self.mode, align, self._scale(a)) for a in range(2)]

    def _native(self, torch, name):
        return getattr(torch.ops.aten, f"upsample_{self.mode}2d{name}")

    def _native_args(self):
        if self.mode == "bilinear":
            return (bool(self.align_corners), self._scale(0), self._scale(1))
        return (self._scale(0), self._scale(1))

    def _check4(self, name, x):
        check_tensor(self.name, name, x)
        if len(x.shape) != 4:
            raise ValueError(f"For '{self.name}', the '{name}' must be 4-D (N, C, H, W), but got shape {list(x.shape)}.")
        check_dtype(self.name, name, x, ("float",))


class _Upsample(_ResizeBase):
    input_names = ("x",)
    adjoint = None

    def infer(self, x):
        self._check4("x", x)
        out = self.out_hw(x.shape[2:])
        if min(out) <= 0:
            raise ValueError(f"For '{self.name}', the output size {out} must be positive.")
        return AbstractTensor(tuple(x.shape[:2]) + out, x.dtype)

    def bprop(self, x, out, dout):
        return (prim(self.adjoint, **self.attrs)(dout, tuple(x.shape)),)

    def numpy(self, np, x):
        mh, mw = (m.astype(x.dtype) for m in self.matrices(x.shape[2:]))
        return np.ascontiguousarray(np.matmul(np.matmul(mh, x), mw.T), dtype=x.dtype)

    def torch(self, torch, x):
        return self._native(torch, "")(x, list(self.out_hw(tuple(x.shape[2:]))), *self._native_args())


class _UpsampleGrad(_ResizeBase):
    input_names = ("dy", "input_size")
    forward = None

    def _size(self, value):
        if hasattr(value, "asnumpy"):
            value = value.asnumpy().tolist()
        if not isinstance(value, (tuple, list)) or len(value) != 4:
            raise TypeError(f"For '{self.name}', the 'input_size' must be a tuple of 4 ints, but got {value!r}.")
        return tuple(int(v) for v in value)

    def infer(self, dy, input_size):
        self._check4("dy", dy)
        size = self._size(input_size)
        expect = size[:2] + self.out_hw(size[2:])
        if tuple(dy.shape) != expect:
            raise ValueError(f"For '{self.name}', the 'dy' shape {list(dy.shape)} must be {list(expect)} for an input "
                             f"of shape {list(size)}.")
        return AbstractTensor(size, dy.dtype)

    def bprop(self, dy, input_size, out, dout):
        return prim(self.forward, **self.attrs)(dout), None

    def numpy(self, np, dy, input_size):
        mh, mw = (m.astype(dy.dtype) for m in self.matrices(self._size(input_size)[2:]))
        return np.ascontiguousarray(np.matmul(np.matmul(mh.T, dy), mw), dtype=dy.dtype)

    def torch(self, torch, dy, input_size):
        size = self._size(input_size)
        return self._native(torch, "_backward")(dy, list(self.out_hw(size[2:])), list(size), *self._native_args())


@register
class UpsampleNearest2D(_Upsample):
    """UpsampleNearest2D(output_size=None, scales=None)(x): nearest-neighbour resize of an (N, C, H, W) input."""
    attr_defaults = {"output_size": None, "scales": None}
    adjoint = "UpsampleNearest2DGrad"

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 3, 4)), attrs={"output_size": (5, 7)})
        yield Sample(rand_float(rng, (1, 1, 4, 3)), attrs={"scales": (0.5, 2.0)}, name="scales")


@register
class UpsampleNearest2DGrad(_UpsampleGrad):
    """UpsampleNearest2DGrad(output_size=None, scales=None)(dy, input_size): the input gradient."""
    attr_defaults = {"output_size": None, "scales": None}
    forward = "UpsampleNearest2D"

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 7)), (1, 2, 3, 4), attrs={"output_size": (5, 7)})


@register
class UpsampleBilinear2D(_Upsample):
    """UpsampleBilinear2D(output_size=None, scales=None, align_corners=False)(x): bilinear resize."""
    attr_defaults = {"output_size": None, "scales": None, "align_corners": False}
    adjoint = "UpsampleBilinear2DGrad"
    mode = "bilinear"

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 3, 4)), attrs={"output_size": (5, 7)})
        yield Sample(rand_float(rng, (1, 1, 4, 5)), attrs={"output_size": (6, 3), "align_corners": True},
                     name="align")
        yield Sample(rand_float(rng, (1, 1, 4, 3)), attrs={"scales": (1.5, 2.0)}, name="scales")


@register
class UpsampleBilinear2DGrad(_UpsampleGrad):
    """UpsampleBilinear2DGrad(output_size=None, scales=None, align_corners=False)(dy, input_size): the input
    gradient."""
    attr_defaults = {"output_size": None, "scales": None, "align_corners": False}
    forward = "UpsampleBilinear2D"
    mode = "bilinear"

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 7)), (1, 2, 3, 4), attrs={"output_size": (5, 7)})
        yield Sample(rand_float(rng, (1, 1, 6, 3)), (1, 1, 4, 5), attrs={"output_size": (6, 3), "align_corners": True},
                     name="align")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, UpsampleNearest2D, UpsampleBilinear2D, formats=("MINDIR",))
not_exportable(NO_ONNX, UpsampleNearest2D, UpsampleBilinear2D, formats=("ONNX",))
not_exportable(BACKWARD, UpsampleNearest2DGrad, UpsampleBilinear2DGrad)
