"""Semi-auto parallel for the tests: `worker_shard.py <out_dir>`. A 2-layer MLP whose MatMuls, bias Add, ReLU and
Softmax are sharded (strategies chosen for 2 or 4 ranks, see STRATEGIES), trained 5 steps with TrainOneStepCell
and Momentum in PyNative and GRAPH_MODE. Per rank it writes <out_dir>/shard_<size>_<rank>.npz: the losses, the
integrated (gathered) weights, the shapes this rank stores and its parameter bytes. Without a launcher it is
the 1-process reference."""
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn, ops
from openspore.parallel import gather_full, parameter_memory

# size -> (mm1, add, relu, mm2, softmax) strategies
STRATEGIES = {
    1: (((1, 1), (1, 1)), ((1, 1), (1,)), ((1, 1),), ((1, 1), (1, 1)), ((1, 1),)),
    2: (((1, 2), (2, 1)), ((1, 2), (2,)), ((1, 2),), ((2, 1), (1, 1)), ((2, 1),)),
    # 4 ranks: a 2x2 device matrix for the first MatMul, a bias split 2 ways (repeated twice), contraction 4 ways
    4: (((2, 2), (2, 1)), ((1, 2), (2,)), ((2, 2),), ((1, 4), (4, 1)), ((4, 1),)),
}


class ShardedMLP(nn.Cell):
    def __init__(self, size):
        super().__init__()
        rng = np.random.default_rng(3)
        self.w1 = ms.Parameter(ms.Tensor(rng.standard_normal((6, 8)).astype(np.float32) * 0.5), name="w1")
        self.b1 = ms.Parameter(ms.Tensor(rng.standard_normal(8).astype(np.float32) * 0.1), name="b1")
        self.w2 = ms.Parameter(ms.Tensor(rng.standard_normal((8, 4)).astype(np.float32) * 0.5), name="w2")
        s_mm1, s_add, s_relu, s_mm2, s_softmax = STRATEGIES[size]
        if size == 4:  # the same first strategy written as an ms.Layout
            layout = ms.Layout((2, 2), ("dp", "mp"))
            s_mm1 = (layout("dp", "mp"), layout("mp", "None"))
        self.mm1 = ops.MatMul().shard(s_mm1)
        self.add = ops.Add().shard(s_add)
        self.relu = ops.ReLU().shard(s_relu)
        self.mm2 = ops.MatMul().shard(s_mm2)
        self.softmax = ops.Softmax(axis=-1).shard(s_softmax)

    def construct(self, x):
        return self.softmax(self.mm2(self.relu(self.add(self.mm1(x, self.w1), self.b1)), self.w2))


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
        net = ShardedMLP(size)
        opt = nn.Momentum(net.trainable_params(), 0.3, 0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        result[f"{name}_loss"] = np.array([float(step(x, y).asnumpy()) for _ in range(5)])
        for p in net.trainable_params():
            result[f"{name}_{p.name}"] = gather_full(p)
            result[f"shape_{name}_{p.name}"] = np.array(p.shape)
        for m in opt.moments:
            result[f"shape_{name}_{m.name}"] = np.array(m.shape)
        memory = parameter_memory(net)
        result[f"bytes_{name}"] = np.array([memory["local_bytes"], memory["full_bytes"]])
        # Cell.shard: the batch split over the ranks (None = all of them; 2 ways, repeated, on 4)
        cell = nn.SequentialCell(nn.Dense(6, 8, weight_init="normal"), nn.Tanh(), nn.Dense(8, 4, weight_init="normal"))
        for i, p in enumerate(cell.trainable_params()):
            p.set_data(ms.Tensor(np.random.default_rng(10 + i).standard_normal(p.shape).astype(np.float32) * 0.3))
        cell.shard(((2, 1),) if size == 4 else (None,))
        seen = []
        cell[0].register_forward_pre_hook(lambda c, inputs: seen.append(inputs[0].shape[0]))
        step = nn.TrainOneStepCell(nn.WithLossCell(cell, nn.MSELoss()), nn.SGD(cell.trainable_params(), 0.5))
        result[f"{name}_cell_loss"] = np.array([float(step(x, y).asnumpy()) for _ in range(5)])
        for i, p in enumerate(cell.trainable_params()):
            result[f"{name}_cell_{i}"] = p.asnumpy()
        result[f"rows_seen_{name}"] = np.array(seen[:1])  # the batch block each rank computed on
        double = ms.shard(lambda t: ops.tanh(t) * 2, in_strategy=(None,))  # ms.shard of a function
        result[f"{name}_fn"] = double(x).asnumpy()
    np.savez(os.path.join(out_dir, f"shard_{size}_{rank}.npz"), **result)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        f.write("{}")
    comm.release()


if __name__ == "__main__":
    main()
