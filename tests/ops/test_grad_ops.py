"""MindSpore's backward primitives called by name (ops.operations.XxxGrad): values against the derivative written
out by hand, in PyNative and in a compiled Cell, with MindSpore's complex-conjugate convention."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.ops import operations as P

T = ms.Tensor


def _run(mode, op, *args):
    class Wrap(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = op

        def construct(self, *xs):
            return self.op(*xs)

    ms.set_context(mode=mode)
    try:
        return Wrap()(*[T(a) for a in args]).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_inverse_trig_gradients(mode):
    x = np.array([-0.6, 0.1, 0.7], np.float32)
    dy = np.array([2.0, -1.0, 0.5], np.float32)
    np.testing.assert_allclose(_run(mode, P.AsinGrad(), x, dy), dy / np.sqrt(1 - x ** 2), rtol=1e-6)
    np.testing.assert_allclose(_run(mode, P.ACosGrad(), x, dy), -dy / np.sqrt(1 - x ** 2), rtol=1e-6)
    np.testing.assert_allclose(_run(mode, P.AtanGrad(), x, dy), dy / (1 + x ** 2), rtol=1e-6)
    y = np.array([0.4, 1.5, 2.5], np.float32)  # forward outputs
    np.testing.assert_allclose(_run(mode, P.AsinhGrad(), y, dy), dy / np.cosh(y), rtol=1e-6)
    np.testing.assert_allclose(_run(mode, P.AcoshGrad(), y, dy), dy / np.sinh(y), rtol=1e-6)
    np.testing.assert_allclose(_run(mode, P.InvGrad(), y, dy), -dy * y * y, rtol=1e-6)


def test_complex_gradients_divide_by_the_conjugate():
    x = np.array([0.25 - 0.5j], np.complex64)
    dy = np.array([1.5 + 1.0j], np.complex64)
    got = P.AtanGrad()(T(x), T(dy)).asnumpy()
    np.testing.assert_allclose(got, dy / np.conj(1 + x * x), rtol=1e-5)


def test_bias_add_grad_sums_all_but_the_channel_axis():
    dout = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
    np.testing.assert_array_equal(P.BiasAddGrad()(T(dout)).asnumpy(), dout.sum(axis=(0, 2, 3)))
    np.testing.assert_array_equal(P.BiasAddGrad("NHWC")(T(dout)).asnumpy(), dout.sum(axis=(0, 1, 2)))


def test_gelu_and_log_softmax_grads_match_autodiff():
    x = T(np.array([[0.3, -1.2, 2.0]], np.float32))
    dy = T(np.array([[1.0, 0.5, -2.0]], np.float32))
    by_autodiff = ms.grad(lambda a: (ops.GeLU()(a) * dy).sum())(x)
    np.testing.assert_allclose(P.GeLUGrad()(dy, x, ops.GeLU()(x)).asnumpy(), by_autodiff.asnumpy(), rtol=1e-5)
    log_soft = ops.LogSoftmax()(x)
    by_autodiff = ms.grad(lambda a: (ops.LogSoftmax()(a) * dy).sum())(x)
    np.testing.assert_allclose(P.LogSoftmaxGrad()(log_soft, dy).asnumpy(), by_autodiff.asnumpy(), rtol=1e-5,
                               atol=1e-6)


def test_shape_mismatch_is_refused():
    with pytest.raises(ValueError, match="AsinGrad"):
        P.AsinGrad()(T(np.zeros(3, np.float32)), T(np.zeros(4, np.float32)))
