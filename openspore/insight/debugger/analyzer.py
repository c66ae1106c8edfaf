"""`DumpAnalyzer`: MindInsight's offline debugger API over a dump directory (MindSpore's dumps or ours).

    >>> from openspore.insight.debugger import DumpAnalyzer, TensorOverflowCondition, Watchpoint
    >>> analyzer = DumpAnalyzer("/path/to/dump")                              # doctest: +SKIP
    >>> tensors = analyzer.select_tensors(".*", use_regex=True)               # doctest: +SKIP
    >>> hits = analyzer.check_watchpoints([Watchpoint(tensors, TensorOverflowCondition())])  # doctest: +SKIP
    >>> analyzer.select_nodes("lenet.py:35", select_by="code_stack")          # doctest: +SKIP

Several ranks are analysed together: every selection takes `ranks`, hits carry their rank, and
`first_nonfinite()` tells which rank produced a NaN/Inf first (earliest iteration, then execution order).
Unlike MindInsight, `check_watchpoints` runs in the calling process (no `__main__` guard needed).
"""
import csv
import os
import re

import numpy as np

from . import engine
from .catalog import recommend
from .conditions import nonfinite_code, statistics
from .dump_store import DumpStore
from .tensors import DebuggerTensor, Node

_SELECT_BY = ("node_name", "code_stack")


