"""Inference engines behind the inference path: the folded graph as ONNX, run by ONNX Runtime or OpenVINO.

`EngineGraph(graph, engine, name)` writes `graph` (constants included: the frozen, BatchNorm-folded weights)
with openspore's ONNX exporter (serialization/onnx_export.py), builds the engine's compiled model once, and is
then called like a `CompiledGraph`: backend arrays in, the flat list of output arrays out (torch tensors over
the engine's results). Threads: torch's intra-op count (`torch.get_num_threads()`), so `OMP_NUM_THREADS` and
`set_context(runtime_num_threads=...)` users see the same parallelism on every path. Precision: float32
(OpenVINO would otherwise pick bf16 on CPUs that have it). Both packages are optional: `pip install
"openspore[infer]"`.

ONNX Runtime's worker threads do not spin between calls by default (`session.intra_op.allow_spinning` 0):
after each run its workers otherwise busy-wait for the next one, taking a core from the caller's own Python
between calls and from every other process. On a machine whose cores the session's threads already fill (2
threads on 2 cores here) that made a batch-1 ResNet-20 call 2-3x slower whenever other work ran (median 3.9 ms
spinning vs 1.4 ms not, side by side in one process at load average 8). The cost of not spinning is a thread
wake-up per parallel section, which on a quiet machine is most of the gap to OpenVINO at 2 threads (1.27 vs
1.0 ms). `spin=True` builds a session whose workers spin for at most `SPIN_US` microseconds before they block
(`session.intra_op.spin_duration_us`, ONNX Runtime 1.26 and later; ONNX Runtime's unbounded default spinning on
older versions): 0.77-0.82x OpenVINO's latency on a quiet machine, 1.8x under other processes' load.
`inference_engine="auto"` measures both sessions (runtime/inference.py) and measures again while it serves, so
the spinning one runs only while it is the faster.

>>> sorted(set(available()) - {"onnxruntime", "openvino"})
[]
"""
import importlib.util
import os
import tempfile
import threading

import numpy as np

ENGINE_PACKAGES = {"onnxruntime": "onnxruntime", "openvino": "openvino"}
SPIN_US = 250  # spinning sessions: how long an idle worker spins before it blocks (see the module docstring)


def available():
    """The engines whose package is installed (importable), without importing them."""
    return [name for name, module in ENGINE_PACKAGES.items() if importlib.util.find_spec(module) is not None]


def onnx_model(graph, where):
    """The ONNX ModelProto of an IR graph (fused primitives lowered first, as `export` does)."""
    from ..serialization.export_graph import prepare, unsupported_report
    from ..serialization.export_lowering import lower_for_export
    from ..serialization.onnx_export import _OnnxBuilder, _is_convertible
    from ..serialization.onnx_ops import CONVERTERS
    graph = prepare(lower_for_export(prepare(graph), lambda name: name in CONVERTERS))
    unsupported_report(graph, _is_convertible, where, "ONNX")
    return _OnnxBuilder(graph, where).build(None, None, True, False, None)


