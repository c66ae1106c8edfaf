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

`inference_engine`: "auto" (default: OpenVINO, else ONNX Runtime, for graphs with a convolution, when installed;
the first call's result is checked against the torch path and the engine dropped, with a warning, when they
differ by more than 1e-4), "torch", "onnxruntime", "openvino" (that engine for every qualifying graph), "off"
(the graph-mode executor as for training: Parameters read at each call, no folding).

Frozen constants share the Parameters' arrays; `Frozen.stale()` (checked at every call: identity and torch's
in-place version counter of each array) makes the cache recompile after `set_data`, `load_param_into_net` or
an optimizer step.
"""
import logging
import operator

import numpy as np

from .. import context
from ..core.parameter import Parameter

logger = logging.getLogger("openspore.inference")
ENGINES = ("auto", "torch", "onnxruntime", "openvino", "off")
_CONTROL_FLOW = ("if", "while")
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
    """(callable over backend arrays, optimized graph, engine name) for a qualifying traced graph."""
    from ..compiler.pipeline import INFERENCE, INFERENCE_TORCH, run_pipeline
    from .executor import compile_graph
    folded = run_pipeline(graph, level=INFERENCE, dump=dump, timings=timings)
    engine = _engine_for(folded)
    if engine != "torch":
        from . import engines
        try:
            run = engines.EngineGraph(folded, engine, name)
        except Exception as exc:  # the graph still runs: on the torch path
            logger.warning("inference engine %s could not take %s (%s: %s); running it on torch", engine, name,
                           type(exc).__name__, exc)
        else:
            if setting() == "auto":
                run = _CheckedOnce(run, lambda: compile_graph(run_pipeline(folded, INFERENCE_TORCH), backend), name)
            return run, folded, engine
    optimized = run_pipeline(folded, level=INFERENCE_TORCH, dump=dump, timings=timings)
    return compile_graph(optimized, backend), optimized, "torch"


def _engine_for(graph):
    from . import engines
    chosen = setting()
    if chosen in ("torch", "off"):
        return "torch"
    if chosen == "auto":
        if not has_convolution(graph):
            return "torch"
        present = engines.available()
        return next((e for e in ("openvino", "onnxruntime") if e in present), "torch")
    if chosen not in engines.available():
        logger.warning("set_context(inference_engine=%r): the package is not installed (pip install "
                       "'openspore[infer]'); running on torch", chosen)
        return "torch"
    return chosen


class _CheckedOnce:
    """An engine whose first result is compared with the torch path's (auto mode); on a difference above 1e-4 the
    torch path runs from then on."""

    def __init__(self, engine, make_torch, name):
        self.engine, self.make_torch, self.name = engine, make_torch, name
        self.run = self._first
        self.out_dtypes = engine.out_dtypes

    def __call__(self, *arrays):
        return self.run(*arrays)

    def _first(self, *arrays):
        got = self.engine(*arrays)
        torch_run = self.make_torch()
        want = torch_run(*arrays)
        worst = max((_relative_error(g, w) for g, w in zip(got, want)), default=0.0)
        if len(got) != len(want) or worst > 1e-4:
            logger.warning("inference engine %s differs from the torch path on %s (relative error %.3g); running "
                           "it on torch", self.engine.engine, self.name, worst)
            self.run = torch_run
            return want
        self.run = self.engine
        return got


def _relative_error(a, b):
    a, b = np.asarray(a.numpy() if hasattr(a, "numpy") else a), np.asarray(b.numpy() if hasattr(b, "numpy") else b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0 or a.dtype.kind not in "fc":
        return 0.0 if np.array_equal(a, b) else float("inf")
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))
