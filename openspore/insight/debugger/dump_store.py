"""An index over a dump directory in MindSpore's layout (one `rank_{id}` tree per device).

    {dump_dir}/rank_{id}/.dump_metadata/{data_dump.json, config.json}
    {dump_dir}/rank_{id}/{net_name}/{graph_id}/{iteration}/{tensor files}.npy   (+ statistic.csv)
    {dump_dir}/rank_{id}/graphs/ms_output_trace_code_graph_{graph_id}.ir
    {dump_dir}/rank_{id}/execution_order/ms_execution_order_graph_{graph_id}.csv

Graph files give the nodes (names, types, inputs, code stacks); without them the nodes come from the tensor file
names alone. Iteration directories are listed once, lazily; a tensor dumped more than once in one iteration (a
node inside a loop) is read from its latest file, as MindInsight does.
"""
import json
import os
import re

from .dump_names import parse_tensor_file, sanitize
from .graph_text import parse_graph_text

_RANK_DIR = re.compile(r"^rank_(\d+)$")
_SKIP_DIRS = {".dump_metadata", "graphs", "execution_order"}


class NodeRecord:
    """What the store knows of one node of one rank's graph."""

    __slots__ = ("rank", "graph_id", "name", "op_type", "file_name", "inputs", "stack", "order", "is_parameter",
                 "is_weight")

    def __init__(self, rank, graph_id, name, op_type, order, inputs=(), stack=(), is_parameter=False,
                 is_weight=False):
        self.rank, self.graph_id, self.name, self.op_type = rank, graph_id, name, op_type
        self.file_name = sanitize(name)
        self.inputs, self.stack, self.order = list(inputs), list(stack), order
        self.is_parameter, self.is_weight = is_parameter, is_weight

    def __repr__(self):
        return f"NodeRecord(rank {self.rank}, graph {self.graph_id}, {self.name})"


class RankDump:
    """One `rank_{id}` tree: its nets, graphs, iterations and nodes."""

    def __init__(self, rank, root):
        self.rank, self.root = rank, root
        meta = os.path.join(root, ".dump_metadata")
        self.config = _read_json(os.path.join(meta, "data_dump.json"))
        self.device = _read_json(os.path.join(meta, "config.json"))
        self.iteration_dirs = {}  # (graph_id, iteration) -> directory
        for net in sorted(os.listdir(root)):
            net_dir = os.path.join(root, net)
            if net in _SKIP_DIRS or not os.path.isdir(net_dir):
                continue
            for gid in _numeric_dirs(net_dir):
                for it in _numeric_dirs(os.path.join(net_dir, str(gid))):
                    self.iteration_dirs[(gid, it)] = os.path.join(net_dir, str(gid), str(it))
        self.graph_ids = sorted({g for g, _ in self.iteration_dirs} | set(self._graph_files()))
        self.nodes = {}  # (graph_id, name) -> NodeRecord
        self._by_file_name = {}
        self._files = {}  # (graph_id, iteration) -> {(file_name, io, slot): path}
        for gid in self.graph_ids:
            self._load_graph(gid)

    # ---- graphs ---------------------------------------------------------------------------------
    def _graph_files(self):
        graphs = os.path.join(self.root, "graphs")
        out = {}
        if os.path.isdir(graphs):
            for name in os.listdir(graphs):
                m = re.fullmatch(r"ms_output_trace_code_graph_(\d+)\.ir", name)
                if m:
                    out[int(m.group(1))] = os.path.join(graphs, name)
        return out

    def _execution_order(self, gid):
        path = os.path.join(self.root, "execution_order", f"ms_execution_order_graph_{gid}.csv")
        if not os.path.isfile(path):
            return []
        with open(path, encoding="utf-8") as f:
            lines = [ln.strip() for ln in f]
        return [ln for ln in lines[1:] if ln]

    def _load_graph(self, gid):
        order = {name: k for k, name in enumerate(self._execution_order(gid))}
        path = self._graph_files().get(gid)
        if path is None:
            self._nodes_from_files(gid, order)
            return
        with open(path, encoding="utf-8") as f:
            text = parse_graph_text(f.read())
        weights = _updated_parameters(text)
        for k, (pname, _flag) in enumerate(text.params.items()):
            is_weight = pname in weights if weights else _looks_like_weight(pname)
            self._add(NodeRecord(self.rank, gid, pname, "Parameter", -len(text.params) + k, is_parameter=True,
                                 is_weight=is_weight))
        index_name = {n.index: n.full_name for n in text.nodes}
        for n in text.nodes:
            if not n.full_name:
                continue
            inputs = [index_name.get(i, "") if isinstance(i, int) else i for i in n.inputs]
            pos = order.get(n.full_name, len(order) + n.index)
            self._add(NodeRecord(self.rank, gid, n.full_name, n.op_type, pos, [i for i in inputs if i], n.stack))

    def _nodes_from_files(self, gid, order):
        """No graph file: nodes are what was dumped, named by their (sanitised) file names."""
        seen = {}
        for (g, it), _ in sorted(self.iteration_dirs.items()):
            if g != gid:
                continue
            for (fname, _io, _slot), (_path, ts, op_type) in self._scan(g, it).items():
                if fname not in seen or ts < seen[fname][0]:
                    seen[fname] = (ts, op_type)
        for k, (fname, (_ts, op_type)) in enumerate(sorted(seen.items(), key=lambda kv: kv[1][0])):
            is_param = op_type == "Parameter"
            self._add(NodeRecord(self.rank, gid, fname, op_type, order.get(fname, k), is_parameter=is_param,
                                 is_weight=is_param and _looks_like_weight(fname.replace("_", "."))))

    def _add(self, rec):
        self.nodes[(rec.graph_id, rec.name)] = rec
        self._by_file_name[(rec.graph_id, rec.file_name)] = rec

    # ---- tensors --------------------------------------------------------------------------------
    def iterations(self, graph_id=None):
        return sorted({it for g, it in self.iteration_dirs if graph_id is None or g == graph_id})

    def _scan(self, gid, iteration):
        key = (gid, iteration)
        found = self._files.get(key)
        if found is None:
            found = {}
            directory = self.iteration_dirs.get(key)
            for name in (os.listdir(directory) if directory else ()):
                info = parse_tensor_file(name)
                if info is None:
                    continue
                slot_key = (info.op_name, info.io, info.slot)
                old = found.get(slot_key)
                if old is None or info.timestamp >= old[1]:
                    found[slot_key] = (os.path.join(directory, name), info.timestamp, info.op_type)
            self._files[key] = found
        return found

    def tensor_path(self, rec, iteration, slot=0, io="output"):
        """(path, timestamp) of a node's dumped tensor in an iteration, or None when it was not dumped."""
        hit = self._scan(rec.graph_id, iteration).get((rec.file_name, io, slot))
        return hit[:2] if hit else None

    def dumped_slots(self, rec, iteration, io="output"):
        return sorted(s for (f, i, s) in self._scan(rec.graph_id, iteration) if f == rec.file_name and i == io)