class DumpAnalyzer:
    """`DumpAnalyzer(dump_dir, mem_limit=None)`: `dump_dir` is the dump config's `path` (holding `rank_*`);
    `mem_limit` (MB, 2048..2147483647) skips tensors bigger than it with error code 'exceeds the memory limit'."""

    def __init__(self, dump_dir, mem_limit=None):
        if mem_limit is not None and (isinstance(mem_limit, bool) or not isinstance(mem_limit, int)
                                      or not 2048 <= mem_limit <= 2147483647):
            raise ValueError(f"DumpAnalyzer: mem_limit should be None or an int in [2048, 2147483647] (MB), "
                             f"but got {mem_limit!r}.")
        self.mem_limit = mem_limit
        self._store = DumpStore(dump_dir)
        self._nodes = {}  # (rank, graph_id, name) -> Node
        for rd in self._store.ranks.values():
            for rec in sorted(rd.nodes.values(), key=lambda r: (r.graph_id, r.order)):
                node = Node(self, rec)
                self._nodes[node.key] = node
        self._consumers = None

    @property
    def dump_dir(self):
        return self._store.dump_dir

    # ---- ranks and iterations ----------------------------------------------------------------------
    def get_ranks(self):
        return sorted(self._store.ranks)

    def get_iterations(self, ranks=None):
        out = set()
        for rank in self._ranks(ranks):
            out.update(self._store.rank(rank).iterations())
        return sorted(out)

    def _ranks(self, ranks):
        if ranks is None:
            return self.get_ranks()
        ranks = [ranks] if isinstance(ranks, int) else list(ranks)
        for r in ranks:
            self._store.rank(r)  # a clear error for an unknown rank
        return ranks

    # ---- selection ----------------------------------------------------------------------------------
    def select_nodes(self, query_string, use_regex=False, select_by="node_name", ranks=None, case_sensitive=True):
        """Nodes whose name (or a code-stack line, `select_by="code_stack"`) matches: substring, or regex."""
        match = _matcher(query_string, use_regex, select_by, case_sensitive)
        wanted = set(self._ranks(ranks))
        out = []
        for node in self._nodes.values():
            if node.rank not in wanted:
                continue
            texts = [node.name] if select_by == "node_name" else [str(f) for f in node.stack]
            if any(match(t) for t in texts):
                out.append(node)
        return out

    def select_tensors(self, query_string, use_regex=False, select_by="node_name", iterations=None, ranks=None,
                       slots=None, case_sensitive=True):
        """The dumped output tensors of the selected nodes, per iteration and slot."""
        out = []
        for node in self.select_nodes(query_string, use_regex, select_by, ranks, case_sensitive):
            out.extend(self._tensors_of(node, iterations, slots))
        return out

    def nodes(self, ranks=None):
        wanted = set(self._ranks(ranks))
        return [n for n in self._nodes.values() if n.rank in wanted]

    def _tensors_of(self, node, iterations, slots):
        rd = self._store.rank(node.rank)
        its = rd.iterations(node.root_graph_id) if iterations is None else list(iterations)
        out = []
        for it in its:
            for slot in rd.dumped_slots(node.record, it):
                if slots is None or slot in slots:
                    out.append(DebuggerTensor(node, slot, it))
        return out

    # ---- graph walking ------------------------------------------------------------------------------
    def get_input_nodes(self, node):
        rec = node.record
        return [self._nodes[k] for k in ((rec.rank, rec.graph_id, name) for name in rec.inputs) if k in self._nodes]

    def get_output_nodes(self, node):
        if self._consumers is None:
            self._consumers = {}
            for n in self._nodes.values():
                for src in self.get_input_nodes(n):
                    self._consumers.setdefault(src.key, []).append(n)
        return list(self._consumers.get(node.key, []))

    def list_affected_nodes(self, tensor):
        """The nodes that consume `tensor` (its node's users)."""
        return self.get_output_nodes(tensor.node)

    # ---- values -------------------------------------------------------------------------------------
    def _read(self, node, iteration, slot, io="output"):
        found = self._store.rank(node.rank).tensor_path(node.record, iteration, slot, io)
        if found is None:
            return None
        path = found[0]
        if self.mem_limit is not None and os.path.getsize(path) > self.mem_limit * 1024 * 1024:
            return None
        return np.load(path, allow_pickle=False)

    def _input_values(self, node, iteration):
        """The arrays `node` consumed: its own dumped inputs when the dump has them, else its input nodes'
        outputs (a dump with `input_output: 2`; a parameter's previous-iteration value, from before the update)."""
        rd = self._store.rank(node.rank)
        slots = rd.dumped_slots(node.record, iteration, io="input")
        if slots:
            return [self._read(node, iteration, s, io="input") for s in slots]
        # parameters are dumped after the step's update: what a kernel read is the previous iteration's value
        return [self._read(src, iteration - 1, 0) if src.record.is_parameter and self._read(src, iteration - 1, 0)
                is not None else self._read(src, iteration, 0) for src in self.get_input_nodes(node)]

    # ---- checks -------------------------------------------------------------------------------------
    def check_watchpoints(self, watchpoints, error_on_no_value=False, progress=None):
        """Check all `watchpoints` over every iteration their tensors cover; returns WatchpointHits sorted by
        iteration, rank and execution order. `progress(done, total)` reports each finished (rank, iteration)."""
        watchpoints = list(watchpoints)
        iterations = {}
        for wp in watchpoints:
            if not isinstance(wp, engine.Watchpoint):
                raise TypeError(f"check_watchpoints: expected Watchpoint objects, but got {type(wp).__name__}.")
            for (node, _slot), its in wp.targets().items():
                chosen = its if its is not None else self._store.rank(node.rank).iterations(node.root_graph_id)
                iterations.setdefault(node.rank, set()).update(chosen)
        return engine.check(watchpoints, self, iterations, error_on_no_value, progress)

    def recommend_watchpoints(self, ranks=None):
        """MindInsight's recommended watchpoints for the dumped graphs (per rank), as Watchpoint objects."""
        out = []
        for rank in self._ranks(ranks):
            nodes = [n for n in self._nodes.values() if n.rank == rank]
            by_rec = {id(n.record): n for n in nodes}
            for name, cond, recs in recommend([n.record for n in nodes]):
                out.append(engine.Watchpoint([by_rec[id(r)] for r in recs], cond, name=name))
        return out

    def first_nonfinite(self, ranks=None, iterations=None):
        """Per rank, the earliest iteration with a NaN/Inf and the first node (execution order) that made it from
        finite inputs: [(rank, iteration, Node)], the rank that went wrong first first."""
        found = []
        for rank in self._ranks(ranks):
            # kernels in execution order, then the parameters: they are dumped after the step's update, so a
            # parameter that is the first non-finite value of a step was made so by the update itself
            nodes = sorted((n for n in self._nodes.values() if n.rank == rank and not n.record.is_parameter),
                           key=lambda n: n.order)
            nodes += [n for n in self._nodes.values() if n.rank == rank and n.record.is_parameter]
            for it in (self.get_iterations([rank]) if iterations is None else sorted(iterations)):
                first = None
                for node in nodes:
                    slots = self._store.rank(rank).dumped_slots(node.record, it)
                    values = [self._read(node, it, s) for s in slots]
                    if not any(v is not None and nonfinite_code(np.asarray(v)) for v in values):
                        continue
                    inputs = [] if node.record.is_parameter else self._input_values(node, it)
                    if not any(x is not None and nonfinite_code(np.asarray(x)) for x in inputs):
                        first = node
                        break
                if first is not None:
                    found.append((rank, it, first))
                    break
        return sorted(found, key=lambda f: (f[1], f[2].order, f[0]))

    def select_tensor_statistics(self, iterations=None, ranks=None):
        """{rank: {iteration: {node name: {slot: statistics}}}} for every dumped output tensor."""
        out = {}
        for node in self.nodes(ranks):
            for t in self._tensors_of(node, iterations, None):
                value = t.value()
                if value is not None:
                    out.setdefault(node.rank, {}).setdefault(t.iteration, {}).setdefault(node.name, {})[t.slot] = \
                        statistics(value)
        return out

    def export_graphs(self, output_dir=None):
        """Write every rank's nodes with their code stacks to one CSV file (MindInsight writes xlsx); returns its
        path."""
        from ...common.files import write_atomic
        directory = output_dir or os.getcwd()
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "graphs.csv")
        rows = [["rank", "graph_id", "execution_order", "op_type", "name", "inputs", "stack"]]
        for n in self._nodes.values():
            rows.append([n.rank, n.root_graph_id, n.order, n.op_type, n.name, ";".join(n.record.inputs),
                         " | ".join(str(f) for f in n.stack)])
        lines = []

        class _Sink:
            def write(self, text):
                lines.append(text)
        csv.writer(_Sink()).writerows(rows)
        write_atomic(path, [("".join(lines)).encode("utf-8")], read_only=False)
        return path


def _matcher(query, use_regex, select_by, case_sensitive):
    if select_by not in _SELECT_BY:
        raise ValueError(f"select_by should be one of {list(_SELECT_BY)}, but got {select_by!r}.")
    if not isinstance(query, str) or not query:
        raise ValueError(f"query_string should be a non-empty string, but got {query!r}.")
    if len(query) > 255 and select_by == "code_stack":
        raise ValueError("query_string for code_stack selection is limited to 255 characters.")
    flags = 0 if case_sensitive else re.IGNORECASE
    if use_regex:
        try:
            pattern = re.compile(query, flags)
        except re.error as exc:
            raise ValueError(f"query_string {query!r} is not a valid regular expression: {exc}") from None
        return lambda text: pattern.search(text) is not None
    # a query ending in a line number must not match a longer number ("net.py:35" is not "net.py:350")
    tail = r"(?!\d)" if query[-1].isdigit() else ""
    pattern = re.compile(re.escape(query) + tail, flags)
    return lambda text: pattern.search(text) is not None
