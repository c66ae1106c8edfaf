"""`SummaryRecord`: MindSpore's summary writer (`mindspore.SummaryRecord`), files MindInsight reads.

    >>> import numpy as np, tempfile, openspore as ms
    >>> with ms.SummaryRecord(tempfile.mkdtemp()) as record:
    ...     record.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
    ...     record.record(1)
    True

Values added with `add_value`, and those the summary ops (`ops.ScalarSummary`, ...) produced since the last
`record`, go into one `Event` per `record(step)` in `<prefix>.out.events.summary.<seconds>.<device>.<host>_MS`;
lineage messages go into the `_lineage` file beside it. Packing (PNG, histograms, protobuf, CRCs) and writing
happen away from the training loop — in a writer process at idle CPU priority for the data file (started once and
reused by the next SummaryRecord of the process; a writer thread with `OPENSPORE_SUMMARY_WRITER=thread`), on a
thread for lineage — so `record` only copies values to the host and queues them. `flush()` and `close()` wait for
the writer; `SummaryCollector` only closes (leaving `Model.train`).
"""
import atexit
import os
import re
import socket
import threading
import time
import urllib.parse

import numpy as np

from ...core.tensor import Tensor
from ...ops.defs import summary as summary_ops
from . import lineage_pb2, summary_pb2
from ._event_file import EventWriter, close_waits, writer_backend
from ._graph_proto import graph_proto
from ._ring import RingSlot

_DATA_PLUGINS = ("scalar", "image", "histogram", "tensor")
_LINEAGE = {"train_lineage": (lineage_pb2.TrainLineage, "train_lineage"),
            "eval_lineage": (lineage_pb2.EvaluationLineage, "evaluation_lineage"),
            "dataset_graph": (lineage_pb2.DatasetGraph, "dataset_graph"),
            "custom_lineage_data": (lineage_pb2.UserDefinedInfo, "user_defined_info")}
_OP_KEY = re.compile(r"(.+)\[:(.+)\]$")
_FILE_PART = re.compile(r"^[A-Za-z0-9_.\-]*$")
_instances = {"count": 0}
_instances_lock = threading.Lock()


def _release_instance():
    with _instances_lock:
        _instances["count"] = max(0, _instances["count"] - 1)


