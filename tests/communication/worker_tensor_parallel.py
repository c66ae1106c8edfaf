"""Megatron-style tensor parallelism for the tests: `worker_tensor_parallel.py <out_dir>`. Two
ParallelTransformerBlocks (hidden 8, 4 heads, ffn 16) from fixed full weights, trained 4 steps with SGD in
PyNative and GRAPH_MODE. Per rank: losses, integrated weights, the shapes this rank stores, parameter bytes and
the number of collectives in one forward and in one forward+backward. Without a launcher: 1-process reference."""
import json
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn
from openspore.ops.defs import _comm_world
from openspore.parallel import gather_full, parameter_memory
from openspore.parallel.nn import ParallelTransformerBlock


def full_weights(seed, hidden=8, ffn=16):
    rng = np.random.default_rng(seed)

    def t(*shape):
        return ms.Tensor(rng.standard_normal(shape).astype(np.float32) * 0.3)
    return {"attention": {name: t(hidden, hidden) for name in ("query", "key", "value", "dense")},
            "mlp": {"mapping": t(ffn, hidden), "projection": t(hidden, ffn)}}


def main():
    out_dir = sys.argv[1]
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, full_batch=True)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((2, 3, 8)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((2, 3, 8)).astype(np.float32))
    result, counts = {}, {}
    for name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=mode)
        net = nn.SequentialCell(ParallelTransformerBlock(8, 4, 16, weight_init=full_weights(1)),
                                ParallelTransformerBlock(8, 4, 16, weight_init=full_weights(2)))
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        if mode == ms.PYNATIVE_MODE:  # collectives: one AllReduce per sub-block forward, one backward
            _comm_world.stats(reset=True)
            loss_net(x, y)
            counts["forward"] = _comm_world.stats(reset=True)["calls"]
            ms.value_and_grad(loss_net, None, net.trainable_params())(x, y)
            counts["forward_backward"] = _comm_world.stats(reset=True)["calls"]
        step = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params(), 0.1))
        result[f"{name}_loss"] = np.array([float(step(x, y).asnumpy()) for _ in range(4)])
        for p in net.trainable_params():
            result[f"{name}_{p.name}"] = gather_full(p)
            result[f"shape_{name}_{p.name}"] = np.array(p.shape)
        memory = parameter_memory(net)
        result[f"bytes_{name}"] = np.array([memory["local_bytes"], memory["full_bytes"]])
    np.savez(os.path.join(out_dir, f"tp_{size}_{rank}.npz"), **result)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        json.dump(counts, f)
    comm.release()


if __name__ == "__main__":
    main()
