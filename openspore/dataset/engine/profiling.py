"""Per-operation and per-pipeline throughput of `map` nodes, collected while `ds.config.set_enable_op_timing(True)`.

Each map operation is timed where it runs (in worker processes too; the figures travel back with the rows), and
each map node counts its rows and the wall time of its passes. `report(dataset)` lists them per node;
`format_report(dataset)` prints them as a table.

>>> import numpy as np
>>> import openspore.dataset as ds
>>> ds.config.set_enable_op_timing(True)
>>> data = ds.NumpySlicesDataset({"x": np.arange(4.0)}, shuffle=False).map(lambda x: x * 2, "x")
>>> _ = list(data.create_tuple_iterator(output_numpy=True))
>>> ds.config.set_enable_op_timing(False)
>>> entry = report(data)[0]
>>> entry["rows"], entry["ops"][0]["op"]
(4, '<lambda>')
"""
import time


def _name(op):
    from .ops import op_name
    return getattr(op, "name", None) or op_name(op)


class MapStats:
    """Timing of one map node, accumulated over its passes (stored on the node as `_op_stats`)."""

    def __init__(self, node, operations):
        previous = getattr(node, "_op_stats", None)
        names = [_name(op) for op in operations]
        if previous is None or previous["ops"] != names:
            previous = {"ops": names, "op_seconds": [0.0] * len(names), "rows": 0, "wall_seconds": 0.0,
                        "workers": node.num_parallel_workers}
            node._op_stats = previous
        self.data = previous
        self.start = self.last = time.perf_counter()
        self.base_wall = previous["wall_seconds"]

    def add(self, seconds):
        data = self.data
        for k, s in enumerate(seconds.tolist()):
            data["op_seconds"][k] += s
        data["rows"] += 1
        self.last = time.perf_counter()
        data["wall_seconds"] = self.base_wall + (self.last - self.start)

    def finish(self):
        self.data["wall_seconds"] = self.base_wall + (time.perf_counter() - self.start)


def report(dataset):
    """[{node, rows, wall_seconds, rows_per_second, workers, ops: [{op, seconds, ms_per_row, rows_per_second}]}]
    for each map node of the pipeline that ran with op timing on, from the source up."""
    out = []
    for node in reversed(list(dataset._walk())):
        data = getattr(node, "_op_stats", None)
        if data is None:
            continue
        rows = data["rows"]
        entry = {"node": type(node).__name__, "rows": rows, "wall_seconds": data["wall_seconds"],
                 "rows_per_second": rows / data["wall_seconds"] if data["wall_seconds"] > 0 else 0.0,
                 "workers": data.get("workers"), "ops": []}
        for name, seconds in zip(data["ops"], data["op_seconds"]):
            entry["ops"].append({"op": name, "seconds": seconds, "ms_per_row": 1e3 * seconds / rows if rows else 0.0,
                                 "rows_per_second": rows / seconds if seconds > 0 else 0.0})
        out.append(entry)
    return out


def format_report(dataset):
    """The report as a text table: one line per operation, then the node's throughput."""
    lines = [f"{'operation':<60} {'ms/row':>9} {'rows/s (1 worker)':>18}"]
    for entry in report(dataset):
        for op in entry["ops"]:
            lines.append(f"{op['op']:<60} {op['ms_per_row']:>9.3f} {op['rows_per_second']:>18.1f}")
        lines.append(f"{'  ' + entry['node'] + ' pipeline (wall)':<60} {'':>9} {entry['rows_per_second']:>18.1f}"
                     f"   ({entry['rows']} rows in {entry['wall_seconds']:.3f} s)")
    return "\n".join(lines)


def reset(dataset):
    """Forget the figures collected so far."""
    for node in dataset._walk():
        node.__dict__.pop("_op_stats", None)
