"""What SummaryCollector costs a training step and an epoch: LeNet Model.train without a collector, with the default
collector (collect_freq=10: loss, lr, graph, 5 weight histograms, input images, lineage) and collecting every step.

Each round trains once per setting (the order rotates between rounds: the machine is shared with other jobs, so
load drifts), `--epochs` epochs of `--steps` steps. Per round and setting it takes the step times (p50, p99, max;
the first step of a run, which compiles the graph, is reported on its own), the epoch time (epoch_begin to
epoch_end, the collector's epoch-end work included), the whole `Model.train` per epoch (writer start, first step,
lineage and close included), the training process's CPU, the time the collector's own callbacks took on the
training thread, and the CPU of the training process's other threads (the summary writer's and lineage threads;
torch's do not run with --threads 1), a figure other jobs on the machine barely move, and the writer process's
CPU over the run (its CPU clock; a run that started it counts its whole start). The writer process is started once
per training process and reused by later SummaryRecords: the "writer cold" settings stop the idle one first, so
that run pays the start, the writer importing its modules at nice 19 or at the training process's priority
(`_writer_client.START_NICE`). Ratios are per round against the run without a collector, then the median over
rounds.

    python bench/summary_overhead.py [--mode graph|pynative] [--rounds 9] [--epochs 2] [--steps 20] [--threads N]
    python bench/summary_overhead.py --paired 8 --steps 300 [--threads 1]   # one collection's cost, CPU and wall, in-run
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import openspore as ms  # noqa: E402
import openspore.dataset as ds  # noqa: E402
from openspore import nn  # noqa: E402
from tests.insight import nets  # noqa: E402


class Timer(ms.Callback):
    """Last in the callback list: a step's time includes the collector's step_end, an epoch's its epoch_end."""

    def __init__(self):
        super().__init__()
        self.steps, self.cpu, self.epochs, self._step, self._cpu, self._epoch = [], [], [], None, None, None

    def on_train_epoch_begin(self, run_context):
        self._epoch = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        self.epochs.append(time.perf_counter() - self._epoch)

    def on_train_step_begin(self, run_context):
        self._step, self._cpu = time.perf_counter(), time.process_time()

    def on_train_step_end(self, run_context):
        self.steps.append(time.perf_counter() - self._step)
        self.cpu.append(time.process_time() - self._cpu)  # all threads of the training process, this step


class TimedCollector(ms.SummaryCollector):
    """The collector, adding up the wall time of its callbacks (what it costs the training thread directly), and
    the training thread's CPU time (thread_time: load-independent) of each step_end, collecting or not."""

    own = 0.0
    own_step_max = 0.0
    close = 0.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.step_cpu = {"collecting": [], "other": []}
        self.step_wall = {"collecting": [], "other": []}

    def _timed(self, method, run_context, step=False):
        t0, cpu0 = time.perf_counter(), time.thread_time()
        try:
            return method(self, run_context)
        finally:
            spent, cpu = time.perf_counter() - t0, time.thread_time() - cpu0  # before this bookkeeping's own reads
            self.own += spent
            if step:
                self.own_step_max = max(self.own_step_max, spent)
                n = run_context.original_args()["cur_step_num"]
                if n > 1:  # step 1 records the graph too
                    self.step_cpu["other" if n % self.collect_freq else "collecting"].append(cpu)
                    self.step_wall["other" if n % self.collect_freq else "collecting"].append(spent)

    def __enter__(self):
        t0 = time.perf_counter()
        try:
            return super().__enter__()
        finally:
            self.own += time.perf_counter() - t0

    def __exit__(self, *err):
        t0 = time.perf_counter()
        try:
            return super().__exit__(*err)
        finally:
            self.close = time.perf_counter() - t0
            self.own += self.close

    def begin(self, run_context):
        return self._timed(ms.SummaryCollector.begin, run_context)

    def step_end(self, run_context):
        return self._timed(ms.SummaryCollector.step_end, run_context, step=True)

    def epoch_end(self, run_context):
        return self._timed(ms.SummaryCollector.epoch_end, run_context)

    def end(self, run_context):
        return self._timed(ms.SummaryCollector.end, run_context)


def _process_cpu(pid):
    """CPU seconds another process has used (its CPU clock: nanosecond resolution, Linux)."""
    return time.clock_gettime(((~pid) << 3) | 2)


def _idle_writer():
    from openspore.train.summary import _writer_client
    writer = _writer_client._idle["writer"]
    return writer if writer is not None and writer.alive() else None


def lenet_training(steps):
    """The benchmark's LeNet `Model` (seeded, Momentum) and `steps` batches of 32 random 1x32x32 images."""
    ms.set_seed(1)
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.standard_normal((steps * 32, 1, 32, 32)).astype(np.float32),
                                  "y": rng.integers(0, 10, steps * 32).astype(np.int32)}, shuffle=False).batch(32)
    net = nets.LeNet()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.01, 0.9))
    return model, data


