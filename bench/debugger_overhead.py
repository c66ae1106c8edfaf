"""What the debugger costs a GRAPH_MODE training step: dump off, dump installed with no iteration selected,
dump of everything (tensors, or statistics only). Prints a table of min and median ms/step.

    python bench/debugger_overhead.py [--model lenet] [--steps 60]

Run it with PYTHONPATH pointing at another checkout to compare "dump off" against a tree without the hooks.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ms_models  # noqa: E402


def _time(step, steps):
    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        out = step()
        float(out.asnumpy())
        times.append(time.perf_counter() - t0)
    # the minimum is the step without interference from other processes (shared machines); median for context
    return 1000 * min(times), 1000 * statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="lenet")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--off-only", action="store_true", help="only the dump-off row (for comparing trees)")
    args = parser.parse_args()
    rows = []
    step, _ = ms_models.make_step(args.model, "graph")
    rows.append(("dump off", _time(step, args.steps)))
    if not args.off_only:
        from openspore.insight.debugger.dump_writer import disable_dump, enable_dump
        with tempfile.TemporaryDirectory() as tmp:
            for label, settings in (("dump on, no iteration selected", {"iteration": "100000"}),
                                    ("dump everything (statistics)", {"saved_data": "statistic"}),
                                    ("dump everything (tensors)", {"saved_data": "tensor"})):
                enable_dump({"common_dump_settings": dict({"path": os.path.join(tmp, label.replace(" ", "_")),
                                                           "net_name": "Net", "iteration": "all"}, **settings)})
                step, _ = ms_models.make_step(args.model, "graph")
                rows.append((label, _time(step, max(10, args.steps // 4))))
                disable_dump()
    print(f"| {args.model} graph-mode step | min ms/step | median ms/step | min vs off |")
    print("|---|---:|---:|---:|")
    for label, (best, median) in rows:
        print(f"| {label} | {best:.2f} | {median:.2f} | {best / rows[0][1][0]:.2f}x |")


if __name__ == "__main__":
    main()
