"""PyNative per-op framework overhead: openspore vs the same PyTorch call, in one process.

    python bench/pynative_overhead.py                  # torch backend, the default
    OPENSPORE_BACKEND=numpy python bench/pynative_overhead.py
    python bench/pynative_overhead.py --number 2000 --repeat 41 --markdown

The arrays are tiny (4×3 @ 3×5, 4×5 + 4×5, ...), so the kernel itself costs next to nothing and the time is
what the framework adds around it: argument checks, dtype promotion, `infer`, kernel lookup, Tensor wrapping.
Each case is timed timeit-style (`--number` calls per sample, `--repeat` samples, the median sample reported)
and the openspore and torch samples of a case alternate, so a burst of load elsewhere on a shared machine
lands on both. The default clock is the process's CPU time, which time-slicing on a busy machine does not
inflate (`--clock wall` for elapsed time; on an idle machine the two agree). The torch column calls torch directly on torch tensors of the same data (torch.mm for
ops.matmul on 2-D inputs, torch.add, Tensor.sum, basic slicing).
"""
import argparse
import os
import statistics
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import openspore as ms  # noqa: E402
from openspore import ops  # noqa: E402


def cases():
    """(name, openspore callable, torch callable), the same computation on the same data."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3), dtype=np.float32), rng.standard_normal((3, 5), dtype=np.float32)
    c, d = rng.standard_normal((4, 5), dtype=np.float32), rng.standard_normal((4, 5), dtype=np.float32)
    x = rng.standard_normal((6, 8), dtype=np.float32)
    ma, mb, mc, md, mx = (ms.Tensor(v) for v in (a, b, c, d, x))
    ta, tb, tc, td, tx = (torch.from_numpy(v.copy()) for v in (a, b, c, d, x))
    return [
        ("ops.matmul 4x3 @ 3x5", lambda: ops.matmul(ma, mb), lambda: torch.mm(ta, tb)),
        ("ops.add 4x5 + 4x5", lambda: ops.add(mc, md), lambda: torch.add(tc, td)),
        ("x + y (operator)", lambda: mc + md, lambda: tc + td),
        ("x.sum() (Tensor method)", lambda: mx.sum(), lambda: tx.sum()),
        ("x.reshape(8, 6)", lambda: mx.reshape(8, 6), lambda: tx.reshape(8, 6)),
        ("x[1:3, ::2] (indexing)", lambda: mx[1:3, ::2], lambda: tx[1:3, ::2]),
    ]


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def _sample(fn, number, clock):
    return timeit.Timer(fn, timer=clock).timeit(number=number) / number


def measure(number, repeat, clock=time.process_time):
    rows = []
    for name, ours, theirs in cases():
        ours(), theirs()  # warm caches on both sides before timing
        ours_t, theirs_t = [], []
        for _ in range(repeat):
            ours_t.append(_sample(ours, number, clock))
            theirs_t.append(_sample(theirs, number, clock))
        ours_us, theirs_us = statistics.median(ours_t) * 1e6, statistics.median(theirs_t) * 1e6
        rows.append((name, ours_us, theirs_us, ours_us / theirs_us))
    return rows


def table(rows, markdown):
    head = ("op", "openspore µs", "torch µs", "ratio")
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|---:|"]
        lines += [f"| {n} | {o:.2f} | {t:.2f} | {r:.2f}× |" for n, o, t, r in rows]
        return "\n".join(lines)
    lines = [f"{head[0]:<26}{head[1]:>14}{head[2]:>10}{head[3]:>8}"]
    lines += [f"{n:<26}{o:>14.2f}{t:>10.2f}{r:>7.2f}×" for n, o, t, r in rows]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--number", type=int, default=1000, help="calls per timed sample")
    ap.add_argument("--repeat", type=int, default=21, help="timed samples per case (the median is shown)")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1: tiny ops, no pool wake-ups)")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                    help="cpu: this process's CPU time (steady on a loaded machine); wall: elapsed time")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table (docs/performance.md)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows = measure(args.number, args.repeat, CLOCKS[args.clock])
    backend = ms.get_context("backend")
    print(f"openspore PyNative ({backend} backend) vs torch {torch.__version__}, median of {args.repeat} x "
          f"{args.number} calls, {args.clock} clock, {args.threads} torch thread(s)")
    print(table(rows, args.markdown))


if __name__ == "__main__":
    main()
