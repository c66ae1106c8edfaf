"""Reading summary directories as MindInsight does: runs (train jobs), and per run the scalars, histograms,
images, tensors, the graph and lineage, loaded incrementally (each `reload()` reads only new records).

    >>> import numpy as np, tempfile, openspore as ms
    >>> base = tempfile.mkdtemp()
    >>> with ms.SummaryRecord(base + "/run1") as rec:
    ...     for step in (1, 2):
    ...         rec.add_value("scalar", "loss", ms.Tensor(np.float32(1.0 / step)))
    ...         _ = rec.record(step)
    >>> index = SummaryIndex(base)
    >>> [r.train_id for r in index.runs()]
    ['./run1']
    >>> index.run("./run1").scalars["loss"]
    [(1, 1.0), (2, 0.5)]

A run is the base directory itself (train id `./`) or one of its direct sub-directories holding summary files
(names matching `summary.<digits>` not ending `_lineage`) or lineage files (`*_lineage`). Train ids are checked
before any file is touched: only `./` or `./<direct child name>`; anything else (absolute paths, `..`, deeper
paths, links that lead outside the base) is refused with `InvalidTrainId`.
"""
import logging
import os
import re
import threading

from ..train.summary import anf_ir_pb2, lineage_pb2, summary_pb2
from ..train.summary._records import read_records

_SUMMARY_FILE = re.compile(r"summary\.(\d+)")
logger = logging.getLogger(__name__)


class InvalidTrainId(ValueError):
    """A train id that is not `./` or `./<direct sub-directory of the base dir>`."""


def is_summary_file(name):
    return bool(_SUMMARY_FILE.search(name)) and not name.endswith("_lineage")


def _file_time(name):
    m = _SUMMARY_FILE.search(name)
    return int(m.group(1)) if m else 0


