"""Data-parallel scaling on this machine: steps/s of an MLP with a fixed global batch, 1, 2 and 4 workers started
by msrun on 127.0.0.1 (Gloo, PyNative), and the share of step time spent waiting for gradient AllReduce that
did not overlap the backward pass — with the buckets sent as their gradients become ready (default) and,
for comparison, all reduced after the backward pass (`--compare`).

    python bench/distributed_scaling.py                  # 1, 2, 4 workers; 30 timed steps each
    python bench/distributed_scaling.py --compare        # also without overlap, side by side
    python bench/distributed_scaling.py --workers 1 2 --steps 50 --batch 512

Prints one table. On a machine with fewer cores than workers the workers share cores, so steps/s can fall.
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


def worker(out_path, steps, batch, fusion, overlap):
    import numpy as np
    import openspore as ms
    from openspore import communication as comm, nn
    from openspore.nn.wrap import grad_reducer
    from openspore.ops.defs import _comm_world
    grad_reducer.OVERLAP[0] = overlap
    comm.init()
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 all_reduce_fusion_config=[2] if fusion else [])
    net = nn.SequentialCell(nn.Dense(256, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01))
    rng = np.random.default_rng(rank)
    x = ms.Tensor(rng.standard_normal((batch // size, 256)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((batch // size, 10)).astype(np.float32))
    for _ in range(5):
        step(x, y)
    _comm_world.stats(reset=True)
    start = time.perf_counter()
    for _ in range(steps):
        step(x, y)
    elapsed = time.perf_counter() - start
    comm_s = _comm_world.stats()["seconds"]
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"steps_per_s": steps / elapsed, "comm_share": comm_s / elapsed}, f)
    comm.release()



def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--fusion", action="store_true", help="one fused AllReduce bucket per 2 parameters")
    parser.add_argument("--compare", action="store_true", help="also run without overlap")
    parser.add_argument("--no-overlap", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_worker", nargs=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._worker:
        return worker(args._worker[0], args.steps, args.batch, args.fusion, not args.no_overlap)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for overlap in ((True, False) if args.compare else (True,)):
            for n in args.workers:
                out = os.path.join(tmp, f"r{n}{overlap}.json")
                cmd = [sys.executable, "-m", "openspore.parallel.msrun", f"--worker_num={n}",
                       f"--local_worker_num={n}", f"--master_port={free_port()}", "--join=True",
                       f"--log_dir={tmp}/logs{n}{overlap}", os.path.abspath(__file__), "--steps", str(args.steps),
                       "--batch", str(args.batch), *(["--fusion"] if args.fusion else []),
                       *([] if overlap else ["--no-overlap"]), "--_worker", out]
                subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
                with open(out) as f:
                    rows.append((overlap, n, json.load(f)))
    print(f"MLP 256-512-512-10, global batch {args.batch}, {args.steps} steps, fusion={'on' if args.fusion else 'off'}")
    print(f"{'AllReduce':>22} {'workers':>8} {'steps/s':>9} {'speed-up':>9} {'AllReduce wait share':>21}")
    base = rows[0][2]["steps_per_s"]
    for overlap, n, r in rows:
        how = "during backward" if overlap else "after backward"
        print(f"{how:>22} {n:>8} {r['steps_per_s']:>9.1f} {r['steps_per_s'] / base:>9.2f} "
              f"{100 * r['comm_share']:>20.1f}%")


if __name__ == "__main__":
    main()
