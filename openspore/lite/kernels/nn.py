"""Convolution, dense and pooling kernels written for inference speed.

Convolutions are im2col + one GEMM per image: the (C·kh·kw, oh·ow) column matrix of each image is multiplied by
the (O, C·kh·kw) weight matrix, so the product lands directly in NCHW order and numpy's BLAS (threads capped by
`Context.cpu.thread_num`) does the work. 1×1 stride-1 convolutions skip im2col. `LiteConv2D` and `LiteDense` are
the converter's fused operators: bias, and ReLU/ReLU6, are applied in place on the GEMM output.
"""
import threading

import numpy as np

from ...ops.defs._nn_util import np_pad, np_windows
from . import primitive, register

_ACTIVATIONS = (None, "relu", "relu6")


def activate(y, act):
    if act == "relu":
        np.maximum(y, 0, out=y)
    elif act == "relu6":
        np.clip(y, 0, 6, out=y)
    return y


class _Workspace(threading.local):
    """Per-thread scratch buffers (padded input, im2col columns), grown on demand and reused by every
    convolution: no allocation per call, and the memory held is that of the largest layer, not their sum."""

    def __init__(self):
        self.buffers = {}

    def get(self, key, shape, dtype):
        size = int(np.prod(shape))
        buf = self.buffers.get((key, dtype))
        if buf is None or buf.size < size:
            buf = self.buffers[(key, dtype)] = np.empty(size, dtype)
        return buf[:size].reshape(shape)


_WS = _Workspace()

_ZEROS = {}  # dtype -> a read-only zeros vector, grown on demand (see shared_zeros)


def shared_zeros(shape, dtype):
    """A read-only zeros array of `shape`, a view of one buffer per dtype shared by every kernel: ReLU as a
    maximum with a zeros array of the output's shape (numpy 2's maximum with a scalar is several times slower),
    without each convolution keeping a zeros array of its own (ResNet20: 19 of them, 0.7 MB a call walks
    through). A grown buffer replaces the old one; views of the old one stay valid (and zero)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape))
    buf = _ZEROS.get(dtype)
    if buf is None or buf.size < size:
        buf = np.zeros(size, dtype)
        buf.flags.writeable = False
        _ZEROS[dtype] = buf
    return buf[:size].reshape(shape)


def pad_into(x, pads):
    """x zero-padded by (top, bottom, left, right), in the workspace."""
    n, c, h, w = x.shape
    top, bottom, left, right = pads
    out = _WS.get("pad", (n, c, h + top + bottom, w + left + right), x.dtype)
    if top:
        out[:, :, :top] = 0
    if bottom:
        out[:, :, h + top:] = 0
    if left:
        out[:, :, :, :left] = 0
    if right:
        out[:, :, :, w + left:] = 0
    out[:, :, top:top + h, left:left + w] = x
    return out


def im2col_into(xp, kernel, stride, dilation, out_hw):
    """(N, C·kh·kw, oh·ow) columns of padded NCHW `xp` in the workspace: one strided slice copy per kernel
    offset (faster than copying a 6-D strided view in one go)."""
    n, c = xp.shape[:2]
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    if kh * kw > 9:  # many offsets of a small image: one copy of the 6-D strided view costs less Python
        return _window_view(xp, kernel, stride, dilation, out_hw).reshape(n, c * kh * kw, oh * ow)
    cols = _WS.get("cols", (n, c, kh, kw, oh, ow), xp.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i * dh: i * dh + (oh - 1) * sh + 1: sh, j * dw: j * dw + (ow - 1) * sw + 1: sw]
    return cols.reshape(n, c * kh * kw, oh * ow)


def _window_view(x, kernel, stride, dilation, out_hw):
    """The (N, C, kh, kw, oh, ow) strided view of the windows of padded NCHW `x` (no copy)."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    sn, sc, sy, sx = x.strides
    return np.lib.stride_tricks.as_strided(x, (x.shape[0], x.shape[1], kh, kw, oh, ow),
                                           (sn, sc, sy * dh, sx * dw, sy * sh, sx * sw), writeable=False)


