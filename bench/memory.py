"""Memory benchmark: the static memory plan (SOMAS) of each workload's training graph, measured peaks O0 vs O1,
step times O0 vs O1, and the largest encoder batch under a fixed `max_device_memory`.

    python bench/memory.py                          # plan figures for mlp, lenet, resnet, gpt, encoder
    python bench/memory.py --exact 20               # + the exact mode (CP-SAT / HiGHS, 20 s per graph)
    python bench/memory.py --measure                # + measured peaks and step times, O0 vs O1
    python bench/memory.py --cap 256MB              # + largest trainable encoder batch under the cap

Plan columns (one GRAPH_MODE train step, openspore's O1 pipeline, 512 B alignment, torch backend: its view
kernels make no tensor): lower bound = most bytes live at any point of the schedule; planned = arena peak of the
best heuristic (or the exact mode); no reuse = every tensor its own bytes. `+rc` rows call `recompute()` on
every transformer block.

Measured (--measure; each figure in a fresh process, one step after a warm-up step): `alloc MB` = peak bytes
allocated by torch's CPU allocator during the step, from the torch profiler's memory events (every allocation
and free, in time order). `O1` is memory_optimize_level="O1" as a user gets it (the rematerialize pass, kernels
allocating their results); `O1 arena` adds the opt-in arena (OPENSPORE_O1_ARENA=1, runtime/arena.py), allocated
inside the measured step (its idle buffer is dropped first), so it counts. `numpy MB`: the same step on the numpy
backend, peak traced by tracemalloc. Step times: O0 and O1 steps interleaved in one process, median of the rounds
(the machine is shared: ratios, not absolutes); O1 there is as the environment sets it (no arena by default).
"""
import argparse
import json
import os
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


def _drop_idle_arenas(train):
    """Forget the arenas' idle buffers, so that the next step allocates its arena again (and is measured)."""
    from openspore.nn import cell as cell_module
    for entry in cell_module._graph_runner.caches[train].entries.values():
        arena = getattr(entry.compiled, "arena", None)
        if arena is not None:
            arena._idle.clear()


def profiled_peak(step):
    """Peak bytes torch's CPU allocator holds during `step()` above what it held before (profiler events)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    held = peak = 0
    for event in sorted(prof.events(), key=lambda e: e.time_range.start):
        held += event.self_cpu_memory_usage
        peak = max(peak, held)
    return peak


def measure(workload, backend, level):
    """Run in a fresh process: peak bytes during one step after a warm-up step."""
    import openspore as ms
    ms.set_context(memory_optimize_level=level)
    train, x, y = train_step(workload, backend=backend)
    train(x, y)
    _drop_idle_arenas(train)
    if backend == "numpy":
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        train(x, y)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        return {"alloc": peak}
    return {"alloc": profiled_peak(lambda: train(x, y))}


def step_times(workload, rounds):
    """Median seconds per step at O0 and at O1, the two interleaved in this process."""
    import statistics
    import openspore as ms
    steps = {}
    for level in ("O0", "O1"):
        ms.set_context(memory_optimize_level=level)
        steps[level] = train_step(workload)
        steps[level][0](*steps[level][1:])
    times = {"O0": [], "O1": []}
    for _ in range(rounds):
        for level in ("O0", "O1"):
            ms.set_context(memory_optimize_level=level)
            train, x, y = steps[level]
            t0 = time.perf_counter()
            train(x, y)
            times[level].append(time.perf_counter() - t0)
    ms.set_context(memory_optimize_level="O0")
    return {level: statistics.median(t) for level, t in times.items()}


def _child(args, arena=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", *args]
    env = dict(os.environ, OMP_NUM_THREADS="2")
    if arena is not None:
        env["OPENSPORE_O1_ARENA"] = "1" if arena else "0"
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def largest_batch(workload, cap, level, top=512):
    """Largest encoder batch whose train step compiles under max_device_memory=cap (compile only; the cap is
    checked against the step's memory plan, at both levels)."""
    import openspore as ms
    ms.set_context(memory_optimize_level=level, max_device_memory=cap)

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
    ms.set_context(max_device_memory="1024GB", memory_optimize_level="O0")
    return lo


def losses(workload, level, batch, steps=2):
    import openspore as ms
    ms.set_context(memory_optimize_level=level)
    train, x, y = train_step(workload, batch)
    out = [float(train(x, y).asnumpy()) for _ in range(steps)]
    ms.set_context(memory_optimize_level="O0")
    return out


def _mb(b):
    return f"{b / 2**20:.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-w", "--workloads", nargs="+", default=WORKLOADS, choices=WORKLOADS)
    ap.add_argument("--exact", type=float, default=0, help="exact mode time limit per graph (s); 0: off")
    ap.add_argument("--measure", action="store_true", help="measured peaks (fresh process per row)")
    ap.add_argument("--measure-workloads", nargs="+", default=["mlp", "resnet", "gpt", "encoder", "encoder+rc"])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved O0/O1 steps per workload for step times")
    ap.add_argument("--cap", help="max_device_memory for the largest-batch search, e.g. 256MB")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
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
        print(f"\n{'workload':<12}{'alloc MB O0':>12}{'alloc MB O1':>12}{'O1/O0':>7}{'O1 arena MB':>12}"
              f"{'numpy MB O0':>12}{'numpy MB O1':>12}{'step ms O0':>11}{'step ms O1':>11}{'O1/O0':>7}")
        for w in args.measure_workloads:
            m = {(b, lv): _child([w, b, lv], arena=False) for b in ("torch", "numpy") for lv in ("O0", "O1")}
            m["torch", "arena"] = _child([w, "torch", "O1"], arena=True)
            cell = {k: (_mb(v["alloc"]) if "alloc" in v else v.get("error", "?")[:11]) for k, v in m.items()}
            ratio = (m["torch", "O1"]["alloc"] / m["torch", "O0"]["alloc"]
                     if "alloc" in m["torch", "O1"] and "alloc" in m["torch", "O0"] else float("nan"))
            t = step_times(w, args.rounds)
            print(f"{w:<12}{cell['torch', 'O0']:>12}{cell['torch', 'O1']:>12}{ratio:>7.3f}{cell['torch', 'arena']:>12}"
                  f"{cell['numpy', 'O0']:>12}{cell['numpy', 'O1']:>12}{t['O0'] * 1e3:>11.1f}{t['O1'] * 1e3:>11.1f}"
                  f"{t['O1'] / t['O0']:>7.3f}", flush=True)
        if "encoder" in args.measure_workloads and "encoder+rc" in args.measure_workloads:
            o0, rc = _child(["encoder", "torch", "O0"], arena=False), _child(["encoder+rc", "torch", "O1"], arena=False)
            if "alloc" in o0 and "alloc" in rc:
                print(f"encoder: O1 + recompute {_mb(rc['alloc'])} MB vs O0 {_mb(o0['alloc'])} MB measured "
                      f"({rc['alloc'] / o0['alloc']:.3f}x)")
    if args.cap:
        base, rc = largest_batch("encoder", args.cap, "O0"), largest_batch("encoder+rc", args.cap, "O1")
        print(f"\nlargest encoder batch under max_device_memory={args.cap}: {base} at O0, {rc} at O1 with "
              f"recompute ({rc / max(base, 1):.2f}x)")
        if base:
            a, b = losses("encoder", "O0", base), losses("encoder+rc", "O1", base)
            print(f"losses at batch {base} (2 steps): O0 {a}, O1 + recompute {b}: "
                  f"{'identical' if a == b else f'max diff {max(abs(u - v) for u, v in zip(a, b)):.3g}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
