"""Channels-last (NHWC) kernels: what the converter's `to_nhwc` pass (passes/layout.py) switches convolutions to.

Why NHWC: with the channels innermost, the im2col matrix of an image is one strided copy of the padded input
(rows = output pixels, columns = (kh, kw, C) windows), and the GEMM `cols (P, K) @ w (K, O)` that follows runs
OpenBLAS's fastest shape for the small-M products of CNNs (2× faster here than `w (O, K) @ cols (K, P)` for
ResNet's 16-channel layers). The weights are packed (kh·kw·C, O) by the converter, once.

`LiteConv2D` with attribute `layout='NHWC'` reads `(x, w_packed[, bias][, residual])`: bias, a residual tensor of
the output's shape (ResNet's shortcut `Add`) and ReLU/ReLU6 are applied in place on the GEMM output. Each kernel
keeps, per thread and input shape, a padded copy of its input whose zero border is written once and the strided
window view over it; the column matrix lives in a per-thread workspace shared by all convolutions.
`LiteLayout(x)` transposes between layouts (attribute `perm`) into a contiguous array.

>>> import numpy as np
>>> from openspore.lite.program import Op
>>> conv = make_conv(Op("LiteConv2D", {"kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1),
...                                    "out_channel": 2, "layout": "NHWC"}, [0, 1], [2]))
>>> conv(np.ones((1, 4, 4, 1), np.float32), np.ones((9, 2), np.float32))[0, :2, :2, 0]
array([[4., 6.],
       [6., 9.]], dtype=float32)
"""
import threading

import numpy as np

from . import register
from .nn import _WS, _conv_prim, activate


_PIXEL_MAJOR_MIN_C = 4  # below this many input channels the columns are copied K-major (see _windows)


class _Plans(threading.local):
    def __init__(self):
        self.by_shape = {}


class NHWCConv:
    """One channels-last convolution (group 1): `__call__(x, w, bias=None, residual=None)`."""

    def __init__(self, prim, act, has_bias, has_residual):
        self.prim, self.act = prim, act
        self.kh, self.kw = prim.kernel_size
        self.stride = tuple(prim.stride[2:])
        self.dilation = tuple(prim.dilation[2:])
        self.has_bias, self.has_residual = has_bias, has_residual
        self.plans = _Plans()

    def plan(self, x):
        """(interior view to copy x into or None, window view or None, cols shape, out shape) for x's shape."""
        n, h, w, c = x.shape
        pads, (oh, ow) = self.prim.geometry((h, w))
        top, bottom, left, right = pads
        kh, kw, (sh, sw), (dh, dw) = self.kh, self.kw, self.stride, self.dilation
        interior = windows = None
        if any(pads) or kh * kw > 1:
            # x is copied into a buffer kept per input shape (its zero border written once), so the window view
            # over it is built once, not at every call
            padded = np.zeros((n, h + top + bottom, w + left + right, c), x.dtype)
            interior = padded[:, top:top + h, left:left + w]
            windows = _windows(padded, kh, kw, sh, sw, dh, dw, oh, ow, pixel_major=c >= _PIXEL_MAJOR_MIN_C)
        cols = (n, oh, ow, kh, kw, c) if c >= _PIXEL_MAJOR_MIN_C else (kh, kw, c, n, oh, ow)
        plan = [interior, windows, cols, (n, oh, ow), None, None]
        self.plans.by_shape[(x.shape, x.dtype)] = plan
        return plan

    @staticmethod
    def columns(plan, dtype):
        """The column matrix of `plan` in the shared per-thread workspace; the view is cached in the plan and
        taken again only when a larger layer has grown the workspace (the old buffer is then released)."""
        base = _WS.buffers.get(("nhwc_cols", dtype))
        if plan[5] is None or plan[4] is not base:
            plan[5] = _WS.get("nhwc_cols", plan[2], dtype)
            plan[4] = _WS.buffers[("nhwc_cols", dtype)]
        return plan[5]

    def __call__(self, x, w, *rest):
        plan = self.plans.by_shape.get((x.shape, x.dtype))
        if plan is None:
            plan = self.plan(x)
        interior, windows, _, (n, oh, ow), _, _ = plan
        if x.dtype != w.dtype:
            x = x.astype(w.dtype)
        if interior is not None:
            np.copyto(interior, x)
        if windows is None:  # 1×1 without padding: the input (subsampled by the stride) is the column matrix
            sh, sw = self.stride
            a = (x if sh == sw == 1 else x[:, ::sh, ::sw]).reshape(n * oh * ow, x.shape[3])
        else:
            cols = self.columns(plan, x.dtype)
            np.copyto(cols, windows)
            if cols.shape[0] == n:
                a = cols.reshape(n * oh * ow, -1)
            else:  # K-major columns (few channels): their transpose is the (pixels, K) matrix
                a = cols.reshape(-1, n * oh * ow).T
        y = a @ w
        k = 0
        if self.has_bias:
            y += rest[0]
            k = 1
        if self.has_residual:
            y += rest[k].reshape(y.shape)
        return activate(y, self.act).reshape(n, oh, ow, w.shape[1])


