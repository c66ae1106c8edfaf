"""Graph-kernel fusion, side by side: openspore GRAPH_MODE with fusion off and on, PyTorch eager, torch.compile.

    python bench/fusion.py                              # mlp lenet resnet gpt, 3 rounds
    python bench/fusion.py -w resnet gpt --rounds 5
    python bench/fusion.py -w resnet gpt --interleaved --repeats 10   # off/on steps alternating in one process
    python bench/fusion.py -w resnet gpt --interleaved --threads 1 --clock cpu   # ... timed in CPU time

Every (variant, workload) runs in a fresh process, round-robin over `--rounds` (a burst of load elsewhere does
not land on one variant only); the table shows the median round's ms/step and steps/s, the speed-up of fusion
on over off, and the ratio to the best PyTorch peer. Three more figures per workload:
* `loss rel`: the largest relative difference between the losses of the first `--loss-steps` training steps
  with fusion on and off (same initial weights, same data);
* `cold s`: the first call's compile time with an empty kernel cache (trace + passes + codegen + compiling
  every fused kernel), in a process of its own;
* `warm s`: the same with the kernel cache filled by an earlier process (what users see from the second run).
  `--interleaved` also prints each one's CPU time (`cpu`: this process's and the C++ compiler's), which a
  shared machine does not inflate as it does the wall clock.
The load of the machine (`uptime`) is printed before and after: on a shared machine compare ratios.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
WORKLOADS = ["mlp", "lenet", "resnet", "gpt"]
STEPS = {"mlp": 20, "lenet": 20, "resnet": 5, "gpt": 5}


def _compile_cpu_clock():
    """A dict whose "s" accumulates the CPU time (this process's and its finished children's: the C++ compiler
    that Inductor runs) spent compiling graphs (GraphCache._compile: trace, passes, codegen) and fused kernels
    (GraphKernel._compile: loading kept kernels, or Inductor). On a shared machine the wall-clock compile times
    mostly measure waiting for a core; this does not."""
    from openspore.compiler.graph_kernel.fused import GraphKernel
    from openspore.runtime.cache import GraphCache
    spent, depth = {"s": 0.0}, [0]

    def cpu():
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def clocked(method):
        def run(*a, **k):
            depth[0] += 1
            start = cpu()
            try:
                return method(*a, **k)
            finally:
                depth[0] -= 1
                if depth[0] == 0:  # the outermost compile only (one may run inside another)
                    spent["s"] += cpu() - start
        return run
    GraphCache._compile = clocked(GraphCache._compile)
    GraphKernel._compile = clocked(GraphKernel._compile)
    return spent


def child(args):
    """One measurement in this process: prints one JSON line."""
    sys.path.insert(0, os.path.dirname(HERE))
    import torch
    torch.set_num_threads(args.threads)
    from common import measure
    import ms_models
    import openspore as ms
    from openspore.compiler.graph_kernel import fused
    compile_cpu = _compile_cpu_clock()
    if args.fusion == "on":
        ms.set_context(enable_graph_kernel=True)
    ms.set_context(mode=ms.GRAPH_MODE)
    t0 = time.perf_counter()
    step, graph_s = ms_models.make_step(args.workload, mode="graph")
    first_s = time.perf_counter() - t0
    losses = [float(step().asnumpy()) for _ in range(args.loss_steps)]
    median, samples = measure(step, args.warmup, STEPS[args.workload], args.repeats)
    print(json.dumps({"s_per_step": median, "samples": samples, "losses": losses, "graph_compile_s": graph_s,
                      "kernel_compile_s": fused.COMPILE_STATS["seconds"], "first_call_s": first_s,
                      "kernels": fused.COMPILE_STATS["kernels"], "fallbacks": fused.COMPILE_STATS["fallbacks"],
                      "compile_cpu_s": compile_cpu["s"]}))


def interleaved(args):
    """Fusion off and on in ONE process, their steps alternating (off, on, off, on, ...), so a burst of load
    elsewhere lands on both: prints one JSON line with each variant's per-pair seconds and the losses."""
    sys.path.insert(0, os.path.dirname(HERE))
    import torch
    torch.set_num_threads(args.threads)
    import ms_models
    import openspore as ms
    from openspore.compiler.graph_kernel import fused
    compile_cpu = _compile_cpu_clock()
    steps, compile_s, compile_cpu_s, graphs_before = {}, {}, {}, 0.0
    for variant in ("off", "on"):  # the fusion switch is part of each compiled graph's cache key
        ms.set_context(enable_graph_kernel=variant == "on")
        before, cpu_before = fused.COMPILE_STATS["seconds"], compile_cpu["s"]
        steps[variant], graphs_s = ms_models.make_step(args.workload, mode="graph")  # all graphs so far
        compile_s[variant] = graphs_s - graphs_before + fused.COMPILE_STATS["seconds"] - before
        compile_cpu_s[variant] = compile_cpu["s"] - cpu_before
        graphs_before = graphs_s
    losses = {v: [] for v in steps}
    times = {v: [] for v in steps}
    clock = _clock(args)
    for k in range(args.loss_steps + args.warmup + args.repeats):
        for variant in (("off", "on") if k % 2 == 0 else ("on", "off")):
            ms.set_context(enable_graph_kernel=variant == "on")
            t0 = clock()
            loss = float(steps[variant]().asnumpy())
            elapsed = clock() - t0
            if k < args.loss_steps:
                losses[variant].append(loss)
            elif k >= args.loss_steps + args.warmup:
                times[variant].append(elapsed)
    print(json.dumps({"times": times, "losses": losses, "compile_s": compile_s, "compile_cpu_s": compile_cpu_s,
                      "kernels": fused.COMPILE_STATS["kernels"], "disk_hits": fused.COMPILE_STATS["disk_hits"],
                      "fallbacks": fused.COMPILE_STATS["fallbacks"]}))


