"""Pipeline parallel for the tests: `worker_pipeline.py <out_dir> [graph]`. A 4-layer MLP in 2 stages
(pipeline_stage 0 / 1), PipelineCell with 4 micro-batches, 5 SGD steps with TrainOneStepCell (PyNative, or
GRAPH_MODE with `graph`); losses and weights go to <out_dir>/pipe_<mode>_<size>_<rank>.npz. Without a launcher it
is the 1-process reference."""
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn


def main():
    out_dir = sys.argv[1]
    mode = "graph" if "graph" in sys.argv[2:] else "pynative"
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, pipeline_stages=size,
                                 full_batch=True)
    ms.set_seed(7)
    layers = [nn.Dense(6, 12), nn.Tanh(), nn.Dense(12, 12), nn.Tanh(), nn.Dense(12, 3)]
    for k, layer in enumerate(layers):
        layer.pipeline_stage = 0 if k < 2 else 1
    backbone = nn.SequentialCell(*layers)
    net = nn.PipelineCell(nn.WithLossCell(backbone, nn.MSELoss()), micro_size=4)
    step = nn.TrainOneStepCell(net, nn.SGD(backbone.trainable_params(), 0.1))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((8, 3)).astype(np.float32))
    result = {"loss": np.array([float(step(x, y).asnumpy()) for _ in range(5)])}
    for p in backbone.trainable_params():
        result[p.name] = p.asnumpy()
    np.savez(os.path.join(out_dir, f"pipe_{mode}_{size}_{rank}.npz"), **result)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        f.write("{}")
    comm.release()


if __name__ == "__main__":
    main()
