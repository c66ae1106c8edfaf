"""Writing dumps in MindSpore's layout from compiled graphs (a runtime/events.py observer).

`DumpObserver(config, rank_id)` gives each compiled graph a `GraphDump` hook (graph ids count from 0 in compile
order). At compile time the hook writes the graph file (nodes with scope names and code stacks) and the
execution order, and decides per kernel whether it is dumped (`dump_mode`, `kernels`, `input_output`), so
unselected kernels carry no hook call at all. At run time each call of the top graph is one iteration;
selected iterations write `{op_type}.{op_name}.0.0.{timestamp}.{input|output}.{slot}.DefaultFormat.{dtype}.npy`,
`statistic.csv` (`saved_data` statistic/full) and, at the end of the step, the parameters (after their update,
as MindSpore dumps them) as `Parameter.{name}...`.
"""
import csv
import io
import itertools
import json
import os
import time

import numpy as np

from ...common.files import write_atomic
from ...runtime.dump_marks import marked_in_scope
from .conditions import nonfinite_code, statistics
from .dump_names import sanitize, tensor_file_name
from .graph_describe import GraphDescription

_STAT_COLUMNS = ["Op Type", "Op Name", "Task ID", "Stream ID", "Timestamp", "IO", "Slot", "Data Size", "Data Type",
                 "Shape", "Max Value", "Min Value", "Avg Value", "Count", "Negative Zero Count",
                 "Positive Zero Count", "NaN Count", "Negative Inf Count", "Positive Inf Count", "Zero Count"]
_DTYPE_NAMES = {"float16": "Float16", "float32": "Float32", "float64": "Float64", "int8": "Int8", "int16": "Int16",
                "int32": "Int32", "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
                "uint64": "UInt64", "bool": "Bool", "bfloat16": "BFloat16", "complex64": "Complex64",
                "complex128": "Complex128"}


class DumpObserver:
    """Dumps every compiled graph per `config` (a DumpConfig) under `{path}/rank_{rank_id}`."""

    def __init__(self, config, rank_id=0):
        self.config, self.rank_id = config, int(rank_id)
        self.root = os.path.join(config.path, f"rank_{self.rank_id}")
        self._graph_ids = itertools.count()
        self._clock = [0]
        meta = os.path.join(self.root, ".dump_metadata")
        os.makedirs(meta, exist_ok=True)
        from ...version import __version__
        _write_text(os.path.join(meta, "data_dump.json"), json.dumps(config.raw, indent=1))
        _write_text(os.path.join(meta, "config.json"),
                    json.dumps({"device_target": "CPU", "ms_version": __version__, "framework": "openspore"}))

    def for_graph(self, graph, backend):
        return GraphDump(self, next(self._graph_ids), graph, backend)

    def timestamp(self):
        """Microseconds, strictly increasing: file names order the writes even within one microsecond."""
        now = time.time_ns() // 1000
        self._clock[0] = max(now, self._clock[0] + 1)
        return self._clock[0]


