"""What the debugger costs a GRAPH_MODE training step.

    python bench/debugger_overhead.py [--model lenet] [--steps 60] [--rounds 5]

1. Dump off, side by side: this tree against the same tree with the dump plumbing taken out (a copy of the
   package whose graph cache neither keys on `events.generation` nor asks for an observer: what the executor
   did before dumps existed). Two child processes, one per tree, take steps in lockstep (A B, B A, ...), so that
   load from other processes on a shared machine falls on both alike; the table gives medians over all steps
   and their ratio, and the medians of each block of `--steps` steps.
2. The cost of dumping, in this process: dump installed with no iteration selected, everything as statistics,
   everything as tensors (median and min ms/step, against dump off measured the same way).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)


def _time(step, steps):
    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        out = step()
        float(out.asnumpy())
        times.append(time.perf_counter() - t0)
    return 1000 * min(times), 1000 * statistics.median(times)


def _baseline_tree(tmp):
    """A copy of the package without the dump plumbing of the graph cache (the only per-step code dumps add)."""
    dst = os.path.join(tmp, "openspore")
    shutil.copytree(os.path.join(REPO, "openspore"), dst, ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(dst, "runtime", "cache.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # the dump generation in the graph-cache key becomes a constant (the key keeps its shape: code reads key[6])
    text, keyed = re.subn(r"events\.generation,", "0,", text)
    text, observed = re.subn(r"events\.graph_observer\(\) if events\.generation else None", "None", text)
    if (keyed, observed) != (1, 1):
        raise SystemExit(f"bench: runtime/cache.py changed shape (found {keyed} generation keys, {observed} observer "
                         "lookups); update _baseline_tree.")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return tmp


class _Child:
    """A child process over one tree that runs one timed step per request (`--serve`)."""

    def __init__(self, root, model):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, BENCH] + [p for p in [os.environ.get("PYTHONPATH")]
                                                                             if p]))
        env.pop("MINDSPORE_DUMP_CONFIG", None)
        env.pop("ENABLE_MS_DEBUGGER", None)
        self.root = root
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", "--model", model],
                                     cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        origin = self.proc.stdout.readline().strip()
        expected = os.path.join(root, "openspore")
        if os.path.realpath(origin) != os.path.realpath(expected):
            self.close()
            raise SystemExit(f"bench child imported openspore from {origin!r}, expected {expected}.")

    def step(self):
        self.proc.stdin.write("s\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def side_by_side(model, steps, rounds):
    """Both trees step in lockstep (A B, then B A, ...): load from other processes falls on both alike."""
    with tempfile.TemporaryDirectory() as tmp:
        children = [_Child(REPO, model), _Child(_baseline_tree(tmp), model)]
        try:
            times = [[], []]
            for k in range(steps * rounds):
                for which in ((0, 1) if k % 2 == 0 else (1, 0)):
                    times[which].append(children[which].step())
        finally:
            for c in children:
                c.close()
    ours, base = times
    blocks = [(statistics.median(ours[i:i + steps]), statistics.median(base[i:i + steps]))
              for i in range(0, len(ours), steps)]
    print(f"| {model} graph-mode step, {rounds} x {steps} steps in lockstep | median ms/step | min ms/step |")
    print("|---|---:|---:|")
    print(f"| without dump plumbing | {statistics.median(base):.3f} | {min(base):.3f} |")
    print(f"| dump off (this tree) | {statistics.median(ours):.3f} | {min(ours):.3f} |")
    print(f"| dump off / without | {statistics.median(ours) / statistics.median(base):.4f}x | "
          f"{min(ours) / min(base):.4f}x |")
    # each lockstep pair ran at nearly the same moment: the median of the pairs' ratios is the figure least
    # moved by other processes' load
    paired = statistics.median(o / b for o, b in zip(ours, base))
    print(f"| dump off / without, median of paired step ratios | {paired:.4f}x | |")
    print("block medians, this tree / without:", ", ".join(f"{o:.3f}/{b:.3f}" for o, b in blocks))


def dump_costs(model, steps):
    import ms_models
    from openspore.insight.debugger.dump_writer import disable_dump, enable_dump
    n = max(10, steps // 4)
    step, _ = ms_models.make_step(model, "graph")
    rows = [("dump off", _time(step, n))]
    with tempfile.TemporaryDirectory() as tmp:
        for label, settings in (("dump on, no iteration selected", {"iteration": "100000"}),
                                ("dump everything (statistics)", {"saved_data": "statistic"}),
                                ("dump everything (tensors)", {"saved_data": "tensor"}),
                                ("dump everything (tensors + statistics)", {"saved_data": "full"})):
            enable_dump({"common_dump_settings": dict({"path": os.path.join(tmp, label.replace(" ", "_")),
                                                       "net_name": "Net", "iteration": "all"}, **settings)})
            step, _ = ms_models.make_step(model, "graph")
            rows.append((label, _time(step, n)))
            disable_dump()
    print()
    print(f"| {model} graph-mode step, {n} steps each | median ms/step | min ms/step | median vs off |")
    print("|---|---:|---:|---:|")
    for label, (best, median) in rows:
        print(f"| {label} | {median:.2f} | {best:.2f} | {median / rows[0][1][1]:.2f}x |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="lenet")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-dump-costs", action="store_true", help="only the side-by-side dump-off table")
    args = parser.parse_args()
    if args.serve:
        import ms_models
        import openspore
        step, _ = ms_models.make_step(args.model, "graph")
        for _ in range(5):
            float(step().asnumpy())
        print(os.path.dirname(openspore.__file__), flush=True)
        for _line in sys.stdin:
            t0 = time.perf_counter()
            float(step().asnumpy())
            print(1000 * (time.perf_counter() - t0), flush=True)
        return
    side_by_side(args.model, args.steps, args.rounds)
    if not args.no_dump_costs:
        dump_costs(args.model, args.steps)


if __name__ == "__main__":
    main()