def one_run(epochs, steps, collector_freq, tmp, cold=False):
    from openspore.train.summary import _writer_client
    start_nice = getattr(_writer_client, "START_NICE", None)
    if cold:  # no writer process left by an earlier run: this run starts its own (once per training process)
        _writer_client._stop_idle()
        _writer_client.START_NICE = None if cold == "parent" else cold
    writer = _idle_writer()
    writer_cpu0 = _process_cpu(writer.pid) if writer is not None else 0.0
    model, data = lenet_training(steps)
    timer = Timer()
    collector = TimedCollector(tempfile.mkdtemp(dir=tmp), collect_freq=collector_freq) if collector_freq else None
    callbacks = [collector, timer] if collector else [timer]
    t0, cpu0, main0 = time.perf_counter(), time.process_time(), time.thread_time()
    model.train(epochs, data, callbacks=callbacks)
    total, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    side = cpu - (time.thread_time() - main0)  # the process's other threads (summary writer, lineage, ...)
    after = _idle_writer()  # close() handed the writer process back: all its work for this run is done
    if after is None:
        writer_cpu = 0.0
    elif after is writer:
        writer_cpu = _process_cpu(after.pid) - writer_cpu0
    else:  # started by this run: its whole life, its start included
        writer_cpu = _process_cpu(after.pid)
    _writer_client.START_NICE = start_nice
    later = np.array(timer.steps[1:]) * 1000  # step 1 compiles (graph mode) and records the graph
    later_cpu = np.array(timer.cpu[1:]) * 1000
    n = len(timer.steps)
    return {"p50": float(np.percentile(later, 50)), "mean": float(later.mean()), "p99": float(np.percentile(later, 99)),
            "max": float(later.max()), "cpu50": float(np.percentile(later_cpu, 50)), "cpumean": float(later_cpu.mean()),
            "cpu99": float(np.percentile(later_cpu, 99)), "writer": 1e6 * writer_cpu / n,
            "cpumax": float(later_cpu.max()),
            "first": 1000 * timer.steps[0], "epoch": 1000 * statistics.mean(timer.epochs[1:] or timer.epochs),
            "train": 1000 * total / epochs, "cpu": 1000 * cpu / n, "side": 1e6 * side / n,
            "own": 1000 * collector.own / n if collector else 0.0,
            "se_collect": 1e6 * _median(collector.step_cpu["collecting"]) if collector else 0.0,
            "se_other": 1e6 * _median(collector.step_cpu["other"]) if collector else 0.0,
            "own_max": 1000 * collector.own_step_max if collector else 0.0,
            "close": 1000 * collector.close if collector else 0.0, "steps": later}


def warm_up(tmp):
    """Imports, the first writer process, the first compile; and that writer process ready: on a busy machine the
    nice-19 writer took seconds to import its modules, and the first rounds' collections then waited for it and
    were packed on this process's writer thread at close (none of it in a step), not the way every later round
    takes."""
    one_run(1, 4, 1, tmp)
    writer = _idle_writer()
    if writer is not None:
        writer.ready.wait(60)


def _median(values):
    return statistics.median(values) if values else float("nan")


def writer_cpu_ms_per_collection():
    """CPU ms the writer spends on one default collection of this LeNet (loss, lr, five weight histograms, the
    32-image input batch): packing, PNG, protobuf and CRCs, measured with thread_time (load-independent)."""
    from openspore.train.summary._records import frame
    from openspore.train.summary._event_bytes import event_bytes as _event_bytes
    net = nets.LeNet()
    rng = np.random.default_rng(0)
    data = [("scalar", "loss/auto", np.float32(2.3)), ("scalar", "learning_rate/auto", np.float32(0.01)),
            ("image", "input_data/auto", rng.standard_normal((32, 1, 32, 32)).astype(np.float32))]
    data += [("histogram", f"{p.name}/auto", p.asnumpy()) for p in net.trainable_params()[:5]]
    _event_bytes(1, data)  # warm-up (imports)
    t0 = time.thread_time()
    for step in range(10):
        frame(_event_bytes(step, data))
    return 100 * (time.thread_time() - t0)


def main_cpu_ms_per_collection(tmp):
    """CPU ms the training thread spends on the same collection through the public API: `add_value` (copies to
    host, into the writer's shared ring when it has room) and `record` (hands the step to the writer), measured
    with thread_time."""
    net = nets.LeNet()
    rng = np.random.default_rng(0)
    images = ms.Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
    with ms.SummaryRecord(tempfile.mkdtemp(dir=tmp)) as record:
        cpu = 0.0
        for step in range(11):
            t0 = time.thread_time()
            record.add_value("scalar", "loss/auto", ms.Tensor(np.float32(2.3)))
            record.add_value("scalar", "learning_rate/auto", ms.Tensor(np.float32(0.01)))
            record.add_value("image", "input_data/auto", images)
            for p in net.trainable_params()[:5]:
                record.add_value("histogram", f"{p.name}/auto", p)
            record.record(step + 1)
            cpu += (time.thread_time() - t0) if step else 0.0  # the first one is warm-up
            record.flush()
    return 100 * cpu


