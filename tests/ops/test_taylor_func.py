"""ops.derivative and ops.jet against closed-form derivatives of x·sin(x) (MindSpore 2.10 gave the same numbers
for this example while written), with a Cell as fn."""
import numpy as np
import pytest

from openspore import Tensor, nn, ops

X = np.array([0.5, 1.0, -2.0])


def _derivs(x):
    """f = x sin x and its first four derivatives."""
    s, c = np.sin(x), np.cos(x)
    return [x * s, s + x * c, 2 * c - x * s, -3 * s - x * c, -4 * c + x * s]


class XSin(nn.Cell):
    def construct(self, x):
        return ops.sin(x) * x


@pytest.mark.parametrize("order", [1, 2, 3])
def test_derivative_orders(order):
    out, d = ops.derivative(XSin(), Tensor(X), order)
    np.testing.assert_allclose(out.asnumpy(), _derivs(X)[0], rtol=1e-12)
    np.testing.assert_allclose(d.asnumpy(), _derivs(X)[order], rtol=1e-10)


def test_jet_follows_faa_di_bruno():
    s = np.array([[1.0, 2.0, -1.0], [0.5, -1.0, 0.0], [0.2, 0.3, 1.0]])
    out, series = ops.jet(lambda x: ops.sin(x) * x, Tensor(X), Tensor(s))
    f0, f1, f2, f3, _ = _derivs(X)
    want = [f1 * s[0], f2 * s[0] ** 2 + f1 * s[1], f3 * s[0] ** 3 + 3 * f2 * s[0] * s[1] + f1 * s[2]]
    np.testing.assert_allclose(out.asnumpy(), f0, rtol=1e-12)
    np.testing.assert_allclose(series.asnumpy(), np.stack(want), rtol=1e-10)
    with pytest.raises(ValueError, match="series"):
        ops.jet(ops.sin, Tensor(X), Tensor(np.ones((2, 2))))
    with pytest.raises(ValueError, match="order"):
        ops.derivative(ops.sin, Tensor(X), 0)
