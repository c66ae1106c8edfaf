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
        P.RealDiv()(Tensor(np.array([True, False])), Tensor(np.array([True, True])))


@BOTH_MODES
def test_div_and_slash_stay_true_division_on_integers(mode):
    ms.set_context(mode=mode)
    x, y = Tensor(np.array([7, -7, 5, 3], np.int32)), Tensor(np.array([2, 2, -2, 4], np.int32))
    for quotient in (P.Div()(x, y), ops.div(x, y), x / y):
        assert _values(quotient) == (ms.float32, [3.5, -3.5, -2.5, 0.75])
    assert _values(ops.div(x, y, rounding_mode="trunc")) == (ms.int32, [3, -3, -2, 0])
    assert _values(ops.div(x, y, rounding_mode="floor")) == (ms.int32, [3, -4, -3, 0])
