"""Behaviours a thirteenth sample of MindSpore's own CPU tests needed (st/gradient, st/dynamic_shape, st/hook,
st/auto_monad, st/probability, ut/python/metrics, ut/python/optimizer, ut/python/exec, ut/python/ir,
ut/python/parameter_feature, ut/python/utils, ut/python/common), each checked on MindSpore 2.10 (CPU):
a Parameter returned as an output keeps its own gradient (d w / d w = 1) in `grad`, `vjp` and a GRAPH_MODE cell;
`GradOperation(get_by_list=True)` without weights; `jacrev`/`jacfwd` under `@jit`; `jet`/`derivative` with a
tuple of primals; `SparseSoftmaxCrossEntropyWithLogits` on logits of rank > 2; `Reshape` of a dynamic-shape
(Unique) result in a graph; a second derivative by nested GradOperation cells in GRAPH_MODE; the TypeErrors
of `BleuScore` and `ROC` for arguments of the wrong type; GRAPH_MODE's TypeError for a custom bprop that
returns a single value, and what `check_bprop` (and PyNative without it) does with a bprop's gradients."""
import numpy as np
import pytest

import openspore as ms
from openspore import Parameter, ParameterTuple, Tensor, nn, ops
from openspore.ops import operations as P
from openspore.train.metrics import ROC, BleuScore

BOTH_MODES = pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])


class _ReturnsItsWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 2.0], np.float32)), name="w")
        self.z = Parameter(Tensor(np.array([3.0, 3.0], np.float32)), name="z")

    def construct(self, x):
        return x * self.w * self.z, x, self.w


@BOTH_MODES
def test_a_parameter_returned_as_an_output_keeps_its_gradient(mode):
    ms.set_context(mode=mode)
    net = _ReturnsItsWeight()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    dx, (dw, dz) = ops.grad(net, 0, ParameterTuple(net.trainable_params()))(x)
    # outputs summed: d/dx = w*z + 1, d/dw = x*z + 1 (the returned w itself), d/dz = x*w
    assert dx.asnumpy().tolist() == [7.0, 7.0]
    assert dw.asnumpy().tolist() == [4.0, 7.0]
    assert dz.asnumpy().tolist() == [2.0, 4.0]


def test_vjp_of_a_function_returning_a_weight():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    w = Parameter(Tensor(np.array([2.0, 2.0], np.float32)), name="w_vjp")
    ones = Tensor(np.ones(2, np.float32))
    _, vjp_fn = ms.vjp(lambda x: (x * w, w), Tensor(np.array([1.0, 2.0], np.float32)), weights=[w])
    (dx,), (dw,) = vjp_fn(ones, ones)
    assert dx.asnumpy().tolist() == [2.0, 2.0]
    assert dw.asnumpy().tolist() == [2.0, 3.0]


class _OnlyItsWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([5.0], np.float32)), name="w")

    def construct(self, x):
        return self.w


