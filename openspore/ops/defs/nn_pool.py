"""Primitives: max pooling (windowed and adaptive) and the argmax scatter/gather pair behind their gradients.

Max pooling routes its gradient through the flat argmax (index into the input's H*W plane, one winner per
window: the first maximum in row-major window order, as torch and MindSpore pick it). MaxPoolGradWithArgmax
scatters a gradient onto those positions; MaxPoolGradGradWithArgmax gathers from them. The two are each
other's adjoint, so every max-pool gradient differentiates again.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import POOL_ATTRS, Arg, mindir, norm_bool, norm_dtype, norm_tuple, pool_proto_attrs
from ._export import BACKWARD, NO_MINDIR, NO_ONNX, not_exportable
from ._nn_util import (adaptive_bins, adaptive_output, check_classic_pool_attrs, CLASSIC_POOL_DEFAULTS, hw_pair, np_pad,
                       np_windows, set_attr, symmetric, torch_pad, window_geometry)
from ._util import check_dtype, check_rank, check_tensor, prim, rand_float


class _MaxPoolBase(Primitive):
    """Windowed max pooling over NCHW; subclasses set _k, _s, _d, _mode, _pads, _ceil in check_attrs."""
    input_names = ("x",)
    _d, _pads, _ceil = (1, 1), (0, 0, 0, 0), False

    def geometry(self, in_hw):
        return window_geometry(self.name, tuple(in_hw), self._k, self._s, self._d, self._mode, self._pads, self._ceil)

    def _declared(self, applied):
        return self._pads if self._mode == "pad" else (applied if self._mode == "same" else (0, 0, 0, 0))

    def _out_shape(self, x):
        check_tensor(self.name, "x", x)
        if len(x.shape) != 4:
            raise ValueError(f"For primitive[{self.name}], the x shape size must be equal to 4, but got {len(x.shape)}.")
        check_dtype(self.name, "x", x, ("float",))
        _, out = self.geometry(x.shape[2:])
        return tuple(x.shape[:2]) + out

    def _np_forward(self, np, x):
        pads, out = self.geometry(x.shape[2:])
        (kh, kw), (sh, sw), (dh, dw) = self._k, self._s, self._d
        xp = np_pad(np, x, pads, value=-np.inf)
        win = np_windows(np, xp, self._k, self._s, self._d, out)
        flat = win.reshape(win.shape[:4] + (kh * kw,))
        pick = flat.argmax(axis=-1)
        y = np.take_along_axis(flat, pick[..., None], axis=-1)[..., 0]
        i, j = np.divmod(pick, kw)
        rows = np.arange(out[0])[:, None] * sh + i * dh - pads[0]
        cols = np.arange(out[1])[None, :] * sw + j * dw - pads[2]
        return np.ascontiguousarray(y), (rows * x.shape[3] + cols).astype(np.int64)

    def _torch_forward(self, torch, x):
        F = torch.nn.functional
        pads, out = self.geometry(x.shape[2:])
        declared = self._declared(pads)
        spans = [d * (k - 1) + 1 for k, d in zip(self._k, self._d)]
        if symmetric(declared) and declared[0] <= spans[0] // 2 and declared[2] <= spans[1] // 2:
            y, idx = F.max_pool2d(x, self._k, self._s, (declared[0], declared[2]), self._d, self._ceil, True)
            if tuple(y.shape[2:]) == out:
                return y, idx
        y, idx = F.max_pool2d(torch_pad(torch, x, pads, -float("inf")), self._k, self._s, 0, self._d, False, True)
        wp = x.shape[3] + pads[2] + pads[3]
        rows = torch.div(idx, wp, rounding_mode="floor") - pads[0]
        return y, rows * x.shape[3] + (idx % wp - pads[2])


class _ClassicMaxPool(_MaxPoolBase):
    attr_defaults = dict(CLASSIC_POOL_DEFAULTS)

    def check_attrs(self):
        check_classic_pool_attrs(self)


@register
class MaxPool(_ClassicMaxPool):
    """MaxPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x): 2-D max pooling."""
    channels_last = "keeps"

    def infer(self, x):
        return AbstractTensor(self._out_shape(x), x.dtype)

    def bprop(self, x, out, dout):
        _, argmax = self.argmax_twin()(x)
        return (MaxPoolGradWithArgmax()(x, dout, argmax),)

    def argmax_twin(self):
        """The pooling that also returns the argmax (shared instances, see _util.prim): MaxPoolWithArgmaxV2 with an int64 mask when
        unpadded (torch's own index type: no conversion in the forward, none in MaxPoolGradWithArgmax), else
        MaxPoolWithArgmax with MindSpore's 'same' padding."""
        if self._mode == "valid":
            return prim("MaxPoolWithArgmaxV2", kernel_size=self._k, strides=self._s, pads=0, argmax_type=mstype.int64)
        return prim("MaxPoolWithArgmax", kernel_size=self.kernel_size, strides=self.strides, pad_mode=self.pad_mode)

    def numpy(self, np, x):
        return self._np_forward(np, x)[0]

    def torch(self, torch, x):
        if self._mode == "valid":
            return torch.nn.functional.max_pool2d(x, self._k, self._s)
        return self._torch_forward(torch, x)[0]

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 5)), attrs={"kernel_size": 2, "strides": 2})
        yield Sample(rand_float(rng, (2, 1, 5, 6)), attrs={"kernel_size": 3, "strides": 2, "pad_mode": "same"},
                     name="same")


