"""Primitives: batch normalization and its fused training-mode gradient.

The backward rules lean on BatchNorm in inference mode, which is the per-channel map
z ↦ (z - m) * rsqrt(v + eps) * s + b: with suitable m, s and b it normalizes, or scales by rsqrt(v + eps).
So the rules need no rsqrt primitive and stay differentiable in the variance.

Training-mode backward goes through BatchNormGrad (one fused kernel per backend, fast in ResNet-style
training); its own backward rule is written out with primitives, so second derivatives work too.
"""
import math

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, DATA_FORMAT, mindir, norm_bool
from ._export import BACKWARD, not_exportable
from ._util import check_dtype, check_tensor, prim, rand_float, rand_positive


def _layout(data_format, ndim):
    """(channel axis, reduction axes)."""
    axis = ndim - 1 if data_format == "NHWC" else 1
    return axis, tuple(a for a in range(ndim) if a != axis)


def _bshape(data_format, ndim, channels):
    shape = [1] * ndim
    shape[_layout(data_format, ndim)[0]] = channels
    return tuple(shape)


def _reduce(t, axes, keep_dims):
    return prim("ReduceSum", keep_dims=keep_dims)(t, axes)


def _check_channel_params(op, channels, names, tensors, dtype):
    for name, t in zip(names, tensors):
        check_tensor(op, name, t)
        if tuple(t.shape) != (channels,):
            raise ValueError(f"For '{op}', the shape of '{name}' must be ({channels},) (the channels of the input), "
                             f"but got {list(t.shape)}.")
        if t.dtype is not dtype:
            raise TypeError(f"For '{op}', the type of '{name}' should be same as 'scale', but got "
                            f"Tensor[{t.dtype}] and Tensor[{dtype}].")


class _Helpers:
    """Per-channel building blocks for the backward rules (all primitives)."""

    def __init__(self, data_format, epsilon, x, scale):
        self.ndim = len(x.shape)
        self.axis, self.axes = _layout(data_format, self.ndim)
        self.channels = x.shape[self.axis]
        self.count = float(math.prod(x.shape[a] for a in self.axes))
        self.bshape = _bshape(data_format, self.ndim, self.channels)
        self.norm = BatchNorm(False, epsilon, 0.1, data_format)
        self.ones, self.zeros = prim("OnesLike")(scale), prim("ZerosLike")(scale)

    def per_channel(self, v):
        return prim("Reshape")(v, self.bshape)

    def scaled(self, t, s, variance):
        """t * s * rsqrt(variance + eps), s per channel."""
        return self.norm(t, s, self.zeros, self.zeros, variance)[0]

    def normalized(self, x, mean, variance):
        return self.norm(x, self.ones, self.zeros, mean, variance)[0]

    def rstd(self, variance):
        unit = prim("Reshape")(self.ones, (1, self.channels))
        return prim("Reshape")(self.norm(unit, self.ones, self.zeros, self.zeros, variance)[0], (self.channels,))

    def sum_keep(self, t):
        return _reduce(t, self.axes, True)

    def sum(self, t):
        return _reduce(t, self.axes, False)