def _clock(args):
    """--clock wall: time.perf_counter. --clock cpu: CPU time, which waiting for a core on a shared machine does
    not inflate: the main thread's (time.thread_time) with --threads 1, the whole process's (time.process_time,
    the intra-op threads too) with more."""
    if args.clock == "wall":
        return time.perf_counter
    return time.thread_time if args.threads == 1 else time.process_time


def _interleaved_table(args):
    """--interleaved: per workload a cold compile (empty kernel cache, own process), then one process that
    alternates fusion off / on steps (kernel cache warm); ratios per pair, medians."""
    print(f"load before: {_uptime()}   (clock: {args.clock}, {args.threads} thread(s))")
    print(f"{'workload':<9}{'off ms':>9}{'on ms':>9}{'speed-up':>10}{'pair ratios (min..max)':>24}"
          f"{'loss rel':>10}{'cold s':>8}{'cpu':>6}{'warm s':>8}{'cpu':>6}  losses off / on")
    for workload in args.workloads:
        warm_only = args.cache_warm and args.cache_dir
        cache = args.cache_dir if warm_only else tempfile.mkdtemp(prefix="openspore_fusion_kernels_")
        try:
            once = ["--loss-steps", "0", "--repeats", "1", "--warmup", "0"]
            cold = {"error": "skipped (--cache-warm)"} if warm_only else _run_child(workload, "on", args, cache, once)
            warm = _run_child(workload, "on", args, cache, once)  # a fresh process, as a user's second run
            env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENSPORE_KERNEL_CACHE=cache)
            env.pop("TORCHINDUCTOR_CACHE_DIR", None)
            cmd = [sys.executable, os.path.abspath(__file__), "--interleaved-child", "--workload", workload,
                   "--threads", str(args.threads), "--repeats", str(args.repeats), "--warmup", str(args.warmup),
                   "--loss-steps", str(args.loss_steps), "--clock", args.clock]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
        finally:
            if not warm_only:
                shutil.rmtree(cache, ignore_errors=True)
        if proc.returncode != 0:
            print(f"{workload:<9}  ERROR {(proc.stderr or proc.stdout).strip().splitlines()[-1][:160]}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        off, on = r["times"]["off"], r["times"]["on"]
        ratios = sorted(a / b for a, b in zip(off, on))
        loss_rel = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(r["losses"]["on"], r["losses"]["off"]))
        cold_s = _compile_s(cold)
        print(f"{workload:<9}{statistics.median(off) * 1e3:>9.1f}{statistics.median(on) * 1e3:>9.1f}"
              f"{statistics.median(ratios):>9.2f}x{f'{ratios[0]:.2f}..{ratios[-1]:.2f}':>24}{loss_rel:>10.1e}"
              f"{cold_s:>8.1f}{cold.get('compile_cpu_s', float('nan')):>6.1f}{_compile_s(warm):>8.2f}"
              f"{warm.get('compile_cpu_s', float('nan')):>6.2f}  {r['losses']['off']} / {r['losses']['on']}",
              flush=True)
    print(f"load after: {_uptime()}")
    return 0


def _compile_s(run):
    """Wall seconds of a child's first-call compile (graphs + fused kernels), NaN for a failed run."""
    if "error" in run:
        return float("nan")
    return run.get("graph_compile_s", 0) + run.get("kernel_compile_s", 0)


def _run_child(workload, fusion, args, cache_dir, extra=()):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--workload", workload, "--fusion", fusion,
           "--threads", str(args.threads), "--repeats", str(args.repeats), "--warmup", str(args.warmup),
           "--loss-steps", str(args.loss_steps), *extra]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENSPORE_KERNEL_CACHE=cache_dir)
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime unavailable"


