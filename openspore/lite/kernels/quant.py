"""int8 kernels of full and dynamic quantization: LiteQConv2D and LiteQDense.

Inputs are quantized to int8 with an affine (scale, zero point) — fixed from calibration (full quantization) or
measured on each call (dynamic) — and weights are int8 with one scale per output channel. The products are
accumulated exactly in integers: int8·int8 sums over K terms stay below 2^24 for K ≤ 1024, so they are computed
by float32 GEMM on integer-valued operands (numpy's integer matmul has no BLAS and runs many times slower), in
chunks of 1024 terms summed in float64 beyond that. The zero point is removed with the weights' row sums, and the
integer result is rescaled to float32 (plus bias and the fused activation) for the next operator.
"""
import numpy as np

from ...ops.defs._nn_util import np_pad, np_windows
from . import register
from .nn import _conv_prim, activate

_EXACT_K = 1024


def quantize_activation(x, scale, zero_point):
    q = np.rint(x * np.float32(1.0 / scale))
    q += zero_point
    np.clip(q, -128, 127, out=q)
    return q.astype(np.int8)


def dynamic_range(x):
    """(scale, zero point) covering [min(x, 0), max(x, 0)] with 256 int8 levels."""
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    return scale, int(round(-128 - lo / scale))


def int_matmul(a, b):
    """Exact integer a @ b for int8 arrays (result float32 when exact in float32, else float64)."""
    k = a.shape[-1]
    af, bf = a.astype(np.float32), b.astype(np.float32)
    if k <= _EXACT_K:
        return np.matmul(af, bf)
    out = None
    for s in range(0, k, _EXACT_K):
        part = np.matmul(af[..., s:s + _EXACT_K], bf[..., s:s + _EXACT_K, :]).astype(np.float64)
        out = part if out is None else out + part
    return out


def _input_quant(op):
    if op.attrs.get("dynamic"):
        return dynamic_range
    scale, zp = float(op.attrs["x_scale"]), int(op.attrs["x_zero_point"])
    return lambda x: (scale, zp)


@register("LiteQConv2D")
def _qconv(op):
    """LiteQConv2D(x, w_int8, w_scale[, bias]): Conv2D attributes, `activation`, `x_scale`/`x_zero_point`
    (or `dynamic`)."""
    prim = _conv_prim(op)
    act = op.attrs.get("activation")
    params = _input_quant(op)

    def run(x, wq, w_scale, bias=None):
        scale, zp = params(x)
        q = quantize_activation(x, scale, zp)
        pads, (oh, ow) = prim.geometry(x.shape[2:])
        n, c = x.shape[:2]
        o, cg, kh, kw = wq.shape
        if prim.group != 1:
            raise ValueError("LiteQConv2D: grouped convolutions are not quantized")
        if any(pads):
            q = np_pad(np, q, pads, value=zp)  # a real zero is the zero point
        v = np_windows(np, q, prim.kernel_size, prim.stride[2:], prim.dilation[2:], (oh, ow))
        cols = np.ascontiguousarray(v.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, oh * ow)
        w2 = wq.reshape(o, -1)
        acc = int_matmul(w2, cols)
        acc -= (zp * w2.sum(axis=1, dtype=np.int64)).astype(acc.dtype)[:, None]
        y = (acc * (scale * w_scale.astype(np.float64))[:, None]).astype(np.float32).reshape(n, o, oh, ow)
        if bias is not None:
            y += bias.reshape(1, o, 1, 1)
        return activate(y, act)
    return run


@register("LiteQDense")
def _qdense(op):
    """LiteQDense(x, w_int8 (out, in), w_scale[, bias]) with `activation`, `x_scale`/`x_zero_point` (or
    `dynamic`)."""
    act = op.attrs.get("activation")
    params = _input_quant(op)

    def run(x, wq, w_scale, bias=None):
        scale, zp = params(x)
        q = quantize_activation(x, scale, zp)
        acc = int_matmul(q, wq.T)
        acc -= (zp * wq.sum(axis=1, dtype=np.int64)).astype(acc.dtype)
        y = (acc * (scale * w_scale.astype(np.float64))).astype(np.float32)
        if bias is not None:
            y += bias
        return activate(y, act)
    return run
