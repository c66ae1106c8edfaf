"""The small ops of misc_more_func and the loop/index classes (their MindSpore 2.10 results were compared while
written; here against numpy/torch and direct expectations)."""
import os

import numpy as np
import pytest
import torch

import openspore as ms
from openspore import Parameter, Tensor, nn, ops


@pytest.mark.parametrize("n, d", [(5, 0.5), (6, 1.0), (1, 2.0)])
def test_fft_helpers_match_numpy(n, d):
    np.testing.assert_allclose(ops.fftfreq(n, d).asnumpy(), np.fft.fftfreq(n, d), rtol=1e-6)
    np.testing.assert_allclose(ops.rfftfreq(n, d).asnumpy(), np.fft.rfftfreq(n, d), rtol=1e-6)
    x = np.arange(n * 3).reshape(n, 3)
    np.testing.assert_array_equal(ops.fftshift(Tensor(x)).asnumpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(ops.ifftshift(Tensor(x), 0).asnumpy(), np.fft.ifftshift(x, 0))


def test_dense_bidense_dtype_partial():
    x, w, b = (np.random.default_rng(1).standard_normal(s) for s in ((2, 3), (4, 3), (4,)))
    np.testing.assert_allclose(ops.dense(Tensor(x), Tensor(w), Tensor(b)).asnumpy(), x @ w.T + b)
    y, wb = np.ones((2, 5)), np.random.default_rng(2).standard_normal((4, 3, 5))
    want = torch.nn.functional.bilinear(torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(wb)).numpy()
    np.testing.assert_allclose(ops.bidense(Tensor(x), Tensor(y), Tensor(wb)).asnumpy(), want, rtol=1e-10)
    assert ops.dtype(Tensor(x)) == ms.float64
    add3 = ops.partial(ops.add, Tensor(3.0))
    assert float(add3(Tensor(1.0)).asnumpy()) == 4.0 and float(ops.Partial()(ops.mul, 2.0)(5.0)) == 10.0
    assert ops.reverse_sequence(Tensor(np.arange(6).reshape(2, 3)), Tensor([2, 3]), 1).asnumpy().tolist() == \
        [[1, 0, 2], [5, 4, 3]]
    assert ops.P.MatMul is ops.MatMul and ops.ReduceOp.SUM == "sum"


def test_get_grad_finds_positions_and_parameters():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0], np.float32)), name="w")

        def construct(self, x, y):
            return x * y * self.w
    net = Net()
    out = ms.grad(net, (0, 1), net.trainable_params(), return_ids=True)(Tensor([3.0]), Tensor([5.0]))
    assert ops.get_grad(out, 1).asnumpy().tolist() == [6.0]
    assert ops.get_grad(out, net.w).asnumpy().tolist() == [15.0]
    with pytest.raises(RuntimeError, match="no gradient"):
        ops.get_grad(out, 7)


def test_index_classes():
    got = ops.UnravelIndex()(Tensor(np.array([5, 7, 11], np.int32)), Tensor(np.array([3, 4], np.int32)))
    assert got.asnumpy().tolist() == [list(r) for r in np.unravel_index([5, 7, 11], (3, 4))]
    out, idx = ops.ListDiff()(Tensor(np.array([1, 2, 3, 4, 5, 6], np.int32)), Tensor(np.array([1, 3, 5], np.int32)))
    assert out.asnumpy().tolist() == [2, 4, 6] and idx.asnumpy().tolist() == [1, 3, 5]
    coords = (Tensor(np.array([0, 1, 0], np.int32)), Tensor(np.array([1, 2, 1], np.int32)))
    x = Tensor(np.zeros((2, 3), np.float32))
    assert ops.IndexPut(1)(x, Tensor(np.array([5.0, 6.0, 1.0], np.float32)), coords).asnumpy().tolist() == \
        [[0, 6, 0], [0, 0, 6]]
    assert x.index_put(coords[:1], Tensor(np.float32(2.0))).asnumpy().tolist() == [[2, 2, 2], [2, 2, 2]]
    m = Tensor(np.array([[True, False], [False, True]]))
    want = torch.zeros(2, 2).masked_scatter(torch.from_numpy(m.asnumpy()), torch.tensor([7.0, 8.0, 9.0])).numpy()
    assert ops.MaskedScatter()(Tensor(np.zeros((2, 2), np.float32)), m, Tensor([7.0, 8.0, 9.0])).asnumpy().tolist() \
        == want.tolist()
    assert Tensor(np.zeros((2, 2), np.float32)).masked_scatter(m, Tensor([1.0, 2.0])).asnumpy().tolist() == \
        [[1, 0], [0, 2]]


def test_loops_and_tensordump(tmp_path):
    assert float(ops.ForiLoop()(0, 4, lambda i, v: v + i, Tensor(1.0)).asnumpy()) == 7.0
    assert float(ops.WhileLoop()(lambda v: v < 10, lambda v: v * 2, Tensor(1.0)).asnumpy()) == 16.0
    carry, ys = ops.Scan()(lambda c, x: (c + x, c * x), Tensor(0.0), [Tensor(1.0), Tensor(2.0), Tensor(3.0)])
    assert float(carry.asnumpy()) == 6.0 and [float(y.asnumpy()) for y in ys] == [0.0, 2.0, 9.0]
    jitted = ms.jit(lambda v: ops.ForiLoop()(0, 3, lambda i, a: a * 2, v))(Tensor(1.5))
    assert float(jitted.asnumpy()) == 12.0
    path = os.path.join(tmp_path, "dumped")
    ops.tensordump(path, Tensor(np.arange(4, dtype=np.float32)))
    assert np.load(path + ".npy").tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="mode"):
        ops.tensordump(path, Tensor(1.0), "sideways")