class _Tail:
    """One file read incrementally: `new_payloads()` returns the payloads of records completed since last time.
    A damaged record is skipped and named once in `damaged` [(byte offset, reason)] and in a logged warning; the
    records around it are kept."""

    def __init__(self, path):
        self.path, self.offset = path, 0
        self.damaged = []

    def new_payloads(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return []
        stop = []
        payloads = list(read_records(data, 0, check_crc=True, stop_at=stop, on_corrupt=self._note_damage))
        self.offset += stop[0] if stop else 0
        return payloads

    def _note_damage(self, offset, reason):
        where = self.offset + offset  # `offset` counts from where this read began
        if any(at == where for at, _ in self.damaged):
            return  # a damaged spot at a file's growing end is met again on each reload
        self.damaged.append((where, reason))
        logger.warning("%s: summary record at byte %d: %s; skipped", self.path, where, reason)


class Run:
    """One train job: `scalars` {tag: [(step, value)]} (the last value written for a step wins), `scalar_times`,
    `histograms` {tag: [dict]}, `images` {tag: [dict with png bytes]}, `tensors` {tag: [dict]}, `graph`
    (GraphProto or None), `lineage` (dict), `update_time`."""

    MAX_IMAGES = 10  # per tag, the newest kept, as MindInsight's reservoir
    MAX_HISTOGRAMS = 50

    def __init__(self, base, train_id, path):
        self.base, self.train_id, self.path = base, train_id, path
        self._lock = threading.Lock()
        self._tails = {}
        self._scalars = {}  # tag -> {step: (wall_time, value)}
        self.histograms, self.images, self.tensors = {}, {}, {}
        self.graph = None
        self.lineage = {}
        self.update_time = 0.0
        self.version = 0  # bumps whenever new data arrived (the dashboard's live update compares it)

    @property
    def scalars(self):
        return {tag: [(s, v) for s, (_, v) in sorted(d.items())] for tag, d in self._scalars.items()}

    def scalar_series(self, tag):
        d = self._scalars.get(tag)
        if d is None:
            return None
        return [{"step": s, "wall_time": w, "value": v} for s, (w, v) in sorted(d.items())]

    @property
    def damaged(self):
        """[(file name, byte offset, reason)] of the damaged records skipped so far, in file order."""
        return [(name, at, reason) for name, tail in sorted(self._tails.items()) for at, reason in tail.damaged]

    def files(self):
        try:
            names = os.listdir(self.path)
        except OSError:
            return [], []
        summaries = sorted((n for n in names if is_summary_file(n)), key=lambda n: (_file_time(n), n))
        lineages = sorted(n for n in names if n.endswith("_lineage"))
        return summaries, lineages

    def reload(self):
        """Read whatever was appended since the last call; returns True when new data arrived."""
        with self._lock:
            summaries, lineages = self.files()
            changed = False
            for name in summaries:
                for payload in self._tail(name).new_payloads():
                    event = summary_pb2.Event()
                    event.ParseFromString(payload)
                    self._add_event(event, name)
                    changed = True
            for name in lineages:
                for payload in self._tail(name).new_payloads():
                    event = lineage_pb2.LineageEvent()
                    event.ParseFromString(payload)
                    self._add_lineage(event)
                    changed = True
            if changed:
                self.version += 1
                for name in summaries + lineages:
                    try:
                        self.update_time = max(self.update_time, os.path.getmtime(os.path.join(self.path, name)))
                    except OSError:
                        pass
            return changed

    def _tail(self, name):
        tail = self._tails.get(name)
        if tail is None:
            tail = self._tails[name] = _Tail(os.path.join(self.path, name))
        return tail

    def _add_event(self, event, file_name):
        what = event.WhichOneof("what")
        if what == "graph_def":
            self.graph = event.graph_def
            self.graph_tag = file_name
            return
        if what != "summary":
            return
        step, wall = event.step, event.wall_time
        for value in event.summary.value:
            kind = value.WhichOneof("value")
            if kind == "scalar_value":
                self._scalars.setdefault(value.tag, {})[step] = (wall, float(value.scalar_value))
            elif kind == "histogram":
                h = value.histogram
                item = {"step": step, "wall_time": wall, "buckets": [[b.left, b.width, b.count] for b in h.buckets],
                        "min": h.min, "max": h.max, "sum": h.sum, "count": h.count, "nan_count": h.nan_count}
                _append_step(self.histograms.setdefault(value.tag, []), item, self.MAX_HISTOGRAMS)
            elif kind == "image":
                im = value.image
                item = {"step": step, "wall_time": wall, "height": im.height, "width": im.width,
                        "png": bytes(im.encoded_image)}
                _append_step(self.images.setdefault(value.tag, []), item, self.MAX_IMAGES)
            elif kind == "tensor":
                t = value.tensor
                item = {"step": step, "wall_time": wall, "dims": list(t.dims),
                        "data_type": anf_ir_pb2.DataType.Name(t.data_type), "values": list(t.float_data)}
                _append_step(self.tensors.setdefault(value.tag, []), item, 20)

    def _add_lineage(self, event):
        what = event.WhichOneof("what")
        if what == "train_lineage":
            t = event.train_lineage
            hp = t.hyper_parameters
            self.lineage.update({
                "optimizer": hp.optimizer, "learning_rate": hp.learning_rate if hp.HasField("learning_rate")
                else None, "loss_function": hp.loss_function, "epoch": hp.epoch, "parallel_mode": hp.parallel_mode,
                "device_num": hp.device_num, "batch_size": hp.batch_size,
                "train_dataset_path": t.train_dataset.train_dataset_path,
                "train_dataset_count": t.train_dataset.train_dataset_size, "network": t.algorithm.network,
                "loss": t.algorithm.loss if t.algorithm.HasField("loss") else None,
                "model_size": t.model.size})
        elif what == "evaluation_lineage":
            import json
            e = event.evaluation_lineage
            try:
                self.lineage["metric"] = json.loads(e.metric) if e.metric else {}
            except ValueError:
                self.lineage["metric"] = {"raw": e.metric}
            self.lineage["test_dataset_path"] = e.valid_dataset.valid_dataset_path
            self.lineage["test_dataset_count"] = e.valid_dataset.valid_dataset_size
        elif what == "user_defined_info":
            user = self.lineage.setdefault("user_defined", {})
            for info in event.user_defined_info.user_info:
                for m in (info.map_int32, info.map_double, info.map_str):
                    user.update(dict(m))
        elif what == "dataset_graph":
            self.lineage["dataset_graph"] = _dataset_graph_dict(event.dataset_graph)

    def plugins(self):
        return {"scalar": sorted(self._scalars), "histogram": sorted(self.histograms), "image": sorted(self.images),
                "tensor": sorted(self.tensors), "graph": [self.graph_tag] if self.graph is not None else []}


def _append_step(items, item, limit):
    while items and items[-1]["step"] >= item["step"]:  # a re-recorded step replaces the later samples
        items.pop()
    items.append(item)
    if len(items) > limit:
        del items[0]


def _dataset_graph_dict(graph):
    out = dict(graph.parameter.mapStr)
    out.update(graph.parameter.mapInt)
    out.update(graph.parameter.mapBool)
    children = [_dataset_graph_dict(c) for c in graph.children]
    if children:
        out["children"] = children
    return out


class SummaryIndex:
    """The runs under `base_dir` (see the module docstring); runs are created on discovery and reloaded lazily."""

    MAX_RUNS = 999

    def __init__(self, base_dir):
        self.base = os.path.realpath(os.fspath(base_dir))
        if not os.path.isdir(self.base):
            raise FileNotFoundError(f"summary base dir {base_dir!r} is not a directory")
        self._runs = {}
        self._lock = threading.Lock()

    def _is_run_dir(self, path):
        try:
            return any(is_summary_file(n) or n.endswith("_lineage") for n in os.listdir(path))
        except OSError:
            return False

    def runs(self, reload=True):
        """Every run, sorted by train id, loaded up to now (`reload`)."""
        found = []
        if self._is_run_dir(self.base):
            found.append("./")
        try:
            entries = sorted(os.scandir(self.base), key=lambda e: e.name)
        except OSError:
            entries = []
        for entry in entries:
            if len(found) >= self.MAX_RUNS:
                break
            if entry.is_dir(follow_symlinks=False) and self._is_run_dir(entry.path):
                found.append(f"./{entry.name}")
        out = []
        for train_id in found:
            run = self._get(train_id)
            if reload:
                run.reload()
            out.append(run)
        return out

    def resolve(self, train_id):
        """The directory of `train_id`, after checking it names the base or a direct child of it."""
        if not isinstance(train_id, str) or not train_id:
            raise InvalidTrainId("train_id is required, e.g. './run1'")
        if train_id in ("./", "."):
            return self.base
        name = train_id[2:] if train_id.startswith("./") else train_id
        if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name or os.path.isabs(name):
            raise InvalidTrainId(f"train_id {train_id!r} is not './' or './<run folder>' under the summary base dir")
        path = os.path.join(self.base, name)
        real = os.path.realpath(path)
        if os.path.dirname(real) != self.base or os.path.islink(path):
            raise InvalidTrainId(f"train_id {train_id!r} leads outside the summary base dir")
        return real

    def _get(self, train_id):
        with self._lock:
            run = self._runs.get(train_id)
            if run is None:
                run = self._runs[train_id] = Run(self.base, train_id, self.resolve(train_id))
            return run

    def run(self, train_id, reload=True):
        """The run `train_id` (KeyError if it has no summary files)."""
        path = self.resolve(train_id)
        if not self._is_run_dir(path):
            raise KeyError(f"train job {train_id!r} does not exist under the summary base dir")
        run = self._get("./" if path == self.base else f"./{os.path.basename(path)}")
        if reload:
            run.reload()
        return run
