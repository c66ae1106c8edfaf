"""Primitives: layer normalization.

LayerNorm returns its mean and rstd; its backward rule reuses them (outputs stay on the tape), so the rule is
written with plain arithmetic primitives and differentiates again.
"""
import math

from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ._util import check_dtype, check_tensor, normalize_axis, prim, rand_float


def _reduce(t, axes, keep_dims):
    return prim("ReduceSum", keep_dims=keep_dims)(t, axes) if axes else t


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
