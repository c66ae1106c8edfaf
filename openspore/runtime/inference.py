"""The x86 CPU inference path: how an eval-mode graph is compiled for serving latency.

A Cell's graph (never a plain `ms.jit` function's) qualifies when the Cell is in eval mode
(`set_train(False)`), it runs on torch's CPU backend, has no side effects (no Parameter or BatchNorm statistic
is written, no random draw) and no control flow, and `set_context(inference_engine=...)` is not "off". This is
what `net.set_train(False)` networks in GRAPH_MODE, `nn.GraphCell` over `ms.load` (in either mode) and serving
run. Such a graph goes through `pipeline.INFERENCE`: the Parameters become constants (`freeze_weights`), every
constant subexpression is folded and BatchNorm is folded into the convolution before it. Then either

* torch (`pipeline.INFERENCE_TORCH`): Conv2D + bias + residual Add + ReLU chains become one `Conv2DFused`, a
  oneDNN convolution with post-ops on a weight reordered once, in channels-last memory; the executor's
  straight-line code runs it with no autodiff bookkeeping; or
* an engine (runtime/engines.py): the folded graph is written as ONNX by openspore's exporter and handed to
  ONNX Runtime or OpenVINO, which run every later call.

`inference_engine` (`set_context`, or the environment's `OPENSPORE_INFERENCE_ENGINE`): "auto" (default: for a
graph with a convolution, the torch path and every installed engine are compiled and the first call measures
them, keeping the fastest whose result agrees with the torch path within 1e-4, see `Measured`; other graphs run
on torch), "torch", "onnxruntime", "openvino" (that engine for every qualifying graph), "off" (the graph-mode
executor as for training: Parameters read at each call, no folding). `inference_report(cell)` tells which ran.

Frozen constants share the Parameters' arrays; `Frozen.stale()` (identity and torch's in-place version counter
of each array) makes the cache recompile after `set_data`, `load_param_into_net` or an optimizer step. Repeated
calls check it only when some tensor has been written since the last check (runtime/cache.py's fast path,
common/generations.py).
"""
import logging
import operator
import statistics
import threading
import time

import numpy as np

from .. import context
from ..core.parameter import Parameter

logger = logging.getLogger("openspore.inference")
ENGINES = ("auto", "torch", "onnxruntime", "openvino", "off")
_CONTROL_FLOW = ("if", "while")
AGREEMENT = 1e-4        # auto: an engine's largest difference from the torch path, relative to the output's scale
MEASURE_CALLS = 12      # auto: timed calls per candidate on the first call (after one checking call each)
MEASURE_BLOCK = 3       # auto: ... timed in blocks of this many calls, each after one untimed call
MEASURE_BUDGET_S = 0.5  # auto: ... and no more blocks once the timing has taken this long
REMEASURE_EVERY = 5000  # auto: calls between two measurements of the contenders while serving
CONTENDER_RATIO = 1.5   # auto: candidates within this factor of the fastest stay contenders
CONTENDER_BYTES = 64 << 20  # auto: ... unless the graph's constants are larger (every contender holds a copy)
_version = operator.attrgetter("_version")
_array = operator.attrgetter("_data")


def setting():
    return context.get_context("inference_engine")


def qualifies(graph, backend):
    """Whether `graph` (as traced) takes the inference path on `backend` under the current setting."""
    if setting() == "off" or backend.name != "torch" or str(getattr(backend, "device", "cpu")).split(":")[0] != "cpu":
        return False
    for g in graph.all_graphs():
        for n in g.nodes:
            if n.op in _CONTROL_FLOW or n.has_side_effect:
                return False
            if n.is_primitive and (n.op.random or (n.op_name == "BatchNorm" and n.attrs.get("is_training"))):
                return False
    return True


def graph_parameters(graph):
    """The Parameters `graph` (and its subgraphs) read, each once, in first-use order: a compiled Cell's weights
    (what the inference path freezes; what a differentiated call of the graph differentiates against)."""
    seen, out = set(), []
    for g in graph.all_graphs():
        for n in g.nodes:
            if n.op == "weight" and isinstance(n.value, Parameter) and id(n.value) not in seen:
                seen.add(id(n.value))
                out.append(n.value)
    return out


class Frozen:
    """The Parameter arrays a frozen graph was compiled from: `stale()` when any was replaced or written."""

    __slots__ = ("params", "ids", "versions")

    def __init__(self, params):
        self.params = params
        arrays = [p.data_ref() for p in params]
        self.ids = list(map(id, arrays))
        self.versions = [getattr(a, "_version", 0) for a in arrays]

    def stale(self):
        arrays = list(map(_array, self.params))
        return list(map(id, arrays)) != self.ids or list(map(_version, arrays)) != self.versions


def has_convolution(graph):
    return any(n.is_primitive and n.op_name.startswith("Conv") for g in graph.all_graphs() for n in g.nodes)


