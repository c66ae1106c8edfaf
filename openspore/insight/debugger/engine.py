"""The rule engine: watchpoints checked over iterations and ranks, from dumps or from a live step.

A *source* is what reads tensors: `source._read(node, iteration, slot)` (array or None), `source.get_input_nodes
(node)` and `source._input_values(node, iteration)` (the arrays the node consumed, for operator rules). The
offline `DumpAnalyzer` and the online session are both sources, so both run exactly this code.

Values are read once per (node, slot, iteration) during a check, whatever the number of watchpoints. Conditions
that compare with earlier iterations read them as iteration - 1, - 2, ... (MindInsight reads "prev" as
iteration - 1); a missing one gives error code "previous step value cannot be found", reported only with
`error_on_no_value=True`, like a tensor that was not dumped at all.
"""
from .catalog import tuning_hints
from .conditions import ERR_NO_PREV, ERR_NO_VALUE, ConditionBase, error_messages
from .tensors import DebuggerTensor, Node


class Watchpoint:
    """`Watchpoint(tensors, condition)`: check `condition` on the given tensors (their nodes, slots and
    iterations; a list of Nodes watches their output slot 0 in every iteration)."""

    def __init__(self, tensors, condition, watchpoint_id=None, name=""):
        if not isinstance(condition, ConditionBase):
            raise TypeError(f"Watchpoint: 'condition' should be a condition object (TensorOverflowCondition(), ...),"
                            f" but got {type(condition).__name__}.")
        items = list(tensors) if isinstance(tensors, (list, tuple, set)) else [tensors]
        for t in items:
            if not isinstance(t, (DebuggerTensor, Node)):
                raise TypeError(f"Watchpoint: 'tensors' should be DebuggerTensors or Nodes, but got "
                                f"{type(t).__name__}.")
        self.tensors, self.condition, self.watchpoint_id, self.name = items, condition, watchpoint_id, name

    def targets(self):
        """{(node, slot): set of iterations or None (all)}."""
        out = {}
        for t in self.tensors:
            if isinstance(t, Node):
                out[(t, 0)] = None
            else:
                its = out.setdefault((t.node, t.slot), set())
                if its is not None:
                    its.add(t.iteration)
        return out

    def __repr__(self):
        return f"Watchpoint({self.condition!r} on {len(self.tensors)} tensors)"


class WatchpointHit:
    """A condition that held (or could not be checked) on one tensor. `error_code`/`error_msg` as MindInsight;
    `get_threshold()` the condition; `get_hit_detail()` the compared values; `tuning_hints` what to look at."""

    def __init__(self, tensor, condition, evaluation, watchpoint_id=None):
        self.tensor, self.condition, self.watchpoint_id = tensor, condition, watchpoint_id
        self.error_code = evaluation.error_code
        self.error_msg = error_messages(evaluation.error_code)
        self.params = evaluation.params
        self.tuning_hints = tuning_hints(condition, tensor.node.category)

    def get_threshold(self):
        return self.condition

    def get_hit_detail(self):
        return list(self.params)

    @property
    def rank(self):
        return self.tensor.rank

    @property
    def iteration(self):
        return self.tensor.iteration

    def to_dict(self):
        n = self.tensor.node
        return {"watchpoint_id": self.watchpoint_id, "condition": self.condition.name, "rank": n.rank,
                "graph_name": n.graph_name, "node_name": n.name, "op_type": n.op_type, "slot": self.tensor.slot,
                "iteration": self.tensor.iteration, "error_code": self.error_code, "error_msg": self.error_msg,
                "params": [p._asdict() for p in self.params], "stack": [str(f) for f in n.stack],
                "tuning_hints": self.tuning_hints}

    def __str__(self):
        t, n = self.tensor, self.tensor.node
        where = f"{n.rank}/{n.graph_name}/{n.name}/{t.slot}/{t.iteration}"
        setting = ", ".join(f"{p.name} = {p.threshold}" for p in self.params)
        actual = ", ".join(f"{p.name} = {p.actual}" for p in self.params)
        text = (f"Watchpoint {self.condition.name} triggered on tensor: {where}, Threshold: "
                f"{self.condition.param_dict}, Hit detail: The setting for watchpoint is {setting or '-'}. "
                f"The actual value of the tensor is {actual or '-'}.")
        if self.error_msg:
            text += " Error: " + " ".join(self.error_msg)
        return text

    __repr__ = __str__


def check(watchpoints, source, iterations, error_on_no_value=False, progress=None):
    """Check `watchpoints` over `iterations` ({rank: [iterations]}); hits sorted by iteration, rank and node
    execution order. `progress(done, total)` is called after each (rank, iteration)."""
    plans = []
    for k, wp in enumerate(watchpoints):
        if not isinstance(wp, Watchpoint):
            raise TypeError(f"check_watchpoints: expected Watchpoint objects, but item {k} is {type(wp).__name__}.")
        plans.append((wp, wp.targets()))
    steps = sorted({(it, rank) for rank, its in iterations.items() for it in its})
    hits = []
    for done, (it, rank) in enumerate(steps, 1):
        cache = {}

        def read(node, slot, iteration):
            key = (node.key, slot, iteration)
            if key not in cache:
                cache[key] = source._read(node, iteration, slot)
            return cache[key]

        for wid, (wp, targets) in enumerate(plans):
            cond = wp.condition
            found = []
            for (node, slot), its in targets.items():
                if node.rank != rank or (its is not None and it not in its):
                    continue
                value = read(node, slot, it)
                history = []
                for back in range(cond.HISTORY, 0, -1):
                    prev = read(node, slot, it - back)
                    if prev is not None:
                        history.append(prev)
                inputs = source._input_values(node, it) if cond.NEEDS_INPUTS and value is not None else None
                ev = cond.evaluate(value, history, inputs)
                if ev.hit or (ev.error_code & ~(ERR_NO_PREV | ERR_NO_VALUE)) or (ev.error_code and error_on_no_value):
                    found.append(WatchpointHit(DebuggerTensor(node, slot, it), cond, ev,
                                               wp.watchpoint_id if wp.watchpoint_id is not None else wid))
            if getattr(cond, "FIRST_ONLY", False) and found:
                found = [min((h for h in found if not h.error_code), key=lambda h: h.tensor.node.order,
                             default=found[0])]
            hits.extend(found)
        if progress is not None:
            progress(done, len(steps))
    hits.sort(key=lambda h: (h.tensor.iteration, h.tensor.rank, h.tensor.node.order))
    return hits
