"""One rank of the collectives test: runs every collective in PyNative and Graph mode on both backends and
writes what it saw to <out_dir>/worker_<rank>.json."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn, ops
from openspore.communication import comm_func


def run_all(rank, size):
    x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32) * (rank + 1))
    got = {
        "sum": ops.AllReduce()(x), "max": ops.AllReduce("max")(x), "min": ops.AllReduce("min")(x),
        "prod": ops.AllReduce("prod")(x), "gather": ops.AllGather()(x), "scatter": ops.ReduceScatter()(x),
        "bcast": ops.Broadcast(1)((x,))[0], "a2a": ops.AlltoAll(size, 1, 0)(x),
        "int": comm_func.all_reduce(ms.Tensor(np.array([rank + 1, 5], np.int32))),
    }
    if rank == 0:
        comm_func.send(x * 10, dst=1, tag=3)
        got["p2p"] = x
    else:
        got["p2p"] = comm_func.recv(x, src=0, tag=3)
    # gradients: f(x) = sum(AllReduce(x) * c_r); df/dx_r = sum over ranks of c (the AllReduce backward)
    c = ms.Tensor(np.full((2, 2), rank + 1.0, np.float32))
    got["grad_sum"] = ms.grad(lambda v: (ops.AllReduce()(v) * c).sum())(x)
    got["grad_gather"] = ms.grad(lambda v: (ops.AllGather()(v) * ops.AllGather()(c)).sum())(x)
    return {k: v.asnumpy().tolist() for k, v in got.items()}


class GraphNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.allreduce = ops.AllReduce()
        self.gather = ops.AllGather()

    def construct(self, x):
        return self.gather(self.allreduce(x) * 2)


def main():
    out_dir = sys.argv[1]
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    result = {"rank": rank, "size": size, "local": comm.get_local_rank(), "local_size": comm.get_local_rank_size(),
              "backend": comm.GlobalComm.BACKEND, "world": comm.GlobalComm.WORLD_COMM_GROUP}
    for backend in ("torch", "numpy"):
        ms.set_context(backend=backend)
        result[backend] = run_all(rank, size)
    ms.set_context(mode=ms.GRAPH_MODE, backend="torch")
    result["graph"] = GraphNet()(ms.Tensor(np.full((1, 2), rank + 1.0, np.float32))).asnumpy().tolist()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    comm.create_group("pair", [1, 0])
    result["group"] = {"size": comm.get_group_size("pair"), "rank": comm.get_rank("pair"),
                       "world_of_1": comm.get_world_rank_from_group_rank("pair", 1),
                       "sum": ops.AllReduce(group="pair")(ms.Tensor(np.array([rank + 1.0], np.float32))).asnumpy()
                       .tolist()}
    comm.destroy_group("pair")
    comm.release()
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
