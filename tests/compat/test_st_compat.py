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


def test_operations_submodule_paths_answer_with_the_table():
    from openspore.ops.operations import _inner_ops, array_ops, nn_ops
    import openspore.ops.operations.math_ops as math_ops
    assert nn_ops.Conv2D is ops.Conv2D and array_ops.Tile is ops.Tile and math_ops.Mul is ops.Mul
    with pytest.raises(AttributeError, match="no such Primitive"):
        nn_ops.NotAPrimitive
    convert = _inner_ops.ConvertToDynamic(is_dynamic_rank=True).add_prim_attr("primitive_target", "CPU")
    assert convert.is_dynamic_rank and convert.attrs["primitive_target"] == "CPU"
    x = ms.Tensor([1.0, -2.0, 3.0], ms.float32)
    g = ops.grad(lambda v: (convert(v) * v).sum())(x)   # identity in value and in gradient
    np.testing.assert_allclose(g.asnumpy(), [2.0, -4.0, 6.0])


def test_shape_predicates_of_functional():
    from openspore.ops import functional as F
    assert not F.is_sequence_value_unknown((4, 5)) and F.is_sequence_value_unknown((None, 5))
    assert not F.is_sequence_shape_unknown((4, 5)) and F.is_sequence_shape_unknown((-2,))


def test_dataset_module_paths():
    from openspore.dataset import callback, vision
    from openspore.dataset.audio import transforms as audio_transforms, utils as audio_utils
    from openspore.dataset.core import config
    from openspore.dataset.text import utils as text_utils
    from openspore.dataset.vision import transforms as vision_transforms
    assert vision_transforms.Resize is vision.Resize
    assert audio_transforms.Angle()(np.array([[3.0, 4.0]])).shape == (1,)
    assert audio_utils.WindowType.HANN is not None and text_utils.Vocab is not None
    assert callback.DSCallback is ms.dataset.DSCallback
    old = config.get_seed()
    config.set_seed(7)
    assert ms.dataset.config.get_seed() == 7   # one state under both paths
    config.set_seed(old)


def test_adjoint_conjugates_complex_matrices():
    x = ms.Tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 4.0]]), ms.complex128)
    np.testing.assert_allclose(x.adjoint().asnumpy(), np.array([[1 - 2j, -0.5j], [3 + 1j, 4.0]]))
    real = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_allclose(ops.adjoint(real).asnumpy(), np.arange(6, dtype=np.float32).reshape(2, 3).T)


def test_reduce_sum_takes_its_axis_as_a_tensor():
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    out = ops.ReduceSum()(x, ms.Tensor([0, 2]))
    np.testing.assert_allclose(out.asnumpy(), np.arange(24, dtype=np.float32).reshape(2, 3, 4).sum(axis=(0, 2)))
