"""One rank of the test of Reduce, CollectiveGather/Scatter, AllGatherV, ReduceScatterV, AlltoAllV,
NeighborExchange, BatchISendIRecv and Barrier; writes what it saw to <out_dir>/worker_<rank>.json."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, ops


def f32(*values):
    return ms.Tensor(np.array(values, np.float32))


def main():
    out_dir = sys.argv[1]
    comm.init()
    rank = comm.get_rank()
    peer = 1 - rank
    x = f32(rank + 1.0, 10.0 * (rank + 1))
    got = {}
    got["reduce"] = ops.Reduce(1)(x).asnumpy().tolist()
    got["reduce_grad"] = ms.grad(lambda v: (ops.Reduce(1)(v) * 3.0).sum())(x).asnumpy().tolist()
    got["gather"] = ops.CollectiveGather(0)(x).asnumpy().tolist()
    got["scatter"] = ops.CollectiveScatter(1)(f32(1, 2, 3, 4) * (rank + 1)).asnumpy().tolist()
    got["gather_v"] = ops.AllGatherV()(f32(*[rank + 1.0] * (rank + 1)), [1, 2]).asnumpy().tolist()
    got["scatter_v"] = ops.ReduceScatterV()(f32(1, 2, 3), [1, 2]).asnumpy().tolist()
    sends = [[1, 1], [1, 2]][rank]
    recvs = [[1, 1], [1, 2]][rank]
    got["a2a_v"] = ops.AlltoAllV()(f32(*[10.0 * rank + i for i in range(sum(sends))]), sends, recvs).asnumpy().tolist()
    got["neighbor"] = ops.NeighborExchange([peer], [peer], [[2]], [[2]], ms.float32)((x,))[0].asnumpy().tolist()
    got["batch"] = ops.BatchISendIRecv(("isend", "irecv"), (peer, peer), ([2],), (ms.float32,))((x * 2,))[0] \
        .asnumpy().tolist()
    a = ms.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2) + rank)
    w = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    out, gathered = ops.all_gather_matmul(a, w, "hccl_world_group", 2)
    got["ag_mm"] = [out.asnumpy().tolist(), gathered.shape[0]]
    got["mm_rs"] = ops.matmul_reduce_scatter(a, w, "hccl_world_group", 2).asnumpy().tolist()
    ops.init_process_group()  # already joined: a no-op; the torch-style API shares the job
    box = ms.Tensor(np.zeros(2 + rank, np.float32))
    ops.all_to_all_v_c(box, f32(*[10.0 * rank + i for i in range(2 + rank)]), [1, 1, 1, 2])
    got["a2a_v_c"] = box.asnumpy().tolist()
    ops.Barrier()()
    comm.release()
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump(got, f)


if __name__ == "__main__":
    main()
