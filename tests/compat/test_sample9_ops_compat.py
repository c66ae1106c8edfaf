"""MindSpore 2.10 behaviour found by a ninth sample of its CPU tests (st/ops/cpu, st/ops/dynamic_shape,
st/pynative, st/ops/graph_kernel): IndexAdd on a Parameter differentiates as the sum it is, GatherD takes a Tensor
`dim` and indices counted from the end, and a full ReduceProd rounds as one row-major product. Every expected value
and error here was read off MindSpore 2.10 run as a black box."""
import numpy as np
import pytest

import openspore as ms
from openspore import Parameter, ParameterTuple, Tensor, nn, ops
from openspore.ops import operations as P


class _IndexAddNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.x = Parameter(Tensor(np.arange(15).reshape(5, 3).astype(np.float32)), name="x")
        self.op = ops.IndexAdd(1)

    def construct(self, idx, y):
        return self.op(self.x, idx, y)


def test_index_add_on_a_parameter_passes_the_gradient_to_y():
    net = _IndexAddNet()
    grad = ops.GradOperation(get_all=True, sens_param=True, get_by_list=True)(net, ParameterTuple(
        net.trainable_params()))
    dout = Tensor(np.arange(15).reshape(5, 3).astype(np.float32))
    (d_idx, d_y), (d_x,) = grad(Tensor(np.array([1]), ms.int32), Tensor(np.ones((5, 1), np.float32)), dout)
    # MindSpore 2.10: d/dy = dout gathered at the index (column 1), d/dx = dout
    np.testing.assert_array_equal(d_y.asnumpy(), [[1.], [4.], [7.], [10.], [13.]])
    np.testing.assert_array_equal(d_x.asnumpy(), dout.asnumpy())
    np.testing.assert_array_equal(d_idx.asnumpy(), [0])


def test_index_add_still_writes_its_parameter():
    net = _IndexAddNet()
    out = net(Tensor(np.array([0, 2]), ms.int32), Tensor(np.ones((5, 2), np.float32)))
    expected = np.arange(15).reshape(5, 3).astype(np.float32)
    expected[:, [0, 2]] += 1
    np.testing.assert_array_equal(out.asnumpy(), expected)
    np.testing.assert_array_equal(net.x.asnumpy(), expected)


_X = Tensor(np.array([[1, 2, 3], [4, 5, 6]]), ms.int32)
_NEG = Tensor(np.array([[0, -1, 1], [-2, 0, 2]]), ms.int32)


@pytest.mark.parametrize("dim", [1, Tensor([1], ms.int64), Tensor(1, ms.int64)])
def test_gather_d_counts_negative_indices_from_the_end(dim):
    np.testing.assert_array_equal(P.GatherD()(_X, dim, _NEG).asnumpy(), [[1, 3, 2], [5, 4, 6]])


def test_gather_elements_with_negative_indices():
    np.testing.assert_array_equal(ops.gather_elements(_X, 1, _NEG).asnumpy(), [[1, 3, 2], [5, 4, 6]])


def test_gather_d_index_out_of_range_message():
    with pytest.raises(RuntimeError, match=r"For 'GatherD', the value of 'index' must be in \[-3, 3\), but got: -4"):
        P.GatherD()(_X, 1, Tensor(np.array([[0, -4, 1], [-2, 0, 2]]), ms.int32)).asnumpy()  # MindSpore raises at sync


def test_gather_d_gradient_with_negative_indices():
    grad = ops.grad(lambda a: ops.gather_elements(a, 1, _NEG).sum())(Tensor(np.arange(6).reshape(2, 3), ms.float32))
    np.testing.assert_array_equal(grad.asnumpy(), np.ones((2, 3), np.float32))


def test_reduce_prod_over_all_axes_rounds_as_one_product():
    x = np.repeat(np.arange(1, 10, dtype=np.float32).reshape(3, 3, 1), 6, axis=2)
    out = P.ReduceProd(True)(Tensor(x), ())
    assert out.shape == (1, 1, 1)
    # MindSpore 2.10 gives exactly this float32 (an axis-by-axis product is one ulp away)
    assert out.asnumpy().item() == 2.2833797834918643e+33
    np.testing.assert_array_equal(P.ReduceProd()(Tensor(x), (0, 1)).asnumpy(), np.full((6,), 362880, np.float32))


class _RowTensorLoop(nn.Cell):
    @ms.jit
    def construct(self, a, b, indices, values):
        x = ms.RowTensor(indices, values, (5, 2))
        while a > b:
            x = ms.RowTensor(x.indices, x.values * 2, x.dense_shape)
            b = b + 1
        return x.indices, x.values, x.dense_shape


def test_a_row_tensor_is_carried_through_a_while_loop_in_a_graph():
    indices = Tensor(np.array([0, 2]), ms.int32)
    out = _RowTensorLoop()(Tensor(3, ms.int32), Tensor(0, ms.int32), indices, Tensor(np.ones((2, 2), np.float32)))
    np.testing.assert_array_equal(out[0].asnumpy(), [0, 2])
    np.testing.assert_array_equal(out[1].asnumpy(), np.full((2, 2), 8, np.float32))
    assert out[2] == (5, 2)


