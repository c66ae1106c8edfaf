"""Primitive dtype rules a twelfth sample needed, each checked on MindSpore 2.10 (CPU): `RealDiv` keeps integer
dtypes and truncates toward zero while `Div`, `ops.div` and `/` stay true division; the input dtypes
`ReduceMean`, `Minimum`, `ReLU6` and `Exp` reject; `Range`'s int64/float32 outputs; and graph-mode
`raise Exception(...)` surfacing as a RuntimeError."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, ops
from openspore.ops import operations as P

BOTH_MODES = pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])


def _values(t):
    return t.dtype, t.asnumpy().tolist()


@ms.jit
def _real_div_compiled(x, y):
    return P.RealDiv()(x, y)


@BOTH_MODES
def test_real_div_keeps_integer_dtypes_and_truncates(mode):
    ms.set_context(mode=mode)
    x, y = Tensor(np.array([7, -7, 5, 3], np.int32)), Tensor(np.array([2, 2, -2, 4], np.int32))
    for real_div in (P.RealDiv(), ops.RealDiv(), _real_div_compiled):
        assert _values(real_div(x, y)) == (ms.int32, [3, -3, -2, 0])
    assert _values(P.RealDiv()(Tensor(np.array([7, -7], np.int64)), Tensor(np.array([2, 2], np.int64)))) == \
        (ms.int64, [3, -3])
    assert _values(P.RealDiv()(Tensor(np.array([7, 9], np.uint8)), Tensor(np.array([2, 2], np.uint8)))) == \
        (ms.uint8, [3, 4])
    assert _values(P.RealDiv()(x, 2)) == (ms.int32, [3, -3, 2, 1])
    assert _values(P.RealDiv()(x, Tensor(np.full([4], 2.0, np.float32)))) == (ms.float32, [3.5, -3.5, 2.5, 1.5])
    with pytest.raises(TypeError, match="RealDiv"):
        P.RealDiv()(Tensor(np.array([True, False])), Tensor(np.array([True, True]))).asnumpy()


@BOTH_MODES
def test_div_and_slash_stay_true_division_on_integers(mode):
    ms.set_context(mode=mode)
    x, y = Tensor(np.array([7, -7, 5, 3], np.int32)), Tensor(np.array([2, 2, -2, 4], np.int32))
    for quotient in (P.Div()(x, y), ops.div(x, y), x / y):
        assert _values(quotient) == (ms.float32, [3.5, -3.5, -2.5, 0.75])
    assert _values(ops.div(x, y, rounding_mode="trunc")) == (ms.int32, [3, -3, -2, 0])
    assert _values(ops.div(x, y, rounding_mode="floor")) == (ms.int32, [3, -4, -3, 0])


@ms.jit
def _mean_compiled(x):
    return ops.ReduceMean()(x, 0)


@BOTH_MODES
def test_reduce_mean_of_bool_is_a_runtime_error(mode):
    ms.set_context(mode=mode)
    flags = Tensor(np.array([True, False, True]))
    for mean in (lambda x: ops.ReduceMean()(x, 0), lambda x: ops.ReduceMean(keep_dims=True)(x, 0), ops.mean,
                 _mean_compiled):
        with pytest.raises(RuntimeError, match="For 'ReduceMean', unsupported reduce operation for bool."):
            mean(flags).asnumpy()
    assert _values(ops.ReduceMean()(Tensor(np.array([1, 2, 4], np.int32)), 0)) == (ms.int32, 2)


@BOTH_MODES
def test_minimum_rejects_two_bools_but_maximum_takes_them(mode):
    ms.set_context(mode=mode)
    x, y = Tensor(np.array([True, False])), Tensor(np.array([True, True]))
    for minimum in (ops.Minimum(), ops.minimum):
        with pytest.raises(TypeError, match="Minimum"):
            minimum(x, y).asnumpy()  # MindSpore reports a kernel's refusal when the value is read
    assert _values(ops.Maximum()(x, Tensor(np.array([False, False])))) == (ms.bool_, [True, False])
    assert _values(ops.Minimum()(x, Tensor(np.array([3, -1], np.int32)))) == (ms.int32, [1, -1])


@ms.jit
def _relu6_compiled(x):
    return ops.ReLU6()(x)


@ms.jit
def _exp_compiled(x):
    return ops.Exp()(x)


@BOTH_MODES
def test_relu6_and_exp_reject_integer_inputs(mode):
    ms.set_context(mode=mode)
    for dtype in (np.int32, np.int64, np.uint8):
        for relu6 in (ops.ReLU6(), ops.relu6, _relu6_compiled):
            with pytest.raises(TypeError, match="ReLU6"):
                relu6(Tensor(np.array([3, 2, 9], dtype))).asnumpy()
    for values in (np.array([0, 1, 2], np.int32), np.array([0, 1, 2], np.int64), np.array([True, False])):
        for exp in (ops.Exp(), ops.exp, _exp_compiled):
            with pytest.raises(TypeError):
                exp(Tensor(values)).asnumpy()
    assert _values(ops.ReLU6()(Tensor(np.array([-3.0, 2.5, 9.0], np.float32)))) == (ms.float32, [0.0, 2.5, 6.0])
    assert ops.Exp()(Tensor(np.array([0.0], np.float32))).asnumpy().tolist() == [1.0]


def test_range_counts_every_int_as_int64_and_every_float_as_float32():
    def i(value, dtype):
        return Tensor(np.array(value, dtype))
    assert _values(P.Range()(i(0, np.int32), i(10, np.int32), i(3, np.int32))) == (ms.int64, [0, 3, 6, 9])
    assert _values(P.Range()(i(0, np.uint8), i(2, np.uint8), i(1, np.uint8))) == (ms.int64, [0, 1])
    assert _values(P.Range()(i(0, np.int32), i(4, np.int64), i(1, np.int32))) == (ms.int64, [0, 1, 2, 3])
    assert _values(P.Range()(i(0, np.int32), 5, 2)) == (ms.int64, [0, 2, 4])
    assert _values(P.Range()(i(0, np.float64), i(1, np.float64), i(0.5, np.float64))) == (ms.float32, [0.0, 0.5])
    assert _values(P.Range()(i(0, np.float16), i(2, np.float16), i(1, np.float16))) == (ms.float32, [0.0, 1.0])
    assert _values(ops.range(i(0, np.int32), i(3, np.int32), i(1, np.int32))) == (ms.int64, [0, 1, 2])
    with pytest.raises(TypeError, match=r"For Range, the dtypes of inputs must be the same, but got "
                                        r"\(Int64, Float32, Float32\)\."):
        P.Range()(0, 1.0, 0.5).asnumpy()
    with pytest.raises(TypeError, match=r"\(Int64, Float32, Int64\)"):
        ops.range(0, i(5, np.float32), 1).asnumpy()
    assert _values(ops.arange(0, 1.0, 0.5)) == (ms.float32, [0.0, 0.5])  # arange itself mixes them freely


@ms.jit
def _raise_when_positive(x):
    if x > 0:
        raise Exception(f"positive: {x}")
    return x


@ms.jit
def _raise_two_args(x):
    if x > 0:
        raise Exception("two", 3)
    return x


@ms.jit
def _raise_bare(x):
    if x > 0:
        raise Exception
    return x


@ms.jit
def _raise_value_error(x):
    if x > 0:
        raise ValueError("stays a ValueError")
    return x


class _RaiseInConstruct(ms.nn.Cell):
    def construct(self, x):
        if x > 0:
            raise Exception("from construct")
        return x


def test_graph_raise_exception_is_a_runtime_error_with_its_message():
    with pytest.raises(RuntimeError, match=r"^positive: 1$"):
        _raise_when_positive(Tensor(1))
    with pytest.raises(RuntimeError, match=r"^\('two', 3\)$"):
        _raise_two_args(Tensor(1))
    with pytest.raises(RuntimeError, match=r"^$"):
        _raise_bare(Tensor(1))
    with pytest.raises(ValueError, match="stays a ValueError"):  # the other exception types keep theirs
        _raise_value_error(Tensor(1))


def test_cell_raise_exception_is_a_runtime_error_in_graph_mode_only():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="from construct"):
        _RaiseInConstruct()(Tensor(1))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(Exception, match="from construct") as caught:
        _RaiseInConstruct()(Tensor(1))
    assert type(caught.value) is Exception  # plain Python: the exception as written
