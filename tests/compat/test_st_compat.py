"""MindSpore API behaviour found by running MindSpore's own st tests: `_no_grad`, `ops.auto_generate`,
channel dropout with p=1, one-element grad positions."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops


class _Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = ms.Parameter(ms.Tensor([3.0], ms.float32), name="k")

    def construct(self, x):
        y = self.k * x
        with ms._no_grad():
            frozen = y * y          # a constant to the gradient
        return frozen * y


def test_no_grad_block_turns_values_into_constants():
    # d/dx [c * k x] with c = (k x)^2 held constant: c * k = 36 * 3 at x = 2
    g = ops.grad(_Scaled())(ms.Tensor([2.0], ms.float32))
    np.testing.assert_allclose(g.asnumpy(), [108.0])


def test_no_grad_as_decorator_and_grad_inside_is_refused():
    @ms._no_grad()
    def square(x):
        return x * x

    g = ops.grad(lambda x: square(x) + x)(ms.Tensor([5.0], ms.float32))
    np.testing.assert_allclose(g.asnumpy(), [1.0])
    with pytest.raises(RuntimeError, match="In no_grad context, you can not calculate gradient"):
        with ms._no_grad():
            ops.grad(lambda x: x * 2)(ms.Tensor([1.0], ms.float32))


def test_auto_generate_paths_answer_with_ops_names():
    from openspore.ops.auto_generate import gen_ops_def, gen_ops_prim
    a, b = ms.Tensor([1, 5, 2]), ms.Tensor([3, 3, 3])
    assert ops.auto_generate.greater(a, b).asnumpy().tolist() == [False, True, False]
    assert gen_ops_prim.Greater is ops.Greater
    assert gen_ops_def.add_ext(a, b).asnumpy().tolist() == [4, 8, 5]  # the _ext spelling of add
    with pytest.raises(AttributeError, match="no_such_op"):
        ops.auto_generate.no_such_op


@pytest.mark.parametrize("cell, shape", [(nn.Dropout1d, (2, 3, 5)), (nn.Dropout2d, (2, 3, 4, 4))])
def test_channel_dropout_accepts_p_one(cell, shape):
    layer = cell(p=1.0)
    layer.set_train()
    out = layer(ms.Tensor(np.ones(shape, np.float32)))
    assert out.shape == shape and not out.asnumpy().any()
    with pytest.raises(ValueError, match="'p'"):
        nn.Dropout(p=1.0)
