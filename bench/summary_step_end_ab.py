"""The collecting `step_end`'s cost, this SummaryCollector against another version's, interleaved in one process.

On a shared machine load drifts between runs of two benches; here both collectors train LeNet (GRAPH_MODE, batch
32, 100 steps a run) in the same process, the settings' order rotating between rounds, and each run reports the
training thread's CPU (`thread_time`) of the collector's `step_end` — on collecting steps at `collect_freq=1`
(step 1, which writes the graph, left out), over all steps at 10 — and the training process's CPU per step
(`process_time`, every thread) against a run without a collector. The other version's collector module is loaded
from `--old` (a checkout's `openspore/train/callback/_summary_collector.py`) into this package, so both use the
same SummaryRecord (the old collector's way, `_record_collection`, is still there).

    git worktree add /tmp/old <commit>   # or: git archive <commit> | tar -x -C /tmp/old
    python bench/summary_step_end_ab.py --old /tmp/old [--rounds 14] [--alternate]

`--alternate` compares the two collectors step by step instead, in the same runs (`collect_freq=1`, 300 steps a
run): odd steps go the other version's `step_end`, even steps this one's, on one collector whose state both share.
Load changes from one run to the next then touch both alike: the figure to trust on a busy machine.
"""
import argparse
import importlib.util
import os
import sys
import tempfile
import time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import openspore as ms  # noqa: E402
from openspore.train.summary import _writer_client  # noqa: E402
from bench.summary_overhead import lenet_training  # noqa: E402



def timed(base):
    """`base` with its `step_end`'s thread CPU recorded (ns) in the class attribute `t`."""
    class Timed(base):
        t = []

        def step_end(self, run_context):
            t0 = time.thread_time_ns()
            try:
                return super().step_end(run_context)
            finally:
                Timed.t.append(time.thread_time_ns() - t0)
    return Timed


class StepCPU(ms.Callback):
    """Last in the list: the training process's CPU (every thread) over each step, the collector's step_end in."""

    def __init__(self):
        super().__init__()
        self.cpu, self._start = [], None

    def on_train_step_begin(self, run_context):
        self._start = time.process_time_ns()

    def on_train_step_end(self, run_context):
        self.cpu.append(time.process_time_ns() - self._start)


def run(cls, freq, steps=100):
    """One Model.train of `steps` steps: (step_end CPU p50, mean in us; step CPU p50, mean in ms)."""
    model, data = lenet_training(steps)
    sc = StepCPU()
    cbs = [sc]
    if cls is not None:
        cls.t = []
        cbs = [cls(tempfile.mkdtemp(), collect_freq=freq), sc]
    model.train(1, data, callbacks=cbs)
    se = np.array(cls.t[1:]) / 1000 if cls is not None else np.zeros(1)
    cpu = np.array(sc.cpu[1:]) / 1e6
    return np.median(se), se.mean(), np.median(cpu), cpu.mean()


def alternating(new_base, old_base):
    """A collector whose odd steps run `old_base.step_end`, even steps `new_base.step_end`, both on the same state
    (a second object of the old class shares this one's `__dict__`), each one's thread CPU recorded (ns) in
    `t["old"]`, `t["new"]` (the first two steps, which write the graph and find the layout, left out)."""
    class Alternating(new_base):
        t = {"old": [], "new": []}

        def step_end(self, run_context):
            step = run_context.original_args()["cur_step_num"]
            if step % 2:
                twin = self.__dict__.get("_twin")
                if twin is None:
                    twin = old_base.__new__(old_base)
                    twin.__dict__ = self.__dict__
                    self.__dict__["_twin"] = twin
                t0 = time.thread_time_ns()
                old_base.step_end(twin, run_context)
                which = "old"
            else:
                t0 = time.thread_time_ns()
                new_base.step_end(self, run_context)
                which = "new"
            spent = time.thread_time_ns() - t0
            if step > 2:
                Alternating.t[which].append(spent)
    return Alternating


def run_alternating(cls, steps=300):
    """One Model.train at collect_freq=1 with the alternating collector: {"old": us list, "new": us list}."""
    cls.t = {"old": [], "new": []}
    model, data = lenet_training(steps)
    model.train(1, data, callbacks=[cls(tempfile.mkdtemp(), collect_freq=1)])
    return {k: np.array(v) / 1000 for k, v in cls.t.items()}


def main_alternate(old_module, rounds):
    cls = alternating(ms.SummaryCollector, old_module.SummaryCollector)
    run_alternating(cls, 10)  # warm-up: imports, compile, the writer process
    _writer_client._idle["writer"].ready.wait(120)
    rows = [run_alternating(cls) for _ in range(rounds)]
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} runs of 300 steps at collect_freq=1, steps alternating")
    for which in ("old", "new"):
        p50 = [np.median(r[which]) for r in rows]
        mean = [r[which].mean() for r in rows]
        print(f"{which} step_end CPU p50 {np.median(p50):6.1f} us (runs {min(p50):.1f}..{max(p50):.1f}), "
              f"mean {np.median(mean):6.1f} us")
    ratios = " ".join(f"{np.median(r['new']) / np.median(r['old']):.2f}" for r in rows)
    print(f"new/old p50 per run: {ratios}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True, help="a checkout of the version to compare with")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--alternate", action="store_true", help="old and new step by step in the same runs")
    args = parser.parse_args()
    path = os.path.join(args.old, "openspore", "train", "callback", "_summary_collector.py")
    if not os.path.isfile(path):
        raise SystemExit(f"--old {args.old}: no openspore/train/callback/_summary_collector.py there")
    torch.set_num_threads(1)
    ms.set_context(mode=ms.GRAPH_MODE)
    spec = importlib.util.spec_from_file_location("openspore.train.callback._old_summary_collector", path)
    old = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = old
    spec.loader.exec_module(old)
    if args.alternate:
        main_alternate(old, args.rounds)
        return
    new_cls, old_cls = timed(ms.SummaryCollector), timed(old.SummaryCollector)
    run(new_cls, 1, 10)  # warm-up: imports, compile, the writer process (waited for: it starts at nice 19)
    _writer_client._idle["writer"].ready.wait(120)
    res = {}
    settings = [("none", None, 1), ("old f1", old_cls, 1), ("new f1", new_cls, 1), ("old f10", old_cls, 10),
                ("new f10", new_cls, 10)]
    for r in range(args.rounds):
        order = settings[r % 5:] + settings[:r % 5]
        for name, cls, freq in order:
            res.setdefault(name, []).append(run(cls, freq))
    base = res["none"]
    print(f"load average {os.getloadavg()[0]:.1f}; medians over {args.rounds} rounds; (x): median of the per-round "
          "ratios to 'none'")
    for name, _, _ in settings:
        v = np.array(res[name])
        ratio50 = np.median([a[2] / b[2] for a, b in zip(res[name], base)])
        ratiomean = np.median([a[3] / b[3] for a, b in zip(res[name], base)])
        print(f"{name:8s} step_end CPU p50 {np.median(v[:, 0]):6.1f} us, mean {np.median(v[:, 1]):6.1f} us | "
              f"step CPU p50 {np.median(v[:, 2]):.3f} ms ({ratio50:.3f}), mean {np.median(v[:, 3]):.3f} ms "
              f"({ratiomean:.3f})")


if __name__ == "__main__":
    main()
