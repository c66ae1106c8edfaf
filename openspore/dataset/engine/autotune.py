"""Autotune (`ds.config.set_enable_autotune(True)`): a `map` without an explicit worker count runs its first rows
inline, measures their cost, and chooses its worker processes from it; the prefetch window follows the worker
count (at least twice as many rows in flight as workers). The choice is kept on the node as `_autotune` and,
with a file prefix, written as JSON.

A row that costs less than COST_FLOOR_S stays inline: shipping it to a worker process would cost more than it saves.
"""
import json
import os

from .. import config

PROBE_ROWS = 8
COST_FLOOR_S = 0.0005
_choices = []  # every choice of this process, in order, for the JSON file


def choose(node, rows, seconds):
    """(num_workers, use_processes) for `node` from `rows` probe rows that took `seconds`."""
    per_row = seconds / rows if rows else 0.0
    cpus = os.cpu_count() or 1
    if rows < PROBE_ROWS or per_row < COST_FLOOR_S or cpus < 2:
        workers, processes = None, False  # too few rows left or too cheap to be worth a pool
    else:
        workers, processes = min(cpus, config.get_num_parallel_workers()), True
    prefetch = max(config.get_prefetch_size(), 2 * (workers or 1))
    node._autotune = {"node": type(node).__name__, "probe_rows": rows, "seconds_per_row": per_row,
                      "num_parallel_workers": workers or 1, "python_multiprocessing": processes,
                      "prefetch_size": prefetch}
    _choices.append(node._autotune)
    prefix = config._state.get("autotune_filepath_prefix")
    if prefix:
        from ...common.files import write_atomic
        write_atomic(f"{prefix}_0.json", [json.dumps({"map_ops": _choices}, indent=2).encode()], read_only=False)
    return workers, processes
