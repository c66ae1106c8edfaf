"""Shared plumbing for the passes: rebuilding nodes whose inputs or subgraphs changed, per-graph recursion."""
from ...ir.node import Graph


def with_inputs(node, inputs):
    """`node` itself when `inputs` are its inputs, else a clone reading `inputs` (the input node stays intact)."""
    for a, b in zip(node.inputs, inputs):
        if a is not b:
            return node.clone(inputs=tuple(inputs))
    return node


class Recursive:
    """Applies a per-graph transform to a graph and, first, to each nested subgraph (once per graph object,
    so a subgraph shared by several nodes stays shared).

    `body(graph, self)` builds the new graph; it calls `self.node(n, inputs)` to get `n` with remapped inputs
    and transformed subgraphs."""

    def __init__(self, body):
        self.body = body
        self.memo = {}

    def graph(self, g):
        done = self.memo.get(id(g))
        if done is None:
            done = self.body(g, self)
            self.memo[id(g)] = done
            self.memo[id(done)] = done  # a result that is reached again is already transformed
        return done

    def node(self, n, inputs):
        if n.graphs:
            graphs = tuple(self.graph(g) for g in n.graphs)
            if any(a is not b for a, b in zip(graphs, n.graphs)):
                return n.clone(inputs=tuple(inputs), graphs=graphs)
        return with_inputs(n, inputs)


def same_graph(old, inputs, nodes, output):
    """A new Graph with `old`'s name and flags, or `old` itself when nothing changed."""
    if output is old.output and len(nodes) == len(old.nodes) and all(a is b for a, b in zip(nodes, old.nodes)) \
            and all(a is b for a, b in zip(inputs, old.inputs)):
        return old
    return Graph(old.name, inputs, nodes, output, old.flags)
