"""Behaviours a fourteenth sample of MindSpore's CPU op tests (st/ops/cpu and st/ops/dynamic_shape/grad) needed, each
checked on MindSpore 2.10 (CPU) first: `ApproximateEqual`'s argument checks and its place in
`ops.function.math_func`, `common.api._pynative_executor`, float16 Bessel functions, `ConcatOffsetV1`, and `Renorm`
of complex tensors. The file also passes on MindSpore 2.10 with the import renamed."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, ops

BOTH_MODES = pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])


def test_approximate_equal_is_a_math_func_name():
    from openspore.ops.function.math_func import approximate_equal
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    y = Tensor(np.array([2.0, 4.0, 6.0], np.float32))
    assert approximate_equal(x, y, 2.0).asnumpy().tolist() == [True, False, False]


@pytest.mark.parametrize("tolerance", ["str", 1, True])
def test_approximate_equal_takes_only_a_float_tolerance_at_construction(tolerance):
    with pytest.raises(TypeError, match="the type of 'tolerance' should be 'float'"):
        ops.ApproximateEqual(tolerance)


@BOTH_MODES
def test_approximate_equal_refuses_other_shapes_and_rank_eight(mode):
    ms.set_context(mode=mode)
    with pytest.raises(RuntimeError, match="'x1' must have the same shape as 'x2'"):
        ops.ApproximateEqual(0.5)(Tensor(np.zeros((8, 6), np.float32)), Tensor(np.zeros((7, 6), np.float32)))
    big = Tensor(np.zeros([2] * 8, np.float32))
    with pytest.raises(RuntimeError, match="the x's rank should be less than 8"):
        ops.ApproximateEqual(0.5)(big, big)
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_approximate_equal_takes_floats_only_and_mixes_their_widths():
    with pytest.raises(TypeError, match="ApproximateEqual"):
        ops.approximate_equal(Tensor(np.array([1, 2])), Tensor(np.array([1, 3])), 2.0)
    x1 = Tensor(np.array([1, 2, 3], np.float16))
    x2 = Tensor(np.array([2, 4, 6], np.float32))
    assert ops.approximate_equal(x1, x2, 2.0).asnumpy().tolist() == [True, False, False]


def test_pynative_executor_sync_is_there():
    from openspore.common.api import _pynative_executor
    out = ops.add(Tensor(np.ones(3, np.float32)), 1.0)
    _pynative_executor.sync()
    assert out.asnumpy().tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name, x, expect", [
    ("bessel_j0", [0.5, 1.0, 2.0, 4.0], [0.9384698, 0.7651977, 0.22389078, -0.3971498]),
    ("bessel_j1", [0.5, 1.0, 2.0, 4.0], [0.24226846, 0.44005057, 0.5767248, -0.06604332]),
    ("bessel_k0", [0.5, 1.0, 2.0, 4.0], [0.92441905, 0.42102444, 0.11389387, 0.01115968]),
    ("bessel_k0e", [0.5, 1.0, 2.0, 4.0], [1.5241094, 1.1444631, 0.84156823, 0.6092977]),
    ("bessel_k1", [0.5, 1.0, 2.0, 4.0], [1.656441, 0.6019072, 0.13986588, 0.01248350]),
    ("bessel_k1e", [0.5, 1.0, 2.0, 4.0], [2.7310097, 1.6361535, 1.0334768, 0.68157595]),
    ("bessel_y0", [0.5, 1.0, 2.0, 4.0], [-0.44451874, 0.08825696, 0.51037567, -0.01694074]),
    ("bessel_y1", [0.5, 1.0, 2.0, 4.0], [-1.47147239, -0.78121282, -0.10703243, 0.39792571]),
])
def test_bessel_functions_take_float16(name, x, expect):
    out = getattr(ops, name)(Tensor(np.array(x, np.float16)))
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), expect, rtol=2e-3, atol=2e-3)


@BOTH_MODES
def test_concat_offset_v1_gives_each_input_its_offset(mode):
    from openspore.ops.operations.array_ops import ConcatOffsetV1
    ms.set_context(mode=mode)
    shapes = [Tensor(np.array(s, np.int32)) for s in ([1, 2, 3], [1, 5, 3], [1, 4, 3])]

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = ConcatOffsetV1()

        def construct(self, axis, x, y, z):
            return self.op(axis, (x, y, z))

    out = Net()(Tensor(1, ms.int32), *shapes)
    assert isinstance(out, tuple) and all(t.dtype == ms.int32 for t in out)
    assert [t.asnumpy().tolist() for t in out] == [[0, 0, 0], [0, 2, 0], [0, 7, 0]]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = ConcatOffsetV1()(Tensor(-3, ms.int32), (shapes[0], Tensor(np.array([4, 2, 3], np.int32))))
    assert [t.asnumpy().tolist() for t in out] == [[0, 0, 0], [1, 0, 0]]


def test_concat_offset_v1_refusals():
    from openspore.ops.operations.array_ops import ConcatOffsetV1
    a, b = Tensor(np.array([1, 2, 3], np.int32)), Tensor(np.array([1, 5, 3], np.int32))
    with pytest.raises(TypeError, match="axis"):
        ConcatOffsetV1()(1, (a, b))
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        ConcatOffsetV1()(Tensor(1, ms.int32), (a,))
    with pytest.raises(TypeError, match="Int32"):
        ConcatOffsetV1()(Tensor(1, ms.int32), (Tensor(np.array([1, 2, 3])), Tensor(np.array([1, 5, 3]))))


@pytest.mark.parametrize("np_dtype, ms_dtype", [(np.complex64, ms.complex64), (np.complex128, ms.complex128)])
def test_renorm_measures_complex_slices_by_their_moduli(np_dtype, ms_dtype):
    x = Tensor(np.array([[1 + 2j, 2 + 3j], [3 + 4j, 4 + 5j]]).astype(np_dtype))
    out = ops.Renorm(2, 1, 5.0)(x)
    assert out.dtype == ms_dtype
    np.testing.assert_allclose(out.asnumpy(), [[0.91287093 + 1.82574186j, 1.36082763 + 2.04124145j],
                                               [2.73861279 + 3.65148372j, 2.72165527 + 3.40206909j]], rtol=1e-6)
    np.testing.assert_allclose(ops.Renorm(1, 1, 5.0)(x).asnumpy(),
                               [[0.690983 + 1.381966j, 0.9991332 + 1.4986998j],
                                [2.0729492 + 2.763932j, 1.9982665 + 2.497833j]], rtol=1e-5)


@BOTH_MODES
def test_ctc_greedy_decoder_sequence_lengths_zero_and_past_max_time(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.array([[[1.0, 0.5, 0.2], [0.1, 2.0, 0.3]], [[0.2, 0.1, 3.0], [1.5, 0.2, 0.1]]], np.float32))
    with pytest.raises(RuntimeError, match=r"sequence_length\[1\] 3 should be less than 2"):
        ops.CTCGreedyDecoder()(x, Tensor(np.array([2, 3], np.int32)))
    indices, values, shape, log_prob = ops.CTCGreedyDecoder()(x, Tensor(np.array([0, 0], np.int32)))
    assert indices.shape == (0, 2) and values.shape == (0,)
    assert shape.asnumpy().tolist() == [2, 0] and log_prob.asnumpy().tolist() == [[0.0], [0.0]]
    ms.set_context(mode=ms.PYNATIVE_MODE)
