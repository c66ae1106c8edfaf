"""Does a busy second process slow the training step? LeNet Model.train (no collector) while another process is
idle, or does writer-like work on the other core: the summary writer's own packing (`event_bytes` + `frame` of one
default collection: loss, lr, 5 weight histograms, the 32-image PNG) once per period (and once every 2 and 10
periods), or a plain numpy loop (memory streaming) of similar CPU once per period. The training process's step CPU
(process_time) is compared, rounds interleaved (the order rotates), medians over rounds; ratios are to the idle run
of the same round.

    python bench/summary_interference.py [--rounds 9] [--steps 50] [--period-ms 4] [--threads 1] [--pin]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_WORKER = r"""
import sys, time
import numpy as np
kind, period = sys.argv[1], float(sys.argv[2]) / 1000
if sys.argv[3] != "-":
    import os
    os.sched_setaffinity(0, {int(sys.argv[3])})
if kind == "writer":
    from openspore.train.summary._records import frame
    from openspore.train.summary._event_bytes import event_bytes
    from tests.insight import nets
    rng = np.random.default_rng(0)
    net = nets.LeNet()
    data = [("scalar", "loss/auto", np.float32(2.3)), ("scalar", "learning_rate/auto", np.float32(0.01)),
            ("image", "input_data/auto", rng.standard_normal((32, 1, 32, 32)).astype(np.float32))]
    data += [("histogram", f"{p.name}/auto", p.asnumpy()) for p in net.trainable_params()[:5]]
    work = lambda step: frame(event_bytes(step, data))
else:  # a plain numpy loop, about the writer's CPU per call, streaming a few MB
    a = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    work = lambda step: float(np.sort(a[:60000]).sum() + (a * 1.5).sum())
work(0)
t0 = time.thread_time(); [work(i) for i in range(20)]; per = (time.thread_time() - t0) / 20
print(f"ready {per * 1000:.3f}", flush=True)
step = 0
nxt = time.perf_counter()
while True:
    work(step)
    step += 1
    nxt += period
    delay = nxt - time.perf_counter()
    if delay > 0:
        time.sleep(delay)
    else:
        nxt = time.perf_counter()
"""


def start_worker(kind, period_ms, cpu):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path[:2]))
    proc = subprocess.Popen([sys.executable, "-c", _WORKER, kind, str(period_ms), "-" if cpu is None else str(cpu)],
                            stdout=subprocess.PIPE,
                            text=True, env=env)
    line = proc.stdout.readline().split()
    return proc, float(line[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--period-ms", type=float, default=4.0, help="the worker does one unit of work per period")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--pin", action="store_true", help="training on CPU 0, the other process on CPU 1")
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {0})
    import torch
    torch.set_num_threads(args.threads)
    import openspore as ms
    import summary_overhead as bench
    ms.set_context(mode=ms.GRAPH_MODE)
    # (kind, period): the writer's packing once a step (collect_freq=1) or once per 10 steps (collect_freq=10)
    periods = {"idle": None, "writer": args.period_ms, "writer, period x2": 2 * args.period_ms,
               "writer, period x10": 10 * args.period_ms,
               "numpy": args.period_ms}
    settings = list(periods)
    runs = {s: [] for s in settings}
    per_call = {}
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        bench.one_run(1, 4, 0, tmp)
        for r in range(args.rounds):
            for kind in settings[r % len(settings):] + settings[:r % len(settings)]:
                proc = None
                if kind != "idle":
                    proc, per_call[kind] = start_worker(kind.split(",")[0], periods[kind], 1 if args.pin else None)
                    time.sleep(0.2)
                try:
                    runs[kind].append(bench.one_run(args.epochs, args.steps, 0, tmp))
                finally:
                    if proc is not None:
                        proc.kill()
                        proc.wait()
    print(f"LeNet Model.train graph mode, batch 32, no collector, {args.epochs}x{args.steps} steps, {args.rounds} "
          f"rounds; other process: one unit of work every {args.period_ms} ms (writer unit "
          f"{per_call.get('writer', 0):.2f} ms CPU, numpy unit {per_call.get('numpy', 0):.2f} ms CPU); "
          f"{'pinned (training CPU 0, other CPU 1)' if args.pin else 'not pinned'}; load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end")
    print("| other process | step p50 ms | step CPU p50 ms | step CPU mean ms |")
    print("|---|---:|---:|---:|")
    for kind in settings:
        cells = []
        for key in ("p50", "cpu50", "cpumean"):
            value = statistics.median(x[key] for x in runs[kind])
            ratio = statistics.median(x[key] / b[key] for x, b in zip(runs[kind], runs["idle"]))
            cells.append(f"{value:.3f} ({ratio:.3f})")
        print(f"| {kind} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
