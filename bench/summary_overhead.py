"""What SummaryCollector costs a training step: LeNet Model.train without a collector, with the default
collector (collect_freq=10: loss, lr, graph, 5 weight histograms, input images, lineage) and collecting every step.
Rounds alternate between the settings (the machine is shared); prints median ms/step per setting and the ratio,
and the CPU one collection costs the writer thread and the training thread (thread_time: least moved by load).

    python bench/summary_overhead.py [--mode graph|pynative] [--rounds 5] [--steps 40]
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


class StepTimes(ms.Callback):
    def __init__(self):
        super().__init__()
        self.times, self._t = [], None

    def step_begin(self, run_context):
        self._t = time.perf_counter()

    def step_end(self, run_context):
        self.times.append(time.perf_counter() - self._t)


def one_round(steps, collector_freq, tmp):
    ms.set_seed(1)
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.standard_normal((steps * 32, 1, 32, 32)).astype(np.float32),
                                  "y": rng.integers(0, 10, steps * 32).astype(np.int32)}, shuffle=False).batch(32)
    net = nets.LeNet()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.01, 0.9))
    timer = StepTimes()
    callbacks = [timer]
    if collector_freq:
        callbacks.insert(0, ms.SummaryCollector(tempfile.mkdtemp(dir=tmp), collect_freq=collector_freq))
    t0, cpu0 = time.perf_counter(), time.process_time()
    model.train(1, data, callbacks=callbacks)
    total, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    # step 1 compiles (graph mode) and records the graph: leave it out of the per-step figure
    return 1000 * statistics.median(timer.times[1:]), 1000 * total / steps, 1000 * cpu / steps


def writer_cpu_ms_per_collection():
    """CPU ms the writer thread spends on one default collection of this LeNet (loss, lr, five weight histograms,
    the 32-image input batch): packing, PNG, protobuf and CRCs, measured with thread_time (load-independent)."""
    from openspore.train.summary._event_file import frame
    from openspore.train.summary._pack import event_bytes as _event_bytes
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


def main_cpu_ms_per_collection():
    """CPU ms the training thread spends on the same collection: `add_value` (copies to numpy) and `record`
    (queues the packing), measured with thread_time."""
    net = nets.LeNet()
    rng = np.random.default_rng(0)
    images = ms.Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
    with tempfile.TemporaryDirectory() as tmp, ms.SummaryRecord(tmp) as record:
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="graph", choices=["graph", "pynative"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    settings = [("no SummaryCollector", 0), ("SummaryCollector, collect_freq=10 (default)", 10),
                ("SummaryCollector, collect_freq=1", 1)]
    results = {label: [] for label, _ in settings}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for label, freq in settings:
                results[label].append(one_round(args.steps, freq, tmp))
    base_step = statistics.median(r[0] for r in results[settings[0][0]])
    base_total = statistics.median(r[1] for r in results[settings[0][0]])
    print(f"LeNet Model.train, {args.mode} mode, batch 32, {args.steps} steps x {args.rounds} alternating rounds "
          "(medians)")
    # process CPU (all threads of the training process) is the figure least moved by other jobs on a shared machine;
    # with the default writer process (OPENSPORE_SUMMARY_WRITER=process) the packing is not in it — it runs at
    # nice 19 on CPU the training leaves idle
    print(f"summary writer: {os.environ.get('OPENSPORE_SUMMARY_WRITER', 'process')} "
          "(set OPENSPORE_SUMMARY_WRITER=thread to compare)")
    base_cpu = statistics.median(r[2] for r in results[settings[0][0]])
    print("| setting | median ms/step | vs none | whole epoch ms/step | vs none | process CPU ms/step | vs none |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, _ in settings:
        step = statistics.median(r[0] for r in results[label])
        total = statistics.median(r[1] for r in results[label])
        cpu = statistics.median(r[2] for r in results[label])
        print(f"| {label} | {step:.2f} | {step / base_step:.3f} | {total:.2f} | {total / base_total:.3f} "
              f"| {cpu:.2f} | {cpu / base_cpu:.3f} |")
    cpu = writer_cpu_ms_per_collection()
    print(f"writer-thread CPU per collection: {cpu:.2f} ms; at collect_freq=10 that is {cpu / 10:.2f} ms per step, "
          f"{100 * cpu / 10 / base_step:.1f}% of the median step without a collector")
    print(f"training-thread CPU per collection (add_value + record): {main_cpu_ms_per_collection():.2f} ms")


if __name__ == "__main__":
    main()
