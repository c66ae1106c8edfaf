"""Reduce, CollectiveGather/Scatter, AllGatherV, ReduceScatterV, AlltoAllV, NeighborExchange, BatchISendIRecv and
Barrier across 2 real processes (Gloo on 127.0.0.1), and in a world of one."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

from .launch import run_workers


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    return run_workers("worker_comm_prims.py", 2, tmp_path_factory.mktemp("cprims"))


def test_values_across_two_ranks(ranks):
    r0, r1 = ranks
    assert r1["reduce"] == [3.0, 30.0] and r0["reduce"] == [0.0]
    # only rank 1's output is used: each rank's input gets d(3·sum)/dx = 3 through AllReduce's backward
    assert r0["reduce_grad"] == [3.0, 3.0] and r1["reduce_grad"] == [3.0, 3.0]
    assert r0["gather"] == [1.0, 10.0, 2.0, 20.0] and r1["gather"] == [0.0]
    assert r0["scatter"] == [2.0, 4.0] and r1["scatter"] == [6.0, 8.0]
    assert r0["gather_v"] == r1["gather_v"] == [1.0, 2.0, 2.0]
    assert r0["scatter_v"] == [2.0] and r1["scatter_v"] == [4.0, 6.0]
    # rank 0 sends [0] to itself and [1] to rank 1; rank 1 sends [10] to rank 0 and [11, 12] to itself
    assert r0["a2a_v"] == [0.0, 10.0] and r1["a2a_v"] == [1.0, 11.0, 12.0]
    assert r0["neighbor"] == [2.0, 20.0] and r1["neighbor"] == [1.0, 10.0]
    assert r0["batch"] == [4.0, 40.0] and r1["batch"] == [2.0, 20.0]
    a = [np.arange(4, dtype=np.float64).reshape(2, 2) + r for r in range(2)]
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    for r, got in enumerate(ranks):
        np.testing.assert_allclose(got["ag_mm"][0], np.concatenate(a) @ w)
        assert got["ag_mm"][1] == 4
        np.testing.assert_allclose(got["mm_rs"], (a[0] @ w + a[1] @ w)[r:r + 1])
    # counts [[1, 1], [1, 2]]: rank 0 sends [0] / [1]; rank 1 sends [10] / [11, 12]
    assert r0["a2a_v_c"] == [0.0, 10.0] and r1["a2a_v_c"] == [1.0, 11.0, 12.0]


def test_world_of_one():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    assert ops.Reduce(0)(x).asnumpy().tolist() == [1.0, 2.0]
    assert ops.CollectiveScatter(0)(x).asnumpy().tolist() == [1.0, 2.0]
    assert ops.AlltoAllV()(x, [2], [2]).asnumpy().tolist() == [1.0, 2.0]
    assert ops.BatchISendIRecv(("isend", "irecv"), (0, 0), ([2],), (ms.float32,))((x,))[0].asnumpy().tolist() == \
        [1.0, 2.0]
    assert ops.Barrier()() is None
    with pytest.raises(ValueError, match="not a member"):
        ops.Reduce(3)(x)
    with pytest.raises(ValueError, match="output_split_sizes"):
        ops.AllGatherV()(x, [3])
