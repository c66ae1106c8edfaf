"""A channels-last convolution's serial call, compiled once per (input shape, weights): `compile_serial` returns a
`Compiled` whose `go(x, rest)` is a fixed sequence of numpy calls on views and buffers made in advance.

Why: at batch 1 a ResNet20 convolution's numpy work is ~60 µs, and the Python around it (the plan lookup, the
view, reshape and slice objects made at every call, the checks of the epilogue) cost another 10-15 µs; here
every view is made once and each step is one numpy call with its output given (`out`), so a call is the copies,
the GEMM(s) and one in-place pass per epilogue step. Pixel-major columns call numpy's OpenBLAS directly where it
is found (cblas.py, `_accumulated`): the output is written once with bias + residual and the GEMMs add onto it.
The output lands in a buffer owned by the plan (per thread, per input shape) and the same array is returned at
every call: the next call of this convolution overwrites it.
That is safe because `to_nhwc` (passes/layout.py) only converts programs without control flow (a convolution
runs once per call of the program) and never returns an NHWC tensor from the program (its outputs go through
`LiteLayout`, which copies); the values of one call are all consumed before the next call starts.

>>> import numpy as np
>>> from openspore.lite.program import Op
>>> from openspore.lite.kernels.nhwc import make_conv
>>> conv = make_conv(Op("LiteConv2D", {"kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1),
...                                    "out_channel": 2, "layout": "NHWC", "activation": "relu"}, [0, 1], [2]))
>>> w = np.ones((72, 2), np.float32)
>>> y1 = conv(np.ones((1, 4, 4, 8), np.float32), w)
>>> y2 = conv(np.ones((1, 4, 4, 8), np.float32), w)
>>> y1 is y2, float(y2[0, 1, 1, 0])      # the plan's output buffer, overwritten by each call
(True, 72.0)
"""
import numpy as np

from . import cblas
from .nn import _WS, activate, shared_zeros

_add, _matmul, _maximum, _copyto = np.add, np.matmul, np.maximum, np.copyto


class Compiled:
    """The compiled serial call of one plan: valid while `w` (and the bias `b`) are the same arrays and the shared
    column workspace is the buffer `base` it was compiled against (`valid`)."""

    __slots__ = ("shape", "dtype", "w", "b", "base", "buffers", "key", "splits", "go")

    def valid(self):
        # (NHWCConv's per-call path tests the same inline; `buffers` is the compiling thread's workspace dict)
        return self.base is None or self.buffers.get(self.key) is self.base


def compile_serial(conv, plan, x, w, rest):
    """The Compiled serial call of NHWCConv `conv` for `plan` (made for x's shape), weights `w` and bias
    `rest[0]` (when the convolution has one); None for a plan it does not cover."""
    c = Compiled()
    c.shape, c.dtype, c.w = x.shape, w.dtype, w
    c.b = rest[0] if conv.has_bias else None
    c.splits = plan.splits
    c.base = None
    c.buffers, c.key = _WS.buffers, ("nhwc_cols", w.dtype)
    if plan.windows is not None:
        plan.views(w.dtype)
        c.base = plan.base
    if plan.k_major and plan.tiles is not None:
        c.go = _channel_major(conv, plan, w, c.b)
    elif plan.tiles is None and plan.blocks is None and not plan.k_major and cblas.gemm(w.dtype) is not None \
            and w.flags.c_contiguous and (plan.windows is not None or conv.stride != (1, 1)):
        # (a 1×1 stride-1 convolution's input is its column matrix as it is: numpy's matmul, no copy; the calls
        # read the weights' own memory, so weights a training step writes in place are seen: contiguous ones only)
        c.go = _accumulated(conv, plan, w, c.b)
    elif plan.tiles is None:
        # K-major columns without a pool too: their transpose is the (pixels, K) operand BLAS takes as is, and an
        # NHWC output spares the next convolution a transposing copy of it and a residual add over its transpose
        # (ResNet's 3-channel first layer: ~25 + ~30 µs)
        c.go = _pixel_major(conv, plan, w, c.b)
    else:  # (a pool after pixel-major columns is not planned: few channels go K-major)
        return None
    return c