def compile_inference(graph, backend, name, dump=None, timings=None):
    """(callable over backend arrays, optimized graph, engine name) for a qualifying traced graph. The engine name
    is "auto" for a `Measured` choice still to be made on the first call."""
    from ..compiler.pipeline import INFERENCE, INFERENCE_TORCH, run_pipeline
    from .executor import compile_graph
    folded = run_pipeline(graph, level=INFERENCE, dump=dump, timings=timings)
    chosen = setting()
    if chosen in ("onnxruntime", "openvino"):
        run = _engine_graph(folded, chosen, name)
        if run is not None:
            return run, folded, chosen
    optimized = run_pipeline(folded, level=INFERENCE_TORCH, dump=dump, timings=timings)
    torch_run = compile_graph(optimized, backend)
    if chosen != "auto" or not has_convolution(folded):
        return torch_run, optimized, "torch"
    built = {}
    for candidate in auto_candidates():
        if candidate == "torch":  # the torch path is there already
            continue
        spin = candidate == SPINNING
        run = _engine_graph(folded, "onnxruntime" if spin else candidate, name, spin=spin)
        if run is not None:
            built[candidate] = run
    if not built:
        return torch_run, optimized, "torch"
    return Measured(torch_run, built, name, _constant_bytes(folded)), folded, "auto"


SPINNING = "onnxruntime-spinning"  # auto's candidate name for ONNX Runtime with spinning workers


def auto_candidates():
    """What "auto" measures: "torch", every installed engine, and with more than one thread ONNX Runtime with
    spinning workers as well (`SPINNING`; with one thread there are no workers to spin)."""
    import torch
    from . import engines
    names = ["torch", *engines.available()]
    if "onnxruntime" in names and torch.get_num_threads() > 1:
        names.append(SPINNING)
    return names


def _engine_graph(folded, engine, name, spin=False):
    """The engine's compiled graph, or None (with a warning) when it is not installed or cannot take the graph."""
    from . import engines
    if engine not in engines.available():
        logger.warning("set_context(inference_engine=%r): the package is not installed (pip install "
                       "'openspore[infer]'); running on torch", engine)
        return None
    try:
        return engines.EngineGraph(folded, engine, name, spin=spin)
    except Exception as exc:  # the graph still runs: on the torch path
        logger.warning("inference engine %s could not take %s (%s: %s); running it on torch", engine, name,
                       type(exc).__name__, exc)
        return None


def _constant_bytes(graph):
    return sum(getattr(n.value, "nbytes", 0) for g in graph.all_graphs() for n in g.nodes if n.op == "const")


class Measured:
    """`inference_engine="auto"`: the torch path and every installed engine, compared on the first call, and the
    close ones compared again while serving.

    The first call runs each candidate once with its inputs and drops an engine whose result differs from the
    torch path's by more than `AGREEMENT` (relative; a warning says so); then it times the remaining candidates
    (`_time_each`) and keeps the fastest by its median call. Candidates within `CONTENDER_RATIO` of it stay
    contenders (unless the graph's constants exceed `CONTENDER_BYTES`: each contender holds its own copy), and
    every `REMEASURE_EVERY` calls the contenders are timed again on that call's inputs, the fastest serving
    from then on. Why: the fastest engine depends on the machine's load, which changes after the first call
    (ONNX Runtime with spinning workers is 0.8x OpenVINO's latency on a quiet 2-core machine and 1.8x while
    other processes run, runtime/engines.py). Every output comes from the engine serving at the time; a
    measurement's own results are dropped. `chosen`, `timings` (seconds per call, the latest measurement),
    `rejected` (engine: why) and `measurements` report the choice; `inference_report(cell)` returns them."""

    def __init__(self, torch_run, engines, name, constant_bytes=0):
        self.candidates = {"torch": torch_run, **engines}
        self.name = name
        self.out_dtypes = torch_run.out_dtypes
        self.chosen = None
        self.timings, self.rejected = {}, {}
        self.measurements = 0
        self.keep_contenders = constant_bytes <= CONTENDER_BYTES
        self._left = REMEASURE_EVERY
        self._lock = threading.Lock()
        self.run = self._first

    def __call__(self, *arrays):
        return self.run(*arrays)

    def _first(self, *arrays):
        with self._lock:  # serving threads: one measures, the others then run the choice
            if self.chosen is None:
                return self._choose(arrays)
        return self.run(*arrays)

    def _choose(self, arrays):
        want = self.candidates["torch"](*arrays)
        results, agreeing = {"torch": want}, {"torch": self.candidates["torch"]}
        for engine, run in self.candidates.items():
            if engine == "torch":
                continue
            try:
                got = run(*arrays)
            except Exception as exc:  # noqa: BLE001 - the torch path still answers
                self._reject(engine, f"it failed ({type(exc).__name__}: {exc})")
                continue
            worst = max((_relative_error(g, w) for g, w in zip(got, want)), default=0.0)
            if len(got) != len(want) or worst > AGREEMENT:
                self._reject(engine, f"it differs from the torch path (relative error {worst:.3g})")
                continue
            results[engine], agreeing[engine] = got, run
        self.candidates = agreeing
        self._measure(arrays)
        return results[self.chosen]

    def _measure(self, arrays):
        """Time the candidates, serve the fastest and keep the close ones (see the class docstring)."""
        first = self.chosen is None
        self.timings = _time_each(self.candidates, arrays) if len(self.candidates) > 1 else {"torch": None}
        self.measurements += 1
        best = min(self.timings, key=lambda e: self.timings[e] or 0.0)
        if first or best != self.chosen:
            logger.info("%s: inference engine %s chosen by measurement %d (median of up to %d calls each: %s)%s",
                        self.name, best, self.measurements, MEASURE_CALLS,
                        ", ".join(f"{e} {t * 1e3:.3f} ms" for e, t in self.timings.items() if t is not None),
                        "".join(f"; {e} left out: {why}" for e, why in self.rejected.items()))
        self.chosen, serving = best, self.candidates[best]
        if self.keep_contenders and self.timings[best] is not None:
            limit = self.timings[best] * CONTENDER_RATIO
            # the others go: a compiled engine kept alive holds its weights' memory and its own thread pool
            self.candidates = {e: r for e, r in self.candidates.items() if self.timings[e] <= limit}
        else:
            self.candidates = {best: serving}
        if len(self.candidates) > 1:
            self._serving, self._left = serving, REMEASURE_EVERY
            self.run = self._serve
        else:
            self.run = serving

    def _serve(self, *arrays):
        self._left -= 1  # serving threads may race on the count: a measurement a few calls late is harmless
        if self._left > 0:
            return self._serving(*arrays)
        with self._lock:
            if self._left <= 0:
                self._measure(arrays)
        return self.run(*arrays)

    def _reject(self, engine, why):
        self.rejected[engine] = why
        logger.warning("inference engine %s left out for %s: %s; the torch path and the other engines remain",
                       engine, self.name, why)