class DumpStore:
    """All ranks of a dump directory. Raises ValueError when `dump_dir` holds no `rank_*` dump."""

    def __init__(self, dump_dir):
        if not isinstance(dump_dir, (str, os.PathLike)) or not os.path.isdir(dump_dir):
            raise ValueError(f"DumpAnalyzer: dump_dir {dump_dir!r} is not a directory.")
        self.dump_dir = os.fspath(dump_dir)
        self.ranks = {}
        for name in sorted(os.listdir(self.dump_dir)):
            m = _RANK_DIR.match(name)
            root = os.path.join(self.dump_dir, name)
            if m and os.path.isdir(os.path.join(root, ".dump_metadata")):
                self.ranks[int(m.group(1))] = RankDump(int(m.group(1)), root)
        if not self.ranks:
            raise ValueError(f"DumpAnalyzer: {self.dump_dir!r} holds no dump: expected rank_{{id}} directories "
                             "with a .dump_metadata folder (the 'path' of the dump config).")

    def rank(self, rank_id):
        try:
            return self.ranks[rank_id]
        except KeyError:
            raise ValueError(f"DumpAnalyzer: rank {rank_id} is not in the dump (ranks: {sorted(self.ranks)}).") \
                from None


def _numeric_dirs(path):
    return sorted(int(d) for d in os.listdir(path) if d.isdigit() and os.path.isdir(os.path.join(path, d)))


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


_OPTIMIZER_OPS = {"ApplyMomentum", "ApplyGradientDescent", "SGD", "Adam", "AdamWeightDecay", "ApplyAdam",
                  "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdagrad", "ApplyAdagradV2", "ApplyFtrl", "Lamb",
                  "ApplyAdaMax", "ApplyAdadelta", "FusedAdam", "FusedAdamWeightDecay", "Assign"}


def _updated_parameters(text):
    """The parameters an optimizer updates (first input of an update kernel): the trainable weights, read off
    the graph. Empty when the graph has no optimizer (an inference graph)."""
    out = set()
    for n in text.nodes:
        if n.op_type in _OPTIMIZER_OPS and n.op_type != "Assign" and n.inputs and isinstance(n.inputs[0], str):
            out.add(n.inputs[0])
    return out


def _looks_like_weight(name):
    """MindInsight's rule when the graph does not say: a `.weight`/`.bias` parameter outside optimizer state."""
    low = name.lower()
    state = ("moments.", "accum.", "stat.", "moment1.", "moment2.", "adam_m.", "adam_v.", "optimizer-")
    return low.endswith((".weight", ".bias")) and not low.startswith(state) and "optimizer-" not in low