def paired_cost(rounds, steps, freq=3):
    """What one collection costs the steps around it, measured inside each run, where the machine's drift between
    runs (several % on a shared VM: another run, another placement) cancels: with collect_freq=3 each collecting
    step is compared with the clean step just before it (two steps after the last collection), and the step after a
    collection with that same clean step. Per round the median over pairs of the step difference, then the median
    over rounds: {"cpu": ..., "wall": ...}, each (collecting, after, clean, per-round collecting, per-round after) in
    us. CPU is the training process's (process_time: with torch's default threads it counts their spinning too);
    wall is what a user waits. "step_end": the collecting steps' step_end on the training thread (wall, us; median
    per round, then over rounds), the part of a collecting step's cost that is the collector's own."""
    pairs = {"cpu": ([], [], []), "wall": ([], [], [])}
    step_ends = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            model, data = lenet_training(steps)
            timer = Timer()
            collector = TimedCollector(tempfile.mkdtemp(dir=tmp), collect_freq=freq)
            model.train(1, data, callbacks=[collector, timer])
            step_ends.append(statistics.median(collector.step_wall["collecting"][2:]) * 1e6)
            number = np.arange(1, len(timer.cpu) + 1)
            settled = number > 2 * freq  # the graph compiled, the first collections (general way) done
            for kind, values in (("cpu", timer.cpu), ("wall", timer.steps)):
                values = np.array(values) * 1e6
                col = values[settled & (number % freq == 0)]
                aft = values[settled & (number % freq == 1)]
                cln = values[settled & (number % freq == freq - 1)]
                n = min(len(col), len(aft), len(cln))
                collecting, after, clean = pairs[kind]
                collecting.append(float(np.median(col[:n] - cln[:n])))
                after.append(float(np.median(aft[:n] - cln[:n])))  # the clean step before: same neighbourhood
                clean.append(float(np.median(cln)))
    costs = {kind: (statistics.median(c), statistics.median(a), statistics.median(k), c, a)
             for kind, (c, a, k) in pairs.items()}
    costs["step_end"] = (statistics.median(step_ends), step_ends)
    return costs