@register
class BatchNorm(Primitive):
    """BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')(x, scale, bias, mean, variance)
    → (y, batch_mean, batch_variance).

    Training mode normalizes with the batch statistics (biased variance) and returns them; inference mode uses
    `mean`/`variance` and returns them unchanged. The moving-average update is the caller's (nn.BatchNorm assigns
    it), so `momentum` is carried for export only.
    """
    channels_last = "keeps"
    attr_defaults = {"is_training": False, "epsilon": 1e-5, "momentum": 0.1, "data_format": "NCHW"}
    none_cotangents = True  # the batch statistics feed only the moving averages: their cotangents stay None
    input_names = ("input_x", "scale", "bias", "mean", "variance")

    def check_attrs(self):
        if not isinstance(self.epsilon, (int, float)) or not 0.0 < self.epsilon <= 1.0:
            raise ValueError(f"For 'BatchNorm', the 'epsilon' must be in range (0, 1], but got {self.epsilon!r}.")
        if not isinstance(self.momentum, (int, float)) or not 0.0 <= self.momentum <= 1.0:
            raise ValueError(f"For 'BatchNorm', the 'momentum' must be in range [0, 1], but got {self.momentum!r}.")
        if self.data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For 'BatchNorm', the 'data_format' must be 'NCHW' or 'NHWC', but got {self.data_format!r}.")

    def infer(self, x, scale, bias, mean, variance):
        check_tensor(self.name, "input_x", x)
        check_tensor(self.name, "scale", scale)
        if len(x.shape) < 2:
            raise ValueError(f"For 'BatchNorm', the 'input_x' must have rank at least 2, but got {len(x.shape)}.")
        check_dtype(self.name, "input_x", x, ("float",))
        check_dtype(self.name, "scale", scale, ("float",))
        channels = x.shape[_layout(self.data_format, len(x.shape))[0]]
        _check_channel_params(self.name, channels, self.input_names[1:], (scale, bias, mean, variance), scale.dtype)
        stat = AbstractTensor((channels,), scale.dtype)
        return AbstractTensor(x.shape, x.dtype), stat, stat

    def bprop(self, x, scale, bias, mean, variance, out, dout):
        dy, dbm, dbv = dout
        if self.is_training:
            grad = BatchNormGrad(self.epsilon, self.data_format)
            dx, dscale, dbias = grad(dy, x, scale, out[1], out[2], dbm, dbv)
            return dx, dscale, dbias, None, None
        cast, mul, add = prim("Cast"), prim("Mul"), prim("Add")
        x_dtype = x.dtype
        if x_dtype is not scale.dtype:
            x, dy = cast(x, scale.dtype), cast(dy, scale.dtype)
        h = _Helpers(self.data_format, self.epsilon, x, scale)
        xh = h.normalized(x, mean, variance)
        dx = h.scaled(dy, scale, variance)
        dscale = h.sum(mul(dy, xh))
        dbias = h.sum(dy)
        dmean = prim("Neg")(h.sum(dx))
        if dbm is not None:
            dmean = add(dmean, dbm)
        rstd = h.rstd(variance)
        dvar = mul(mul(mul(dscale, scale), mul(rstd, rstd)), -0.5)
        if dbv is not None:
            dvar = add(dvar, dbv)
        if x_dtype is not scale.dtype:
            dx = cast(dx, x_dtype)
        return dx, dscale, dbias, dmean, dvar

    def numpy(self, np, x, scale, bias, mean, variance):
        _, axes = _layout(self.data_format, x.ndim)
        xc = x.astype(scale.dtype, copy=False)
        if self.is_training:
            mean, variance = xc.mean(axis=axes), xc.var(axis=axes)
        bshape = _bshape(self.data_format, x.ndim, scale.shape[0])
        rstd = 1.0 / np.sqrt(variance + np.asarray(self.epsilon, scale.dtype))
        y = (xc - mean.reshape(bshape)) * (rstd * scale).reshape(bshape) + bias.reshape(bshape)
        return y.astype(x.dtype, copy=False), mean.astype(scale.dtype), variance.astype(scale.dtype)

    def torch(self, torch, x, scale, bias, mean, variance):
        axis, _ = _layout(self.data_format, x.ndim)
        xc = x.to(scale.dtype)
        if axis != 1:
            xc = xc.movedim(axis, 1)
        if self.is_training:
            # Statistics from ATen's batch-norm statistics kernel, the normalisation as plain elementwise ops: a
            # graph-kernel compiler that fuses this (compiler/graph_kernel) calls the statistics kernel as it is
            # and computes the same elementwise ops, so fused training is bit for bit unfused training.
            # (native_batch_norm in one call is a little faster unfused, but its internal order of operations
            # cannot be reproduced by a fused kernel, and ResNet-style training amplifies a 1-ulp difference
            # to 1e-4 in the loss within three steps.)
            mean, variance = torch.batch_norm_update_stats(xc, None, None, 0.0)
            shape = [1] * x.ndim
            shape[1] = scale.shape[0]
            alpha = torch.rsqrt(variance + self.epsilon) * scale
            y = xc * alpha.reshape(shape) + (bias - mean * alpha).reshape(shape)
        else:
            mean, variance = mean.clone(), variance.clone()
            y = torch.nn.functional.batch_norm(xc, mean, variance, scale, bias, False, 0.0, self.epsilon)
        if axis != 1:
            y = y.movedim(1, axis).contiguous()
        return y.to(x.dtype), mean, variance

    @classmethod
    def samples(cls, rng):
        def params(c):
            return (rand_positive(rng, (c,)), rand_float(rng, (c,)), rand_float(rng, (c,)), rand_positive(rng, (c,)))
        yield Sample(rand_float(rng, (3, 2, 2, 2)), *params(2), attrs={"is_training": True}, name="train4d")
        yield Sample(rand_float(rng, (2, 3, 2, 2)), *params(3), name="infer4d")
        yield Sample(rand_float(rng, (4, 3)), *params(3), attrs={"is_training": True, "epsilon": 1e-3}, name="train2d")
        yield Sample(rand_float(rng, (4, 3)), *params(3), name="infer2d")
        yield Sample(rand_float(rng, (2, 2, 3, 2)), *params(2), attrs={"is_training": True, "data_format": "NHWC"},
                     name="train-nhwc")


