"""The bijectors: Exp, PowerTransform, ScalarAffine, Softplus, GumbelCDF and Invert.

>>> import numpy as np, openspore as ms
>>> import openspore.nn.probability.bijector as msb
>>> x = ms.Tensor(np.array([0.0, 1.0], np.float32))
>>> [round(v, 4) for v in msb.Invert(msb.Exp()).inverse(x).asnumpy().tolist()]
[1.0, 2.7183]
>>> [round(v, 4) for v in msb.PowerTransform(1.0).forward(x).asnumpy().tolist()]  # 1 + x
[1.0, 2.0]
"""
from .... import ops
from .._checks import check_greater_equal_zero, check_greater_zero
from .bijector import Bijector

__all__ = ["Exp", "PowerTransform", "ScalarAffine", "Softplus", "GumbelCDF", "Invert"]


class PowerTransform(Bijector):
    """y = (1 + c·x)^(1/c) for power c > 0, and y = exp(x) for c = 0."""

    def __init__(self, power=0.0, name="PowerTransform"):
        param = {"power": power, "name": name, "param_dict": {"power": power}}
        super().__init__(name=name, param=param)
        self._power = self._add_parameter(power, "power")
        check_greater_equal_zero(self._power, "Power")
        self._exp_only = bool((self._power.asnumpy() == 0).all())

    @property
    def power(self):
        return self._power

    def extend_repr(self):
        return f"power = {self._power.asnumpy()[()]!s}" if self.is_scalar_batch else f"batch_shape = {self.batch_shape}"

    def _pick(self, value, at_zero, general):
        """`general` where the power is positive, `at_zero` (the exp limit) where it is zero."""
        if self._exp_only:
            return at_zero(value)
        c = self.cast_param_by_value(value, self._power)
        # a zero power would divide by zero in the general formula: give it 1 there and select the limit
        safe = ops.where(c == 0.0, ops.ones_like(c), c)
        return ops.where(c == 0.0, at_zero(value), general(value, safe))

    def _forward(self, x):
        return self._pick(x, ops.exp, lambda v, c: ops.exp(ops.log1p(v * c) / c))

    def _inverse(self, y):
        return self._pick(y, ops.log, lambda v, c: ops.expm1(ops.log(v) * c) / c)

    def _forward_log_jacobian(self, x):
        return self._pick(x, lambda v: v, lambda v, c: (1.0 / c - 1.0) * ops.log1p(v * c))

    def _inverse_log_jacobian(self, y):
        return self._pick(y, lambda v: -ops.log(v), lambda v, c: (c - 1.0) * ops.log(v))


class Exp(PowerTransform):
    """y = exp(x)."""

    def __init__(self, name="Exp"):
        super().__init__(0.0, name)
        self._parameters = {"name": name, "param_dict": {}}

    def extend_repr(self):
        return "exp"


class ScalarAffine(Bijector):
    """y = scale·x + shift (a constant Jacobian log |scale|)."""

    def __init__(self, scale=1.0, shift=0.0, name="ScalarAffine"):
        param = {"scale": scale, "shift": shift, "name": name, "param_dict": {"scale": scale, "shift": shift}}
        super().__init__(is_constant_jacobian=True, name=name, param=param)
        self._scale = self._add_parameter(scale, "scale")
        self._shift = self._add_parameter(shift, "shift")

    @property
    def scale(self):
        return self._scale

    @property
    def shift(self):
        return self._shift

    def extend_repr(self):
        if self.is_scalar_batch:
            return f"scale = {self._scale.asnumpy()[()]!s}, shift = {self._shift.asnumpy()[()]!s}"
        return f"batch_shape = {self.batch_shape}"

    def _forward(self, x):
        return self.cast_param_by_value(x, self._scale) * x + self.cast_param_by_value(x, self._shift)

    def _inverse(self, y):
        return (y - self.cast_param_by_value(y, self._shift)) / self.cast_param_by_value(y, self._scale)

    def _forward_log_jacobian(self, x):
        return ops.log(ops.abs(self.cast_param_by_value(x, self._scale)))

    def _inverse_log_jacobian(self, y):
        return -ops.log(ops.abs(self.cast_param_by_value(y, self._scale)))


