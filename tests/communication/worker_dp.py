"""Data-parallel training for the tests: `worker_dp.py <out_dir> [fusion] [lenet]`. Trains a small MLP (or, with
`lenet`, LeNet5 on 32x32 images with sparse softmax cross-entropy) for 20 steps with Model (which inserts the
gradient AllReduce), in PyNative then GRAPH_MODE, each rank on its shard of every batch of 8 rows; saves the
weights to <out_dir>/weights_<net>_<mode>_<size>_<rank>.npz. Without a launcher it is the 1-process reference on
the full batch. Ranks start from different seeds: parameter_broadcast makes rank 0's weights win."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore.nn.wrap import grad_reducer
from openspore import communication as comm, dataset as ds, nn
from openspore.train import Model
from tests.nn.fixture_nets import LeNet5

BATCH, STEPS = 8, 20


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.act = nn.Dense(6, 16), nn.Dense(16, 3), nn.Tanh()

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _mlp(rng):
    x = rng.standard_normal((BATCH * STEPS, 6)).astype(np.float32)
    y = rng.standard_normal((BATCH * STEPS, 3)).astype(np.float32)
    return MLP(), nn.MSELoss(), x, y


def _lenet(rng):
    x = rng.standard_normal((BATCH * STEPS, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, BATCH * STEPS).astype(np.int32)
    return LeNet5(), nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), x, y


def train(mode, rank, size, build):
    ms.set_context(mode=mode)
    ms.set_seed(100 + rank)  # different starting weights per rank: parameter_broadcast must fix them
    net, loss, x, y = build(np.random.default_rng(0))
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False, num_shards=size, shard_id=rank)
    data = data.batch(BATCH // size)
    model = Model(net, loss, nn.SGD(net.trainable_params(), learning_rate=0.1))
    model.train(1, data, dataset_sink_mode=False)
    return {p.name: p.asnumpy() for p in net.trainable_params()}


def main():
    out_dir = sys.argv[1]
    fusion = [2] if "fusion" in sys.argv[2:] else []
    net_name, build = ("lenet", _lenet) if "lenet" in sys.argv[2:] else ("mlp", _mlp)
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 parameter_broadcast=True, all_reduce_fusion_config=fusion)
    for name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        weights = train(mode, rank, size, build)
        np.savez(os.path.join(out_dir, f"weights_{net_name}_{name}_{size}_{rank}.npz"), **weights)
        if name == "pynative":  # PyNative sends each gradient bucket during the backward pass
            overlap = dict(grad_reducer.OVERLAP_STATS)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump({"rank": rank, "size": size, "overlap": overlap,
                   "graph_overlap": dict(grad_reducer.GRAPH_OVERLAP_STATS)}, f)
    comm.release()


if __name__ == "__main__":
    main()