@register
class MaxPoolWithArgmax(_ClassicMaxPool):
    """MaxPoolWithArgmax(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x) → (output, mask):
    mask is the int32 flat index of each maximum in the input's H*W plane."""
    none_cotangents = True  # the integer mask has no cotangent: none is made for it

    def infer(self, x):
        shape = self._out_shape(x)
        return AbstractTensor(shape, x.dtype), AbstractTensor(shape, mstype.int32)

    def bprop(self, x, out, dout):
        return (MaxPoolGradWithArgmax()(x, dout[0], out[1]),)

    def export_decomposition(self, b, x):
        """Where only the values are read (nn.MaxPool2d keeps the argmax for its backward rule): MindSpore's
        MaxPool, the primitive whose `argmax_twin()` this is."""
        return b.call("MaxPool", x, kernel_size=self._k, strides=self._s, pad_mode=self._mode,
                      data_format=self.data_format), None

    def numpy(self, np, x):
        y, arg = self._np_forward(np, x)
        return y, arg.astype(np.int32)

    def torch(self, torch, x):
        y, arg = self._torch_forward(torch, x)
        return y, arg.to(torch.int32)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 4, 5)), attrs={"kernel_size": 2, "strides": 2})
        yield Sample(rand_float(rng, (1, 2, 5, 5)), attrs={"kernel_size": (3, 2), "strides": (2, 1),
                                                           "pad_mode": "same"}, name="same")


@register
class MaxPoolWithArgmaxV2(_MaxPoolBase):
    """MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
    argmax_type=mindspore.int64)(x) → (output, argmax): max pooling with symmetric padding, dilation and
    ceil mode (the primitive behind ops.max_pool2d)."""
    attr_defaults = {"kernel_size": None, "strides": None, "pads": 0, "dilation": (1, 1), "ceil_mode": False,
                     "argmax_type": mstype.int64}
    none_cotangents = True  # the integer mask has no cotangent: none is made for it
    export_decomposition_first = True  # MindSpore's inference files hold MaxPool (see serialization/export_lowering)

    def check_attrs(self):
        op = self.name
        self._k = hw_pair(op, "kernel_size", self.kernel_size)
        self._s = hw_pair(op, "strides", self.strides) if self.strides not in (None, (), []) else self._k
        self._d = hw_pair(op, "dilation", self.dilation)
        ph, pw = hw_pair(op, "pads", self.pads, allow_zero=True)
        for p, k, d, axis in ((ph, self._k[0], self._d[0], "H"), (pw, self._k[1], self._d[1], "W")):
            if p > (d * (k - 1) + 1) // 2:
                raise ValueError(f"For '{op}', the 'pads' must be at most half of the effective kernel size, but got "
                                 f"pad {p} for kernel {k} with dilation {d} along {axis}.")
        self._pads, self._mode, self._ceil = (ph, ph, pw, pw), "pad", bool(self.ceil_mode)
        if self.argmax_type not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{op}', the 'argmax_type' must be mindspore.int32 or mindspore.int64, "
                            f"but got {self.argmax_type!r}.")
        for name, value in (("kernel_size", self._k), ("strides", self._s), ("pads", (ph, pw)), ("dilation", self._d)):
            set_attr(self, name, value)

    def infer(self, x):
        shape = self._out_shape(x)
        return AbstractTensor(shape, x.dtype), AbstractTensor(shape, self.argmax_type)

    def bprop(self, x, out, dout):
        return (MaxPoolGradWithArgmax()(x, dout[0], out[1]),)

    def export_decomposition(self, b, x):
        """Unpadded, undilated, floor-mode pooling whose values only are read (nn.MaxPool2d keeps the argmax for
        its backward rule): MindSpore's MaxPool, the primitive whose `argmax_twin()` this is."""
        if any(self._pads) or self._d != (1, 1) or self._ceil:
            return NotImplemented
        return b.call("MaxPool", x, kernel_size=self._k, strides=self._s, pad_mode="valid"), None

    def numpy(self, np, x):
        y, arg = self._np_forward(np, x)
        return y, arg.astype(self.argmax_type.np_dtype)

    def torch(self, torch, x):
        from ...backends.torch_backend import torch_dtype
        y, arg = self._torch_forward(torch, x)
        return y, arg.to(torch_dtype(self.argmax_type))

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 5)), attrs={"kernel_size": 3, "strides": 2, "pads": 1})
        yield Sample(rand_float(rng, (1, 1, 6, 7)), attrs={"kernel_size": 2, "strides": 2, "ceil_mode": True,
                                                           "argmax_type": mstype.int32}, name="ceil")
        yield Sample(rand_float(rng, (1, 1, 7, 7)), attrs={"kernel_size": 2, "strides": 1, "dilation": (2, 2),
                                                           "pads": 1}, name="dilation")


