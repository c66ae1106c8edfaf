"""Parameter memory per rank under operator-level sharding and tensor parallelism: 1, 2 and 4 msrun workers on
127.0.0.1 (Gloo). Two networks:

* semi-auto MLP 1024-4096-1024 with MatMul().shard(((1, n), (n, 1))) then ((1, n), (n, 1)) (weights split by rows),
* 4 ParallelTransformerBlocks (hidden 512, 8 heads, ffn 2048) from openspore.parallel.nn,

each trained one SGD step. Prints the bytes of parameters (and of Momentum state for the MLP) one rank holds,
against the unsharded size, and the seconds per step (median of 3).

    python bench/sharding_memory.py
    python bench/sharding_memory.py --workers 1 2
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
from common import free_port  # noqa: E402  (bench/ is on sys.path when a bench runs)


def worker(out_path):
    import numpy as np
    import openspore as ms
    from openspore import communication as comm, nn, ops
    from openspore.parallel import parameter_memory
    from openspore.parallel.nn import ParallelTransformerBlock
    comm.init()
    rank, n = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", full_batch=True)
    ms.set_seed(0)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w1 = ms.Parameter(ms.Tensor(np.full((1024, 4096), 0.01, np.float32)), name="w1")
            self.w2 = ms.Parameter(ms.Tensor(np.full((4096, 1024), 0.01, np.float32)), name="w2")
            self.mm1 = ops.MatMul().shard(((1, n), (n, 1)))
            self.mm2 = ops.MatMul().shard(((1, n), (n, 1)))

        def construct(self, x):
            return self.mm2(ops.relu(self.mm1(x, self.w1)), self.w2)

    rows = {}
    rng = np.random.default_rng(0)
    for name, net, x, y in (
            ("MLP", MLP(), rng.standard_normal((32, 1024)), rng.standard_normal((32, 1024))),
            ("TP transformer", nn.SequentialCell(*[ParallelTransformerBlock(512, 8, 2048) for _ in range(4)]),
             rng.standard_normal((4, 16, 512)), rng.standard_normal((4, 16, 512)))):
        x, y = ms.Tensor(x.astype(np.float32)), ms.Tensor(y.astype(np.float32))
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        times = []
        for _ in range(4):
            start = time.perf_counter()
            step(x, y)
            times.append(time.perf_counter() - start)
        mem = parameter_memory(net)
        state = sum(m.asnumpy().nbytes for m in opt.moments)
        rows[name] = {**mem, "state_bytes": state, "step_s": sorted(times[1:])[1]}
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(rows, f)
    comm.release()



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--_worker", nargs=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._worker:
        return worker(args._worker[0])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.workers:
            out = os.path.join(tmp, f"r{n}.json")
            cmd = [sys.executable, "-m", "openspore.parallel.msrun", f"--worker_num={n}", f"--local_worker_num={n}",
                   f"--master_port={free_port()}", "--join=True", f"--log_dir={tmp}/logs{n}",
                   os.path.abspath(__file__), "--_worker", out]
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                results.append((n, json.load(f)))
    print(f"{'network':<16} {'ranks':>5} {'params/rank MB':>15} {'unsharded MB':>13} {'share':>6} "
          f"{'momentum/rank MB':>17} {'s/step':>7}")
    for name in results[0][1]:
        for n, rows in results:
            r = rows[name]
            print(f"{name:<16} {n:>5} {r['local_bytes'] / 2**20:>15.2f} {r['full_bytes'] / 2**20:>13.2f} "
                  f"{r['local_bytes'] / r['full_bytes']:>6.2f} {r['state_bytes'] / 2**20:>17.2f} {r['step_s']:>7.3f}")


if __name__ == "__main__":
    main()