_COLUMNS = [("p50", "step p50"), ("mean", "step mean"), ("p99", "step p99"), ("max", "step max"),
            ("epoch", "epoch"), ("train", "Model.train / epoch"), ("cpu50", "step CPU p50"),
            ("cpumean", "step CPU mean"), ("cpu99", "step CPU p99"), ("cpumax", "step CPU max"),
            ("cpu", "CPU / step, whole run")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="graph", choices=["graph", "pynative"])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=20, help="steps per epoch")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch intra-op threads (0: torch's default); 1 keeps spinning worker threads out of "
                             "the CPU figures on a loaded machine")
    parser.add_argument("--paired", type=int, default=0, metavar="ROUNDS",
                        help="only the in-run paired measurement of one collection's cost (see paired_cost), over "
                             "ROUNDS runs of --steps steps")
    parser.add_argument("--only", default="",
                        help="comma-separated settings to run ('none' always runs: the ratios are to it), e.g. "
                             "--only collect_freq=1")
    args = parser.parse_args()
    if args.threads:
        import torch
        torch.set_num_threads(args.threads)
    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    if args.paired:
        with tempfile.TemporaryDirectory() as tmp:
            warm_up(tmp)
        costs = paired_cost(args.paired, args.steps)
        print(f"openspore at {os.path.dirname(ms.__file__)}; LeNet Model.train, {args.mode} mode, batch 32, "
              f"collect_freq=3, {args.paired} runs of {args.steps} steps, torch threads {args.threads or 'default'} "
              f"(load average {os.getloadavg()[0]:.1f})")
        step_end, per_round = costs.pop("step_end")
        print(f"the collector's step_end on a collecting step (training thread, wall): {step_end:.1f} us; per run "
              + ", ".join(f"{v:.1f}" for v in per_round))
        for kind, (collecting, after, clean, per_round, per_round_after) in costs.items():
            print(f"{kind}: clean step {clean:.0f} us; a collecting step +{collecting:.0f} us "
                  f"({100 * collecting / clean:.2f}%), the step after it +{after:.0f} us ({100 * after / clean:.2f}%); "
                  f"at collect_freq=1 every step pays both: {100 * (collecting + after) / clean:.2f}%")
            print("  per run, collecting - clean (us): " + ", ".join(f"{v:.0f}" for v in per_round) +
                  "; after - clean: " + ", ".join(f"{v:.0f}" for v in per_round_after))
        return
    settings = [("none", 0, False), ("collect_freq=10", 10, False),
                ("collect_freq=10, writer cold (imports at nice 19)", 10, 19),
                ("collect_freq=10, writer cold (imports at this priority)", 10, "parent"),
                ("collect_freq=1", 1, False)]
    if args.only:
        wanted = {"none"} | set(args.only.split(","))
        settings = [s for s in settings if s[0] in wanted]
    runs = {label: [] for label, _, _ in settings}
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(tmp)
        for r in range(args.rounds):
            order = settings[r % len(settings):] + settings[:r % len(settings)]
            for label, freq, cold in order:
                runs[label].append(one_run(args.epochs, args.steps, freq, tmp, cold))
        main_cpu = main_cpu_ms_per_collection(tmp)
        # OPENSPORE_SUMMARY_CLOSE=background: the writers finish after the timed runs; let them, before the
        # folder goes (what interpreter exit would do)
        from openspore.train.summary import _event_file
        _event_file._finish_background_closes()
    print(f"openspore at {os.path.dirname(ms.__file__)}; LeNet Model.train, {args.mode} mode, batch 32, {args.epochs} epochs x {args.steps} steps, "
          f"{args.rounds} rounds, the settings' order rotating (shared machine: other jobs ran meanwhile; "
          f"load average {os.getloadavg()[0]:.1f} at the end)")
    print(f"summary writer: {os.environ.get('OPENSPORE_SUMMARY_WRITER', 'process')} "
          "(OPENSPORE_SUMMARY_WRITER=thread to compare), close: "
          f"{os.environ.get('OPENSPORE_SUMMARY_CLOSE', 'wait')} (OPENSPORE_SUMMARY_CLOSE=background to compare)")
    print(f"torch threads: {args.threads or 'default'}. ms, median over rounds; (x) = median over rounds of the ratio "
          "to 'none' in the same round. Step figures leave out each run's first step (graph compile); 'Model.train / "
          "epoch' includes writer start and close; step CPU = process_time of the training process over the step "
          "(wall time waits on other jobs, CPU much less).")
    print("| setting | " + " | ".join(title for _, title in _COLUMNS) + " | collector's callbacks / step | "
          "slowest collector step_end | close (leaving Model.train) | step_end CPU, collecting (us) | "
          "step_end CPU, other steps (us) | other threads' CPU / step, whole run (us) | writer process CPU / step, "
          "whole run (us) |")
    print("|---|" + "---:|" * (len(_COLUMNS) + 7))
    base = runs["none"]
    for label, _, _ in settings:
        cells = []
        for key, _ in _COLUMNS:
            value = statistics.median(r[key] for r in runs[label])
            ratio = statistics.median(r[key] / b[key] for r, b in zip(runs[label], base))
            cells.append(f"{value:.2f} ({ratio:.3f})")
        own = statistics.median(r["own"] for r in runs[label])
        own_max = statistics.median(r["own_max"] for r in runs[label])
        close = statistics.median(r["close"] for r in runs[label])
        se_collect = statistics.median(r["se_collect"] for r in runs[label])
        se_other = statistics.median(r["se_other"] for r in runs[label])
        side = statistics.median(r["side"] for r in runs[label])
        writer = statistics.median(r["writer"] for r in runs[label])
        print(f"| {label} | " + " | ".join(cells) + f" | {own:.3f} | {own_max:.2f} | {close:.1f} | "
              f"{se_collect:.0f} | {se_other:.1f} | {side:.0f} | {writer:.0f} |")
    pooled = {label: np.concatenate([r["steps"] for r in runs[label]]) for label, _, _ in settings}
    print("all rounds' steps pooled: " + "; ".join(
        f"{label} p99 {np.percentile(pooled[label], 99):.1f} ms ({np.percentile(pooled[label], 99) / np.percentile(pooled['none'], 99):.3f}), "
        f"first step {statistics.median(r['first'] for r in runs[label]):.0f} ms" for label, _, _ in settings))
    cpu = writer_cpu_ms_per_collection()
    base_step = statistics.median(r["p50"] for r in base)
    print(f"writer CPU per collection (in the writer process): {cpu:.2f} ms; at collect_freq=10 that is "
          f"{cpu / 10:.2f} ms per step, {100 * cpu / 10 / base_step:.1f}% of the median step without a collector")
    print(f"training-thread CPU per collection through the public API (add_value of Tensors + record; the pipe "
          f"write is on this thread when the arrays went into the writer's ring): {main_cpu:.2f} ms")


if __name__ == "__main__":
    main()