def _median_round(runs):
    ok = sorted((r for r in runs if "error" not in r), key=lambda r: r["s_per_step"])
    if not ok:
        return runs[-1]
    chosen = dict(ok[(len(ok) - 1) // 2])
    chosen["s_per_step"] = statistics.median(r["s_per_step"] for r in ok)
    chosen["rounds_ms"] = [round(r["s_per_step"] * 1e3, 2) for r in ok]
    return chosen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-w", "--workloads", nargs="+", default=WORKLOADS, choices=WORKLOADS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--loss-steps", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--no-peers", action="store_true", help="skip the PyTorch eager / torch.compile rows")
    ap.add_argument("--cache-dir", default=None, help="the warm kernel cache (default: a directory under the "
                                                       "system temp dir, filled by the first process)")
    ap.add_argument("--json", help="also write all rows to this file")
    ap.add_argument("--interleaved", action="store_true",
                    help="fusion off and on in one process, steps alternating (the fairest ratio on a loaded "
                         "machine); --repeats is then the number of timed step pairs")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="--interleaved: time steps by the wall clock or by CPU time (see _clock)")
    ap.add_argument("--cache-warm", action="store_true",
                    help="--interleaved: skip the cold compile; use --cache-dir (kept) as the kernel cache")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--interleaved-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--workload", help=argparse.SUPPRESS)
    ap.add_argument("--fusion", choices=["on", "off"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    if args.interleaved_child:
        return interleaved(args)
    if args.interleaved:
        return _interleaved_table(args)
    from run import run_one  # the PyTorch peers run exactly as bench/run.py runs them
    warm_dir = args.cache_dir or os.path.join(tempfile.gettempdir(), "openspore_bench_kernels")
    print(f"load before: {_uptime()}")
    print(f"{'workload':<9}{'variant':<16}{'ms/step':>9}{'steps/s':>9}{'vs off':>8}{'vs best peer':>14}"
          f"{'loss rel':>10}{'cold s':>8}{'warm s':>8}  rounds ms")
    rows = []
    for workload in args.workloads:
        if args.cache_dir is None:  # our own directory: emptied, so the first process compiles cold and fills it
            shutil.rmtree(warm_dir, ignore_errors=True)
            cold = _run_child(workload, "on", args, warm_dir)
        else:  # the user's directory is left as it is; the cold compile uses a fresh one
            cold_dir = tempfile.mkdtemp(prefix="openspore_cold_kernels_")
            try:
                cold = _run_child(workload, "on", args, cold_dir)
            finally:
                shutil.rmtree(cold_dir, ignore_errors=True)
        variants = ["off", "on"] + ([] if args.no_peers else ["torch-eager", "torch-compile"])
        runs = {v: [] for v in variants}
        for _ in range(max(1, args.rounds)):
            for v in variants:
                if v in ("off", "on"):
                    runs[v].append(_run_child(workload, v, args, warm_dir))
                else:
                    peer = argparse.Namespace(threads=args.threads, repeats=args.repeats, warmup=args.warmup,
                                              device="CPU", timeout=args.timeout)
                    runs[v].append(run_one(v, workload, peer))
        res = {v: _median_round(r) for v, r in runs.items()}
        peers = [res[v]["s_per_step"] for v in variants[2:] if "error" not in res[v]]
        best_peer = min(peers) if peers else None
        off, on = res["off"], res["on"]
        loss_rel = None
        if "error" not in off and "error" not in on:
            loss_rel = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(on["losses"], off["losses"]))
        for v in variants:
            r = res[v]
            if "error" in r:
                print(f"{workload:<9}{v:<16}  ERROR {r['error'][:120]}")
                continue
            s = r["s_per_step"]
            vs_off = f"{off['s_per_step'] / s:.2f}x" if "error" not in off else "-"
            vs_peer = f"{best_peer / s:.2f}x" if best_peer else "-"
            extra = ""
            if v == "on":
                cold_s = cold.get("graph_compile_s", 0) + cold.get("kernel_compile_s", 0) if "error" not in cold \
                    else float("nan")
                warm_s = r["graph_compile_s"] + r["kernel_compile_s"]
                extra = f"{loss_rel:>10.1e}{cold_s:>8.2f}{warm_s:>8.2f}"
            elif v == "off":
                extra = f"{'':>10}{'':>8}{r['graph_compile_s']:>8.2f}"
            else:
                extra = f"{'':>10}{'':>8}{(r.get('compile_s') or 0):>8.2f}"
            print(f"{workload:<9}{v:<16}{s * 1e3:>9.2f}{1 / s:>9.1f}{vs_off:>8}{vs_peer:>14}{extra}  "
                  f"{r.get('rounds_ms', '')}", flush=True)
        rows.append({"workload": workload, "cold": cold, **{v: res[v] for v in variants}, "loss_rel": loss_rel})
    print(f"load after: {_uptime()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
