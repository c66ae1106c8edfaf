"""nn.probability.bijector: formulas in float64 NumPy, Jacobians by finite differences, MindSpore's dtype rules."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor
import openspore.nn.probability.bijector as msb

X = np.array([0.5, 1.0, 2.0])
P = np.array([0.2, 0.5, 0.9])

# bijector, forward in NumPy, domain of x, domain of y
CASES = {
    "Exp": (lambda: msb.Exp(), np.exp, X, X),
    "PowerTransform": (lambda: msb.PowerTransform(0.5), lambda x: (1 + 0.5 * x) ** 2, X, X + 1.0),
    "ScalarAffine": (lambda: msb.ScalarAffine(2.0, 1.0), lambda x: 2 * x + 1, X, X),
    "ScalarAffineNegative": (lambda: msb.ScalarAffine(-2.0, 1.0), lambda x: -2 * x + 1, X, X),
    "Softplus": (lambda: msb.Softplus(2.0), lambda x: np.log1p(np.exp(2 * x)) / 2, X, X),
    "GumbelCDF": (lambda: msb.GumbelCDF(1.0, 2.0), lambda x: np.exp(-np.exp(-(x - 1.0) / 2.0)), X, P),
    "InvertExp": (lambda: msb.Invert(msb.Exp()), np.log, X, X),
}


def _f32(a):
    return Tensor(np.asarray(a, np.float32))


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_inverse_and_log_jacobians(name):
    make, forward, xs, ys = CASES[name]
    b = make()
    np.testing.assert_allclose(b.forward(_f32(xs)).asnumpy(), forward(xs), rtol=1e-5)
    np.testing.assert_allclose(forward(b.inverse(_f32(ys)).asnumpy().astype(np.float64)), ys, rtol=1e-4)
    h = 1e-6
    numeric = np.log(np.abs((forward(xs + h) - forward(xs - h)) / (2 * h)))
    got = np.broadcast_to(b.forward_log_jacobian(_f32(xs)).asnumpy(), xs.shape)
    np.testing.assert_allclose(got, numeric, rtol=1e-4, atol=1e-5)
    # log |(f^-1)'(y)| = -log |f'(f^-1(y))|
    x_of_y = b.inverse(_f32(ys)).asnumpy().astype(np.float64)
    numeric_inv = -np.log(np.abs((forward(x_of_y + h) - forward(x_of_y - h)) / (2 * h)))
    got = np.broadcast_to(b.inverse_log_jacobian(_f32(ys)).asnumpy(), ys.shape)
    np.testing.assert_allclose(got, numeric_inv, rtol=1e-3, atol=1e-4)


def test_recorded_mindspore_values_and_names():
    x = _f32([0.5, 1.0, 2.0])
    # MindSpore 2.10: GumbelCDF(1.0, 2.0).forward([0.5, 1, 2]) and PowerTransform(0.5).forward_log_jacobian
    np.testing.assert_allclose(msb.GumbelCDF(1.0, 2.0).forward(x).asnumpy(),
                               [0.2769203186035156, 0.36787882447242737, 0.5452392101287842], rtol=1e-5)
    np.testing.assert_allclose(msb.PowerTransform(0.5).forward_log_jacobian(x).asnumpy(),
                               [0.2231435477733612, 0.40546509623527527, 0.6931471824645996], rtol=1e-5)
    assert msb.ScalarAffine(2.0, 1.0).forward_log_jacobian(x).shape == ()
    assert msb.Invert(msb.Exp()).name == "InvertExp" and msb.Exp().name == "Exp"
    assert repr(msb.ScalarAffine(2.0, 1.0)) == "ScalarAffine(scale = 2.0, shift = 1.0)"
    assert repr(msb.PowerTransform(0.5)) == "PowerTransform(power = 0.5)"
    assert msb.ScalarAffine(2.0, 1.0)("forward", x).asnumpy().tolist() == [2.0, 3.0, 5.0]
    with pytest.raises(ValueError, match="Power must be greater than or equal to zero"):
        msb.PowerTransform(-1.0)
    with pytest.raises(TypeError):
        msb.Softplus(2)


def test_value_dtypes():
    out = msb.ScalarAffine(2.0, 1.0).forward(Tensor(np.array([1.0], np.float16)))
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [3.0]
    assert msb.Exp().forward(Tensor(np.array([1.0]))).dtype == ms.float64
    for bad in (None, 1.0, Tensor(np.array([1], np.int32))):
        with pytest.raises(TypeError):
            msb.Exp().forward(bad)


class _Affine(msb.Bijector):
    def __init__(self, a, b, dtype=None):
        param = dict(locals())
        param["param_dict"] = {"a": a, "b": b}
        super().__init__(name="Affine", dtype=dtype, param=param)
        self._a = self._add_parameter(a, "a")
        self._b = self._add_parameter(b, "b")

    def _forward(self, value):
        value = self._check_value_dtype(value)
        return value * self.cast_param_by_value(value, self._a) + self.cast_param_by_value(value, self._b)


def test_custom_bijector_parameter_rules():
    with pytest.raises(TypeError):
        _Affine(np.array(1.0, np.float16), np.array(2.0, np.float32))
    for bad in ((True, 1.0), (None, 1.0), (1, 2), ([1, 2], [2, 4]), (np.array([1, 2], np.int32),) * 2):
        with pytest.raises(TypeError):
            _Affine(*bad)
    assert _Affine(np.array([1.0, 2.0], np.float16), np.array([1.0, 2.0], np.float16)).batch_shape == (2,)
    free = _Affine(np.array(1.0, np.float32), np.array(2.0, np.float32))
    assert free.forward(Tensor(np.array(1.0, np.float16))).dtype == ms.float16
    fixed = _Affine(np.array(1.0, np.float32), np.array(2.0, np.float32), dtype=ms.float32)
    with pytest.raises(TypeError):
        fixed.forward(Tensor(np.array(1.0, np.float16)))
    assert float(fixed.forward(Tensor(np.array(1.0, np.float32))).asnumpy()) == 3.0
    with pytest.raises(NotImplementedError):
        free.inverse(Tensor(np.array(1.0, np.float32)))