@register
class BatchNormGrad(Primitive):
    """BatchNormGrad(epsilon=1e-5, data_format='NCHW')(dy, x, scale, batch_mean, batch_variance, d_mean, d_variance)
    → (dx, dscale, dbias): the training-mode gradient of BatchNorm given the cotangents of all three outputs
    (d_mean, d_variance are those of batch_mean and batch_variance; None when the statistics were not used)."""
    channels_last = "keeps"
    attr_defaults = {"epsilon": 1e-5, "data_format": "NCHW"}
    input_names = ("dy", "x", "scale", "batch_mean", "batch_variance", "d_mean", "d_variance")

    def infer(self, dy, x, scale, bm, bv, dbm, dbv):
        for name, t in zip(self.input_names[:3], (dy, x, scale)):
            check_tensor(self.name, name, t)
            check_dtype(self.name, name, t, ("float",))
        if tuple(dy.shape) != tuple(x.shape) or dy.dtype is not x.dtype or len(x.shape) < 2:
            raise ValueError(f"For '{self.name}', 'dy' and 'x' must have one shape and dtype of rank >= 2, but got "
                             f"Tensor[{dy.dtype}]{list(dy.shape)} and Tensor[{x.dtype}]{list(x.shape)}.")
        channels = x.shape[_layout(self.data_format, len(x.shape))[0]]
        named = [(n, t) for n, t in zip(self.input_names[2:], (scale, bm, bv, dbm, dbv)) if t is not None]
        _check_channel_params(self.name, channels, [n for n, _ in named], [t for _, t in named], scale.dtype)
        stat = AbstractTensor((channels,), scale.dtype)
        return AbstractTensor(x.shape, x.dtype), stat, stat

    def bprop(self, dy, x, scale, bm, bv, dbm, dbv, out, dout):
        a, p, q = dout
        stats_used = (dbm is not None, dbv is not None)
        cast, mul, add, sub = prim("Cast"), prim("Mul"), prim("Add"), prim("Sub")
        x_dtype = x.dtype
        if x_dtype is not scale.dtype:
            dy, x, a = cast(dy, scale.dtype), cast(x, scale.dtype), cast(a, scale.dtype)
        h = _Helpers(self.data_format, self.epsilon, x, scale)
        inv_m = 1.0 / h.count
        pc = h.per_channel
        xh = h.normalized(x, bm, bv)
        mean_a = mul(h.sum_keep(a), inv_m)
        mean_axh = mul(h.sum_keep(mul(a, xh)), inv_m)
        mean_dy = mul(h.sum_keep(dy), inv_m)
        mean_dyxh = mul(h.sum_keep(mul(dy, xh)), inv_m)
        rstd = h.rstd(bv)
        d_dy = h.scaled(sub(sub(a, mean_a), mul(xh, mean_axh)), scale, bv)
        d_dy = add(add(d_dy, mul(xh, pc(p))), pc(q))
        d_scale = mul(rstd, h.sum(mul(a, sub(sub(dy, mean_dy), mul(xh, mean_dyxh)))))
        # g_xh: the cotangent reaching xh, already multiplied by d xh / d x = rstd.
        g_xh = h.scaled(sub(mul(dy, pc(p)), h.scaled(add(mul(a, mean_dyxh), mul(dy, mean_axh)), scale, bv)), h.ones, bv)
        d_x = add(g_xh, mul(mul(a, pc(dbv)), 2.0 * inv_m)) if dbv is not None else g_xh
        d_bm = prim("Neg")(h.sum(d_x))
        d_bv = mul(add(mul(mul(mul(rstd, rstd), scale), d_scale), mul(rstd, h.sum(mul(g_xh, xh)))), -0.5)
        d_dbm = mul(h.sum(a), inv_m)
        d_dbv = mul(h.sum(mul(a, sub(x, pc(bm)))), 2.0 * inv_m)
        if x_dtype is not scale.dtype:
            d_dy, d_x = cast(d_dy, x_dtype), cast(d_x, x_dtype)
        return d_dy, d_x, d_scale, d_bm, d_bv, d_dbm if stats_used[0] else None, d_dbv if stats_used[1] else None

    def numpy(self, np, dy, x, scale, bm, bv, dbm, dbv):
        _, axes = _layout(self.data_format, x.ndim)
        bshape = _bshape(self.data_format, x.ndim, scale.shape[0])
        xc, g = x.astype(scale.dtype, copy=False), dy.astype(scale.dtype, copy=False)
        count = math.prod(x.shape[a] for a in axes)
        rstd = 1.0 / np.sqrt(bv + np.asarray(self.epsilon, scale.dtype))
        centered = xc - bm.reshape(bshape)
        xh = centered * rstd.reshape(bshape)
        dbias, dscale = g.sum(axis=axes), (g * xh).sum(axis=axes)
        dx = (g - (dbias / count).reshape(bshape) - xh * (dscale / count).reshape(bshape)) * (rstd * scale).reshape(bshape)
        if dbm is not None:
            dx = dx + (dbm / count).reshape(bshape)
        if dbv is not None:
            dx = dx + centered * (dbv * (2.0 / count)).reshape(bshape)
        return dx.astype(x.dtype, copy=False), dscale, dbias

    def torch(self, torch, dy, x, scale, bm, bv, dbm, dbv):
        axis, axes = _layout(self.data_format, x.ndim)
        xc, g = x.to(scale.dtype), dy.to(scale.dtype)
        if axis != 1:
            xc, g = xc.movedim(axis, 1), g.movedim(axis, 1)
        invstd = torch.rsqrt(bv + self.epsilon)
        dx, dscale, dbias = torch.ops.aten.native_batch_norm_backward(g, xc, scale, None, None, bm, invstd, True,
                                                                      self.epsilon, [True, True, True])
        if dbm is not None or dbv is not None:  # only when the batch statistics are used downstream
            shape = [1] * x.ndim
            shape[1] = scale.shape[0]
            count = math.prod(x.shape[a] for a in axes)
            if dbm is not None:
                dx = dx + (dbm / count).reshape(shape)
            if dbv is not None:
                dx = dx + (xc - bm.reshape(shape)) * (dbv * (2.0 / count)).reshape(shape)
        if axis != 1:
            dx = dx.movedim(1, axis).contiguous()
        return dx.to(x.dtype), dscale, dbias  # a channels-last dx stays channels-last (layout_channels_last)

    @classmethod
    def samples(cls, rng):
        def stats(c, zero=False):
            d = (rand_float(rng, (c,)) * (0 if zero else 1), rand_float(rng, (c,)) * (0 if zero else 1))
            return (rand_positive(rng, (c,)), rand_float(rng, (c,)), rand_positive(rng, (c,))) + d
        yield Sample(rand_float(rng, (3, 2, 2, 2)), rand_float(rng, (3, 2, 2, 2)), *stats(2), name="4d")
        yield Sample(rand_float(rng, (4, 3)), rand_float(rng, (4, 3)), *stats(3, zero=True), attrs={"epsilon": 1e-3},
                     name="2d-zero-stat-cotangents")
        yield Sample(rand_float(rng, (2, 2, 3, 2)), rand_float(rng, (2, 2, 3, 2)), *stats(2),
                     attrs={"data_format": "NHWC"}, name="nhwc")
        yield Sample(rand_float(rng, (3, 2, 2, 2)), rand_float(rng, (3, 2, 2, 2)), *stats(2)[:3], None, None,
                     name="unused-stats")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(BACKWARD, BatchNormGrad)


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
def _batch_norm_outputs(node):
    """MindSpore's BatchNorm has five outputs: y, batch mean/variance and two reserve spaces (all of C)."""
    c = node.abstract[1]
    return (node.abstract[0],) + (AbstractTensor(c.shape, c.dtype),) * 4


mindir(BatchNorm, inputs=("x", "scale", "bias", "mean", "variance"),
       attrs=[Arg("is_training", False, norm_bool), Arg("epsilon", 1e-5), Arg("momentum", 0.1), DATA_FORMAT],
       instance=lambda node: "bn_train" if node.attrs.get("is_training") else "bn_infer", outputs=_batch_norm_outputs)

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(BatchNorm, _onnx.batch_norm)
