"""Primitives: layer normalization and its fused gradient.

LayerNorm returns its mean and rstd; its backward rule hands them (outputs stay on the tape) to LayerNormGrad,
one native kernel per backend. LayerNormGrad's own rule is written with arithmetic primitives only (it treats
mean and rstd as inputs), so the family differentiates any number of times.
"""
import math

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _onnx
from ._mindir import Arg, mindir
from ._export import BACKWARD, not_exportable
from ._util import check_dtype, check_tensor, normalize_axis, prim, rand_float, rand_positive, static_shape


def _reduce(t, axes, keep_dims):
    return prim("ReduceSum", keep_dims=keep_dims)(t, axes) if axes else t


class _Axes:
    def _axes(self, ndim):
        norm_axis = normalize_axis(self.name, self.begin_norm_axis, ndim, "begin_norm_axis")
        params_axis = normalize_axis(self.name, self.begin_params_axis, ndim, "begin_params_axis")
        return norm_axis, params_axis

    def _layout(self, shape):
        """(norm axes, param-reduction axes, 1/D)."""
        norm_axis, params_axis = self._axes(len(shape))
        return tuple(range(norm_axis, len(shape))), tuple(range(params_axis)), 1.0 / float(math.prod(shape[norm_axis:]))


@register
class LayerNorm(_Axes, Primitive):
    """LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(input_x, gamma, beta) → (y, mean, variance):
    normalize over the axes from begin_norm_axis on; gamma/beta have shape input_x.shape[begin_params_axis:];
    mean and variance (biased, as MindSpore returns it) keep the leading axes and have size 1 on the normalized ones.
    """
    attr_defaults = {"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7}
    input_names = ("input_x", "gamma", "beta")
    none_cotangents = True  # mean and variance are rarely used: their cotangents stay None, not zero tensors

    def check_attrs(self):
        for name in ("begin_norm_axis", "begin_params_axis"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'LayerNorm', the '{name}' must be an int, but got {type(value).__name__}.")
        if not isinstance(self.epsilon, float):
            raise TypeError(f"For 'LayerNorm', the 'epsilon' must be a float, but got {type(self.epsilon).__name__}.")

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
        # LayerNormGrad works with rstd = (variance + eps)^-1/2; a variance cotangent becomes an rstd one through
        # d variance / d rstd = -2 / rstd^3
        rstd = prim("Rsqrt")(prim("Add")(out[2], self.epsilon))
        d_rstd = dout[2]
        if d_rstd is not None:
            cube = prim("Mul")(rstd, prim("Mul")(rstd, rstd))
            d_rstd = prim("Mul")(prim("RealDiv")(d_rstd, cube), -2.0)
        dy = dout[0] if dout[0] is not None else prim("ZerosLike")(out[0])  # only the statistics were used
        grad = LayerNormGrad(self.begin_norm_axis, self.begin_params_axis)
        return grad(dy, x, gamma, out[1], rstd, dout[1], d_rstd)

    def numpy(self, np, x, gamma, beta):
        norm_axis, _ = self._axes(x.ndim)
        axes = tuple(range(norm_axis, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=axes, keepdims=True)
        rstd = (1.0 / np.sqrt(var + np.asarray(self.epsilon, x.dtype))).astype(x.dtype)
        return centered * rstd * gamma + beta, mean, var.astype(x.dtype)

    def torch(self, torch, x, gamma, beta):
        norm_axis, params_axis = self._axes(x.ndim)
        stat = tuple(x.shape[:norm_axis]) + (1,) * (x.ndim - norm_axis)
        shape = tuple(x.shape[norm_axis:])
        if params_axis == norm_axis:
            y, mean, rstd = torch.native_layer_norm(x, shape, gamma, beta, self.epsilon)
        else:
            y, mean, rstd = torch.native_layer_norm(x, shape, None, None, self.epsilon)
            y = y * gamma + beta
        # the variance from native_layer_norm's rstd = (variance + eps)^-1/2 (float32 for float16/32 inputs):
        # torch.var's Welford loop cost 10x the normalisation itself on rows of a few hundred values (an LLM's
        # prefill: 16% of its time), a second pass over x 3x. Exact to float32 rounding of variance + eps (a
        # few 1e-7 relative); clamped so a constant row's variance is never a rounding step below 0
        variance = torch.clamp_min(torch.reciprocal(rstd * rstd) - self.epsilon, 0.0)
        return y, mean.reshape(stat), variance.reshape(stat).to(x.dtype)

    def torch_first(self, torch, x, gamma, beta):
        """(y,) alone, for graphs that read neither mean nor variance (runtime/executor.py): the statistics
        cost 7 small kernels per call, more than the normalisation on a decode step's few rows."""
        norm_axis, params_axis = self._axes(x.ndim)
        shape = tuple(x.shape[norm_axis:])
        if params_axis == norm_axis:
            return (torch.native_layer_norm(x, shape, gamma, beta, self.epsilon)[0],)
        return (torch.native_layer_norm(x, shape, None, None, self.epsilon)[0] * gamma + beta,)

    def torch_bind(self, torch, inputs, first_only):
        """For a fixed input shape where only y is read: torch_first with the normalised shape worked out once."""
        shape = static_shape(inputs[0])
        if shape is None or not first_only:
            return None
        norm_axis, params_axis = self._axes(len(shape))
        if params_axis != norm_axis:
            return None
        norm, normalized, eps = torch.native_layer_norm, shape[norm_axis:], self.epsilon
        return lambda x, gamma, beta: (norm(x, normalized, gamma, beta, eps)[0],)

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


@register
class LayerNormGrad(_Axes, Primitive):
    """LayerNormGrad(begin_norm_axis=1, begin_params_axis=1)(dy, x, gamma, mean, rstd, d_mean, d_rstd)
    → (dx, dgamma, dbeta): the gradient of LayerNorm given the cotangents of its three outputs (d_mean and d_rstd
    may be None: mean and rstd were not used)."""
    attr_defaults = {"begin_norm_axis": 1, "begin_params_axis": 1}
    input_names = ("dy", "x", "gamma", "mean", "rstd", "d_mean", "d_rstd")

    def infer(self, dy, x, gamma, mean, rstd, dmean, drstd):
        for name, t in zip(self.input_names, (dy, x, gamma, mean, rstd, dmean, drstd)):
            if t is None and name in ("d_mean", "d_rstd"):
                continue
            check_tensor(self.name, name, t)
            if t.dtype is not x.dtype:
                raise TypeError(f"For '{self.name}', the type of '{name}' should be same as 'x', but got "
                                f"Tensor[{t.dtype}] and Tensor[{x.dtype}].")
        check_dtype(self.name, "x", x, ("float",))
        norm_axis, params_axis = self._axes(len(x.shape))
        stat = tuple(x.shape[:norm_axis]) + (1,) * (len(x.shape) - norm_axis)
        expected = (("dy", dy, tuple(x.shape)), ("gamma", gamma, tuple(x.shape[params_axis:])),
                    ("mean", mean, stat), ("rstd", rstd, stat), ("d_mean", dmean, stat), ("d_rstd", drstd, stat))
        for name, t, shape in expected:
            if t is not None and tuple(t.shape) != shape:
                raise ValueError(f"For '{self.name}', the shape of '{name}' must be {list(shape)}, "
                                 f"but got {list(t.shape)}.")
        return AbstractTensor(x.shape, x.dtype), AbstractTensor(gamma.shape, x.dtype), AbstractTensor(gamma.shape, x.dtype)

    def bprop(self, dy, x, gamma, mean, rstd, dmean, drstd, out, dout):
        a, p, q = dout
        mul, add, sub = prim("Mul"), prim("Add"), prim("Sub")
        stats_used = (dmean is not None, drstd is not None)
        dmean = dmean if dmean is not None else prim("ZerosLike")(mean)
        drstd = drstd if drstd is not None else prim("ZerosLike")(rstd)
        naxes, paxes, inv_n = self._layout(tuple(x.shape))

        def row_mean(t):
            return mul(_reduce(t, naxes, True), inv_n)

        centered = sub(x, mean)
        xh = mul(centered, rstd)
        g = mul(dy, gamma)
        mean_g, mean_gxh = row_mean(g), row_mean(mul(g, xh))
        mean_a, mean_axh = row_mean(a), row_mean(mul(a, xh))
        rstd2 = mul(rstd, rstd)
        # the cotangent of g = dy * gamma
        d_g = mul(sub(sub(a, mean_a), mul(xh, mean_axh)), rstd)
        d_dy = add(add(mul(d_g, gamma), mul(xh, p)), q)
        d_gamma = _reduce(mul(d_g, dy), paxes, False)
        # the cotangent reaching xh directly
        d_xh = sub(mul(dy, p), add(mul(add(mul(a, mean_gxh), mul(g, mean_axh)), rstd),
                                     mul(mul(a, mul(drstd, rstd2)), inv_n)))
        d_x = mul(d_xh, rstd)
        d_mean = prim("Neg")(_reduce(d_x, naxes, True))
        d_rstd = add(_reduce(mul(a, sub(sub(g, mean_g), mul(xh, mean_gxh))), naxes, True),
                     add(mul(mul(mul(drstd, rstd), mean_axh), -2.0), _reduce(mul(d_xh, centered), naxes, True)))
        d_dmean = mean_a
        d_drstd = prim("Neg")(mul(rstd2, mean_axh))
        return (d_dy, d_x, d_gamma, d_mean, d_rstd, d_dmean if stats_used[0] else None,
                d_drstd if stats_used[1] else None)

    def numpy(self, np, dy, x, gamma, mean, rstd, dmean, drstd):
        naxes, paxes, inv_n = self._layout(x.shape)
        xh = (x - mean) * rstd
        g = dy * gamma
        dx = (g - g.mean(axis=naxes, keepdims=True) - xh * (g * xh).mean(axis=naxes, keepdims=True)) * rstd
        if dmean is not None:
            dx = dx + dmean * np.asarray(inv_n, x.dtype)
        if drstd is not None:
            dx = dx - drstd * rstd * rstd * xh * np.asarray(inv_n, x.dtype)
        return dx.astype(x.dtype, copy=False), np.asarray((dy * xh).sum(axis=paxes)), np.asarray(dy.sum(axis=paxes))

    def torch(self, torch, dy, x, gamma, mean, rstd, dmean, drstd):
        norm_axis, params_axis = self._axes(x.ndim)
        naxes, paxes, inv_n = self._layout(tuple(x.shape))
        shape = list(x.shape[norm_axis:])
        if params_axis == norm_axis:
            # gamma stands in for beta: only its presence matters (dbeta = sum of dy comes from the same pass)
            return self._with_stats(torch.ops.aten.native_layer_norm_backward(
                dy, x, shape, mean, rstd, gamma, gamma, [True, True, True]), x, mean, rstd, dmean, drstd, inv_n)
        dx = torch.ops.aten.native_layer_norm_backward(dy * gamma, x, shape, mean, rstd, None, None,
                                                       [True, False, False])[0]
        dgamma = (dy * ((x - mean) * rstd)).sum(dim=paxes) if paxes else dy * ((x - mean) * rstd)
        dbeta = dy.sum(dim=paxes) if paxes else dy.clone()
        return self._with_stats((dx, dgamma, dbeta), x, mean, rstd, dmean, drstd, inv_n)

    @staticmethod
    def _with_stats(grads, x, mean, rstd, dmean, drstd, inv_n):
        """Add the paths through the mean and rstd outputs, when they were used."""
        dx, dgamma, dbeta = grads
        if dmean is not None:
            dx = dx + dmean * inv_n
        if drstd is not None:
            dx = dx - (drstd * rstd * rstd * inv_n) * ((x - mean) * rstd)
        return dx, dgamma, dbeta

    @classmethod
    def samples(cls, rng):
        x = rand_float(rng, (2, 3, 4))
        stat = (2, 1, 1)
        for attrs, gshape, sshape, name in (({}, (3, 4), stat, "default"),
                                             ({"begin_norm_axis": -1, "begin_params_axis": -1}, (4,), (2, 3, 1), "last"),
                                             ({"begin_norm_axis": 1, "begin_params_axis": 2}, (4,), stat, "params-after"),
                                             ({"begin_norm_axis": 0, "begin_params_axis": 0}, (2, 3, 4), (1, 1, 1), "all")):
            yield Sample(rand_float(rng, x.shape), x, rand_float(rng, gshape), rand_float(rng, sshape),
                         rand_positive(rng, sshape), rand_float(rng, sshape), rand_float(rng, sshape),
                         attrs=attrs, name=name)
        yield Sample(rand_float(rng, x.shape), x, rand_float(rng, (3, 4)), rand_float(rng, stat),
                     rand_positive(rng, stat), None, None, name="unused-stats")


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(BACKWARD, LayerNormGrad)


# ---- MindIR encodings (see _mindir.py) ---------------------------------------------------------------------------
mindir(LayerNorm, inputs=("x", "gamma", "beta"),
       attrs=[Arg("begin_norm_axis", 1), Arg("begin_params_axis", 1), Arg("epsilon", 1e-7)], instance="layer_norm")

# ---- ONNX converters (see _onnx.py) -------------------------------------------------------------------------------
_onnx.declare(LayerNorm, _onnx.layer_norm)
