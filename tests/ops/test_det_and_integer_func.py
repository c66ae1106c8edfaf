"""Determinants (det, slogdet, logdet and their MindSpore aliases) and the integer functions (gcd, lcm,
population_count, nextafter) against torch/numpy, with gradients and jit."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import Tensor, ops

RNG = np.random.default_rng(11)
A = RNG.standard_normal((3, 4, 4))


def test_determinants_match_torch(backend):
    np.testing.assert_allclose(ops.det(Tensor(A)).asnumpy(), torch.linalg.det(torch.from_numpy(A)).numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(ops.matrix_determinant(Tensor(A)).asnumpy(), np.linalg.det(A), rtol=1e-10)
    sign, logabs = ops.slogdet(Tensor(A))
    t_sign, t_logabs = torch.linalg.slogdet(torch.from_numpy(A))
    np.testing.assert_array_equal(sign.asnumpy(), t_sign.numpy())
    np.testing.assert_allclose(logabs.asnumpy(), t_logabs.numpy(), rtol=1e-10)
    s2, l2 = ops.LogMatrixDeterminant()(Tensor(A))
    np.testing.assert_array_equal(s2.asnumpy(), sign.asnumpy())
    np.testing.assert_allclose(ops.logdet(Tensor(A)).asnumpy(), torch.logdet(torch.from_numpy(A)).numpy(),
                               rtol=1e-10, equal_nan=True)
    assert ops.logdet(Tensor(np.zeros((2, 2)))).asnumpy() == -np.inf
    f32 = ms.jit(lambda x: ops.det(x))(Tensor(A.astype(np.float32)))
    assert f32.dtype == ms.float32 and f32.shape == (3,)
    with pytest.raises(ValueError, match="square"):
        ops.det(Tensor(np.ones((2, 3))))


def test_determinant_gradients_match_torch():
    t = torch.from_numpy(A.copy()).requires_grad_(True)
    torch.linalg.det(t).sum().backward()
    np.testing.assert_allclose(ms.grad(lambda x: ops.det(x).sum())(Tensor(A)).asnumpy(), t.grad.numpy(), rtol=1e-9)
    t = torch.from_numpy(A.copy()).requires_grad_(True)
    torch.linalg.slogdet(t)[1].sum().backward()
    g = ms.grad(lambda x: ops.slogdet(x)[1].sum())(Tensor(A)).asnumpy()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-9)


def test_integer_functions_match_numpy(backend):
    a = RNG.integers(-40, 40, (4, 5)).astype(np.int32)
    b = RNG.integers(-40, 40, (5,)).astype(np.int32)
    np.testing.assert_array_equal(ops.gcd(Tensor(a), Tensor(b)).asnumpy(), np.gcd(a, b))
    np.testing.assert_array_equal(ops.Lcm()(Tensor(a), Tensor(b)).asnumpy(), np.lcm(a, b))
    c = np.array([0, 1, -1, 255, -128, 1 << 20], np.int64)
    want = [bin(int(v) & (2 ** 64 - 1)).count("1") for v in c]
    got = ops.population_count(Tensor(c))
    assert got.dtype == ms.uint8 and got.asnumpy().tolist() == want
    assert ops.PopulationCount()(Tensor(np.array([-1], np.int8))).asnumpy().tolist() == [8]
    x = np.array([1.0, 0.0, -2.0], np.float32)
    y = np.array([2.0, -1.0, -3.0], np.float32)
    np.testing.assert_array_equal(ops.nextafter(Tensor(x), Tensor(y)).asnumpy(), np.nextafter(x, y))
    with pytest.raises(TypeError, match="x1"):
        ops.gcd(Tensor(x), Tensor(y))
