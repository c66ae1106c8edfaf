"""max_pool3d / avg_pool3d (and MaxPool3D / AvgPool3D) against torch, with gradients."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import openspore as ms
from openspore import Tensor, ops

V = np.random.default_rng(8).standard_normal((2, 3, 7, 6, 5)).astype(np.float32)
T = torch.from_numpy(V)


@pytest.mark.parametrize("args", [(2,), ((3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1)), (3, 1, 1)])
def test_max_pool3d(backend, args):
    np.testing.assert_array_equal(ops.max_pool3d(Tensor(V), *args).asnumpy(), tf.max_pool3d(T, *args).numpy())


@pytest.mark.parametrize("include", [True, False])
def test_avg_pool3d(backend, include):
    got = ops.avg_pool3d(Tensor(V), 3, 2, 1, count_include_pad=include).asnumpy()
    np.testing.assert_allclose(got, tf.avg_pool3d(T, 3, 2, 1, count_include_pad=include).numpy(), atol=1e-6)
    got = ops.avg_pool3d(Tensor(V), 2, 2, divisor_override=3).asnumpy()
    np.testing.assert_allclose(got, tf.avg_pool3d(T, 2, 2, divisor_override=3).numpy(), atol=1e-6)


def test_classes_and_gradients():
    np.testing.assert_array_equal(ops.MaxPool3D(2, 2)(Tensor(V)).asnumpy(), tf.max_pool3d(T, 2, 2).numpy())
    np.testing.assert_allclose(ops.AvgPool3D(2, 1, "pad", 1)(Tensor(V)).asnumpy(), tf.avg_pool3d(T, 2, 1, 1).numpy(),
                               atol=1e-6)
    t = T.double().requires_grad_(True)
    (tf.avg_pool3d(t, 3, 2, 1) ** 2).sum().backward()
    g = ms.grad(lambda x: (ops.avg_pool3d(x, 3, 2, 1) ** 2).sum())(Tensor(V.astype(np.float64)))
    np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), atol=1e-10)
    with pytest.raises(ValueError, match="ceil_mode"):
        ops.max_pool3d(Tensor(V), 2, ceil_mode=True)
    with pytest.raises(ValueError, match="pad_mode"):
        ops.MaxPool3D(2, 2, "SAME")(Tensor(V))