def conv2d(prim, x, w, bias=None, act=None):
    """NCHW convolution with the geometry of Conv2D primitive `prim`."""
    pads, (oh, ow) = prim.geometry(x.shape[2:])
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    g = prim.group
    sh, sw = prim.stride[2:]
    if x.dtype != w.dtype:
        x = x.astype(w.dtype)
    if g == 1:
        if kh == kw == 1 and sh == sw == 1 and not any(pads):
            y = np.matmul(w.reshape(o, c), x.reshape(n, c, oh * ow))
        else:
            xp = pad_into(x, pads) if any(pads) else x
            cols = im2col_into(xp, (kh, kw), (sh, sw), prim.dilation[2:], (oh, ow))
            y = np.matmul(w.reshape(o, c * kh * kw), cols)
    else:
        v = np_windows(np, np_pad(np, x, pads) if any(pads) else x, prim.kernel_size, prim.stride[2:],
                       prim.dilation[2:], (oh, ow))
        vg = v.reshape(n, g, c // g, oh, ow, kh, kw)
        y = np.einsum("ngchwij,gocij->ngohw", vg, w.reshape(g, o // g, cg, kh, kw), optimize=True)
    y = y.reshape(n, o, oh, ow)
    if not y.flags.c_contiguous:
        y = np.ascontiguousarray(y)
    if bias is not None:
        y += bias.reshape(1, o, 1, 1)
    return activate(y, act)


def _conv_prim(op):
    from ...core.primitive import PRIMITIVES
    cls = PRIMITIVES["Conv2D"]
    return cls(**{k: v for k, v in op.attrs.items() if k in cls.attr_defaults})


@register("Conv2D")
def _conv_kernel(op):
    prim = primitive(op)
    if prim.attrs.get("data_format", "NCHW") != "NCHW":
        return None
    return lambda x, w: conv2d(prim, x, w)


@register("LiteConv2D")
def _fused_conv_kernel(op):
    """LiteConv2D(x, w[, bias]): Conv2D attributes plus `activation` (None, 'relu', 'relu6')."""
    if op.attrs.get("layout") == "NHWC":
        from .nhwc import make_conv
        return make_conv(op)
    prim = _conv_prim(op)
    act = op.attrs.get("activation")
    if act not in _ACTIVATIONS:
        raise ValueError(f"LiteConv2D: unknown activation {act!r}.")
    if op.attrs.get("has_bias"):
        return lambda x, w, b: conv2d(prim, x, w, b, act)
    return lambda x, w: conv2d(prim, x, w, None, act)


@register("LiteDense")
def _fused_dense_kernel(op):
    """LiteDense(x, w[, bias]): x @ w.T + bias with `activation`."""
    act = op.attrs.get("activation")
    if act not in _ACTIVATIONS:
        raise ValueError(f"LiteDense: unknown activation {act!r}.")
    return _Dense(act)


class _Dense:
    """`np.dot(x, w.T)` (lower call overhead than matmul at batch 1; the transposed view, made once per weight
    array, goes to BLAS as a transposed operand, no copy), the bias added in place, and ReLU as a maximum with a
    zeros array kept per output shape: numpy 2's maximum with a scalar costs several times more on the small
    outputs of batch 1. The result is a new array at every call (it may be a program output)."""

    __slots__ = ("act", "weight", "zeros")

    def __init__(self, act):
        self.act = act
        self.weight = (None, None)  # (w, w.T): swapped as one reference, so concurrent callers see a pair
        self.zeros = None

    def __call__(self, x, w, b=None):
        weight = self.weight
        if weight[0] is not w:
            weight = self.weight = (w, w.T)
        y = np.dot(x, weight[1])
        if b is not None:
            np.add(y, b, y)
        if self.act == "relu":
            z = self.zeros
            if z is None or z.shape != y.shape or z.dtype is not y.dtype:
                z = self.zeros = np.zeros(y.shape, y.dtype)
            np.maximum(y, z, out=y)
        elif self.act is not None:
            activate(y, self.act)
        return y


@register("MaxPool", "AvgPool")
def _pool_kernel(op):
    """Non-overlapping unpadded windows that tile the input: a reshape and one reduction."""
    prim = primitive(op)
    if op.attrs.get("layout") == "NHWC":
        from .nhwc import pool_nhwc
        return pool_nhwc(op, prim)
    k, s = tuple(prim.kernel_size)[-2:], tuple(prim.strides)[-2:]
    if k != s or prim.attrs.get("data_format", "NCHW") != "NCHW":
        return None
    combine = np.maximum if op.type == "MaxPool" else np.add
    fallback = type(prim).numpy
    offsets = [(i, j) for i in range(k[0]) for j in range(k[1])]

    def pool(x):
        h, w = x.shape[2:]
        if h % k[0] or w % k[1]:
            return fallback(prim, np, x)
        # one elementwise op per window offset over strided slices: numpy's multi-axis reductions over tiny
        # axes are an order of magnitude slower
        y = x[:, :, 0::k[0], 0::k[1]].copy()
        for i, j in offsets[1:]:
            combine(y, x[:, :, i::k[0], j::k[1]], out=y)
        if op.type == "AvgPool":
            y *= y.dtype.type(1.0 / len(offsets))
        return y
    return pool


@register("ReLU")
def _relu_kernel(op):
    return lambda x: np.maximum(x, x.dtype.type(0))


@register("ReduceMean")
def _mean_kernel(op):
    """Float mean over explicit non-negative axes as numpy's mean computes it (a sum, then one division), without
    the primitive's axis normalisation and dtype round trip (ResNet's global pooling: 27 → 6 µs); anything else
    runs the primitive's kernel."""
    prim = primitive(op)
    keep = bool(prim.keep_dims)
    general = type(prim).numpy

    def mean(x, axis=()):
        if type(axis) is tuple and axis and x.dtype.kind == "f" and all(type(a) is int and 0 <= a < x.ndim
                                                                         for a in axis):
            s = np.add.reduce(x, axis=axis, keepdims=keep)
            count = 1
            for a in axis:
                count *= x.shape[a]
            if type(s) is not np.ndarray:  # every axis reduced without keep_dims: a numpy scalar
                return np.asarray(s / count)
            return np.true_divide(s, count, out=s)
        return general(prim, np, x, axis)
    return mean


@register("Reshape")
def _reshape_kernel(op):
    """An array's own reshape (a view when possible): the generic kernel's np.reshape costs several times more
    per call, which shows at batch 1 (LeNet's flatten)."""
    prim = primitive(op)
    general = type(prim).numpy

    def reshape(x, shape):
        if type(x) is np.ndarray and type(shape) is tuple:
            return x.reshape(shape)
        return general(prim, np, x, shape)
    return reshape
