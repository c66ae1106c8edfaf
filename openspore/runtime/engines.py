"""Inference engines behind the inference path: the folded graph as ONNX, run by ONNX Runtime or OpenVINO.

`EngineGraph(graph, engine, name)` writes `graph` (constants included: the frozen, BatchNorm-folded weights)
with openspore's ONNX exporter (serialization/onnx_export.py), builds the engine's compiled model once, and is
then called like a `CompiledGraph`: backend arrays in, the flat list of output arrays out (torch tensors over
the engine's results). Threads: torch's intra-op count (`torch.get_num_threads()`), so `OMP_NUM_THREADS` and
`set_context(runtime_num_threads=...)` users see the same parallelism on every path. Precision: float32
(OpenVINO would otherwise pick bf16 on CPUs that have it). Both packages are optional: `pip install
"openspore[infer]"`.

>>> sorted(set(available()) - {"onnxruntime", "openvino"})
[]
"""
import importlib.util
import os
import tempfile
import threading

import numpy as np

ENGINE_PACKAGES = {"onnxruntime": "onnxruntime", "openvino": "openvino"}


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
    copy only for a non-contiguous one), handed to the engine without a copy (OpenVINO: a shared-memory
    `ov.Tensor` set on the request; ONNX Runtime reads the numpy buffer); outputs become torch tensors over the
    engine's arrays without a copy (`torch.from_numpy`), except that OpenVINO's output buffers belong to its
    request and are reused by the next call, so they are copied once."""

    def __init__(self, graph, engine, name):
        import torch
        self.engine, self.name = engine, name
        model = onnx_model(graph, f"inference_engine={engine!r} ({name})")
        self.n_outputs = len(model.graph.output)
        self.threads = torch.get_num_threads()
        self._from_numpy = torch.from_numpy
        self.out_dtypes = None
        self.graph = graph
        self._lock = threading.Lock()
        data = model.SerializeToString()
        if engine == "onnxruntime":
            self._run = self._onnxruntime(data, [i.name for i in model.graph.input],
                                          [o.name for o in model.graph.output])
        elif engine == "openvino":
            self._run = self._openvino(data)
        else:
            raise ValueError(f"unknown inference engine {engine!r}; expected 'onnxruntime' or 'openvino'")

    def _onnxruntime(self, data, names, output_names):
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # one batch-1 call: nodes one after another
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
        run = session.run
        if len(names) == 1:
            only = names[0]

            def call(arrays):
                return run(output_names, {only: arrays[0]})
            return call

        def call_many(arrays):
            return run(output_names, dict(zip(names, arrays)))
        return call_many

    def _openvino(self, data):
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
        lock, count = self._lock, range(self.n_outputs)

        def call(arrays):
            with lock:  # one infer request: serving threads take turns
                for i, a in enumerate(arrays):
                    set_input(i, wrap(a, shared_memory=True))
                infer(share_outputs=True)
                return [np.array(output(i).data) for i in count]  # copied: the next call reuses the buffers
        return call

    def __call__(self, *arrays):
        host = [_host_array(a) for a in arrays]
        from_numpy = self._from_numpy
        return [from_numpy(o) if type(o) is np.ndarray else from_numpy(np.asarray(o)) for o in self._run(host)]

    def __repr__(self):
        return f"EngineGraph({self.engine}, {self.name})"


def _host_array(a):
    """A C-contiguous numpy array over `a`'s memory (a torch CPU tensor or a numpy array): no copy unless `a` is
    not contiguous."""
    if type(a) is not np.ndarray:
        a = a.numpy() if a.is_contiguous() else a.contiguous().numpy()
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)