def _time_each(runs, arrays):
    """{name: median seconds per call}: rounds of one block per run in turn (load from other work falls on all
    alike), each block one untimed call then MEASURE_BLOCK timed ones, until MEASURE_CALLS timed calls each or
    MEASURE_BUDGET_S seconds, whichever comes first (one round at least). Blocks, not single calls in turn: a
    run's worker threads may spin for a while after it returns (ONNX Runtime's spinning session, torch's
    OpenMP pool), and the untimed call takes the slowdown that leaves on the next run. The median, not the
    best call: on a loaded machine a thread pool that stalls when its threads are descheduled can still have
    one lucky fast call (OpenVINO's best call here was 2.0 ms, ONNX Runtime's 2.1 ms, and over the next 250
    calls their medians were 14.0 ms and 1.8 ms)."""
    samples = {name: [] for name in runs}
    clock = time.perf_counter
    start = clock()
    for _ in range(-(-MEASURE_CALLS // MEASURE_BLOCK)):
        for name, run in runs.items():
            run(*arrays)
            for _ in range(MEASURE_BLOCK):
                t0 = clock()
                run(*arrays)
                samples[name].append(clock() - t0)
        if clock() - start > MEASURE_BUDGET_S:
            break
    return {name: statistics.median(s) for name, s in samples.items()}


def inference_report(cell):
    """How `cell`'s latest GRAPH_MODE call ran, when it took the inference path: a dict with `setting` (the
    `inference_engine` it was compiled under), `engine` ("torch", "onnxruntime", "openvino", under "auto" also
    "onnxruntime-spinning"; "auto" until the first call has measured), `timings_ms` (auto: each candidate's
    median call in the latest measurement) and `rejected` (auto: engines left out, with why), and under "auto"
    once measured `measurements` (how many so far) and `contenders` (the engines measured again while serving);
    None when the cell has not run compiled or its latest call did not take the path (training
    mode, "off", a differentiated call, control flow).

    >>> import openspore as ms
    >>> inference_report(ms.nn.Dense(2, 2)) is None  # never called
    True
    """
    from .jit import cell_cache
    cache = cell_cache(cell)
    entry = cache.last_entry if cache is not None else None
    if entry is None or entry.frozen is None:
        return None
    measured = entry.compiled if isinstance(entry.compiled, Measured) else None
    report = {"setting": cache.last_key[8], "engine": entry.engine,
              "timings_ms": {e: t * 1e3 for e, t in measured.timings.items() if t is not None} if measured else {},
              "rejected": dict(measured.rejected) if measured else {}}
    if measured is not None and measured.measurements:
        report["measurements"], report["contenders"] = measured.measurements, sorted(measured.candidates)
    return report


def _relative_error(a, b):
    a, b = np.asarray(a.numpy() if hasattr(a, "numpy") else a), np.asarray(b.numpy() if hasattr(b, "numpy") else b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0 or a.dtype.kind not in "fc":
        return 0.0 if np.array_equal(a, b) else float("inf")
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))
