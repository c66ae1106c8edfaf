"""`P()(x)` — a reduction called without its axis (the default (), every axis) — differentiates like `P()(x, ())`."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("name", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"])
def test_reduction_without_axis_has_the_gradient_of_the_full_reduction(name, mode):
    ms.set_context(mode=mode)
    reduce = getattr(ops, name)()
    x = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    without_axis = ms.grad(lambda t: reduce(t))(x).asnumpy()
    with_axis = ms.grad(lambda t: reduce(t, ()))(x).asnumpy()
    np.testing.assert_allclose(without_axis, with_axis, rtol=1e-6)
    expected = {"ReduceSum": np.ones((2, 3)), "ReduceMean": np.full((2, 3), 1 / 6),
                "ReduceMax": [[0, 0, 0], [0, 0, 1]], "ReduceMin": [[1, 0, 0], [0, 0, 0]],
                "ReduceProd": 720 / x.asnumpy()}[name]
    np.testing.assert_allclose(without_axis, expected, rtol=1e-6)