@register
class AdaptiveMaxPool2D(Primitive):
    """AdaptiveMaxPool2D(output_size)(x) → (output, argmax): max over PyTorch-style adaptive bins
    (start = floor(i*in/out), end = ceil((i+1)*in/out)); None in output_size keeps that input size."""
    attr_defaults = {"output_size": None}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        check_rank(self.name, "input_x", x, (3, 4))
        check_dtype(self.name, "input_x", x, ("float",))
        shape = tuple(x.shape[:-2]) + adaptive_output(self.name, self.output_size, x.shape[-2:])
        return AbstractTensor(shape, x.dtype), AbstractTensor(shape, mstype.int64)

    def bprop(self, x, out, dout):
        return (MaxPoolGradWithArgmax()(x, dout[0], out[1]),)

    def numpy(self, np, x):
        lead, (h, w) = x.shape[:-2], x.shape[-2:]
        oh, ow = adaptive_output(self.name, self.output_size, (h, w))
        idx, valid = [], []
        for size, n in ((h, oh), (w, ow)):
            start, end = adaptive_bins(size, n)
            span = int((end - start).max())
            grid = start[:, None] + np.arange(span)[None, :]
            valid.append(grid < end[:, None])
            idx.append(np.minimum(grid, size - 1))
        x4 = x.reshape((-1, 1, h, w))
        win = x4[:, :, idx[0][:, :, None, None], idx[1][None, None, :, :]]  # (B, 1, oh, Lh, ow, Lw)
        win = np.where(valid[0][:, :, None, None] & valid[1][None, None, :, :], win, -np.inf).astype(x.dtype)
        win = win.transpose(0, 1, 2, 4, 3, 5).reshape(x4.shape[0], 1, oh, ow, -1)
        pick = win.argmax(axis=-1)
        y = np.take_along_axis(win, pick[..., None], axis=-1)[..., 0]
        i, j = np.divmod(pick, idx[1].shape[1])
        rows = idx[0][:, 0][:, None] + i
        cols = idx[1][:, 0][None, :] + j
        return y.reshape(lead + (oh, ow)), (rows * w + cols).astype(np.int64).reshape(lead + (oh, ow))

    def torch(self, torch, x):
        out = adaptive_output(self.name, self.output_size, x.shape[-2:])
        return torch.nn.functional.adaptive_max_pool2d(x, out, return_indices=True)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (1, 2, 5, 7)), attrs={"output_size": (2, 3)})
        yield Sample(rand_float(rng, (2, 4, 4)), attrs={"output_size": (3, None)}, name="3d-none")


# ---- the argmax scatter / gather pair ---------------------------------------------------------------------
def _planes(shape):
    return math.prod(shape[:-2]), shape[-2] * shape[-1]


