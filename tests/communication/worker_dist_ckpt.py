"""Distributed checkpoints for the tests: `worker_dist_ckpt.py <out_dir> train|resume`.

train (4 ranks): the sharded MLP of worker_shard trains 3 Momentum steps; each rank saves its slices to
<out_dir>/src/rank_<r>/net.ckpt (integrated_save=False) and the whole tensors to
<out_dir>/integrated_rank_<r>.ckpt (the default integrated_save=True), the run writes <out_dir>/src_strategy.ckpt and its group-info files; rank 0
saves the integrated weights to <out_dir>/integrated.npz.
resume (2 ranks): the same network with the 2-rank strategies takes its slices from the 4 ranks' checkpoints
(load_distributed_checkpoint); each rank saves the integrated weights it then holds and its loss."""
import os
import sys

import numpy as np

import openspore as ms
from openspore import communication as comm, nn
from openspore.parallel import gather_full
from worker_shard import ShardedMLP


def main():
    out_dir, phase = sys.argv[1], sys.argv[2]
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    strategy = os.path.join(out_dir, "src_strategy.ckpt" if phase == "train" else "dst_strategy.ckpt")
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", full_batch=True,
                                 strategy_ckpt_config={"save_file": strategy},
                                 group_ckpt_save_file=os.path.join(out_dir, f"group_info_{phase}_{rank}.pb"))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((4, 6)).astype(np.float32))
    y = ms.Tensor(rng.dirichlet(np.ones(4), size=4).astype(np.float32))
    net = ShardedMLP(size)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    if phase == "train":
        step = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), 0.3, 0.9))
        for _ in range(3):
            step(x, y)
        ms.save_checkpoint(net, os.path.join(out_dir, "src", f"rank_{rank}", "net.ckpt"), integrated_save=False)
        # the default, integrated_save=True: every rank writes the whole tensors (MindSpore's semantics)
        ms.save_checkpoint(net, os.path.join(out_dir, f"integrated_rank_{rank}.ckpt"))
        full = {p.name: gather_full(p) for p in net.trainable_params()}
        if rank == 0:
            np.savez(os.path.join(out_dir, "integrated.npz"), **full)
    else:
        loss_net(x, y)  # the first call cuts the parameters for this layout (and writes the strategy file)
        files = [os.path.join(out_dir, "src", f"rank_{r}", "net.ckpt") for r in range(4)]
        ms.load_distributed_checkpoint(net, files, train_strategy_filename=os.path.join(out_dir, "src_strategy.ckpt"))
        result = {p.name: gather_full(p) for p in net.trainable_params()}
        result.update({f"shape_{p.name}": np.array(p.shape) for p in net.trainable_params()})
        result["loss"] = np.array(float(loss_net(x, y).asnumpy()))
        np.savez(os.path.join(out_dir, f"resumed_{rank}.npz"), **result)
    with open(os.path.join(out_dir, f"worker_{rank}.json"), "w") as f:
        f.write("{}")
    comm.release()


if __name__ == "__main__":
    main()
