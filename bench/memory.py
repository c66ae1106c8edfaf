"""Memory benchmark: the static memory plan (SOMAS) of each workload's training graph, measured peaks, and the
largest encoder batch under a fixed `max_device_memory`.

    python bench/memory.py                          # plan figures for mlp, lenet, resnet, gpt, encoder
    python bench/memory.py --exact 20               # + the exact mode (CP-SAT / HiGHS, 20 s per graph)
    python bench/memory.py --measure                # + measured peaks, each in a fresh process
    python bench/memory.py --cap 256MB              # + largest trainable encoder batch under the cap

Plan columns (one GRAPH_MODE train step, openspore's O1 pipeline, 512 B alignment): lower bound = most bytes live
at any point of the schedule; planned = arena peak of the best heuristic (or the exact mode); no reuse = every
tensor its own bytes. `+rc` rows call `recompute()` on every transformer block. Measured (--measure, one step
after a warm-up step, fresh process each): `alloc MB` = peak bytes allocated during the step on the numpy
backend (tracemalloc sees numpy's allocations, kernel temporaries included), `peak RSS MB` = the process's peak
resident set after two steps on the torch backend (imports and compile included). The executor frees each value after its last use in both
memory levels (O0 and O1 run the same code); the plan is what a fixed-arena runtime would reserve.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

WORKLOADS = ["mlp", "lenet", "resnet", "gpt", "encoder", "gpt+rc", "encoder+rc"]


def train_step(workload, batch=8, backend=None):
    """(TrainOneStepCell, x, y) in GRAPH_MODE; 'name+rc' recomputes every transformer block."""
    import openspore as ms
    from openspore import nn
    import ms_models
    name, rc = workload.split("+")[0], workload.endswith("+rc")
    ms.set_context(mode=ms.GRAPH_MODE, **({"backend": backend} if backend else {}))
    net, x, y = ms_models.build(name, batch) if name == "encoder" else ms_models.build(name)
    if rc:
        for block in net.blocks:
            block.recompute()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if name in ("gpt", "encoder"):
        loss, opt = ms_models.FlatLabels(loss), nn.Adam(net.trainable_params(), learning_rate=1e-3)
    else:
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    train.set_train()
    return train, x, y


def compile_only(train, x, y):
    """The compiled entry of the train step's graph, without running it (a cap error raises here)."""
    import functools
    from openspore.runtime.cache import GraphCache
    from openspore.runtime.jit import _LevelOf, _traceable_construct
    cache = GraphCache(functools.partial(_traceable_construct, type(train).construct), "TrainOneStepCell.construct",
                       _LevelOf(None, train), train, cell_owner=True)
    entry, _, _ = cache.lookup((x, y), {})
    return entry


def plan_row(workload, exact):
    import openspore as ms
    from openspore.compiler.memory import check_plan, plan_memory
    ms.set_context(memory_optimize_level="O1")
    train, x, y = train_step(workload)
    t0 = time.perf_counter()
    entry = compile_only(train, x, y)
    plan = entry.memory_plan[0]
    heuristic_s = entry.times.get("memory_plan", time.perf_counter() - t0)
    row = dict(workload=workload, tensors=len(plan.tensors), lower=plan.lower_bound, planned=plan.peak,
               no_reuse=plan.no_reuse, heuristic=plan.heuristic, plan_s=heuristic_s, tried=plan.tried)
    if exact:
        ex = plan_memory(entry.graph, exact=True, time_limit=exact)[0]
        check_plan(ex)
        row.update(exact_peak=ex.peak, exact_status=ex.exact.status, exact_gap=ex.exact.gap,
                   exact_s=ex.exact.seconds, solver=ex.exact.solver)
    check_plan(plan)
    return row


def measure(workload, backend):
    """Run in a fresh process: peak bytes during one step after a warm-up step."""
    train, x, y = train_step(workload, backend=backend)
    train(x, y)
    if backend == "numpy":
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        train(x, y)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        return {"alloc": peak}
    train(x, y)
    return {"rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def _child(args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", *args]
    env = dict(os.environ, OMP_NUM_THREADS="2")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def largest_batch(workload, cap, top=512):
    """Largest encoder batch whose train step compiles under max_device_memory=cap (compile only)."""
    import openspore as ms
    ms.set_context(memory_optimize_level="O1", max_device_memory=cap)

    def fits(batch):
        train, x, y = train_step(workload, batch)
        try:
            compile_only(train, x, y)
            return True
        except MemoryError:
            return False
    lo, hi = 0, 1
    while hi <= top and fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _mb(b):
    return f"{b / 2**20:.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-w", "--workloads", nargs="+", default=WORKLOADS, choices=WORKLOADS)
    ap.add_argument("--exact", type=float, default=0, help="exact mode time limit per graph (s); 0: off")
    ap.add_argument("--measure", action="store_true", help="measured peaks (fresh process per row)")
    ap.add_argument("--measure-workloads", nargs="+", default=["mlp", "gpt", "gpt+rc", "encoder", "encoder+rc"])
    ap.add_argument("--cap", help="max_device_memory for the largest-batch search, e.g. 256MB")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(*args.child)))
        return 0
    print(f"{'workload':<12}{'tensors':>8}{'lower MB':>10}{'planned MB':>11}{'ratio':>8}{'no reuse MB':>12}"
          f"{'plan s':>8}  {'best heuristic':<28}{'exact MB':>9}{'gap':>7}{'exact s':>8}")
    for w in args.workloads:
        r = plan_row(w, args.exact)
        ex = (f"{_mb(r['exact_peak']):>9}{r['exact_gap']:>7.2%}{r['exact_s']:>8.1f} {r['solver']} {r['exact_status']}"
              if args.exact else "")
        print(f"{w:<12}{r['tensors']:>8}{_mb(r['lower']):>10}{_mb(r['planned']):>11}{r['planned'] / r['lower']:>8.4f}"
              f"{_mb(r['no_reuse']):>12}{r['plan_s']:>8.2f}  {r['heuristic']:<28}{ex}", flush=True)
    if args.measure:
        print(f"\n{'workload':<12}{'alloc MB (numpy)':>18}{'peak RSS MB (torch)':>21}")
        for w in args.measure_workloads:
            a, t = _child([w, "numpy"]), _child([w, "torch"])
            print(f"{w:<12}{_mb(a['alloc']) if 'alloc' in a else a.get('error', '?')[:30]:>18}"
                  f"{_mb(t['rss']) if 'rss' in t else t.get('error', '?')[:30]:>21}", flush=True)
    if args.cap:
        base, rc = largest_batch("encoder", args.cap), largest_batch("encoder+rc", args.cap)
        print(f"\nlargest encoder batch under max_device_memory={args.cap}: {base} without recompute, {rc} with "
              f"recompute ({rc / max(base, 1):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
