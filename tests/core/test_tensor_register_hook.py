"""Tensor.register_hook as in MindSpore 2.10 (values checked there): the tensor's summed gradient goes through the
hook, a returned Tensor replaces it, None keeps it; handles remove hooks; hooks on inputs change what grad
returns."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor


def test_hook_on_an_intermediate_doubles_its_gradient():
    def hook_test(x, y):
        z = x * y
        z.register_hook(lambda grad: grad * 2)
        return z * y

    out, (dx, dy) = ms.value_and_grad(hook_test, grad_position=(0, 1))(Tensor(1.0), Tensor(2.0))
    assert (float(out), float(dx), float(dy)) == (4.0, 8.0, 6.0)


def test_hook_returning_none_keeps_the_gradient_and_sees_the_sum_over_uses():
    seen = []

    def f(x):
        y = x * 2
        y.register_hook(lambda grad: seen.append(float(grad)))
        return y * y

    assert float(ms.grad(f)(Tensor(1.0))) == 8.0
    assert seen == [4.0]


def test_hook_on_an_input_and_its_removal():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    handle = x.register_hook(lambda grad: grad * 2)
    np.testing.assert_array_equal(ms.grad(lambda v: (v * 3).sum())(x).asnumpy(), [6.0, 6.0])
    handle.remove()
    np.testing.assert_array_equal(ms.grad(lambda v: (v * 3).sum())(x).asnumpy(), [3.0, 3.0])


def test_hook_must_be_callable():
    with pytest.raises(TypeError, match="register_hook"):
        Tensor(1.0).register_hook(3)
