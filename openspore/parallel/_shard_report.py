"""What operator sharding did, for inspection: per operator call, the strategy it ran with (given by `shard`,
propagated from its inputs' layouts, or loaded from a strategy file), its device matrix, the layouts of its
inputs and outputs, and the communication inserted (forward operator and the backward it brings).

`ms.parallel.sharding_report()` gives the records (one per distinct operator and layout; PyNative repeats
every step, so a record counts its calls); `print_sharding_report()` prints them; `save_sharding_report(path)`
writes them. With `set_context(save_graphs=True)` each rank writes
`<save_graphs_path>/parallel_strategy_rank_<r>.txt` at exit, next to the graph dumps.

>>> begin("MatMul-mm1", "explicit", ((2, 1), (1, 1)), "dev_matrix=(2, 2)")
>>> comm("AllReduce(sum, group=world)", "identity")
>>> end(["dev_matrix=(2, 2) tensor_map=(1, -1)"], ["dev_matrix=(2, 2) tensor_map=(1, -1)"])
>>> sharding_report()[-1]["comm"]
['AllReduce(sum, group=world) | backward: identity']
>>> clear_sharding_report()
"""
import atexit
import os
import sys

from .. import context

_MAX_RECORDS = 2000
_RECORDS = {}  # key -> record dict, in first-seen order
_OPEN = []  # records being filled by the rule running now (innermost last)


def begin(op, how, strategy, dev_matrix):
    _OPEN.append({"op": op, "how": how, "strategy": strategy, "dev_matrix": dev_matrix, "comm": []})


def comm(forward, backward):
    """Note one inserted communication (or local split) for the operator whose rule is running."""
    if _OPEN:
        _OPEN[-1]["comm"].append(f"{forward} | backward: {backward}")


def end(inputs, outputs):
    record = _OPEN.pop()
    record["inputs"], record["outputs"] = list(inputs), list(outputs)
    key = repr(sorted((k, repr(v)) for k, v in record.items()))
    seen = _RECORDS.get(key)
    if seen is not None:
        seen["calls"] += 1
    elif len(_RECORDS) < _MAX_RECORDS:
        record["calls"] = 1
        _RECORDS[key] = record


def abandon():
    """Drop the record of a rule that raised."""
    if _OPEN:
        _OPEN.pop()


def sharding_report():
    """[{op, how, strategy, dev_matrix, inputs, outputs, comm, calls}] of this process, first seen first."""
    return [dict(r) for r in _RECORDS.values()]


def clear_sharding_report():
    _RECORDS.clear()


def format_report():
    lines = []
    for r in _RECORDS.values():
        lines.append(f"{r['op']} [{r['how']}] strategy={r['strategy']} {r['dev_matrix']} calls={r['calls']}")
        lines.append(f"    inputs:  {'; '.join(map(str, r['inputs']))}")
        lines.append(f"    outputs: {'; '.join(map(str, r['outputs']))}")
        for c in r["comm"]:
            lines.append(f"    inserted: {c}")
    return "\n".join(lines) + ("\n" if lines else "")


def print_sharding_report(file=None):
    """Print the per-operator strategies and inserted communication."""
    (file or sys.stdout).write(format_report())


def save_sharding_report(path):
    """Write the report to `path` (text, one block per operator)."""
    from ..common.files import write_atomic
    write_atomic(path, [format_report().encode()], read_only=False)


def _save_at_exit():
    if not _RECORDS or not context.get_context("save_graphs"):
        return
    from ..ops.defs import _comm_world as world
    rank = world.state()["rank"] if world.is_inited() else 0
    folder = context.get_context("save_graphs_path")
    os.makedirs(folder, exist_ok=True)
    save_sharding_report(os.path.join(folder, f"parallel_strategy_rank_{rank}.txt"))


atexit.register(_save_at_exit)
