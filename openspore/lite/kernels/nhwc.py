"""Channels-last (NHWC) kernels: what the converter's `to_nhwc` pass (passes/layout.py) switches convolutions to.

Why NHWC: with the channels innermost, the im2col matrix of an image is one strided copy of the padded input
(rows = output pixels, columns = (kh, kw, C) windows), and the GEMM `cols (P, K) @ w (K, O)` that follows runs
OpenBLAS's fastest shape for the small-M products of CNNs (2× faster here than `w (O, K) @ cols (K, P)` for
ResNet's 16-channel layers). The weights are packed (kh·kw·C, O) by the converter, once.

`LiteConv2D` with attribute `layout='NHWC'` reads `(x, w_packed[, bias][, residual])`: bias, a residual tensor of
the output's shape (ResNet's shortcut `Add`) and ReLU/ReLU6 are applied in place on the GEMM output. Each kernel
copies its input into a zero-bordered buffer (per thread, shared by the convolutions of the same padded shape:
its border is written once) and keeps, per input shape, the strided window view over it; the column matrix lives
in a per-thread workspace shared by all convolutions.
`LiteLayout(x)` transposes between layouts (attribute `perm`) into a contiguous array.

>>> import numpy as np
>>> from openspore.lite.program import Op
>>> conv = make_conv(Op("LiteConv2D", {"kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1),
...                                    "out_channel": 2, "layout": "NHWC"}, [0, 1], [2]))
>>> conv(np.ones((1, 4, 4, 1), np.float32), np.ones((9, 2), np.float32))[0, :2, :2, 0]
array([[4., 6.],
       [6., 9.]], dtype=float32)
"""
import functools
import threading

import numpy as np

from .. import workshare
from ..threads import set_blas_threads
from . import register
from .nn import _WS, _conv_prim, activate, shared_zeros
from .nhwc_serial import compile_serial


_PIXEL_MAJOR_MIN_C = 4  # below this many input channels the columns are copied K-major (see _windows)
_ROW_GEMMS = True  # stride-1 convolutions as kh row GEMMs (see NHWCConv.plan)


class _Plans(threading.local):
    def __init__(self):
        self.by_shape = {}
        self.compiled = {}  # (x shape, dtype) -> the Compiled serial call (nhwc_serial.py)
        self.last = None  # the Compiled of the last serial call


