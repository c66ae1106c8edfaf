"""ScatterUpdate writes rows of a Parameter in place, in PyNative and in a compiled graph, and later reads in the
same graph see the new rows (the paged KV pool of openspore.llm relies on both)."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops


def test_rows_written_in_place_pynative():
    p = ms.Parameter(ms.Tensor(np.zeros((4, 2), np.float32)), name="p")
    buf = p.data_ref()
    ops.scatter_update(p, ms.Tensor(np.array([2, 0], np.int32)), ms.Tensor(np.array([[1, 2], [3, 4]], np.float32)))
    assert p.data_ref() is buf
    np.testing.assert_array_equal(p.asnumpy(), [[3, 4], [0, 0], [1, 2], [0, 0]])
    t = ms.Tensor(np.zeros((3,), np.float32))  # a plain Tensor gets the updated copy, as before
    out = ops.scatter_update(t, ms.Tensor(np.array([1], np.int32)), ms.Tensor(np.array([5.0], np.float32)))
    assert out.asnumpy().tolist() == [0, 5, 0] and t.asnumpy().tolist() == [0, 0, 0]


class _WriteThenRead(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = ms.Parameter(ms.Tensor(np.zeros((6, 3), np.float32)), name="pool", requires_grad=False)
        self.write = ops.ScatterUpdate()

    def construct(self, slots, rows, read):
        self.write(self.pool, slots, rows)
        return ops.gather(self.pool, read, 0) * 2


def test_graph_writes_in_place_and_reads_after():
    net = _WriteThenRead()
    buf = net.pool.data_ref()
    fn = ms.jit(net)
    rows = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = fn(ms.Tensor(np.array([1, 4], np.int32)), ms.Tensor(rows), ms.Tensor(np.array([4, 0, 1], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), np.stack([rows[1], np.zeros(3), rows[0]]) * 2)
    assert net.pool.data_ref() is buf
    expected = np.zeros((6, 3), np.float32)
    expected[[1, 4]] = rows
    np.testing.assert_array_equal(net.pool.asnumpy(), expected)


def test_bad_shapes_and_dtypes():
    p = ms.Parameter(ms.Tensor(np.zeros((4, 2), np.float32)), name="p")
    with pytest.raises(ValueError, match=r"indices.shape \+ input_x.shape\[1:\] = \[2, 2\], but got \[2, 3\]"):
        ops.scatter_update(p, ms.Tensor(np.array([0, 1], np.int32)), ms.Tensor(np.zeros((2, 3), np.float32)))
    with pytest.raises(TypeError, match="must have input_x's dtype Float32"):
        ops.scatter_update(p, ms.Tensor(np.array([0], np.int32)), ms.Tensor(np.zeros((1, 2), np.float64)))
    with pytest.raises(TypeError, match="'indices' must be a Tensor with a int dtype"):
        ops.scatter_update(p, ms.Tensor(np.array([0.0], np.float32)), ms.Tensor(np.zeros((1, 2), np.float32)))