def _pixel_major(conv, plan, w, b):
    """Pixel-major columns: GEMM output (pixels, O), then pool / bias / residual / activation in place."""
    dtype, o = w.dtype, w.shape[1]
    n, oh, ow = plan.out
    # the GEMM's output (the result too, without a pool)
    g = np.empty((plan.pixels, o), dtype) if plan.blocks is not None else conv.out_buffer((plan.pixels, o), dtype)
    interior, windows, cols, stage, stage_src = plan.interior, plan.windows, plan.cols, plan.stage, plan.stage_src
    if plan.windows is None:  # 1×1 without padding: the input (subsampled by the stride) is the column matrix
        sh, sw = conv.stride

        def gemm(x):
            a = x if sh == sw == 1 else x[:, ::sh, ::sw]
            _matmul(a.reshape(-1, a.shape[3]), w, g)
    elif plan.row_k:
        kh = conv.kh
        stack, w_rows = plan.matrix, w.reshape(kh, 1, plan.row_k, o)
        z = np.empty(stack.shape[:3] + (o,), dtype)
        g3 = g.reshape(z.shape[1:])
        first, second, others = z[0], z[1], tuple(z[i] for i in range(2, kh))

        def gemm(x):
            _copyto(interior, x)
            _copyto(cols, windows)
            # one call: numpy loops the kh row GEMMs in C (the weight viewed (kh, 1, kw·C, O) broadcasts over N)
            _matmul(stack, w_rows, z)
            _add(first, second, g3)
            for zi in others:
                _add(g3, zi, g3)
    else:
        matrix = plan.matrix

        def gemm(x):
            _copyto(interior, x)
            if stage is not None:
                _copyto(stage, stage_src)
            _copyto(cols, windows)
            _matmul(matrix, w, g)
    y = g
    if plan.blocks is not None:  # a fused tiling max pool: one reduction over the window offsets
        y = np.empty((plan.blocks[1], o), dtype)
        blocks = g.reshape(plan.blocks)
        reduce = np.maximum.reduce
        inner = gemm

        def gemm(x):
            inner(x)
            reduce(blocks, 0, None, y)
    return _epilogue(conv, b, gemm, y, plan.out + (o,), dtype)


def _accumulated(conv, plan, w, b):
    """Pixel-major columns through numpy's BLAS directly (cblas.py): the output is first written with bias +
    residual (or one of them), then the GEMM(s) add onto it (β = 1), then the activation in place. Row columns
    run each image's kh row GEMMs into the one output: the kh partial products, their sums and the separate bias
    and residual passes of `_pixel_major` are not needed."""
    dtype, o = w.dtype, w.shape[1]
    n, oh, ow = plan.out
    y = conv.out_buffer((plan.pixels, o), dtype)
    y4 = y.reshape(n, oh, ow, o)
    w_c = np.ascontiguousarray(w)  # kept by the closure (`keep`): the prepared calls hold its address
    residual, gemm = conv.has_residual, cblas.gemm(dtype)
    beta = 1.0 if (b is not None or residual) else 0.0
    interior, windows, cols = plan.interior, plan.windows, plan.cols
    sub = None
    if plan.row_k:
        kh, per_image = conv.kh, oh * ow
        w_rows, stack = w_c.reshape(kh, plan.row_k, o), plan.matrix
        calls = tuple(gemm.prepare(stack[i, k], w_rows[i], y[k * per_image:(k + 1) * per_image],
                                   beta if i == 0 else 1.0) for k in range(n) for i in range(kh))
        keep = (stack, cols, w_rows)
    elif windows is None:  # 1×1 strided, unpadded: the subsampled input is copied into a buffer of its own
        sh, sw = conv.stride
        sub = (slice(None), slice(None, None, sh), slice(None, None, sw))
        a = np.empty((n, oh, ow, w.shape[0]), dtype)
        calls = (gemm.prepare(a.reshape(-1, w.shape[0]), w_c, y, beta),)
        keep = (a, w_c)
    else:
        calls = (gemm.prepare(plan.matrix, w_c, y, beta),)
        keep = (plan.matrix, cols, w_c)
    bias_rows = bias4 = None
    if b is not None and residual:  # one add of two same-shape arrays: numpy's fastest loop (a row broadcast
        # add measured slower here, where the copy below is not)
        bias_rows = np.ascontiguousarray(np.broadcast_to(b, y.shape))
        bias4 = bias_rows.reshape(y4.shape)
    elif b is not None:
        # a copy broadcasts one output row's (ow·O) bias over the rows as fast as a full (pixels, O) array
        # would copy, and the model keeps ow·O floats instead of pixels·O per convolution
        bias_rows = np.ascontiguousarray(np.broadcast_to(b, (ow, o))).reshape(-1)
        y = y.reshape(n * oh, ow * o)  # (the calls were prepared on the same memory)
    zeros = shared_zeros(y.shape, dtype) if conv.act == "relu" else None
    act = conv.act

    def go(x, rest):
        if sub is not None:
            _copyto(a, x[sub])
        else:
            _copyto(interior, x)
            _copyto(cols, windows)
        if residual:
            if bias4 is not None:
                _add(bias4, rest[-1], y4)
            else:
                _copyto(y4, rest[-1])
        elif bias_rows is not None:
            _copyto(y, bias_rows)
        for call in calls:
            call()
        if zeros is not None:
            _maximum(y, zeros, out=y)
        elif act is not None:
            activate(y, act)
        return y4
    go.keep = keep  # the buffers the prepared calls point into stay alive with go
    return go


