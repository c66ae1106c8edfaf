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


@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_tensorflow_style_fractional_pools_follow_their_sequences(pseudo_random, overlapping):
    x = rng.standard_normal((1, 8, 6, 2)).astype(np.float32)
    ms.set_seed(7)
    y, rows, cols = ops.FractionalMaxPool((1.0, 1.6, 2.0, 1.0), pseudo_random, overlapping)(T(x))
    a, rows_a, cols_a = ops.FractionalAvgPool((1.0, 1.6, 2.0, 1.0), pseudo_random, overlapping, True, 3, 1)(T(x))
    r, c = rows.asnumpy(), cols.asnumpy()
    assert r[0] == 0 and r[-1] == 8 and (np.diff(r) >= 1).all() and len(r) == int(8 / 1.6) + 1
    assert c[0] == 0 and c[-1] == 6 and (np.diff(c) >= 1).all() and len(c) == int(6 / 2.0) + 1
    extra = 1 if overlapping else 0
    for seq_r, seq_c, out, reduce in ((r, c, y.asnumpy(), np.max), (rows_a.asnumpy(), cols_a.asnumpy(), a.asnumpy(),
                                                                      np.mean)):
        for i in range(len(seq_r) - 1):
            for j in range(len(seq_c) - 1):
                window = x[:, seq_r[i]:min(seq_r[i + 1] + extra, 8), seq_c[j]:min(seq_c[j + 1] + extra, 6)]
                np.testing.assert_allclose(out[:, i, j], reduce(window, axis=(1, 2)), rtol=1e-5, atol=1e-6)
    again = ops.FractionalAvgPool((1.0, 1.6, 2.0, 1.0), pseudo_random, overlapping, True, 3, 1)(T(x))
    np.testing.assert_array_equal(again[1].asnumpy(), rows_a.asnumpy())  # deterministic with a seed
    ms.set_seed(7)
    np.testing.assert_array_equal(ops.FractionalMaxPool((1.0, 1.6, 2.0, 1.0), pseudo_random, overlapping)(T(x))[1]
                                  .asnumpy(), r)
