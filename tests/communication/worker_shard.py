"""Semi-auto parallel for the tests: `worker_shard.py <out_dir>`. A 2-layer MLP with
MatMul().shard(((1, 2), (2, 1))) then MatMul().shard(((2, 1), (1, 1))) (and a sharded ReLU and Softmax), trained
5 steps with TrainOneStepCell in PyNative and GRAPH_MODE; losses and weights go to
<out_dir>/shard_<size>_<rank>.npz. Without a launcher it is the 1-process reference."""
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn, ops


class ShardedMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(3)
        self.w1 = ms.Parameter(ms.Tensor(rng.standard_normal((6, 8)).astype(np.float32) * 0.5), name="w1")
        self.w2 = ms.Parameter(ms.Tensor(rng.standard_normal((8, 4)).astype(np.float32) * 0.5), name="w2")
        self.mm1 = ops.MatMul().shard(((1, 2), (2, 1)))   # contraction split: partial sums, AllReduce
        self.relu = ops.ReLU().shard(((1, 2),))           # column split: AllGather
        self.mm2 = ops.MatMul().shard(((2, 1), (1, 1)))   # row split: AllGather
        self.softmax = ops.Softmax(axis=-1).shard(((2, 1),))

    def construct(self, x):
        return self.softmax(self.mm2(self.relu(self.mm1(x, self.w1)), self.w2))


def main():
    out_dir = sys.argv[1]
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, full_batch=True)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((4, 6)).astype(np.float32))
    y = ms.Tensor(rng.dirichlet(np.ones(4), size=4).astype(np.float32))
    result = {}
    for name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=mode)
        net = ShardedMLP()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.5))
        result[f"{name}_loss"] = np.array([float(step(x, y).asnumpy()) for _ in range(5)])
        for p in net.trainable_params():
            result[f"{name}_{p.name}"] = p.asnumpy()
    np.savez(os.path.join(out_dir, f"shard_{size}_{rank}.npz"), **result)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        f.write("{}")
    comm.release()


if __name__ == "__main__":
    main()