class SummaryRecord:
    """`SummaryRecord(log_dir, file_prefix='events', file_suffix='_MS', num_process=32, network=None,
    max_file_size=None, raise_exception=False, export_options=None)`; one open instance per process."""

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32, network=None,
                 max_file_size=None, raise_exception=False, export_options=None):
        if not isinstance(log_dir, (str, os.PathLike)) or not str(log_dir):
            raise TypeError(f"For 'SummaryRecord', the 'log_dir' should be a non-empty str, but got {log_dir!r}.")
        for what, value in (("file_prefix", file_prefix), ("file_suffix", file_suffix)):
            if not isinstance(value, str):
                raise TypeError(f"For 'SummaryRecord', the '{what}' should be str, but got {type(value).__name__}.")
            if not _FILE_PART.match(value):
                raise ValueError(f"For 'SummaryRecord', the '{what}' {value!r} has characters not allowed in a file "
                                 f"name (letters, digits, '_', '.', '-').")
        if isinstance(num_process, bool) or not isinstance(num_process, int) or num_process <= 0:
            raise TypeError(f"For 'SummaryRecord', the 'num_process' should be a positive int, got {num_process!r}.")
        if max_file_size is not None and (isinstance(max_file_size, bool) or not isinstance(max_file_size, int)):
            raise TypeError(f"For 'SummaryRecord', the 'max_file_size' should be int or None, got {max_file_size!r}.")
        if max_file_size is not None and max_file_size < 0:
            max_file_size = None  # MindSpore only warns and writes without a limit
        if not isinstance(raise_exception, bool):
            raise TypeError(f"For 'SummaryRecord', the 'raise_exception' should be bool, got {raise_exception!r}.")
        self._export_dir = _export_dir(export_options)
        backend = writer_backend()
        self._close_waits = close_waits()
        self._dir = os.path.realpath(os.fspath(log_dir))
        if os.path.exists(self._dir) and not os.path.isdir(self._dir):
            raise NotADirectoryError(f"For 'SummaryRecord', the 'log_dir' should be a directory (made if missing), "
                                     f"but {self._dir} is a file.")
        with _instances_lock:
            if _instances["count"]:
                raise RuntimeError("For 'SummaryRecord', only one instance is supported in a training process: "
                                   "close the open SummaryRecord (or leave its `with` block) before creating another.")
            _instances["count"] += 1
        try:
            try:
                os.makedirs(self._dir, exist_ok=True)
            except OSError as exc:  # the same errno (so the same subclass), with what was being done and where
                raise OSError(exc.errno, f"For 'SummaryRecord', the 'log_dir' {self._dir} cannot be made: "
                                         f"{exc.strerror}") from exc
            self._open(file_prefix, file_suffix, network, max_file_size, raise_exception, backend)
        except BaseException:
            _release_instance()  # a failed construction must not hold the one slot a process has
            raise

    def _open(self, file_prefix, file_suffix, network, max_file_size, raise_exception, backend):
        """Names the files and starts their writers; `__init__` has checked the arguments and holds the slot."""
        self._raise = raise_exception
        self._errors = []
        seconds = int(time.time())
        from ... import context
        device = context.get_context("device_id")
        host = re.sub(r"[^A-Za-z0-9_.\-]", "_", socket.gethostname()) or "localhost"
        base = f"{file_prefix}.out.events.summary.{seconds}.{device}.{host}"
        self._summary_path = os.path.join(self._dir, base + file_suffix)
        self._lineage_path = os.path.join(self._dir, base + "_lineage")
        if self._export_dir:
            self._export_dir = os.path.join(self._dir, f"export_{seconds}", "tensor")
        self._summary = EventWriter(self._summary_path, max_file_size, self._error,
                                    first_payload=lambda: summary_pb2.Event(
                                        wall_time=time.time(), version="MindSpore.Event:1").SerializeToString(),
                                    backend=backend)
        self._lineage = None
        self._max_file_size = max_file_size
        self._pending = []
        self._network = network
        self._graph_written = False
        self._mode = "train"
        self._closed = False
        summary_ops.open_cache()
        atexit.register(self.close)

    # ---- the public API -------------------------------------------------------------------------------
    @property
    def log_dir(self):
        """The full path of the summary (`_MS`) file, as MindSpore returns it."""
        return self._summary_path

    def __enter__(self):
        if self._closed:
            raise ValueError("SummaryRecord has been closed.")
        return self

    def __exit__(self, *exc):
        self.close()

    def set_mode(self, mode):
        if mode not in ("train", "eval"):
            raise ValueError(f"For 'set_mode', the 'mode' should be 'train' or 'eval', but got {mode!r}.")
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Buffer `value` under `name` for the next `record()` (plugins: scalar, image, histogram, tensor, graph,
        train_lineage, eval_lineage, dataset_graph, custom_lineage_data)."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"For 'add_value', the 'name' should be a non-empty str, but got {name!r}.")
        if plugin in _DATA_PLUGINS:
            self._pending.append((plugin, name, self._snapshot(_check_data(plugin, name, value))))
        elif plugin == "graph":
            from . import anf_ir_pb2
            model = anf_ir_pb2.ModelProto()
            if isinstance(value, bytes):
                model.ParseFromString(value)
            elif isinstance(value, anf_ir_pb2.ModelProto):
                model.CopyFrom(value)
            else:
                raise TypeError(f"For 'add_value', a 'graph' value should be serialized ModelProto bytes, "
                                f"got {type(value).__name__}.")
            self._pending.append(("graph", name, model.graph))
        elif plugin in _LINEAGE:
            cls, _ = _LINEAGE[plugin]
            if not isinstance(value, cls):
                raise TypeError(f"For 'add_value', a {plugin!r} value should be a {cls.__name__} protobuf, "
                                f"got {type(value).__name__}.")
            self._pending.append((plugin, name, value))
        else:
            raise ValueError(f"For 'add_value', the 'plugin' should be one of {list(_DATA_PLUGINS)} + ['graph', "
                             f"{', '.join(repr(k) for k in _LINEAGE)}], but got {plugin!r}.")

    def record(self, step, train_network=None, plugin_filter=None):
        """Write everything buffered as the event of `step`; returns False when closed."""
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"For 'record', the type of 'step' should be 'int', but got {type(step).__name__}.")
        if self._closed:
            import logging
            logging.getLogger("openspore.summary").error("The record writer is closed.")
            return False
        step = int(step)
        network = train_network if train_network is not None else self._network
        if network is not None and not self._graph_written:
            graph = _compiled(network)
            if graph is not None:
                self._graph_written = True
                self._write_graph(graph)
        cached = summary_ops.take_cache()
        if self._mode == "train":
            for key, value in cached:
                m = _OP_KEY.match(key)
                if m:
                    self._pending.append((m.group(2).lower(), m.group(1), value))
        pending, self._pending = self._pending, []
        if plugin_filter is not None:
            pending = [p for p in pending if plugin_filter(p[0])]
        data = [(p, n, v) for p, n, v in pending if p in _DATA_PLUGINS]
        if data:
            self._summary.submit_event(step, data)
            if self._export_dir:
                self._export(step, [(n, v.view if isinstance(v, RingSlot) else v) for p, n, v in data
                                    if p == "tensor"])
        for plugin, _, value in pending:
            if plugin == "graph":
                self._summary.submit(lambda g=value: summary_pb2.Event(
                    wall_time=time.time(), graph_def=g() if callable(g) else g).SerializeToString())
            elif plugin in _LINEAGE:
                self._lineage_writer().submit(lambda p=plugin, v=value: _lineage_bytes(step, p, v))
        self._raise_pending()  # after queueing: an earlier failure is reported, this step's values are kept
        return True

    def flush(self):
        if self._closed:
            import logging
            logging.getLogger("openspore.summary").error("The record writer is closed and can not flush.")
            return
        self._summary.flush()
        if self._lineage is not None:
            self._lineage.flush()
        self._raise_pending()

    def close(self):
        """Write everything recorded and close the files (read-only): they are complete when this returns — unless
        OPENSPORE_SUMMARY_CLOSE=background, which returns at once and lets the writer finish (interpreter exit
        waits for it)."""
        if self._closed:
            return
        self._closed = True
        writers = [w for w in (self._summary, self._lineage) if w is not None]
        for writer in writers:  # both files finish side by side
            writer.begin_close(self._close_waits)
        if self._close_waits:
            for writer in writers:
                writer.wait_closed()
        summary_ops.close_cache()
        _release_instance()
        atexit.unregister(self.close)
        self._raise_pending()

    # ---- the collector's fast path -------------------------------------------------------------------
    def _add_arrays(self, values):
        """`add_value` for (plugin, name, host array) values the caller has checked (SummaryCollector): no Tensors,
        no checks, and one copy into the writer's ring for all of them where they share a dtype."""
        slots = self._into_ring([v for _, _, v in values])
        self._pending.extend((plugin, name, slot) for (plugin, name, _), slot in zip(values, slots))

    def _record_collection(self, step, scalars, arrays):
        """`record(step)` of a collection the caller checked (SummaryCollector): (name, float) scalars and
        (plugin, name, host array) arrays, nothing else pending (no graph, no summary-op values: `_has_pending()`
        is False). The arrays go into the writer's ring with one copy and the event is posted without the general
        path's filtering and bookkeeping; False (nothing recorded) when the record is closed."""
        if self._closed:
            return False
        data = [("scalar", name, value) for name, value in scalars]
        if arrays:
            slots = self._into_ring([v for _, _, v in arrays])
            data += [(plugin, name, slot) for (plugin, name, _), slot in zip(arrays, slots)]
        self._summary.submit_event(step, data)
        self._raise_pending()
        return True

    def _post_collection(self, step, layout, scalars, arrays):
        """`_record_collection` the fastest way (`EventWriter.post_collection`): `arrays` as `layout`
        (`_ring.RingLayout`) has them, `scalars` the values of its scalar tags. False, with nothing recorded, where
        that cannot be now (no writer process running yet, records queued before it, the ring full, closed)."""
        if self._closed or not self._summary.post_collection(step, layout, scalars, arrays):
            return False
        self._raise_pending()
        return True

    def _into_ring(self, arrays):
        """Snapshots of host arrays: one `put_many` into the writer's ring, or (no ring, or it is full: the writer
        thread moves them in later, `EventWriter._into_ring`) numpy copies."""
        ring = self._summary.ring()
        slots = ring.put_many(arrays) if ring is not None else None
        return slots if slots is not None else [a.copy() for a in arrays]

    def _add_scalar(self, name, value):
        self._pending.append(("scalar", name, value))  # a float: packed as float32 by the writer

    def _has_pending(self):
        """Whether `record()` now would write anything (values added, summary ops' values, a graph to write)."""
        return bool(self._pending) or summary_ops.cache_has_values() or (
            self._network is not None and not self._graph_written)

    def _snapshot(self, array):
        """A copy of `array` that later steps cannot change: in the writer process's shared ring when it has
        room, else a numpy copy (which the writer thread moves into the ring once it has room)."""
        if array.ndim:
            ring = self._summary.ring()
            if ring is not None:
                slot = ring.put(array)
                if slot is not None:
                    return slot
        return array.copy()

    # ---- helpers -------------------------------------------------------------------------------------
    def _write_graph(self, graph):
        # the GraphProto is built on the writer thread: the IR graph of a compiled network is not changed by
        # running it, and converting it is the costliest part of a first collection
        self._summary.submit(lambda: summary_pb2.Event(wall_time=time.time(),
                                                       graph_def=graph_proto(graph)).SerializeToString())

    def _add_graph_ir(self, name, graph):
        """Buffer an openspore IR graph for the next `record()`; the writer thread converts it to a GraphProto."""
        self._pending.append(("graph", name, lambda: graph_proto(graph)))

    def _lineage_writer(self):
        if self._lineage is None:
            self._lineage = EventWriter(self._lineage_path, self._max_file_size, self._error)
        return self._lineage

    def _export(self, step, tensors):
        os.makedirs(self._export_dir, exist_ok=True)
        for name, value in tensors:
            from ...common.files import write_atomic
            import io
            buf = io.BytesIO()
            np.save(buf, value)
            path = os.path.join(self._export_dir, f"{urllib.parse.quote(name, safe='')}_{step}.npy")
            write_atomic(path, [buf.getvalue()], read_only=False)

    def _error(self, exc):
        import logging
        logging.getLogger("openspore.summary").error("summary writer: %s", exc)
        self._errors.append(exc)

    def _raise_pending(self):
        if self._raise and self._errors:
            exc = self._errors.pop(0)
            raise RuntimeError(f"summary writing failed: {exc}") from exc


