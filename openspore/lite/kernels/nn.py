"""Convolution, dense and pooling kernels written for inference speed.

Convolutions are im2col + one GEMM per image: the (C·kh·kw, oh·ow) column matrix of each image is multiplied by
the (O, C·kh·kw) weight matrix, so the product lands directly in NCHW order and numpy's BLAS (threads capped by
`Context.cpu.thread_num`) does the work. 1×1 stride-1 convolutions skip im2col. `LiteConv2D` and `LiteDense` are
the converter's fused operators: bias, and ReLU/ReLU6, are applied in place on the GEMM output.
"""
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
            v = np_windows(np, np_pad(np, x, pads) if any(pads) else x, prim.kernel_size, prim.stride[2:],
                           prim.dilation[2:], (oh, ow))
            cols = np.ascontiguousarray(v.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, oh * ow)
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


def dense(x, w, bias=None, act=None):
    """x @ w.T (+ bias), w stored (out, in) as MindSpore's Dense keeps it."""
    y = x @ w.T
    if bias is not None:
        y += bias
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
    if op.attrs.get("has_bias"):
        return lambda x, w, b: dense(x, w, b, act)
    return lambda x, w: dense(x, w, None, act)


@register("MaxPool", "AvgPool")
def _pool_kernel(op):
    """Non-overlapping unpadded windows that tile the input: a reshape and one reduction."""
    prim = primitive(op)
    k, s = tuple(prim.kernel_size)[-2:], tuple(prim.strides)[-2:]
    if k != s or prim.attrs.get("data_format", "NCHW") != "NCHW":
        return None
    reduce = np.max if op.type == "MaxPool" else np.mean
    fallback = type(prim).numpy

    def pool(x):
        n, c, h, w = x.shape
        if h % k[0] or w % k[1]:
            return fallback(prim, np, x)
        y = reduce(x.reshape(n, c, h // k[0], k[0], w // k[1], k[1]), axis=(3, 5))
        return y.astype(x.dtype, copy=False)
    return pool


@register("ReLU")
def _relu_kernel(op):
    return lambda x: np.maximum(x, x.dtype.type(0))