def test_operations_submodules_are_attributes_of_operations():
    # `P.array_ops.IndexFill()` without importing array_ops first, as MindSpore's dynamic-shape tests write it
    assert P.array_ops.IndexFill is ops.IndexFill
    x = Tensor(np.zeros((2, 3), np.float32))
    out = P.array_ops.IndexFill()(x, 1, Tensor(np.array([0, 2]), ms.int32), Tensor(-1.0, ms.float32))
    np.testing.assert_array_equal(out.asnumpy(), [[-1, 0, -1], [-1, 0, -1]])


def test_strided_slice_takes_begin_end_strides_as_int_tensors():
    x = Tensor(np.arange(210).reshape(5, 6, 7).astype(np.float32))
    bounds = [Tensor(np.array(v, np.int32)) for v in ([0, 1, 2], [4, 5, 6], [1, 1, 2])]
    out = ops.StridedSlice()(x, *bounds)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy()[0:4, 1:5, 2:6:2])
    grad = ops.grad(lambda t: ops.StridedSlice()(t, *bounds).sum() * 2)(x)
    assert float(grad.sum().asnumpy()) == 64.0  # 2 for each of the 4*4*2 elements taken


@pytest.mark.parametrize("expr, dtype, values", [
    (lambda: Tensor(np.array([1, -2, 100], np.int8)) + 300, ms.int8, [45, 42, -112]),   # 300 is cast to int8: 44
    (lambda: Tensor(np.array([1, -2, 100], np.int8)) * 1000, ms.int8, [-24, 48, -96]),
    (lambda: Tensor(np.array([1, 2, 250], np.uint8)) + 256, ms.uint8, [1, 2, 250]),
    (lambda: Tensor(np.array([1, 2, 250], np.uint8)) + 10, ms.uint8, [11, 12, 4]),
])
def test_python_ints_wrap_into_a_narrow_integer_tensor(expr, dtype, values):
    out = expr()
    assert out.dtype == dtype
    assert out.asnumpy().tolist() == values


_I32 = Tensor(np.array([[1, -2, 3], [4, 5, -6]], np.int32))


@pytest.mark.parametrize("expr, dtype, values", [
    (lambda: ops.clamp(_I32, 0.5, 2.5), ms.float32, [1.0, 0.5, 2.5, 2.5, 2.5, 0.5]),
    (lambda: ops.clamp(_I32, 0, 2), ms.int32, [1, 0, 2, 2, 2, 0]),
    (lambda: ops.clamp(_I32, None, 2.5), ms.float32, [1.0, -2.0, 2.5, 2.5, 2.5, -6.0]),
    (lambda: _I32.clamp(0.5, 2.5), ms.float32, [1.0, 0.5, 2.5, 2.5, 2.5, 0.5]),
    (lambda: ops.clamp(Tensor(np.array([1, -2, 3], np.float16)), Tensor(0.5, ms.float32)), ms.float32, [1.0, 0.5, 3.0]),
    (lambda: ops.clamp(Tensor(np.array([1, -2, 3], np.int8)), 1), ms.int8, [1, 1, 3]),
    (lambda: ops.clip_by_value(_I32, 0.5, 2.5), ms.int32, [1, 0, 2, 2, 2, 0]),   # clip_by_value keeps x's dtype
])
def test_clamp_promotes_with_its_bounds(expr, dtype, values):
    out = expr()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy().ravel(), values)


@pytest.mark.parametrize("np_dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_neg_of_unsigned_wraps_around(np_dtype):
    x = Tensor(np.array([0, 1, 200], np_dtype))
    expected = [0, np.iinfo(np_dtype).max, np.iinfo(np_dtype).max - 199]
    assert P.Neg()(x).asnumpy().tolist() == expected
    assert (-x).asnumpy().tolist() == expected


def test_xlogy_is_computed_as_written():
    x = Tensor(np.array([0, 0, 0, 0, 1, 2, 0], np.float32))
    y = Tensor(np.array([0, -1, np.nan, 2, -1, 0, np.inf], np.float32))
    np.testing.assert_array_equal(ops.xlogy(x, y).asnumpy(), [np.nan, np.nan, np.nan, 0, np.nan, -np.inf, np.nan])


_BOOLS = Tensor(np.array([[True, False, True], [False, False, True]]))


@pytest.mark.parametrize("expr, dtype, values", [
    (lambda: P.ReduceSum()(_BOOLS, 1), ms.bool_, [True, True]),       # the primitive does not count booleans
    (lambda: P.ReduceSum()(_BOOLS), ms.bool_, [True]),
    (lambda: ops.reduce_sum(_BOOLS, 1), ms.bool_, [True, True]),       # ops.reduce_sum is that primitive
    (lambda: ops.reduce_sum(Tensor(np.array([1, 2], np.int8)), 0), ms.int8, [3]),
    (lambda: ops.sum(_BOOLS, 1), ms.int64, [2, 1]),                    # ops.sum / Tensor.sum count
    (lambda: _BOOLS.sum(), ms.int64, [3]),
])
def test_reduce_sum_primitive_keeps_the_dtype_and_sum_counts(expr, dtype, values):
    out = expr()
    assert out.dtype == dtype
    assert out.asnumpy().ravel().tolist() == values
