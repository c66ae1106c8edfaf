"""Data-parallel training for the tests: `worker_dp.py <out_dir> [fusion]`. Trains a small MLP for 20 steps with
Model (which inserts the gradient AllReduce), in PyNative then GRAPH_MODE, each rank on its shard of every batch
of 8 rows; saves the weights to <out_dir>/weights_<mode>_<rank>.npz. Without a launcher it is the 1-process
reference on the full batch. Ranks start from different seeds: parameter_broadcast makes rank 0's weights win."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, dataset as ds, nn
from openspore.train import Model

BATCH, STEPS = 8, 20


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.act = nn.Dense(6, 16), nn.Dense(16, 3), nn.Tanh()

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


def train(mode, rank, size, fusion):
    ms.set_context(mode=mode)
    ms.set_seed(100 + rank)  # different starting weights per rank: parameter_broadcast must fix them
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH * STEPS, 6)).astype(np.float32)
    y = rng.standard_normal((BATCH * STEPS, 3)).astype(np.float32)
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False, num_shards=size, shard_id=rank)
    data = data.batch(BATCH // size)
    net = MLP()
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.1))
    model.train(1, data, dataset_sink_mode=False)
    return {p.name: p.asnumpy() for p in net.trainable_params()}


def main():
    out_dir = sys.argv[1]
    fusion = [2] if len(sys.argv) > 2 and sys.argv[2] == "fusion" else []
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 parameter_broadcast=True, all_reduce_fusion_config=fusion)
    for name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        weights = train(mode, rank, size, fusion)
        np.savez(os.path.join(out_dir, f"weights_{name}_{size}_{rank}.npz"), **weights)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump({"rank": rank, "size": size}, f)
    comm.release()


if __name__ == "__main__":
    main()
