"""Behaviours a ninth sample of MindSpore's own unit tests (tests/ut/python) relies on, each value checked on
MindSpore 2.10: Tensor.flatten's arguments, MultitypeFuncGraph's overload resolution, `ops.composite.base`,
parameter redundancy of a sharded layout, CentralCrop/PSNR/Perplexity argument errors, a Cell whose __init__ skipped
super().__init__(), and the backward of a Python primitive with (or without) `get_bprop`."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn
from openspore.ops import composite as C
from openspore.ops import stop_gradient
from openspore.ops.primitive import PrimitiveWithInfer, prim_attr_register
from openspore.train._utils import get_parameter_redundancy, remove_param_redundancy
from openspore.train.metrics import Perplexity


def test_tensor_flatten_reads_positional_ints_as_dims_and_wants_a_str_order():
    x = Tensor(np.ones((2, 3, 4), np.float32))
    assert x.flatten(1).shape == (2, 12) and x.flatten(start_dim=1).shape == (2, 12)
    assert x.flatten().shape == (24,) and x.flatten("F").shape == (24,)
    with pytest.raises(TypeError):
        x.flatten(order=123)
    with pytest.raises(ValueError, match="'order' must be 'C' or 'F', but got 'X'"):
        x.flatten("X")
    with pytest.raises(ValueError):
        x.flatten(123)


class _FlattenOrder(nn.Cell):
    def __init__(self, order):
        super().__init__()
        self.order = order
        self.value = Tensor(np.ones((2, 3), np.float32))

    def construct(self):
        return self.value.flatten(order=self.order)


def test_graph_flatten_order_errors(graph_mode):
    assert _FlattenOrder("F")().shape == (6,)
    with pytest.raises(TypeError):
        _FlattenOrder(123)()
    with pytest.raises(ValueError):
        _FlattenOrder("X")()


def _two_overloads():
    f = C.MultitypeFuncGraph("f")

    @f.register("Int32", "Int32")
    def _(x, y):
        return ("int", x + y)

    @f.register("Float32", "Float32")
    def _(x, y):
        return ("float", x + y)
    return f


def test_multitype_func_graph_resolution():
    only = C.MultitypeFuncGraph("only")
    only.register("Float32", "Float32")(lambda x, y: x + y)
    assert only(1, 2) == 3  # MindSpore 2.10: the only overload of that arity takes any arguments
    f = _two_overloads()
    with pytest.raises(ValueError, match="cannot find fn match"):
        f("a", "b")
    with pytest.raises(RuntimeError, match="Unsupported type name: Foo"):
        f.register("Foo")(lambda x: x)


def test_composite_base_path():
    from openspore.ops.composite import base
    from openspore.ops.composite.base import GradOperation, MultitypeFuncGraph
    assert base.GradOperation is GradOperation is C.GradOperation and MultitypeFuncGraph is C.MultitypeFuncGraph


LAYOUTS = {"w": ([2, 2, 2], [2, -1], [4, 4], 0, True, ""), "v": ([2, 2, 2], [1, 0], [4, 4], 0, True, ""),
           "u": ([8], [-1], [4], 0, True, ""), "b": ([2, 3, 2], [1, 2], [4, 4], 0, True, "")}


def test_parameter_redundancy_groups_and_savers():
    groups = get_parameter_redundancy(LAYOUTS)
    assert list(groups) == ["b", "u", "v", "w"]
    assert groups["u"] == ((0, 1, 2, 3, 4, 5, 6, 7),)
    assert groups["v"] == ((0, 4), (2, 6), (1, 5), (3, 7))
    assert groups["w"] == ((0, 1, 2, 3), (4, 5, 6, 7))
    assert groups["b"] == ((0, 1), (6, 7), (2, 3), (8, 9), (4, 5), (10, 11))
    assert get_parameter_redundancy({"w": LAYOUTS["w"]}, initial_rank=16)["w"] == ((16, 17, 18, 19),
                                                                                   (20, 21, 22, 23))
    uvw = {k: groups[k] for k in "uvw"}
    assert remove_param_redundancy(uvw) == {0: {"u", "v", "w"}, 2: {"v"}, 1: {"v"}, 3: {"v"}, 4: {"w"}}
    assert list(remove_param_redundancy(uvw)) == [0, 2, 1, 3, 4]
    same = {"p": ((0, 2), (1, 3)), "q": ((0, 2), (1, 3)), "r": ((0, 2), (1, 3))}
    assert remove_param_redundancy(same) == {0: {"p", "r"}, 1: {"p", "r"}, 2: {"q"}, 3: {"q"}}
    assert remove_param_redundancy({"p": ((0, 1, 2),)}, keep_redundancy=2) == {0: {"p"}, 1: {"p"}}


def test_central_crop_argument_and_rank_errors():
    with pytest.raises(TypeError, match="'central_fraction' should be 'float', but got type 'bool'"):
        nn.CentralCrop(True)
    with pytest.raises(TypeError, match="but got type 'int'"):
        nn.CentralCrop(1)
    with pytest.raises(ValueError, match=r"range of \(0.0, 1.0\]"):
        nn.CentralCrop(1.5)
    with pytest.raises(ValueError, match="must be 3d or 4d"):
        nn.CentralCrop(0.5)(Tensor(np.ones((2, 3, 8, 8, 1), np.float32)))
    assert nn.CentralCrop(0.5)(Tensor(np.ones((3, 8, 8), np.float32))).shape == (3, 4, 4)
    assert nn.CentralCrop(0.3)(Tensor(np.ones((1, 3, 10, 10), np.float32))).shape == (1, 3, 4, 4)


def test_psnr_argument_and_input_errors():
    with pytest.raises(TypeError, match="'max_val' should be one of"):
        nn.PSNR(True)
    with pytest.raises(ValueError, match="'max_val' must > 0.0, but got 0"):
        nn.PSNR(0)
    img = Tensor(np.ones((1, 3, 4, 4)), ms.float32)
    with pytest.raises(TypeError, match="dtype"):
        nn.PSNR()(img, Tensor(np.ones((1, 3, 4, 4)), ms.float16))
    with pytest.raises(ValueError, match="shape"):
        nn.PSNR()(img, Tensor(np.ones((1, 3, 2, 2)), ms.float32))
    with pytest.raises(ValueError, match="'img1' must be 4d, but got 5"):
        nn.PSNR()(Tensor(np.ones((1, 3, 4, 4, 1)), ms.float32), img)


@pytest.mark.parametrize("label", ["abc", 1.5, True])
def test_perplexity_ignore_label_type(label):
    with pytest.raises(TypeError, match="The type of 'ignore_label' should be 'int'"):
        Perplexity(ignore_label=label)


def test_cell_without_super_init_says_so(graph_mode):
    class InitNoSuper(nn.Cell):
        def __init__(self):
            self.a = 1

        def construct(self):
            return self.a

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        InitNoSuper()()


class _Pass(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self):
        """A primitive whose forward is its own __call__."""

    def __call__(self, x, y):
        return x, y

    def infer_shape(self, x_shape, y_shape):
        return x_shape, y_shape

    def infer_dtype(self, x_type, y_type):
        return x_type, y_type


class _PassScaled(_Pass):
    def get_bprop(self):
        def bprop(x, y, out, dout):
            return dout[0] * 2, dout[1] * 3
        return bprop


class _UsePrim(nn.Cell):
    def __init__(self, prim, stop):
        super().__init__()
        self.prim, self.stop = prim, stop

    def construct(self, x, y):
        a, b = self.prim(x, y)
        if self.stop:
            a = stop_gradient(a)
            b = stop_gradient(b)
        return a, b


@pytest.mark.parametrize("prim, stop, expected", [(_PassScaled(), False, ([2.0, 2.0], [3.0, 3.0])),
                                                  (_Pass(), True, ([0.0, 0.0], [0.0, 0.0]))])
def test_python_primitive_backward_uses_get_bprop(prim, stop, expected):
    x = Tensor(np.ones([2], np.float32))
    net = _UsePrim(prim, stop)

    @ms.jit
    def grads(a, b):
        return C.GradOperation(get_all=True)(net)(a, b)

    dx, dy = grads(x, x)
    assert (dx.asnumpy().tolist(), dy.asnumpy().tolist()) == expected


def test_python_primitive_without_bprop_cannot_be_differentiated():
    x = Tensor(np.ones([2], np.float32))
    net = _UsePrim(_Pass(), False)

    @ms.jit
    def grads(a, b):
        return C.GradOperation(get_all=True)(net)(a, b)

    with pytest.raises(RuntimeError, match="Primitive _Pass's bprop not defined"):
        grads(x, x)


def test_dice_divides_by_the_number_of_samples():
    from openspore.train.metrics import Dice
    x, y = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([[0, 1], [1, 0], [0, 1]])
    metric = Dice()
    metric.update(x, y)
    assert metric.eval() == pytest.approx(0.20467791371802546)
    metric.update(x, y)
    assert metric.eval() == pytest.approx(0.20467791371802546)
    metric = Dice()
    metric.update(np.array([1, 0, 1.0]), np.array([1, 1, 0.0]))
    assert metric.eval() == pytest.approx(0.16666625000104168)


def test_roc_same_shape_inputs_are_binary_and_keep_the_score_dtype():
    from openspore.train.metrics import ROC, auc
    metric = ROC(pos_label=1)
    metric.update(np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]]), np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]]))
    fpr, tpr, thresholds = metric.eval()
    np.testing.assert_allclose(fpr, [0, 0.4, 0.4, 0.6, 1])
    np.testing.assert_allclose(tpr, [0, 0, 0.25, 0.75, 1])
    assert thresholds.tolist() == [4, 3, 2, 1, 0] and thresholds.dtype.kind == "i"
    assert auc(fpr, tpr) == pytest.approx(0.45)
    with pytest.raises(ValueError, match="must have same dimensions"):
        ROC(pos_label=1).update(np.array([3, 1, 4, 2]), np.array([[0, 1], [2, 3]]))


def test_confusion_matrix_argument_types():
    from openspore.train.metrics import ConfusionMatrix
    with pytest.raises(TypeError, match="The type of 'num_classes' should be 'int', but got type 'str'"):
        ConfusionMatrix(num_classes="1")
    with pytest.raises(TypeError, match="'threshold' should be 'float', but got type 'int'"):
        ConfusionMatrix(2, "no_norm", threshold=1)
    assert ConfusionMatrix(2, "no_norm", threshold=0.5).threshold == 0.5


class _DeadInsideLoop(nn.Cell):
    def construct(self, x, n):
        y = x
        out = x
        while x < n:
            y = ms.ops.ones((1,), ms.float32)  # noqa: F841  (a new kind, dead: never read after this)
            out = out + 1
            x = x + 1
        return out


class _LiveAfterLoop(nn.Cell):
    def construct(self, x, n):
        y = x
        while x < n:
            y = ms.ops.ones((1,), ms.float32)
            x = x + 1
        return y


def test_graph_while_drops_a_variable_whose_incoming_value_is_dead(graph_mode):
    x, n = Tensor(0, ms.int32), Tensor(3, ms.int32)
    assert int(_DeadInsideLoop()(x, n)) == 3
    with pytest.raises(TypeError):  # read after the loop: its kinds must join, and they do not
        _LiveAfterLoop()(x, n)
