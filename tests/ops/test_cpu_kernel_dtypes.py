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


def test_unsigned_constant_in_graph_mode_takes_the_fallback():
    offset = T(np.array([1, 2], np.uint32))

    class AddOffset(ms.nn.Cell):
        def construct(self, x):
            return x * 2 + offset  # a uint32 constant tensor operand: the graph binds the guarded kernel

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = AddOffset()(T(np.array([3, 4], np.uint32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert out.asnumpy().dtype == np.uint32 and out.asnumpy().tolist() == [7, 10]


def test_common_dtypes_run_the_bare_torch_kernel():
    """The fallback costs nothing where it is not needed: PyNative calls the primitive's own kernel function, and
    only a kernel that failed on an unsigned dtype is retried on the host."""
    from openspore import backends
    from openspore.core.registry import prim

    backend = backends.current()
    if backend.name != "torch":
        pytest.skip("the torch backend's fallback")
    add = prim("Add")
    assert backend.kernel(add) is type(add).torch
    assert backend.guarded_kernel(add) is not type(add).torch
    assert ops.add(T(np.array([1, 2], np.uint64)), T(np.array([3, 4], np.uint64))).asnumpy().tolist() == [4, 6]


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


def test_half_precision_cumsum_rounds_every_step():
    # 2048 + 1 is not representable in float16: a float16 running sum stays at 2048, a float32 one reaches 2050
    values = np.array([2048.0, 1.0, 1.0], np.float16)
    out = ops.CumSum()(T(values), 0)
    assert out.dtype == ms.float16
    assert out.asnumpy().tolist() == np.cumsum(values).tolist() == [2048.0, 2048.0, 2048.0]
    rev = ops.CumSum(exclusive=True, reverse=True)(T(values), 0)
    assert rev.asnumpy().tolist() == [2.0, 1.0, 0.0]


def test_layer_norm_returns_mean_and_biased_variance():
    x = np.array([[1.0, 2.0, 3.0, 6.0], [0.5, 0.5, -1.5, 2.5]], np.float32)
    gamma, beta = T(np.ones(4, np.float32)), T(np.zeros(4, np.float32))
    _, mean, variance = ops.LayerNorm(1, 1)(T(x), gamma, beta)
    np.testing.assert_allclose(mean.asnumpy(), [[3.0], [0.5]], rtol=1e-6)
    np.testing.assert_allclose(variance.asnumpy(), [[3.5], [2.0]], rtol=1e-6)
    # the variance differentiates: d sum(var) / dx = 2 (x - mean) / n
    grad = ms.grad(lambda a: ops.LayerNorm(1, 1)(a, gamma, beta)[2].sum())(T(x))
    np.testing.assert_allclose(grad.asnumpy(), 2 * (x - x.mean(1, keepdims=True)) / 4, rtol=1e-5, atol=1e-6)


def test_tensor_gather_takes_both_mindspore_forms():
    table = T(np.arange(12, dtype=np.float32).reshape(3, 4))
    rows = table.gather(T(np.array([2, 0])), 0)
    assert rows.asnumpy().tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    picked = table.gather(1, T(np.array([[3], [0], [1]])))
    assert picked.asnumpy().tolist() == [[3], [4], [9]]
    with pytest.raises(RuntimeError, match="the 'input_indices' should be in the range \\[0, 3\\), but got 5"):
        table.gather(T(np.array([5])), 0)


def test_numpy_reductions_accept_tensors():
    t = T(np.array([1.0, 2.0], np.float32))
    assert bool(np.all(t > 0)) and not bool(np.any(t > 5))