def _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow, pixel_major=True):
    """The (N, oh, ow, kh, kw, C) strided view of the windows of NHWC `xp` (no copy), or with pixel_major=False
    the (kh, kw, C, N, oh, ow) view, whose copy runs along image rows: the faster one when C is small (LeNet's
    first layer has C = 1, where the pixel-major copy moves one float at a time)."""
    sn, sy, sx, sc = xp.strides
    n, c = xp.shape[0], xp.shape[3]
    if pixel_major:
        return np.lib.stride_tricks.as_strided(xp, (n, oh, ow, kh, kw, c),
                                               (sn, sy * sh, sx * sw, sy * dh, sx * dw, sc), writeable=False)
    return np.lib.stride_tricks.as_strided(xp, (kh, kw, c, n, oh, ow),
                                           (sy * dh, sx * dw, sc, sn, sy * sh, sx * sw), writeable=False)


def make_conv(op):
    prim = _conv_prim(op)
    if prim.group != 1:
        raise ValueError(f"LiteConv2D (node '{op.name}'): the NHWC kernel supports group=1, got {prim.group}.")
    act = op.attrs.get("activation")
    if act not in (None, "relu", "relu6"):
        raise ValueError(f"LiteConv2D (node '{op.name}'): unknown activation {act!r}.")
    return NHWCConv(prim, act, bool(op.attrs.get("has_bias")), bool(op.attrs.get("has_residual")))


@register("LiteLayout")
def _layout_kernel(op):
    perm = tuple(op.attrs["perm"])
    return lambda x: np.ascontiguousarray(x.transpose(perm))


def tiling_pool(attrs):
    """Whether pooling `attrs` describe unpadded windows that tile the input (kernel == stride, 'valid')."""
    k, s = tuple(attrs.get("kernel_size", (1,)))[-2:], tuple(attrs.get("strides", (1,)))[-2:]
    return k == s and str(attrs.get("pad_mode", "valid")).lower() == "valid" and not attrs.get("ceil_mode")


def pool_nhwc(op, prim):
    """MaxPool/AvgPool over NHWC input; non-overlapping tiling windows take one elementwise op per offset,
    any other geometry runs the primitive's NCHW kernel between two transposes."""
    k, s = tuple(prim.kernel_size)[-2:], tuple(prim.strides)[-2:]
    combine = np.maximum if op.type == "MaxPool" else np.add
    fallback = type(prim).numpy
    tiles = tiling_pool(op.attrs)

    def pool(x):
        h, w = x.shape[1:3]
        if not tiles:
            y = fallback(prim, np, np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
            return np.ascontiguousarray(y.transpose(0, 2, 3, 1))
        n, c = x.shape[0], x.shape[3]
        oh, ow = h // k[0], w // k[1]
        if x.shape[1] != oh * k[0] or x.shape[2] != ow * k[1]:
            x = x[:, :oh * k[0], :ow * k[1]]
        # rows first (each slice is whole contiguous rows), then columns, which are (ow, kw·C) pairs of C runs
        rows = x.reshape(n, oh, k[0], ow * k[1] * c)
        y = rows[:, :, 0].copy()
        for i in range(1, k[0]):
            combine(y, rows[:, :, i], out=y)
        cols = y.reshape(n, oh, ow, k[1] * c)
        z = cols[..., :c].copy()
        for j in range(1, k[1]):
            combine(z, cols[..., j * c:(j + 1) * c], out=z)
        if op.type == "AvgPool":
            z *= z.dtype.type(1.0 / (k[0] * k[1]))
        return z.reshape(n, oh, ow, c)
    return pool
