"""The profiler's files, in MindSpore's CPU layout under `<output_path>/<host>_<pid>_<time>_ascend_ms/`:

* `FRAMEWORK/cpu_op_type_info_0.csv`: per op type — occurrences, per-step frequency, total/average ms, share;
* `FRAMEWORK/cpu_op_detail_info_0.csv`: per op name (a graph node's scope name, or the type in PyNative);
* `FRAMEWORK/cpu_op_execute_timestamp_0.txt`: each call's start (ns) and duration (ms) per op name;
* `ASCEND_PROFILER_OUTPUT/trace_view.json`: a Chrome/Perfetto trace of every call;
* `op_summary.txt`: a readable table of the op types, slowest first.
Every file is written to a temporary name and renamed.
"""
import json
import os
import socket
import time
from collections import OrderedDict

from ..common.files import write_atomic


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, [text.encode("utf-8")], read_only=False)


def _grouped(events, key):
    groups = OrderedDict()
    for e in events:
        groups.setdefault(key(e), []).append(e)
    return groups


def run_folder(output_path):
    stamp = time.strftime("%Y%m%d%H%M%S") + f"{int(time.time() * 1000) % 1000:03d}"
    return os.path.join(output_path, f"{socket.gethostname()}_{os.getpid()}_{stamp}_ascend_ms")


def write_reports(folder, events, steps, pid):
    """Write the files above for `events`; returns {name: path}."""
    total_ms = sum(e.dur_ns for e in events) / 1e6 or 1.0
    steps = max(steps, 1)
    by_type = sorted(_grouped(events, lambda e: e.op_type).items(), key=lambda kv: -sum(e.dur_ns for e in kv[1]))
    rows = ["op_type,type_occurrences,execution_frequency(per-step),total_compute_time,avg_time(ms),percent"]
    table = [f"{'op type':<28}{'calls':>8}{'total ms':>12}{'avg ms':>10}{'share':>8}  mode"]
    for op_type, group in by_type:
        ms_total = sum(e.dur_ns for e in group) / 1e6
        n = len(group)
        rows.append(f"{op_type},{n},{n // steps or 1},{ms_total:.6f},{ms_total / n:.6f},{ms_total / total_ms:.6f}")
        modes = "/".join(sorted({e.mode for e in group}))
        table.append(f"{op_type:<28}{n:>8}{ms_total:>12.4f}{ms_total / n:>10.4f}{ms_total / total_ms:>8.1%}  {modes}")
    table.append(f"{'total':<28}{len(events):>8}{sum(e.dur_ns for e in events) / 1e6:>12.4f}")
    paths = {"op_type": os.path.join(folder, "FRAMEWORK", "cpu_op_type_info_0.csv"),
             "op_detail": os.path.join(folder, "FRAMEWORK", "cpu_op_detail_info_0.csv"),
             "timestamps": os.path.join(folder, "FRAMEWORK", "cpu_op_execute_timestamp_0.txt"),
             "trace": os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "trace_view.json"),
             "summary": os.path.join(folder, "op_summary.txt")}
    _write(paths["op_type"], "\n".join(rows) + "\n")
    detail = ["op_side,op_type,op_name,full_op_name,op_occurrences,op_total_time(ms),op_avg_time(ms),"
              "total_proportion,subgraph,pid"]
    stamps = []
    for name, group in _grouped(events, lambda e: e.op_name).items():
        ms_total = sum(e.dur_ns for e in group) / 1e6
        short = name.rsplit("/", 1)[-1]
        detail.append(f"Host,{group[0].op_type},{short},{name},{len(group)},{ms_total:.6f},"
                      f"{ms_total / len(group):.6f},{ms_total / total_ms:.6f},Default,{pid}")
        stamps.append(f"{name};HostCpuOps;" + " ".join(f"{e.start_ns},{e.dur_ns / 1e6:.6f},0" for e in group) + " ")
    _write(paths["op_detail"], "\n".join(detail) + "\n")
    _write(paths["timestamps"], "\n".join(stamps) + "\n")
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "CPU OP"}}]
    trace += [{"ph": "X", "name": e.op_name, "pid": pid, "tid": 0, "ts": e.start_ns / 1000.0,
               "dur": e.dur_ns / 1000.0, "cat": e.mode, "args": {"type": e.op_type,
                                                                 "input_shapes": [list(s) if s is not None else None
                                                                                  for s in e.shapes]}}
              for e in events]
    _write(paths["trace"], json.dumps(trace))
    header = f"openspore profile: {len(events)} kernel calls over {steps} step(s), pid {pid}\n"
    _write(paths["summary"], header + "\n".join(table) + "\n")
    return paths
