"""The torch-style collectives of mindspore.ops / mint.distributed across 2 real processes (Gloo on 127.0.0.1)."""
import numpy as np
import pytest

import openspore as ms
from openspore import ops

from .launch import run_workers


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    return run_workers("worker_distributed.py", 2, tmp_path_factory.mktemp("dist"))


def test_collectives_write_into_their_tensors(ranks):
    for r, got in enumerate(ranks):
        assert (got["rank"], got["size"], got["backend"], got["inited"]) == (r, 2, "mccl", True)
        assert got["all_reduce_ret"] and got["all_reduce"] == [3.0, 30.0]
        assert got["all_reduce_max"] == [2.0, 2.0]
        assert got["all_gather"] == [[1.0, 10.0], [2.0, 20.0]]
        assert got["uneven"] == [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
        assert got["reduce_scatter"] == [[3.0, 10.0][r]]
        assert got["broadcast"] == [7.0]
        assert got["all_to_all"] == [[0.0 + r], [10.0 + r]]
        assert got["gather_into_tensor"] == ([1.0, 10.0, 2.0, 20.0] if r == 0 else [0.0])
        assert got["scatter_tensor"] == [[2.0, 4.0], [6.0, 8.0]][r]
        assert got["group"] == ["group_0_1", 2, r, 1] and got["inited_after"] is False
    assert ranks[0]["reduce"] == [1.0] and ranks[1]["reduce"] == [3.0]  # only dst receives the sum
    # rank 0 sends [0] to itself and [0] to rank 1; rank 1 sends [1] to rank 0 and [1, 1] to itself
    assert ranks[0]["a2a_single"] == [0.0, 1.0] and ranks[1]["a2a_single"] == [0.0, 1.0, 1.0]


def test_point_to_point_and_objects(ranks):
    assert ranks[1]["recv"] == [3.0, 30.0] and ranks[1]["recv_from"] == 0
    assert ranks[0]["p2p"] == [2.0, 20.0] and ranks[1]["p2p"] == [1.0, 10.0]
    for r, got in enumerate(ranks):
        assert got["objects"] == [{"rank": 0, "name": "w0"}, {"rank": 1, "name": "w1"}]
        assert got["bcast_objects"] == ["from1", 1]
        assert got["scatter_object"] == "ab"[r]
    assert ranks[1]["recv_object"] == {"k": [1, 2]}


def test_one_process_world_and_errors():
    with pytest.raises(RuntimeError, match="not initialized"):
        ops.all_reduce(ms.Tensor(np.ones(2, np.float32)))
    assert ops.is_available() and not ops.is_initialized()
    ops.init_process_group()
    try:
        t = ms.Tensor(np.array([1.0, 2.0], np.float32))
        handle = ops.all_reduce(t, async_op=True)
        assert handle.wait() and t.asnumpy().tolist() == [1.0, 2.0]
        ops.send(t * 2, dst=0, tag=9)
        box = ms.Tensor(np.zeros(2, np.float32))
        assert ops.recv(box, src=0, tag=9) == 0 and box.asnumpy().tolist() == [2.0, 4.0]
        with pytest.raises(ValueError, match="tensor_list"):
            ops.all_gather([], t)
        with pytest.raises(ValueError, match="world rank"):
            ops.send(t, dst=3)
        with pytest.raises(ValueError, match="backend"):
            ops.init_process_group("tcp")
    finally:
        ops.destroy_process_group()