class _ArgmaxRoute(Primitive):
    input_names = ("x", "grad", "argmax")

    def _check(self, x, grad, argmax, grad_shape):
        for name, t in (("x", x), ("grad", grad), ("argmax", argmax)):
            check_tensor(self.name, name, t)
        check_dtype(self.name, "argmax", argmax, ("int",))
        check_dtype(self.name, "grad", grad, ("float",))
        if tuple(grad.shape) != tuple(grad_shape) or tuple(argmax.shape[:-2]) != tuple(x.shape[:-2]):
            raise ValueError(f"For '{self.name}', the shapes of x {list(x.shape)}, grad {list(grad.shape)} and "
                             f"argmax {list(argmax.shape)} do not fit together.")


@register
class MaxPoolGradWithArgmax(_ArgmaxRoute):
    """MaxPoolGradWithArgmax()(x, grad, argmax): scatter-add `grad` (argmax's shape) onto the positions `argmax`
    names in x's H*W planes; returns a tensor of x's shape (only x's shape is read)."""

    def infer(self, x, grad, argmax):
        self._check(x, grad, argmax, argmax.shape)
        return AbstractTensor(x.shape, grad.dtype)

    def bprop(self, x, grad, argmax, out, dout):
        return None, MaxPoolGradGradWithArgmax()(x, dout, argmax), None

    def numpy(self, np, x, grad, argmax):
        planes, size = _planes(x.shape)
        flat = argmax.reshape(planes, -1).astype(np.int64) + (np.arange(planes) * size)[:, None]
        out = np.bincount(flat.ravel(), weights=grad.reshape(-1).astype(np.float64), minlength=planes * size)
        return out.astype(grad.dtype).reshape(x.shape)

    def torch(self, torch, x, grad, argmax):
        planes, size = _planes(tuple(x.shape))
        out = torch.zeros((planes, size), dtype=grad.dtype, device=grad.device)
        out.scatter_add_(1, argmax.reshape(planes, -1).long(), grad.reshape(planes, -1))
        return out.reshape(x.shape)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (1, 2, 4, 5))
        _, arg = MaxPool(kernel_size=2, strides=1)._np_forward(np, x)
        yield Sample(x, rand_float(rng, arg.shape), arg.astype("int32"), grad=(1,))


@register
class MaxPoolGradGradWithArgmax(_ArgmaxRoute):
    """MaxPoolGradGradWithArgmax()(x, grad, argmax): gather `grad` (x's shape) at the `argmax` positions;
    returns a tensor of argmax's shape."""

    def infer(self, x, grad, argmax):
        self._check(x, grad, argmax, x.shape)
        return AbstractTensor(argmax.shape, grad.dtype)

    def bprop(self, x, grad, argmax, out, dout):
        return None, MaxPoolGradWithArgmax()(x, dout, argmax), None

    def numpy(self, np, x, grad, argmax):
        planes, _ = _planes(x.shape)
        out = np.take_along_axis(grad.reshape(planes, -1), argmax.reshape(planes, -1).astype(np.int64), axis=1)
        return out.reshape(argmax.shape)

    def torch(self, torch, x, grad, argmax):
        planes, _ = _planes(tuple(x.shape))
        return torch.gather(grad.reshape(planes, -1), 1, argmax.reshape(planes, -1).long()).reshape(argmax.shape)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (1, 2, 4, 5))
        _, arg = MaxPool(kernel_size=2, strides=1)._np_forward(np, x)
        yield Sample(x, rand_float(rng, x.shape), arg, grad=(1,))


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(NO_MINDIR, AdaptiveMaxPool2D, formats=("MINDIR",))
not_exportable(NO_ONNX, AdaptiveMaxPool2D, formats=("ONNX",))
not_exportable(BACKWARD, MaxPoolGradGradWithArgmax)
not_exportable(BACKWARD, MaxPoolGradWithArgmax, formats=("ONNX",))


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(MaxPool, attrs=POOL_ATTRS, instance="max_pool", proto_attrs=pool_proto_attrs)
# Training-step graphs (an exported TrainOneStepCell, what `converter_lite --trainModel=true` reads) hold it.
mindir(MaxPoolWithArgmaxV2, attrs=[
    Arg("kernel_size", norm=norm_tuple), Arg("strides", None, norm_tuple), Arg("pads", 0, norm_tuple),
    Arg("dilation", (1, 1), norm_tuple), Arg("ceil_mode", False, norm_bool), Arg("argmax_type", "int64", norm_dtype)])
mindir(MaxPoolGradWithArgmax, inputs=("x", "grad", "argmax"))

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(MaxPool, _onnx.max_pool)