class Softplus(Bijector):
    """y = log(1 + exp(k·x)) / k for sharpness k."""

    def __init__(self, sharpness=1.0, name="Softplus"):
        param = {"sharpness": sharpness, "name": name, "param_dict": {"sharpness": sharpness}}
        super().__init__(name=name, param=param)
        self._sharpness = self._add_parameter(sharpness, "sharpness")

    @property
    def sharpness(self):
        return self._sharpness

    def extend_repr(self):
        if self.is_scalar_batch:
            return f"sharpness = {self._sharpness.asnumpy()[()]!s}"
        return f"batch_shape = {self.batch_shape}"

    def _forward(self, x):
        k = self.cast_param_by_value(x, self._sharpness)
        return ops.softplus(k * x) / k

    def _inverse(self, y):
        k = self.cast_param_by_value(y, self._sharpness)
        ky = k * y
        # log(expm1(t)) = t + log(-expm1(-t)), exact for large t where expm1 overflows
        return (ky + ops.log(-ops.expm1(-ky))) / k

    def _forward_log_jacobian(self, x):
        k = self.cast_param_by_value(x, self._sharpness)
        return -ops.softplus(-k * x)

    def _inverse_log_jacobian(self, y):
        k = self.cast_param_by_value(y, self._sharpness)
        return -ops.log(-ops.expm1(-k * y))


class GumbelCDF(Bijector):
    """y = exp(-exp(-(x - loc) / scale)): maps the real line onto (0, 1)."""

    def __init__(self, loc=0.0, scale=1.0, name="GumbelCDF"):
        param = {"loc": loc, "scale": scale, "name": name, "param_dict": {"loc": loc, "scale": scale}}
        super().__init__(name=name, param=param)
        self._loc = self._add_parameter(loc, "loc")
        self._scale = self._add_parameter(scale, "scale")
        check_greater_zero(self._scale, "scale")

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def extend_repr(self):
        if self.is_scalar_batch:
            return f"loc = {self._loc.asnumpy()[()]!s}, scale = {self._scale.asnumpy()[()]!s}"
        return f"batch_shape = {self.batch_shape}"

    def _z(self, x):
        return (x - self.cast_param_by_value(x, self._loc)) / self.cast_param_by_value(x, self._scale)

    def _forward(self, x):
        return ops.exp(-ops.exp(-self._z(x)))

    def _inverse(self, y):
        return self.cast_param_by_value(y, self._loc) - self.cast_param_by_value(y, self._scale) * ops.log(-ops.log(y))

    def _forward_log_jacobian(self, x):
        z = self._z(x)
        return -z - ops.exp(-z) - ops.log(self.cast_param_by_value(x, self._scale))

    def _inverse_log_jacobian(self, y):
        return ops.log(self.cast_param_by_value(y, self._scale)) - ops.log(-ops.log(y)) - ops.log(y)


class Invert(Bijector):
    """The inverse of a bijector: forward is its inverse and the other way round."""

    def __init__(self, bijector, name=""):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'Invert', the type of 'bijector' should be 'Bijector', "
                            f"but got type '{type(bijector).__name__}'.")
        name = name or "Invert" + bijector.name
        param = {"bijector": bijector, "name": name, "param_dict": {}}
        super().__init__(is_constant_jacobian=bijector.is_constant_jacobian, is_injective=bijector.is_injective,
                         name=name, dtype=bijector.dtype, param=param)
        self._bijector = bijector

    @property
    def bijector(self):
        return self._bijector

    def _forward(self, x):
        return self._bijector.inverse(x)

    def _inverse(self, y):
        return self._bijector.forward(y)

    def _forward_log_jacobian(self, x):
        return self._bijector.inverse_log_jacobian(x)

    def _inverse_log_jacobian(self, y):
        return self._bijector.forward_log_jacobian(y)

