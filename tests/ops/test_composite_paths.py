"""The 1.x path mindspore.ops.composite also names gamma, laplace, poisson and cummin: the same functions as
in mindspore.ops (as in MindSpore 2.10), with MindSpore's shapes and dtypes. MindSpore itself cannot run
gamma/poisson on CPU, so only their shapes and seeding are checked here."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops
from openspore.ops import composite as C

T = ms.Tensor


@pytest.mark.parametrize("name", ["gamma", "laplace", "poisson", "cummin"])
def test_same_functions_as_ops(name):
    assert getattr(C, name) is getattr(ops, name)
    assert name in C.__all__


def test_cummin_values_and_int32_indices():
    x = np.array([[3, 1], [0, 4]], np.int32)
    values, indices = C.cummin(T(x), 0)
    assert values.dtype == ms.int32 and indices.dtype == ms.int32  # MindSpore 2.10: int32 indices
    np.testing.assert_array_equal(values.asnumpy(), np.minimum.accumulate(x, 0))
    np.testing.assert_array_equal(indices.asnumpy(), [[0, 0], [1, 0]])
    values, indices = C.cummin(T(np.array([3.0, 1.0, 4.0, 1.0, 5.0], np.float32)), -1)
    np.testing.assert_array_equal(indices.asnumpy(), [0, 1, 1, 3, 3])  # ties take the later index


def test_random_shapes_dtypes_and_seeds():
    one = T(np.array([1.0], np.float32))
    ms.set_seed(1)
    out = C.laplace((2, 3), T(np.array([0.0], np.float32)), one, seed=5)
    assert out.shape == (2, 3) and out.dtype == ms.float32
    following = C.laplace((2, 3), T(np.array([0.0], np.float32)), one, seed=5)
    assert not np.array_equal(out.asnumpy(), following.asnumpy())  # the stream moves on, as in MindSpore
    ms.set_seed(1)  # the global and op seeds together fix the draw (MindSpore behaves the same)
    again = C.laplace((2, 3), T(np.array([0.0], np.float32)), one, seed=5)
    np.testing.assert_array_equal(out.asnumpy(), again.asnumpy())
    g = C.gamma((2, 3), T(np.array([[1.0], [2.0]], np.float32)), one, seed=5)
    assert g.shape == (2, 3) and bool((g.asnumpy() > 0).all())
    p = C.poisson((2, 3), T(np.array([2.0], np.float32)), seed=5)
    assert p.shape == (2, 3) and bool((p.asnumpy() >= 0).all())
