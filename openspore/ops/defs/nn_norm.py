"""Primitives: batch and layer normalization.

Their backward rules are written with primitives only. BatchNorm's rule leans on BatchNorm itself in inference
mode, which is the per-channel map z ↦ (z - m) * rsqrt(v + eps) * s + b: with suitable m, s and b it normalizes,
or scales by rsqrt(v + eps); so the rule (and its own rule, and so on) needs no rsqrt primitive and stays
differentiable in the variance. LayerNorm returns its mean and rstd, which its rule reuses the same way.
"""
import math

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._util import check_dtype, check_tensor, normalize_axis, prim, rand_float, rand_positive


def _reduce(t, axes, keep_dims):
    return prim("ReduceSum", keep_dims=keep_dims)(t, axes) if axes else t


@register
class BatchNorm(Primitive):
    """BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')(x, scale, bias, mean, variance)
    → (y, batch_mean, batch_variance).

    Training mode normalizes with the batch statistics (biased variance) and returns them; inference mode uses
    `mean`/`variance` and returns them unchanged. The moving-average update is the caller's (nn.BatchNorm assigns
    it), so `momentum` is carried for export only.
    """
    attr_defaults = {"is_training": False, "epsilon": 1e-5, "momentum": 0.1, "data_format": "NCHW"}
    input_names = ("input_x", "scale", "bias", "mean", "variance")

    def check_attrs(self):
        if not isinstance(self.epsilon, (int, float)) or not 0.0 < self.epsilon <= 1.0:
            raise ValueError(f"For 'BatchNorm', the 'epsilon' must be in range (0, 1], but got {self.epsilon!r}.")
        if not isinstance(self.momentum, (int, float)) or not 0.0 <= self.momentum <= 1.0:
            raise ValueError(f"For 'BatchNorm', the 'momentum' must be in range [0, 1], but got {self.momentum!r}.")
        if self.data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For 'BatchNorm', the 'data_format' must be 'NCHW' or 'NHWC', but got {self.data_format!r}.")

    def _layout(self, ndim):
        axis = ndim - 1 if self.data_format == "NHWC" else 1
        axes = tuple(a for a in range(ndim) if a != axis)
        return axis, axes

    def _bshape(self, ndim, channels):
        shape = [1] * ndim
        shape[self._layout(ndim)[0]] = channels
        return tuple(shape)

    def infer(self, x, scale, bias, mean, variance):
        names = self.input_names
        for name, t in zip(names, (x, scale, bias, mean, variance)):
            check_tensor(self.name, name, t)
        if len(x.shape) < 2:
            raise ValueError(f"For 'BatchNorm', the 'input_x' must have rank at least 2, but got {len(x.shape)}.")
        check_dtype(self.name, "input_x", x, ("float",))
        check_dtype(self.name, "scale", scale, ("float",))
        channels = x.shape[self._layout(len(x.shape))[0]]
        for name, t in zip(names[1:], (scale, bias, mean, variance)):
            if tuple(t.shape) != (channels,):
                raise ValueError(f"For 'BatchNorm', the shape of '{name}' must be ({channels},) (the channels of "
                                 f"'input_x'), but got {list(t.shape)}.")
            if t.dtype is not scale.dtype:
                raise TypeError(f"For 'BatchNorm', the type of '{name}' should be same as 'scale', but got "
                                f"Tensor[{t.dtype}] and Tensor[{scale.dtype}].")
        stat = AbstractTensor((channels,), scale.dtype)
        return AbstractTensor(x.shape, x.dtype), stat, stat

    def bprop(self, x, scale, bias, mean, variance, out, dout):
        dy, dbm, dbv = dout
        mul, add, sub, cast = prim("Mul"), prim("Add"), prim("Sub"), prim("Cast")
        x_dtype = x.dtype
        if x_dtype is not scale.dtype:
            x, dy = cast(x, scale.dtype), cast(dy, scale.dtype)
        ndim = len(x.shape)
        axis, axes = self._layout(ndim)
        channels = x.shape[axis]
        norm = BatchNorm(False, self.epsilon, self.momentum, self.data_format)
        ones, zeros = prim("OnesLike")(scale), prim("ZerosLike")(scale)

        def per_channel(v):
            return prim("Reshape")(v, self._bshape(ndim, channels))

        if self.is_training:
            bm, bv = out[1], out[2]
            count = float(math.prod(x.shape[a] for a in axes))
            xh = norm(x, ones, zeros, bm, bv)[0]
            t = sub(sub(mul(dy, count), _reduce(dy, axes, True)), mul(xh, _reduce(mul(dy, xh), axes, True)))
            dx = norm(t, mul(scale, 1.0 / count), zeros, zeros, bv)[0]
            dx = add(dx, mul(per_channel(dbm), 1.0 / count))
            dx = add(dx, mul(mul(sub(x, per_channel(bm)), per_channel(dbv)), 2.0 / count))
            dmean = dvar = None
        else:
            xh = norm(x, ones, zeros, mean, variance)[0]
            dx = norm(dy, scale, zeros, zeros, variance)[0]
        dscale = _reduce(mul(dy, xh), axes, False)
        dbias = _reduce(dy, axes, False)
        if not self.is_training:
            dmean = add(prim("Neg")(_reduce(dx, axes, False)), dbm)
            unit = prim("Reshape")(ones, (1, channels))
            rstd = prim("Reshape")(norm(unit, ones, zeros, zeros, variance)[0], (channels,))
            dvar = add(mul(mul(mul(dscale, scale), mul(rstd, rstd)), -0.5), dbv)
        if x_dtype is not scale.dtype:
            dx = cast(dx, x_dtype)
        return dx, dscale, dbias, dmean, dvar

    def numpy(self, np, x, scale, bias, mean, variance):
        axis, axes = self._layout(x.ndim)
        xc = x.astype(scale.dtype, copy=False)
        if self.is_training:
            mean = xc.mean(axis=axes)
            variance = xc.var(axis=axes)
        bshape = self._bshape(x.ndim, scale.shape[0])
        rstd = 1.0 / np.sqrt(variance + np.asarray(self.epsilon, scale.dtype))
        y = (xc - mean.reshape(bshape)) * (rstd * scale).reshape(bshape) + bias.reshape(bshape)
        return y.astype(x.dtype, copy=False), mean.astype(scale.dtype), variance.astype(scale.dtype)

    def torch(self, torch, x, scale, bias, mean, variance):
        axis, axes = self._layout(x.ndim)
        xc = x.to(scale.dtype)
        if self.is_training:
            variance, mean = torch.var_mean(xc, dim=axes, correction=0)
        else:
            mean, variance = mean.clone(), variance.clone()
        if axis != 1:
            xc = xc.movedim(axis, 1)
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
class LayerNorm(Primitive):
    """LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(input_x, gamma, beta) → (y, mean, rstd):
    normalize over the axes from begin_norm_axis on; gamma/beta have shape input_x.shape[begin_params_axis:];
    mean and rstd keep the leading axes and have size 1 on the normalized ones."""
    attr_defaults = {"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7}
    input_names = ("input_x", "gamma", "beta")

    def check_attrs(self):
        for name in ("begin_norm_axis", "begin_params_axis"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'LayerNorm', the '{name}' must be an int, but got {type(value).__name__}.")
        if not isinstance(self.epsilon, float):
            raise TypeError(f"For 'LayerNorm', the 'epsilon' must be a float, but got {type(self.epsilon).__name__}.")

    def _axes(self, ndim):
        norm_axis = normalize_axis(self.name, self.begin_norm_axis, ndim, "begin_norm_axis")
        params_axis = normalize_axis(self.name, self.begin_params_axis, ndim, "begin_params_axis")
        return norm_axis, params_axis

    def infer(self, x, gamma, beta):
        for name, t in zip(self.input_names, (x, gamma, beta)):
            check_tensor(self.name, name, t)
            check_dtype(self.name, name, t, ("float",))
        norm_axis, params_axis = self._axes(len(x.shape))
        want = tuple(x.shape[params_axis:])
        for name, t in (("gamma", gamma), ("beta", beta)):
            if tuple(t.shape) != want:
                raise ValueError(f"For 'LayerNorm', the shape of '{name}' must be {list(want)} "
                                 f"(input_x.shape[begin_params_axis:]), but got {list(t.shape)}.")
            if t.dtype is not x.dtype:
                raise TypeError(f"For 'LayerNorm', the type of '{name}' should be same as 'input_x', but got "
                                f"Tensor[{t.dtype}] and Tensor[{x.dtype}].")
        stat = tuple(x.shape[:norm_axis]) + (1,) * (len(x.shape) - norm_axis)
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(stat, x.dtype), AbstractTensor(stat, x.dtype)

    def bprop(self, x, gamma, beta, out, dout):
        dy, dmean, drstd = dout
        mean, rstd = out[1], out[2]
        mul, add, sub = prim("Mul"), prim("Add"), prim("Sub")
        ndim = len(x.shape)
        norm_axis, params_axis = self._axes(ndim)
        naxes = tuple(range(norm_axis, ndim))
        paxes = tuple(range(params_axis))
        inv_n = 1.0 / float(math.prod(x.shape[norm_axis:]))
        xh = mul(sub(x, mean), rstd)
        g = mul(dy, gamma)
        inner = sub(sub(g, mul(_reduce(g, naxes, True), inv_n)), mul(xh, mul(_reduce(mul(g, xh), naxes, True), inv_n)))
        dx = mul(inner, rstd)
        dx = add(dx, mul(dmean, inv_n))
        dx = add(dx, mul(mul(drstd, mul(rstd, rstd)), mul(xh, -inv_n)))
        return dx, _reduce(mul(dy, xh), paxes, False), _reduce(dy, paxes, False)

    def numpy(self, np, x, gamma, beta):
        norm_axis, _ = self._axes(x.ndim)
        axes = tuple(range(norm_axis, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=axes, keepdims=True)
        rstd = (1.0 / np.sqrt(var + np.asarray(self.epsilon, x.dtype))).astype(x.dtype)
        return centered * rstd * gamma + beta, mean, rstd

    def torch(self, torch, x, gamma, beta):
        norm_axis, params_axis = self._axes(x.ndim)
        stat = tuple(x.shape[:norm_axis]) + (1,) * (x.ndim - norm_axis)
        shape = tuple(x.shape[norm_axis:])
        if params_axis == norm_axis:
            y, mean, rstd = torch.native_layer_norm(x, shape, gamma, beta, self.epsilon)
        else:
            y, mean, rstd = torch.native_layer_norm(x, shape, None, None, self.epsilon)
            y = y * gamma + beta
        return y, mean.reshape(stat), rstd.reshape(stat)

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        yield Sample(x, rand_float(rng, (3, 4)), rand_float(rng, (3, 4)))
        yield Sample(x, rand_float(rng, (4,)), rand_float(rng, (4,)),
                     attrs={"begin_norm_axis": -1, "begin_params_axis": -1, "epsilon": 1e-5}, name="last")
        yield Sample(x, rand_float(rng, (4,)), rand_float(rng, (4,)),
                     attrs={"begin_norm_axis": 1, "begin_params_axis": 2}, name="params-after-norm")
        yield Sample(rand_float(rng, (3, 5)), rand_float(rng, (3, 5)), rand_float(rng, (3, 5)),
                     attrs={"begin_norm_axis": 0, "begin_params_axis": 0}, name="all")
