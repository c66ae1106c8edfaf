"""Fractional max pooling against torch with the same random samples; gradients; seeded draws."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor
rng = np.random.default_rng(0)


def test_fractional_max_pool2d_matches_torch_values_indices_and_gradient():
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    s = rng.random((2, 3, 2)).astype(np.float32)
    out, idx = ops.fractional_max_pool2d(T(x), (3, 2), output_size=(4, 5), return_indices=True, _random_samples=T(s))
    tx = torch.tensor(x, requires_grad=True)
    ref, ridx = torch.nn.functional.fractional_max_pool2d(tx, (3, 2), output_size=(4, 5), return_indices=True,
                                                          _random_samples=torch.tensor(s))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy())
    np.testing.assert_array_equal(idx.asnumpy(), ridx.numpy())
    (ref * ref).sum().backward()
    g = ms.grad(lambda v: (ops.fractional_max_pool2d(v, (3, 2), output_size=(4, 5), _random_samples=T(s)) ** 2)
                .sum())(T(x)).asnumpy()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    out, idx = ops.FractionalMaxPoolWithFixedKsize((3, 2), (4, 5))(T(x), T(s))
    np.testing.assert_array_equal(idx.asnumpy(), ridx.numpy())
    ratio = ops.fractional_max_pool2d(T(x[0]), 2, output_ratio=(0.5, 0.5), _random_samples=T(s[:1]))
    assert ratio.shape == (3, 4, 4)


def test_fractional_max_pool3d_matches_torch_and_follows_the_seed():
    x = rng.standard_normal((2, 3, 7, 8, 9)).astype(np.float32)
    s = rng.random((2, 3, 3)).astype(np.float32)
    out, idx = ops.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (4, 3, 5))(T(x), T(s))
    ref, ridx = torch.nn.functional.fractional_max_pool3d(torch.tensor(x), (2, 3, 2), output_size=(4, 3, 5),
                                                          return_indices=True, _random_samples=torch.tensor(s))
    np.testing.assert_allclose(out.asnumpy(), ref.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), ridx.numpy())
    ms.set_seed(3)
    a = ops.fractional_max_pool3d(T(x), 2, output_size=4).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(ops.fractional_max_pool3d(T(x), 2, output_size=4).asnumpy(), a)
    with pytest.raises(ValueError, match="output_size"):
        ops.fractional_max_pool3d(T(x), 2)
