"""Dtype coverage that MindSpore's CPU kernels have and torch lacks: unsigned integers beyond uint8 (the torch
backend falls back to the primitive's numpy kernel), and integer Inv (1 / x truncated, dtype kept)."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

T = ms.Tensor


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_unsigned_bitwise_not_and_addn(dtype):
    values = np.array([0, 7, 40000 % np.iinfo(dtype).max], dtype)
    assert ops.Invert()(T(values)).asnumpy().tolist() == np.invert(values).tolist()
    total = ops.addn([T(values), T(np.array([1, 2, 3], dtype))])
    assert total.asnumpy().dtype == dtype and total.asnumpy().tolist() == (values + np.array([1, 2, 3], dtype)).tolist()


def test_unsigned_fallback_in_graph_mode():
    class Flip(ms.nn.Cell):
        def construct(self, x):
            return ops.Invert()(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Flip()(T(np.array([1, 65535], np.uint16)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert out.asnumpy().tolist() == [65534, 0]


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_integer_inv_truncates_and_keeps_dtype(backend):
    ms.set_context(backend=backend)
    try:
        out = ops.Inv()(T(np.array([1, 2, -1, -3, 9], np.int32)))
        half = ops.Inv()(T(np.array([2.0, -4.0], np.float16)))
    finally:
        ms.set_context(backend="torch")
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [1, 0, -1, 0, 0]
    assert half.dtype == ms.float16 and half.asnumpy().tolist() == [0.5, -0.25]
