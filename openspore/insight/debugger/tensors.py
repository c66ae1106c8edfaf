"""`Node` and `DebuggerTensor`: MindInsight's handles on graph nodes and their dumped (or live) tensors.

Both belong to an owner (a `DumpAnalyzer`, or an online session) that reads values and walks the graph; the
handles themselves hold only identities, so lists of them are cheap.
"""
from .catalog import node_category


class Node:
    """A node of one rank's graph: `name` (full scope name, or the parameter name), `stack` (code frames,
    outermost first), `rank`, `root_graph_id`, `graph_name`, `op_type` and `category`."""

    def __init__(self, owner, record, graph_name=""):
        self._owner, self._rec, self._graph_name = owner, record, graph_name

    name = property(lambda self: self._rec.name)
    rank = property(lambda self: self._rec.rank)
    root_graph_id = property(lambda self: self._rec.graph_id)
    graph_name = property(lambda self: self._graph_name or f"kernel_graph_{self._rec.graph_id}")
    op_type = property(lambda self: self._rec.op_type)
    stack = property(lambda self: list(self._rec.stack))
    order = property(lambda self: self._rec.order)

    @property
    def category(self):
        r = self._rec
        return node_category(r.op_type, r.name, r.is_parameter, r.is_weight)

    @property
    def record(self):
        return self._rec

    def get_input_tensors(self, iterations=None, slots=None):
        """The output tensors of this node's input nodes."""
        out = []
        for node in self._owner.get_input_nodes(self):
            out.extend(node.get_output_tensors(iterations, slots))
        return out

    def get_output_tensors(self, iterations=None, slots=None):
        return self._owner._tensors_of(self, iterations, slots)

    def __eq__(self, other):
        return isinstance(other, Node) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    @property
    def key(self):
        return (self._rec.rank, self._rec.graph_id, self._rec.name)

    def __repr__(self):
        return f"Node(rank={self.rank}, graph={self.root_graph_id}, {self.op_type} {self.name})"


class DebuggerTensor:
    """One output slot of one node in one iteration; `value()` reads it (numpy array, or None if not dumped)."""

    __slots__ = ("node", "slot", "iteration")

    def __init__(self, node, slot, iteration):
        self.node, self.slot, self.iteration = node, slot, iteration

    @property
    def rank(self):
        return self.node.rank

    def value(self):
        return self.node._owner._read(self.node, self.iteration, self.slot)

    def __repr__(self):
        return f"DebuggerTensor({self.rank}/{self.node.graph_name}/{self.node.name}/{self.slot}/{self.iteration})"