def test_grad_operation_by_list_without_weights():
    x = Tensor(np.array([2.0], np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (dw,) = ops.GradOperation(get_by_list=True)(_OnlyItsWeight())(x)
    assert dw.asnumpy().tolist() == [1.0]
    (dx,), (dw,) = ops.GradOperation(get_all=True, get_by_list=True)(_OnlyItsWeight())(x)
    assert (dx.asnumpy().tolist(), dw.asnumpy().tolist()) == ([0.0], [1.0])
    assert ops.GradOperation(get_by_list=True)(lambda t: t * 2)(x) == ()
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ops.GradOperation(get_by_list=True)(_OnlyItsWeight())(x) == ()


def _squares_and_product(x, y):
    return x ** 2 + y ** 2, x * y


@ms.jit
def _jacobians_compiled(x, y):
    return ops.jacrev(_squares_and_product, has_aux=True)(x, y), ops.jacfwd(_squares_and_product, has_aux=True)(x, y)


def test_jacrev_and_jacfwd_under_jit():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    for jac, aux in _jacobians_compiled(x, y):
        assert jac.asnumpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]
        assert aux.asnumpy().tolist() == [3.0, 8.0]


class _SinTimesCos(nn.Cell):
    def construct(self, x, y):
        return ops.sin(x) * ops.cos(y)


def test_jet_and_derivative_take_a_tuple_of_primals():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    one = Tensor(np.array([1.0], np.float32))
    series = Tensor(np.array([[1.0], [0.0]], np.float32))
    out, out_series = ops.jet(_SinTimesCos(), (one, one), (series, series))
    # h(t) = sin(1 + t) cos(1 + t) = sin(2 + 2t) / 2: h' = cos(2 + 2t), h'' = -2 sin(2 + 2t), at t = 0
    assert np.allclose(out.asnumpy(), [np.sin(2.0) / 2], atol=1e-5)
    assert np.allclose(out_series.asnumpy(), [[np.cos(2.0)], [-2 * np.sin(2.0)]], atol=1e-4)
    out, second = ops.derivative(_SinTimesCos(), (one, one), 2)
    assert np.allclose(second.asnumpy(), [-2 * np.sin(2.0)], atol=1e-4)


def _sparse_loss(logits, labels):
    return ops.SparseSoftmaxCrossEntropyWithLogits()(logits, labels)


@BOTH_MODES
def test_sparse_softmax_cross_entropy_on_rank_4_logits(mode):
    ms.set_context(mode=mode)
    logits = Tensor(np.arange(27, dtype=np.float32).reshape(1, 3, 3, 3) / 10)
    labels = Tensor(np.array([[[0, 1, 2], [2, 1, 0], [1, 1, 1]]], np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    assert np.allclose(loss(logits, labels).asnumpy(), 1.1019429, atol=1e-5)
    grads = ops.grad(_sparse_loss)(logits, labels)
    # (softmax - one_hot) / rows, rows = 9 leading positions
    assert grads.shape == (1, 3, 3, 3)
    assert np.allclose(grads.asnumpy().reshape(-1)[:3], [-0.07771005, 0.03691389, 0.04079616], atol=1e-5)
    with pytest.raises(ValueError):
        ops.SparseSoftmaxCrossEntropyWithLogits()(logits, Tensor(np.zeros((1, 3), np.int32)))


class _UniqueReshapeConcat(nn.Cell):
    def __init__(self):
        super().__init__()
        self.unique = P.Unique()
        self.concat = P.Concat(axis=1)

    def construct(self, x1, x2):
        a, _ = self.unique(x1)
        b, _ = self.unique(x2)
        return self.concat((P.Reshape()(a, (1, -1, 2)), P.Reshape()(b, (1, -1, 2))))


def test_reshape_of_a_dynamic_shape_result_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    out = _UniqueReshapeConcat()(Tensor(np.array([1, 2, 3, 1, 4, 2], np.int32)),
                                 Tensor(np.array([1, 2, 3, 4, 5, 6], np.int32)))
    assert out.asnumpy().tolist() == [[[1, 2], [3, 4], [1, 2], [3, 4], [5, 6]]]


class _Sin(nn.Cell):
    def construct(self, x):
        return ops.sin(x)


class _GradOf(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation()

    def construct(self, x):
        return self.grad(self.net)(x)


@BOTH_MODES
def test_nested_grad_operation_cells_give_higher_derivatives(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.array([1.0], np.float32))
    assert np.allclose(_GradOf(_GradOf(_Sin()))(x).asnumpy(), [-np.sin(1.0)], atol=1e-6)
    assert np.allclose(_GradOf(_GradOf(_GradOf(_Sin())))(x).asnumpy(), [-np.cos(1.0)], atol=1e-6)


def test_metric_argument_types_raise_type_error():
    with pytest.raises(TypeError, match="The type of 'n_gram' should be 'int', but got type 'str'"):
        BleuScore(n_gram="3")
    with pytest.raises(TypeError, match="The type of 'smooth' should be 'bool', but got type 'int'"):
        BleuScore(smooth=5)
    with pytest.raises(ValueError, match="'n_gram' should range from 1 to 4"):
        BleuScore(n_gram=5)
    with pytest.raises(TypeError, match="The type of 'pos_label' should be 'int', but got type 'float'"):
        ROC(pos_label=1.2)
    with pytest.raises(TypeError, match="The type of 'class_num' should be 'int', but got type 'str'"):
        ROC(class_num="class_num")
    with pytest.raises(TypeError, match="'class_num' should be 'int', but got type 'bool'"):
        ROC(class_num=True)


class _BareBprop(nn.Cell):
    def construct(self, x):
        return x * 3

    def bprop(self, x, out, dout):
        return dout * 5


def test_a_custom_bprop_returning_one_value_is_refused_in_graph_mode_only():
    x = Tensor(np.array([1.0], np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (dx,) = ops.GradOperation(get_all=True)(_BareBprop())(x)
    assert dx.asnumpy().tolist() == [5.0]
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="For bprop function, output should be a tuple"):
        ops.GradOperation(get_all=True)(_BareBprop())(x)


class _FixedBprop(nn.Cell):
    def __init__(self, gradient):
        super().__init__()
        self.gradient = gradient

    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (self.gradient * 3,)


@BOTH_MODES
def test_check_bprop_compares_shapes_and_dtypes(mode):
    x = Tensor(np.ones((2, 3), np.float32))
    ms.set_context(mode=mode, check_bprop=True)
    try:
        with pytest.raises(ValueError, match="should have the same shape as the 0th argument"):
            ops.GradOperation(get_all=True)(_FixedBprop(Tensor(np.ones((2, 2), np.float32))))(x)
        with pytest.raises(TypeError, match="should have the same dtype as the 0th argument"):
            ops.GradOperation(get_all=True)(_FixedBprop(Tensor(np.ones((2, 3), np.float16))))(x)
        (dx,) = ops.GradOperation(get_all=True)(_FixedBprop(Tensor(np.ones((2, 3), np.float32))))(x)
        assert dx.asnumpy().tolist() == [[3.0] * 3] * 2
    finally:
        ms.set_context(check_bprop=False)


def test_pynative_bprop_without_check_casts_and_refuses_other_shapes():
    x = Tensor(np.ones((2, 3), np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE, check_bprop=False)
    (dx,) = ops.GradOperation(get_all=True)(_FixedBprop(Tensor(np.ones((2, 3), np.float16))))(x)
    assert dx.dtype == ms.float32
    with pytest.raises(RuntimeError):
        ops.GradOperation(get_all=True)(_FixedBprop(Tensor(np.ones((2, 2), np.float32))))(x)
