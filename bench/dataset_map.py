"""Throughput of `Dataset.map` with an expensive per-row Python operation: 1 worker vs N worker processes.

    python bench/dataset_map.py                 # 300 rows, ~3 ms of single-threaded numpy work per row, 1 vs 2 workers
    python bench/dataset_map.py --rows 800 --workers 4 --size 160

Prints rows/s for each setting and the speedup of the parallel run over the single-worker run.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import openspore.dataset as ds  # noqa: E402


class Augment:
    """A deliberately expensive per-row transform: elementwise numpy work on a (size, size, 3) image."""

    def __init__(self, rounds):
        self.rounds = rounds

    def __call__(self, image):
        x = image.astype(np.float32) / 255.0
        for _ in range(self.rounds):
            x = np.tanh(x * 1.7 - 0.3) + np.sqrt(np.abs(x) + 0.1) * 0.5
        return x.mean(axis=(0, 1))


def make_dataset(rows, size, workers, rounds):
    images = np.random.default_rng(0).integers(0, 256, (rows, size, size, 3), dtype=np.uint8)
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    return data.map(Augment(rounds), "image", num_parallel_workers=workers, python_multiprocessing=workers > 1)


def rows_per_second(rows, size, workers, rounds, repeats):
    best = 0.0
    for _ in range(repeats):
        data = make_dataset(rows, size, workers, rounds)
        start = time.perf_counter()
        count = sum(1 for _ in data.create_tuple_iterator(output_numpy=True))
        elapsed = time.perf_counter() - start
        assert count == rows
        best = max(best, rows / elapsed)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--size", type=int, default=160, help="image side; the per-row work grows with its square")
    ap.add_argument("--rounds", type=int, default=24, help="passes of elementwise work per row")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)

    probe = np.zeros((args.size, args.size, 3), np.uint8)
    op = Augment(args.rounds)
    op(probe)
    start = time.process_time()  # CPU time: a busy machine stretches wall time, not the work itself
    for _ in range(20):
        op(probe)
    per_row_ms = (time.process_time() - start) / 20 * 1e3
    print(f"per-row work: {per_row_ms:.2f} ms CPU ({args.size}x{args.size}x3, {args.rounds} rounds), {args.rows} rows, "
          f"{os.cpu_count()} CPUs")
    single = rows_per_second(args.rows, args.size, 1, args.rounds, args.repeats)
    parallel = rows_per_second(args.rows, args.size, args.workers, args.rounds, args.repeats)
    print(f"num_parallel_workers=1                 : {single:8.1f} rows/s")
    print(f"num_parallel_workers={args.workers} (processes)   : {parallel:8.1f} rows/s")
    print(f"speedup: {parallel / single:.2f}x")


if __name__ == "__main__":
    main()
