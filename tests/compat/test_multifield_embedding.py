"""nn.MultiFieldEmbeddingLookup against MindSpore 2.10 (black box, quoted; its CPU 'SUM' crashed there, so SUM is
checked against the sum written out here) and a numpy gradient; ops.operations.ReduceOp."""
import numpy as np
import pytest

import openspore as ms
from openspore import Tensor, nn, ops

TABLE = np.arange(12, dtype=np.float32).reshape(6, 2) - 5       # row i = [2i - 5, 2i - 4]
IDX = np.array([[1, 2, 3, 0], [4, 5, 0, 0]], np.int32)
VAL = np.array([[1.0, 2.0, -1.0, 0.0], [0.5, 1.0, 0.0, 0.0]], np.float32)
FID = np.array([[0, 0, 1, 2], [1, 1, 0, 0]], np.int32)


def _run(op, table=TABLE):
    net = nn.MultiFieldEmbeddingLookup(6, 2, 3, param_init=Tensor(table), operator=op)
    return net(Tensor(IDX), Tensor(VAL), Tensor(FID)).asnumpy()


def test_mean_and_max_match_mindspore():
    np.testing.assert_allclose(_run("MEAN"), [[[-1.6666666, -0.6666667], [-1.0, -2.0], [0.0, 0.0]],
                                              [[0.0, 0.0], [4.3333335, 5.3333335], [0.0, 0.0]]], rtol=1e-6)
    np.testing.assert_allclose(_run("MAX"), [[[-2.0, 0.0], [-1.0, -2.0], [0.0, 0.0]],
                                             [[0.0, 0.0], [5.0, 6.0], [0.0, 0.0]]])


def _numpy_sum(table):
    out = np.zeros((2, 3, 2), np.float64)
    for b in range(2):
        for s in range(4):
            out[b, FID[b, s]] += VAL[b, s] * table[IDX[b, s]]
    return out


def test_sum_and_its_gradient():
    np.testing.assert_allclose(_run("SUM"), _numpy_sum(TABLE), rtol=1e-6)
    net = nn.MultiFieldEmbeddingLookup(6, 2, 3, param_init=Tensor(TABLE), operator="SUM")
    weights = net.trainable_params()

    def loss(i, v, f):
        return (net(i, v, f) ** 2).sum()

    grads = ms.grad(loss, grad_position=None, weights=weights)(Tensor(IDX), Tensor(VAL), Tensor(FID))
    expected = np.zeros_like(TABLE, np.float64)
    pooled = _numpy_sum(TABLE)
    for b in range(2):
        for s in range(4):
            expected[IDX[b, s]] += 2 * pooled[b, FID[b, s]] * VAL[b, s]
    np.testing.assert_allclose(grads[0].asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_max_norm_and_checks():
    table = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    net = nn.MultiFieldEmbeddingLookup(2, 2, 1, param_init=Tensor(table), max_norm=1.0)
    out = net(Tensor(np.array([[0, 1]], np.int32)), Tensor(np.ones((1, 2), np.float32)),
              Tensor(np.zeros((1, 2), np.int32)))
    np.testing.assert_allclose(out.asnumpy(), [[[0.6 + 0.3, 0.8 + 0.4]]], rtol=1e-5)
    with pytest.raises(ValueError, match="operator"):
        nn.MultiFieldEmbeddingLookup(6, 2, 3, operator="MIN")
    with pytest.raises(ValueError, match="sparse"):
        nn.MultiFieldEmbeddingLookup(6, 2, 3, sparse=False)
    with pytest.raises(ValueError, match="field_size"):
        nn.MultiFieldEmbeddingLookup(6, 2, 0)


def test_reduce_op_on_the_operations_path():
    from openspore.ops.operations import ReduceOp
    assert ReduceOp is ops.ReduceOp and ReduceOp.SUM == ops.ReduceOp.SUM
