"""grad of a function whose outputs include a dict: the dict's tensors count as outputs (their gradients are
summed with the others'), in PyNative and compiled, as MindSpore's grad does."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops


def _returns_dict(a):
    x = {"a": a * 3, "b": 2}
    return a, (x, (1, 2))


@pytest.mark.parametrize("compiled", [False, True])
def test_dict_outputs_take_part_in_grad(compiled):
    f = ms.jit(_returns_dict) if compiled else _returns_dict
    g = ops.grad(f)(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [4.0, 4.0])


def test_vjp_with_a_dict_output_takes_a_dict_cotangent():
    def f(a):
        return {"double": a * 2, "square": a * a}

    x = ms.Tensor(np.array([1.0, 3.0], np.float32))
    _, pull = ms.vjp(f, x)
    ones = ms.Tensor(np.ones(2, np.float32))
    (g,) = pull({"double": ones, "square": ones})
    np.testing.assert_allclose(g.asnumpy(), 2 + 2 * np.array([1.0, 3.0]))