class GraphDump:
    """The hook of one compiled graph (see the module docstring)."""

    def __init__(self, observer, graph_id, graph, backend):
        self.observer, self.config, self.graph_id, self.backend = observer, observer.config, graph_id, backend
        self.iteration = 0
        self.active = False
        self.dir = None
        self.stat_rows = []
        self._pending_inputs = {}
        self.selected = {}  # node id -> (dump inputs, dump output): decided at compile time
        self.dump_marks = graph.flags.get("dump_marks", {})  # cells marked by set_dump (dump_mode 2)
        self._describe(graph)

    # ---- compile time --------------------------------------------------------------------------
    def _describe(self, graph):
        desc = GraphDescription(graph)
        self.kernels = {nid: (k.full_name, k.op_type) for nid, k in desc.kernels.items()}
        self.weights, self.input_names = desc.weights, desc.input_names
        root = self.observer.root
        _write_text(os.path.join(root, "graphs", f"ms_output_trace_code_graph_{self.graph_id}.ir"),
                    desc.text(self.graph_id))
        _write_text(os.path.join(root, "execution_order", f"ms_execution_order_graph_{self.graph_id}.csv"),
                    "\n".join(["NodeExecutionOrder-FullNameWithScope"] + [k.full_name for k in desc.order]) + "\n")

    def wants(self, node):
        full, op_type = self.kernels[node.id]
        if not self.config.selects(full, op_type, self.config.dump_mode == 2 and self._marked(node)):
            return False, False
        want = (self.config.input_output in (0, 1), self.config.input_output in (0, 2))
        self.selected[node.id] = want
        return want

    def _marked(self, node):
        """dump_mode 2: the primitive's own `set_dump` mark, else the innermost marked cell's (a backward kernel
        goes with its forward node's cell)."""
        own = node.op.__dict__.get("dump_flag")
        if own is not None:
            return own
        return marked_in_scope(node.scope or "", self.dump_marks)

    # ---- run time -------------------------------------------------------------------------------
    def begin(self, inputs=()):
        self.active = self.config.iterations(self.iteration)
        if not self.active:
            return
        self.dir = os.path.join(self.observer.root, self.config.net_name, str(self.graph_id), str(self.iteration))
        os.makedirs(self.dir, exist_ok=True)
        self.stat_rows, self._pending_inputs = [], {}
        if self.config.dump_mode == 0 and not self.config.op_debug_mode:
            for name, value in zip(self.input_names, inputs):
                self._write("Parameter", name, "output", 0, value)

    def inputs(self, node_id, arrays):
        if not self.active or not self.selected.get(node_id, (False,))[0]:
            return
        if self.config.op_debug_mode:  # overflow detection: inputs are kept until the output shows an overflow
            self._pending_inputs[node_id] = [self._host(a) for a in arrays]
            return
        full, op_type = self.kernels[node_id]
        for slot, a in enumerate(arrays):
            self._write(op_type, full, "input", slot, a)

    def output(self, node_id, value):
        if not self.active or not self.selected.get(node_id, (False, False))[1]:
            return
        full, op_type = self.kernels[node_id]
        values = list(value) if isinstance(value, (tuple, list)) else [value]
        if self.config.op_debug_mode:
            hosts = [self._host(v) for v in values]
            if not any(h is not None and nonfinite_code(h) for h in hosts):
                self._pending_inputs.pop(node_id, None)
                return
            for slot, a in enumerate(self._pending_inputs.pop(node_id, [])):
                self._write(op_type, full, "input", slot, a)
        for slot, v in enumerate(values):
            self._write(op_type, full, "output", slot, v)

    def end(self):
        if self.active:
            if self.config.dump_mode == 0 and not self.config.op_debug_mode:
                for name, param in self.weights:
                    self._write("Parameter", name, "output", 0, param.data_ref())
            if self.config.statistics:
                self._write_statistics()
            path = os.path.join(self.observer.root, "execution_order",
                                f"ms_global_execution_order_graph_{self.graph_id}.csv")
            with open(path, "a", encoding="utf-8") as f:  # one line per step: appending cannot tear a file
                f.write(f"{self.iteration}\n")
        self.active = False
        self.iteration += 1

    def _host(self, value):
        if value is None or isinstance(value, (str, bytes)):
            return None
        if isinstance(value, np.ndarray):
            return value.copy()
        if isinstance(value, (bool, int, float, np.generic)):
            return np.asarray(value)
        try:
            return np.array(self.backend.to_numpy(value), copy=True)
        except (TypeError, ValueError, AttributeError):
            return None

    def _write(self, op_type, name, io_kind, slot, value):
        arr = self._host(value)
        if arr is None:
            return
        ts = self.observer.timestamp()
        dtype = _DTYPE_NAMES.get(str(arr.dtype), str(arr.dtype).capitalize())
        if self.config.tensors:
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            path = os.path.join(self.dir, tensor_file_name(op_type, name, io_kind, slot, ts, dtype))
            write_atomic(path, [buf.getvalue()], read_only=False)
        if self.config.statistics:
            s = statistics(arr) if arr.dtype.kind in "fiub" else None
            if s is not None:
                self.stat_rows.append([op_type, sanitize(name), 0, 0, ts, io_kind, slot, arr.nbytes, dtype,
                                       "(" + ",".join(str(d) for d in arr.shape) + ")", s["max"], s["min"],
                                       s["mean"], s["count"], s["neg_zero_count"], s["pos_zero_count"],
                                       s["nan_count"], s["neg_inf_count"], s["pos_inf_count"], s["zero_count"]])

    def _write_statistics(self):
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(_STAT_COLUMNS)
        writer.writerows(self.stat_rows)
        write_atomic(os.path.join(self.dir, "statistic.csv"), [buf.getvalue().encode("utf-8")], read_only=False)


def enable_dump(config, rank_id=0):
    """Dump every graph compiled from now on, and every PyNative primitive call: `config` is a dump JSON path, its
    parsed dict or a DumpConfig. Returns the observer (`disable_dump()` stops dumping).

    >>> import tempfile
    >>> observer = enable_dump({"common_dump_settings": {"path": tempfile.mkdtemp(), "net_name": "Net",
    ...                                                  "iteration": "0|2"}})
    >>> disable_dump()
    """
    from ...runtime import events
    from .dump_config import DumpConfig
    if isinstance(config, (str, os.PathLike)):
        config = DumpConfig.load(os.fspath(config))
    elif isinstance(config, dict):
        config = DumpConfig(config)
    elif not isinstance(config, DumpConfig):
        raise TypeError(f"enable_dump: config should be a path, a dict or a DumpConfig, got {type(config).__name__}.")
    disable_dump()
    observer = DumpObserver(config, rank_id)
    events.set_graph_observer(observer)
    from ...core.primitive import Primitive
    from .pynative_dump import DumpingBind
    hook = _PYNATIVE["bind"] = DumpingBind(observer, Primitive.__call__)

    def dumping_call(prim, *args):  # a function, so that it binds as a method (a DumpingBind instance would not)
        return hook(prim, *args)
    dumping_call.hook = hook
    Primitive.__call__ = dumping_call
    return observer


_PYNATIVE = {"bind": None}


def disable_dump():
    """Stop dumping: graphs compiled from now on carry no hooks, PyNative calls take their plain path again."""
    from ...core.primitive import Primitive
    from ...runtime import events
    events.set_graph_observer(None)
    hook = _PYNATIVE["bind"]
    if hook is not None:
        _PYNATIVE["bind"] = None
        hook.close()
        if getattr(Primitive.__call__, "hook", None) is hook:
            Primitive.__call__ = hook.original


def _write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, [text.encode("utf-8")], read_only=False)