class NHWCConv:
    """One channels-last convolution (group 1): `__call__(x, w, bias=None, residual=None)`."""

    def __init__(self, prim, act, has_bias, has_residual, pool=None, slot=None):
        self.prim, self.act = prim, act
        self.slot = slot  # `out_slot` (passes/out_slots.py): the result buffer is shared with the slot's others
        self.pool = tuple(pool) if pool else None  # a fused tiling MaxPool's window (see plan)
        self.kh, self.kw = prim.kernel_size
        self.stride = tuple(prim.stride[2:])
        self.dilation = tuple(prim.dilation[2:])
        self.has_bias, self.has_residual = has_bias, has_residual
        self.plans = _Plans()

    def plan(self, x, rows=_ROW_GEMMS):
        """The _Plan of this convolution for x's shape and dtype (made at the first call with them); `rows=False`:
        one im2col GEMM even where row GEMMs apply (the BLAS-threaded way, see _threaded)."""
        n, h, w, c = x.shape
        pads, (oh, ow) = self.prim.geometry((h, w))
        top, bottom, left, right = pads
        kh, kw, (sh, sw), (dh, dw) = self.kh, self.kw, self.stride, self.dilation
        plan = _Plan((n, oh, ow))
        if self.pool and c >= _PIXEL_MAJOR_MIN_C:
            return self._pooled_plan(x, plan, pads)
        if self.pool:  # few channels: K-major columns in image order, the pool after the GEMM (_max_tiles)
            plan.tiles, plan.conv_out = self.pool, plan.out
            plan.out = (n, oh // self.pool[0], ow // self.pool[1])
        if self.pool or any(pads) or kh * kw > 1:
            # x is copied into a buffer kept per input shape (its zero border written once), so the window view
            # over it is built once, not at every call
            pixel_major = c >= _PIXEL_MAJOR_MIN_C
            hp, wp = h + top + bottom, w + left + right
            # few channels: the buffer is channel-major (an NHWC view of (N, C, H, W) memory). Such a layer is
            # usually the first, reading the model's NCHW input through LiteLayout's transposed view, so x goes
            # in as contiguous rows (ResNet's 3 channels: 9.6 → 1.7 µs) and the K-major stage below reads rows
            # of W floats instead of every C-th float
            padded = _padded_buffer((n, hp, wp, c), pads, pixel_major, x.dtype)
            plan.interior = padded[:, top:top + h, left:left + w]
            if rows and pixel_major and 1 < kh <= 3 and sh == 1 and dh == 1:
                # row columns: (N, padded H, ow, kw·C); the rows of kernel row i are one contiguous block per
                # image, so the convolution is kh GEMMs of K = kw·C over views — a third of the copying of 3×3
                # im2col: ResNet20 15 % faster here; with 5 rows (LeNet) the smaller GEMMs lose 25 %
                sn, sy, sx, sc = padded.strides
                plan.windows = np.lib.stride_tricks.as_strided(
                    padded, (n, padded.shape[1], ow, kw, c), (sn, sy, sx * sw, sx * dw, sc), writeable=False)
                plan.cols_shape = (n, padded.shape[1], ow, kw, c)
                plan.row_k, plan.kh = kw * c, kh
            elif pixel_major:
                plan.windows = _windows(padded, kh, kw, sh, sw, dh, dw, oh, ow)
                plan.cols_shape = (n, oh, ow, kh, kw, c)
            else:
                # two copies that each run along long contiguous stretches, where one copy of the 6-D window
                # view runs ow floats at a time: the (kw, C, N, padded H, ow) column-shifted rows, then from
                # them each kernel offset's (oh, ow) block, contiguous when the stride is 1 (LeNet's 1-channel
                # layer: 5× less copy time)
                sn, sy, sx, sc = padded.strides
                shape = (kw, c, n, padded.shape[1], ow)
                plan.stage_src = np.lib.stride_tricks.as_strided(padded, shape, (sx * dw, sc, sn, sy, sx * sw),
                                                                 writeable=False)
                plan.stage = np.empty(shape, x.dtype)
                rk, rc, rn, ry, rx = plan.stage.strides
                plan.windows = np.lib.stride_tricks.as_strided(
                    plan.stage, (kh, kw, c, n, oh, ow), (ry * dh, rk, rc, rn, ry * sh, rx), writeable=False)
                plan.cols_shape = (kh, kw, c, n, oh, ow)
                plan.k_major = True
        if n == 1 and plan.tiles is None and not plan.k_major and oh >= 2:
            plan.splits = True
        self.plans.by_shape[(x.shape, x.dtype) if rows == _ROW_GEMMS else (x.shape, x.dtype, rows)] = plan
        return plan

    def _pooled_plan(self, x, plan, pads):
        """A convolution followed by a tiling MaxPool of window (ph, pw): the column rows are ordered
        (window offset, pooled pixel), so the GEMM output is ph·pw blocks of the pooled shape and the pool is one
        elementwise max-reduction over the blocks. Bias and ReLU/ReLU6 (monotonic, per channel) commute with the
        max and run after it on the smaller result. Pixels the pool drops (odd sizes) are never computed."""
        n, h, w, c = x.shape
        top, bottom, left, right = pads
        kh, kw, (sh, sw), (dh, dw) = self.kh, self.kw, self.stride, self.dilation
        ph, pw = self.pool
        qh, qw = plan.out[1] // ph, plan.out[2] // pw
        padded = _padded_buffer((n, h + top + bottom, w + left + right, c), pads, True, x.dtype)
        plan.interior = padded[:, top:top + h, left:left + w]
        sn, sy, sx, sc = padded.strides
        pixel = ((ph, sy * sh), (pw, sx * sw), (n, sn), (qh, sy * sh * ph), (qw, sx * sw * pw))
        window = ((kh, sy * dh), (kw, sx * dw), (c, sc))
        dims = pixel + window
        plan.windows = np.lib.stride_tricks.as_strided(padded, tuple(d for d, _ in dims),
                                                       tuple(s for _, s in dims), writeable=False)
        plan.cols_shape = plan.windows.shape
        plan.pixels = ph * pw * n * qh * qw
        plan.blocks = (ph * pw, n * qh * qw, -1)
        plan.out = (n, qh, qw)
        self.plans.by_shape[(x.shape, x.dtype)] = plan
        return plan

    def __call__(self, x, w, *rest):
        plans = self.plans
        c = plans.last
        # the per-call fast path: the same input shape and weight arrays as the last serial call (Compiled.valid
        # and the thread's way inline: ~0.5 µs of the ~2.5 µs this path cost per convolution)
        if c is not None and w is c.w and x.shape == c.shape and x.dtype is c.dtype \
                and (c.b is None or rest[0] is c.b) and (c.base is None or c.buffers.get(c.key) is c.base) \
                and not (c.splits and workshare.threaded()):
            return c.go(x, rest)
        plan = plans.by_shape.get((x.shape, x.dtype))
        if plan is None:
            plan = self.plan(x)
        if x.dtype is not w.dtype:
            x = x.astype(w.dtype)
        if plan.splits:
            share = workshare.current()
            if share is not None:
                return self._shared(plan, x, w, rest, share)
            gemm, least = workshare.gemm_threads()
            if gemm and plan.pixels >= least:
                return self._threaded(x, w, rest, gemm)
        key = (x.shape, x.dtype)
        c = plans.compiled.get(key)
        if c is None or c.w is not w or (c.b is not None and rest[0] is not c.b) or not c.valid():
            c = plans.compiled[key] = compile_serial(self, plan, x, w, rest)
        if c is not None:
            plans.last = c
            return c.go(x, rest)
        return self._serial(plan, x, w, rest)

    def out_buffer(self, shape, dtype):
        """The buffer a compiled call writes its result into: its own, or with an `out_slot` the one this thread's
        convolutions of that slot, shape and dtype share (only convolutions whose results are never alive together
        get one slot)."""
        if self.slot is None:
            return np.empty(shape, dtype)
        key = ("nhwc_out", self.slot, tuple(shape), np.dtype(dtype))
        buf = _WS.buffers.get(key)
        if buf is None:
            buf = _WS.buffers[key] = np.empty(shape, dtype)
        return buf

    def _serial(self, plan, x, w, rest):
        """The uncompiled serial call (a plan compile_serial does not cover)."""
        if plan.k_major:
            return self._channel_major(plan, x, w, rest)
        if plan.windows is None:  # 1×1 without padding: the input (subsampled by the stride) is the column matrix
            sh, sw = self.stride
            n, oh, ow = plan.out
            a = (x if sh == sw == 1 else x[:, ::sh, ::sw]).reshape(n * oh * ow, x.shape[3])
        elif plan.row_k:
            np.copyto(plan.interior, x)
            stack = plan.columns(x.dtype)  # (kh, N, oh·ow, kw·C): kernel row i's view of the row columns
            z = plan.tmp
            if z is None or z.dtype is not w.dtype:
                z = plan.tmp = np.empty(stack.shape[:3] + (w.shape[1],), w.dtype)
            # one call: numpy loops the kh GEMMs in C (the weight viewed (kh, 1, kw·C, O) broadcasts over N)
            np.matmul(stack, w.reshape(self.kh, 1, plan.row_k, -1), out=z)
            y = np.add(z[0], z[1])
            for i in range(2, self.kh):
                y += z[i]
            y = y.reshape(-1, w.shape[1])
        else:
            np.copyto(plan.interior, x)
            a = plan.columns(x.dtype)
        if not plan.row_k:
            y = a @ w
        return self._epilogue(plan, y, w, rest)

    def _epilogue(self, plan, y, w, rest):
        """Pool, bias, residual and activation on the (pixels, O) GEMM output, in place where possible."""
        if plan.blocks is not None:
            y = np.maximum.reduce(y.reshape(plan.blocks), axis=0)
        elif plan.tiles is not None:
            y = _max_tiles(y, plan.conv_out, plan.tiles)
        if self.has_bias:
            b = rest[0]
            if plan.bias_src is not b:  # an inference model's weights are replaced (update_weights), not written
                plan.bias_src, plan.bias_rows = b, np.ascontiguousarray(np.broadcast_to(b, y.shape))
            y += plan.bias_rows  # numpy's broadcast add of an O-vector runs O floats at a time: 5× slower here
        if self.has_residual:
            y += rest[-1].reshape(y.shape)
        if self.act == "relu":
            if plan.zeros is None:
                plan.zeros = shared_zeros(y.shape, y.dtype)
            np.maximum(y, plan.zeros, out=y)  # numpy 2's maximum with a scalar is 5× slower than with an array
        elif self.act is not None:
            activate(y, self.act)
        return y.reshape(plan.out + (w.shape[1],))

    def _threaded(self, x, w, rest, n):
        """The BLAS-threaded way: one im2col GEMM run by n BLAS threads. OpenBLAS splits a (pixels, 9·C) @
        (9·C, O) product of a large image well (measured here: 2 threads, 32×32×16 → 16: 59 → 31 µs), while it
        gains nothing on the kh row GEMMs, whose K is a third. Whether it gains on the smaller images of later
        layers depends on the machine: model.py runs it both ways (from 512 pixels, or from 64) and keeps the
        faster."""
        key = (x.shape, x.dtype, False)
        plan = self.plans.by_shape.get(key)
        if plan is None:
            plan = self.plan(x, rows=False)
        if plan.windows is None:
            sh, sw = self.stride
            a = (x if sh == sw == 1 else x[:, ::sh, ::sw]).reshape(plan.pixels, x.shape[3])
        else:
            np.copyto(plan.interior, x)
            a = plan.columns(x.dtype)
        set_blas_threads(n)
        try:
            y = a @ w
        finally:
            set_blas_threads(1)
        return self._epilogue(plan, y, w, rest)

    def _shared(self, plan, x, w, rest, share):
        """Batch 1 on a WorkShare (workshare.py): the output rows cut into one chunk per thread, each chunk copying
        its columns (with the kernel's halo rows), running its GEMMs and its bias/residual/activation."""
        n, oh, ow = plan.out
        o = w.shape[1]
        if plan.windows is not None:
            np.copyto(plan.interior, x)
            plan.views(x.dtype)
        if plan.row_k and (plan.tmp is None or plan.tmp.dtype is not w.dtype):
            plan.tmp = np.empty((self.kh, n, oh * ow, o), w.dtype)
        y = np.empty((oh * ow, o), w.dtype)
        if self.has_bias and plan.bias_src is not rest[0]:
            plan.bias_src, plan.bias_rows = rest[0], np.ascontiguousarray(np.broadcast_to(rest[0], y.shape))
        if self.act == "relu" and plan.zeros is None:
            plan.zeros = shared_zeros(y.shape, y.dtype)
        cuts = [oh * k // share.n for k in range(share.n + 1)]
        share.run([functools.partial(self._rows, plan, x, w, rest, y, a, b) for a, b in zip(cuts, cuts[1:])
                   if b > a])
        return y.reshape(plan.out + (o,))

    def _rows(self, plan, x, w, rest, y, r0, r1):
        """Output rows [r0, r1) of a batch-1 convolution into `y` (see _shared)."""
        ow = plan.out[2]
        p0, p1 = r0 * ow, r1 * ow
        ys = y[p0:p1]
        if plan.windows is None:  # 1×1 without padding
            sh, sw = self.stride
            a = x[0, r0 * sh:(r1 - 1) * sh + 1:sh, ::sw].reshape(p1 - p0, x.shape[3])
            np.matmul(a, w, out=ys)
        elif plan.row_k:
            np.copyto(plan.cols[:, r0:r1 + self.kh - 1], plan.windows[:, r0:r1 + self.kh - 1])
            z = plan.tmp[:, :, p0:p1]
            np.matmul(plan.matrix[:, :, p0:p1], w.reshape(self.kh, 1, plan.row_k, -1), out=z)
            np.add(z[0, 0], z[1, 0], out=ys)
            for i in range(2, self.kh):
                ys += z[i, 0]
        else:
            np.copyto(plan.cols[:, r0:r1], plan.windows[:, r0:r1])
            np.matmul(plan.matrix[p0:p1], w, out=ys)
        if self.has_bias:
            ys += plan.bias_rows[p0:p1]
        if self.has_residual:
            ys += rest[-1].reshape(y.shape)[p0:p1]
        if self.act == "relu":
            np.maximum(ys, plan.zeros[p0:p1], out=ys)
        elif self.act is not None:
            activate(ys, self.act)

    def _channel_major(self, plan, x, w, rest):
        """Few input channels (K-major columns): the GEMM runs as `w.T (O, K) @ columns (K, pixels)`, whose
        (O, N·oh·ow) product has whole image rows innermost, so a fused pool reduces long contiguous rows, and bias
        and ReLU run on the smaller pooled result (LeNet's first layer: 2× faster than pixel-major
        columns, whose (pixels, 6) product pools 6 floats at a time). The result is returned as an NHWC view."""
        np.copyto(plan.interior, x)
        o = w.shape[1]
        y = np.matmul(w.T, plan.columns(x.dtype).T)
        n, oh, ow = plan.out
        if plan.tiles is not None:
            y = _max_tiles_channel_major(y, o, plan.conv_out, plan.tiles)
        if self.has_bias:
            b = rest[0]
            if plan.bias_src is not b:
                plan.bias_src, plan.bias_rows = b, np.ascontiguousarray(b).reshape(o, 1)
            y += plan.bias_rows
        if self.has_residual:
            y.reshape(o, n, oh, ow)[...] += rest[-1].transpose(3, 0, 1, 2)
        if self.act == "relu":
            if plan.zeros is None:
                plan.zeros = shared_zeros(y.shape, y.dtype)
            np.maximum(y, plan.zeros, out=y)
        elif self.act is not None:
            activate(y, self.act)
        return y.reshape(o, n, oh, ow).transpose(1, 2, 3, 0)


class _Plan:
    """Per input shape: the padded input buffer (`interior`: where x goes), the strided `windows` over it, and the
    column matrix in the shared per-thread workspace, as the (pixels, K) operand of the GEMM (`matrix`)."""

    __slots__ = ("out", "interior", "windows", "cols_shape", "base", "cols", "matrix", "row_k", "kh", "tmp", "k_major",
                 "pixels", "blocks", "tiles", "conv_out", "stage", "stage_src", "bias_src", "bias_rows", "zeros", "splits")

    def __init__(self, out):
        self.out = out
        self.interior = self.windows = self.cols_shape = self.base = self.cols = self.matrix = self.tmp = None
        self.blocks = None  # fused MaxPool: the (window offsets, pooled pixels, O) view of the GEMM output
        self.pixels = out[0] * out[1] * out[2]  # rows of the column matrix
        self.k_major = False
        self.tiles = self.conv_out = None  # fused MaxPool after the GEMM: window, unpooled (N, oh, ow)
        self.stage = self.stage_src = None  # two-step K-major columns: the row buffer and its source view
        self.bias_src = self.bias_rows = self.zeros = None  # the bias repeated per output pixel, ReLU's zeros
        self.splits = False  # batch 1 without a fused pool: a WorkShare may cut the rows into chunks
        self.row_k = 0  # K of each of the kh row GEMMs (row columns), 0 for one im2col GEMM
        self.kh = 0  # kernel rows (row columns)

    def columns(self, dtype):
        """Copy the windows into the column matrix and return it as (pixels, K)."""
        matrix = self.views(dtype)
        if self.stage is not None:
            np.copyto(self.stage, self.stage_src)
        np.copyto(self.cols, self.windows)
        return matrix

    def views(self, dtype):
        """The column buffer (`cols`) and its GEMM operand (`matrix`), not yet filled. The workspace view is cached
        and taken again only when a larger layer has grown the workspace (the old buffer is then released)."""
        if self.base is None or _WS.buffers.get(("nhwc_cols", dtype)) is not self.base:
            self.cols = _WS.get("nhwc_cols", self.cols_shape, dtype)
            self.base = _WS.buffers[("nhwc_cols", dtype)]
            pixels = self.pixels
            if self.k_major:
                self.matrix = self.cols.reshape(-1, pixels).T
            elif self.row_k:  # (N, padded H · ow, kw·C): kernel row i reads rows [i·ow, i·ow + oh·ow) of each image
                n, oh, ow = self.out
                rows = self.cols.reshape(n, -1, self.row_k)
                sn, sp, sk = rows.strides
                self.matrix = np.lib.stride_tricks.as_strided(
                    rows, (self.kh, n, oh * ow, self.row_k), (ow * sp, sn, sp, sk))
            elif self.blocks is not None or self.cols_shape[0] == self.out[0]:
                self.matrix = self.cols.reshape(pixels, -1)
            else:  # K-major columns (few channels): their transpose is the (pixels, K) matrix
                self.matrix = self.cols.reshape(-1, pixels).T
        return self.matrix


def _max_tiles(y, conv_out, tiles):
    """The (N·qh·qw, O) max over the (ph, pw) tiles of the (N·oh·ow, O) GEMM output in image order (rows of a
    tile first, each slice whole image rows; trailing rows and columns the pool drops are cropped)."""
    n, oh, ow = conv_out
    (ph, pw), o = tiles, y.shape[1]
    qh, qw = oh // ph, ow // pw
    rows = y.reshape(n, oh, ow * o)[:, :qh * ph, :qw * pw * o].reshape(n, qh, ph, qw * pw * o)
    z = np.maximum(rows[:, :, 0], rows[:, :, 1]) if ph > 1 else np.ascontiguousarray(rows[:, :, 0])
    for i in range(2, ph):
        np.maximum(z, rows[:, :, i], out=z)
    cols = z.reshape(n * qh * qw, pw * o)
    if pw == 1:
        return cols
    u = np.maximum(cols[:, :o], cols[:, o:2 * o])
    for j in range(2, pw):
        np.maximum(u, cols[:, j * o:(j + 1) * o], out=u)
    return u


def _max_tiles_channel_major(y, o, conv_out, tiles):
    """The (O, N·qh·qw) max over the (ph, pw) tiles of the (O, N·oh·ow) GEMM output (rows of a tile first, over
    whole image rows; trailing rows and columns the pool drops are cropped)."""
    n, oh, ow = conv_out
    ph, pw = tiles
    qh, qw = oh // ph, ow // pw
    img = y.reshape(o * n, oh, ow)
    if oh != qh * ph or ow != qw * pw:
        img = img[:, :qh * ph, :qw * pw]
    rows = img.reshape(o * n * qh, ph, qw * pw) if img.flags.c_contiguous else \
        np.ascontiguousarray(img).reshape(o * n * qh, ph, qw * pw)
    z = np.maximum(rows[:, 0], rows[:, 1]) if ph > 1 else rows[:, 0].copy()
    for i in range(2, ph):
        np.maximum(z, rows[:, i], out=z)
    if pw > 1:
        u = np.maximum(z[:, 0::pw], z[:, 1::pw])
        for j in range(2, pw):
            np.maximum(u, z[:, j::pw], out=u)
        z = u
    return z.reshape(o, n * qh * qw)


def _padded_buffer(shape, pads, pixel_major, dtype):
    """The zero-bordered NHWC buffer (N, padded H, padded W, C) a convolution copies its input into, shared
    by every convolution of this thread with the same padded shape, padding and memory order: each writes
    only the interior, the same region for all, so the border written zero once stays zero, and a call's
    use of the buffer (copy in, columns out) ends before the next convolution starts. ResNet20's 3×3
    layers then share three buffers instead of holding one each (0.8 MB fewer bytes a call walks through).
    Channel-major (`pixel_major` False): an NHWC view of (N, C, H, W) memory (see NHWCConv.plan)."""
    n, hp, wp, c = shape
    key = ("nhwc_pad", tuple(shape), tuple(pads), bool(pixel_major), np.dtype(dtype))
    buf = _WS.buffers.get(key)
    if buf is None:
        buf = _WS.buffers[key] = np.zeros(shape, dtype) if pixel_major else \
            np.zeros((n, c, hp, wp), dtype).transpose(0, 2, 3, 1)
    return buf


def _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow):
    """The (N, oh, ow, kh, kw, C) strided view of the windows of NHWC `xp` (no copy)."""
    sn, sy, sx, sc = xp.strides
    return np.lib.stride_tricks.as_strided(xp, (xp.shape[0], oh, ow, kh, kw, xp.shape[3]),
                                           (sn, sy * sh, sx * sw, sy * dh, sx * dw, sc), writeable=False)


def make_conv(op):
    prim = _conv_prim(op)
    if prim.group != 1:
        raise ValueError(f"LiteConv2D (node '{op.name}'): the NHWC kernel supports group=1, got {prim.group}.")
    act = op.attrs.get("activation")
    if act not in (None, "relu", "relu6"):
        raise ValueError(f"LiteConv2D (node '{op.name}'): unknown activation {act!r}.")
    pool = op.attrs.get("pool")
    if pool is not None and (op.attrs.get("has_residual") or len(tuple(pool)) != 2):
        raise ValueError(f"LiteConv2D (node '{op.name}'): a fused pool needs a (ph, pw) window and no residual, "
                         f"got pool={pool!r}, has_residual={op.attrs.get('has_residual')}.")
    slot = op.attrs.get("out_slot")
    if slot is not None and (isinstance(slot, bool) or not isinstance(slot, int) or slot < 0):
        raise ValueError(f"LiteConv2D (node '{op.name}'): out_slot must be an int >= 0, got {slot!r}.")
    return NHWCConv(prim, act, bool(op.attrs.get("has_bias")), bool(op.attrs.get("has_residual")), pool, slot)


@register("LiteLayout")
def _layout_kernel(op):
    perm = tuple(op.attrs["perm"])
    if perm == (0, 2, 3, 1):
        # into channels-last: a view; its readers (convolutions copying it into their padded buffer, elementwise
        # operators, pools) take any strides, so the transposing copy is the one they make anyway
        return lambda x: x.transpose(perm)
    # back to NCHW, always a new array (ascontiguousarray returns a contiguous transpose, (N, 1, 1, C) say, as a
    # view of its input): a program output must not be a convolution's buffer, which the next call rewrites
    return lambda x: x.transpose(perm).copy()


def tiling_pool(attrs):
    """Whether pooling `attrs` describe unpadded windows that tile the input (kernel == stride, 'valid')."""
    k, s = tuple(attrs.get("kernel_size", (1,)))[-2:], tuple(attrs.get("strides", (1,)))[-2:]
    return k == s and str(attrs.get("pad_mode", "valid")).lower() == "valid" and not attrs.get("ceil_mode")


def pool_nhwc(op, prim):
    """MaxPool/AvgPool over NHWC input; non-overlapping tiling windows take one elementwise op per offset,
    any other geometry runs the primitive's NCHW kernel between two transposes."""
    k = tuple(prim.kernel_size)[-2:]
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