class EngineGraph:
    """A graph compiled by ONNX Runtime or OpenVINO, called with backend arrays (see the module docstring).

    Per call: each input becomes a numpy array without a copy (`Tensor.numpy()` of a contiguous CPU tensor; a
    copy only for a non-contiguous one) that the engine reads in place (ONNX Runtime takes the numpy buffer,
    the view of the last torch tensor object passed being remembered, see `_HostViews`; OpenVINO a
    shared-memory `ov.Tensor` set on its request, kept while the same array object comes back with the same
    storage, so a caller that reuses its input buffer is not re-bound at every call); outputs become
    torch tensors over the engine's arrays without a copy (`torch.from_numpy`), except that OpenVINO's output
    buffers belong to its request and are reused by the next call, so they are copied once."""

    def __init__(self, graph, engine, name, spin=False):
        import torch
        self.engine, self.name, self.spin = engine, name, spin
        model = onnx_model(graph, f"inference_engine={engine!r} ({name})")
        self.n_outputs = len(model.graph.output)
        self.threads = torch.get_num_threads()
        self.out_dtypes = None
        self.graph = graph
        self._lock = threading.Lock()
        data = model.SerializeToString()
        if engine == "onnxruntime":
            self._run = self._onnxruntime(data, [i.name for i in model.graph.input],
                                          [o.name for o in model.graph.output], torch.from_numpy)
        elif engine == "openvino":
            self._run = self._openvino(data, len(model.graph.input), torch.from_numpy)
        else:
            raise ValueError(f"unknown inference engine {engine!r}; expected 'onnxruntime' or 'openvino'")

    def _onnxruntime(self, data, names, output_names, from_numpy):
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # one batch-1 call: nodes one after another
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if not self.spin:  # see the module docstring
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        elif _version_tuple(ort.__version__) >= (1, 26):  # the first release with a bounded spin
            opts.add_session_config_entry("session.intra_op.spin_duration_us", str(SPIN_US))
        session = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
        run = session.run
        views = [_HostViews() for _ in names]
        if len(names) == 1:  # the common case, without building the feed through a loop
            only, view = names[0], views[0]

            def call_one(arrays):  # ONNX Runtime returns fresh numpy arrays: wrapped as they are
                return [from_numpy(o) for o in run(output_names, {only: view(arrays[0])})]
            return call_one

        def call(arrays):
            feed = {name: view(a) for name, view, a in zip(names, views, arrays)}
            return [from_numpy(o) for o in run(output_names, feed)]
        return call

    def _openvino(self, data, n_inputs, from_numpy):
        import openvino as ov
        core = ov.Core()
        with tempfile.TemporaryDirectory(prefix="openspore-ov-") as tmp:  # read_model takes ONNX from a file
            path = os.path.join(tmp, "model.onnx")
            with open(path, "wb") as f:
                f.write(data)
            model = core.read_model(path)
        compiled = core.compile_model(model, "CPU", {"PERFORMANCE_HINT": "LATENCY",
                                                     "INFERENCE_NUM_THREADS": self.threads,
                                                     "INFERENCE_PRECISION_HINT": "f32"})
        request = compiled.create_infer_request()
        # inputs set as shared-memory tensors, then `infer()` with nothing to dispatch: the request's Python
        # wrapper inspects a passed dict of arrays at every call, which costs more than setting the tensors
        set_input, infer, output, wrap = request.set_input_tensor, request.infer, request.get_output_tensor, ov.Tensor
        lock, outputs = self._lock, range(self.n_outputs)
        # per input: (the array bound, its data pointer and shape), held so that its memory stays valid
        bound = [None] * n_inputs

        def call(arrays):
            with lock:  # one infer request: serving threads take turns
                for i, a in enumerate(arrays):
                    held = bound[i]
                    if held is not None and held[0] is a and held[1] == a.data_ptr() and held[2] == a.shape:
                        continue  # the same buffer as last call: the request reads its current values
                    host = _host_array(a)
                    set_input(i, wrap(host, shared_memory=True))
                    shares = type(a) is not np.ndarray and host.ctypes.data == a.data_ptr()
                    bound[i] = (a, a.data_ptr(), a.shape) if shares else None
                infer(share_outputs=True)
                return [from_numpy(np.array(output(i).data)) for i in outputs]  # copied: the buffers are reused
        return call

    def __call__(self, *arrays):
        return self._run(arrays)

    def __repr__(self):
        return f"EngineGraph({self.engine}, {self.name})"


class _HostViews:
    """`view(a)`: `_host_array(a)`, remembered for the last torch tensor OBJECT passed when it shares `a`'s memory.

    A network called again and again with the same input Tensor (the same backend array object, whose values the
    caller may have rewritten in place: the view reads them) then reaches the engine without a torch call. Each
    torch call between two engine runs costs several microseconds more than in a tight loop (measured ~5 us per
    call on a batch-1 ResNet-20: the run evicts the code and data the call needs), so `is_contiguous()` and
    `numpy()` were a visible share of the inference path's overhead. The array object's identity is the key
    because openspore never changes an array's shape, strides or storage in place (`Tensor.shape` is cached on
    the same assumption); a copy made for a non-contiguous array is never remembered (it would miss later
    writes). The remembered pair is one tuple, replaced whole, so serving threads never mix two inputs; it
    keeps the last input array alive until the next call."""

    __slots__ = ("last",)

    def __init__(self):
        self.last = (None, None)

    def __call__(self, a):
        last = self.last
        if last[0] is a:
            return last[1]
        if type(a) is np.ndarray:  # a caller's own array may be reshaped in place: not remembered
            return a if a.flags.c_contiguous else np.ascontiguousarray(a)
        if not a.is_contiguous():
            return a.contiguous().numpy()
        host = a.numpy()
        self.last = (a, host)
        return host


def _host_array(a):
    """A C-contiguous numpy array over `a`'s memory (a torch CPU tensor or a numpy array): no copy unless `a` is
    not contiguous."""
    if type(a) is not np.ndarray:
        a = a.numpy() if a.is_contiguous() else a.contiguous().numpy()
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _version_tuple(version):
    """(major, minor) of a version string such as "1.32.0" or "1.26.0.dev20260401"."""
    parts = version.split(".")
    return tuple(int("".join(ch for ch in p if ch.isdigit()) or 0) for p in parts[:2])