def _epilogue(conv, b, gemm, y, out_shape, dtype):
    """go(x, rest): gemm(x) into y (pixels, O), then bias, residual and activation in place on y."""
    y4 = y.reshape(out_shape)
    bias_rows = None if b is None else np.ascontiguousarray(np.broadcast_to(b, y.shape))  # a plain add: see nhwc
    zeros = shared_zeros(y.shape, dtype) if conv.act == "relu" else None
    act, residual = conv.act, conv.has_residual
    if residual and bias_rows is not None and zeros is not None:  # ResNet's block ends: the common case, unrolled
        def go(x, rest):
            gemm(x)
            _add(y, bias_rows, y)
            _add(y4, rest[-1], y4)
            _maximum(y, zeros, out=y)
            return y4
        return go
    if not residual and bias_rows is not None and zeros is not None:
        def go(x, rest):
            gemm(x)
            _add(y, bias_rows, y)
            _maximum(y, zeros, out=y)
            return y4
        return go

    def go(x, rest):
        gemm(x)
        if bias_rows is not None:
            _add(y, bias_rows, y)
        if residual:
            _add(y4, rest[-1], y4)
        if zeros is not None:
            _maximum(y, zeros, out=y)
        elif act is not None:
            activate(y, act)
        return y4
    return go


def _channel_major(conv, plan, w, b):
    """Few input channels (K-major columns): `w.T (O, K) @ columns (K, pixels)` into an (O, pixels) buffer whose
    rows are whole images, a fused pool over those rows, bias and activation on the pooled rows, and the NHWC
    view of the result returned (see NHWCConv._channel_major)."""
    dtype, o = w.dtype, w.shape[1]
    n, oh, ow = plan.out
    interior, windows, cols, stage, stage_src = plan.interior, plan.windows, plan.cols, plan.stage, plan.stage_src
    w_t, columns = w.T, cols.reshape(-1, plan.pixels)
    g = np.empty((o, plan.pixels), dtype)
    steps = []  # (ufunc, a, b) max steps of the pool, each into its preallocated output
    y = g
    if plan.tiles is not None:
        cn, ch, cw = plan.conv_out
        ph, pw = plan.tiles
        qh, qw = ch // ph, cw // pw
        img = g.reshape(o * cn, ch, cw)[:, :qh * ph, :qw * pw]
        rows = img.reshape(o * cn, qh, ph, qw * pw)  # splits the row axis: a view even when cropped
        z = np.empty((o * cn, qh, qw * pw), dtype)
        if ph == 1:
            steps.append((_copyto_ufunc, rows[:, :, 0], None, z))
        else:
            steps.append((_maximum, rows[:, :, 0], rows[:, :, 1], z))
            steps.extend((_maximum, z, rows[:, :, i], z) for i in range(2, ph))
        y = z
        if pw > 1:
            u = np.empty((o * cn, qh, qw), dtype)
            steps.append((_maximum, z[..., 0::pw], z[..., 1::pw], u))
            steps.extend((_maximum, u, z[..., j::pw], u) for j in range(2, pw))
            y = u
    y2 = y.reshape(o, -1)
    y4 = y2.reshape(o, n, oh, ow)
    result = y4.transpose(1, 2, 3, 0)
    bias_col = None if b is None else np.ascontiguousarray(b).reshape(o, 1)
    zeros = shared_zeros(y2.shape, dtype) if conv.act == "relu" else None
    act, residual, steps = conv.act, conv.has_residual, tuple(steps)

    def go(x, rest):
        _copyto(interior, x)
        if stage is not None:
            _copyto(stage, stage_src)
        _copyto(cols, windows)
        _matmul(w_t, columns, g)
        for f, a, c, out in steps:
            f(a, c, out=out)
        if bias_col is not None:
            _add(y2, bias_col, y2)
        if residual:
            _add(y4, rest[-1].transpose(3, 0, 1, 2), y4)
        if zeros is not None:
            _maximum(y2, zeros, out=y2)
        elif act is not None:
            activate(y2, act)
        return result
    return go


def _copyto_ufunc(a, _unused, out):
    np.copyto(out, a)