def _compiled(network):
    from ._graph_of import compiled_graph
    return compiled_graph(network)


def _export_dir(options):
    if options is None:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"For 'SummaryRecord', the 'export_options' should be a dict or None, got {options!r}.")
    for key, value in options.items():
        if key != "tensor_format":
            raise ValueError(f"For 'SummaryRecord', the 'export_options' key {key!r} is not supported "
                             f"(only 'tensor_format').")
        if value not in ("npy", None):
            raise ValueError(f"For 'SummaryRecord', the 'export_options' 'tensor_format' should be 'npy' or None, got {value!r}.")
    return options.get("tensor_format") == "npy" or None


def _check_data(plugin, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'add_value', the value of {plugin} {name!r} should be a Tensor, but got "
                        f"{type(value).__name__}.")
    array = value.asnumpy()
    if plugin == "scalar" and array.size != 1:
        raise ValueError(f"For 'add_value', scalar {name!r}: the v rank must be less than or equal to 1 "
                         f"(one element), but got shape {list(array.shape)}.")
    if plugin == "image" and array.ndim != 4:
        raise ValueError(f"For 'add_value', image {name!r}: the tensor seems not to hold a valid image "
                         f"(expected NCHW, rank 4), got shape {list(array.shape)}.")
    if plugin in ("tensor", "histogram") and array.ndim == 0:
        raise ValueError(f"For 'add_value', {plugin} {name!r}: the value should not be empty (rank > 0).")
    return array  # the caller snapshots it (`SummaryRecord._snapshot`)


def _lineage_bytes(step, plugin, value):
    event = lineage_pb2.LineageEvent(wall_time=time.time(), step=step)
    getattr(event, _LINEAGE[plugin][1]).CopyFrom(value)
    return event.SerializeToString()
