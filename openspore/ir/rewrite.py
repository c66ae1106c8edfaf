"""The one way to rewrite a graph: `rewrite(graph, visit)` rebuilds it node by node, subgraphs included.

`visit(node, inputs, rw)` is called for every node of the graph in order, with `inputs` the node's inputs as
already rewritten; it returns what stands for the node from now on:

* `rw.keep(node, inputs)`: the node itself (or a clone reading the new inputs and the rewritten subgraphs);
* a new node: it is appended, after any of its own inputs the visitor created and did not emit yet;
* a node already in the new graph (an input of this node, a value kept earlier): an alias, nothing is added;
* None: the node is dropped (its readers, if any, see None for it and must be replaced too).

Extra nodes go in with `rw.emit(node)`. Each graph object is rewritten once, so a subgraph shared by several
control-flow nodes stays shared; `rw.subgraph(g)` gives a subgraph's rewritten version (the same visitor applied).
A graph in which nothing changed comes back as the same object, so passes that find nothing allocate nothing.
`prepare(graph)` (optional) computes per-graph facts before the visit (`rw.facts`); `finish(rw, output)`
(optional) may replace the graph's output at the end.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @main(%0 x: f32[2]) {
...   %1 = Neg(%0) : f32[2]
...   %2 = Neg(%1) : f32[2]
...   return %2
... }''')
>>> def neg_neg(node, inputs, rw):
...     x = inputs[0] if node.op_name == "Neg" else None
...     return x.inputs[0] if x is not None and x.op_name == "Neg" else rw.keep(node, inputs)
>>> print(rewrite(g, neg_neg))
graph @main(%0 x: f32[2]) {
  %1 = Neg(%0) : f32[2]
  return %0
}
"""
from .node import Graph


class GraphRewrite:
    """The state of rewriting one graph (see the module docstring): `old` (the graph being rewritten), `nodes`
    (the new graph's nodes so far), `facts` (what `prepare` returned)."""

    __slots__ = ("old", "nodes", "facts", "_mapping", "_present", "_recurse")

    def __init__(self, old, recurse):
        self.old = old
        self.nodes = []
        self.facts = None
        self._mapping = {n.id: n for n in old.inputs}
        self._present = set(self._mapping)
        self._recurse = recurse

    def get(self, node):
        """What stands for `node` (a node of the old graph visited earlier, or an input) in the new graph."""
        return self._mapping[node.id]

    def _lookup(self, node):
        return self._mapping.get(node.id)  # None for a dropped node (its readers are rewritten by the visitor)

    def has(self, node):
        """Whether `node` is in the new graph already."""
        return node.id in self._present

    def subgraph(self, graph):
        return self._recurse(graph)

    def keep(self, node, inputs):
        """`node` reading `inputs` and its rewritten subgraphs: the node itself when nothing differs."""
        graphs = tuple(self._recurse(g) for g in node.graphs)
        if any(a is not b for a, b in zip(inputs, node.inputs)) or any(a is not b for a, b in zip(graphs, node.graphs)):
            return node.clone(inputs=tuple(inputs), graphs=graphs)
        return node

    def emit(self, node):
        """Append `node` (and first any of its inputs not in the new graph yet); returns it."""
        if node.id in self._present:
            return node
        stack = [(node, False)]
        while stack:
            cur, ready = stack.pop()
            if cur.id in self._present:
                continue
            if ready:
                self._present.add(cur.id)
                self.nodes.append(cur)
                continue
            stack.append((cur, True))
            stack.extend((i, False) for i in cur.inputs if i.id not in self._present)
        return node

    def _result(self, output):
        old = self.old
        if output is old.output and len(self.nodes) == len(old.nodes) \
                and all(a is b for a, b in zip(self.nodes, old.nodes)):
            return old
        return Graph(old.name, old.inputs, self.nodes, output, old.flags)


def rewrite(graph, visit, prepare=None, finish=None):
    """rewrite(graph, visit, prepare=None, finish=None) -> Graph (see the module docstring); `graph` is not
    modified."""
    memo = {}

    def recurse(g):
        done = memo.get(id(g))
        if done is None:
            rw = GraphRewrite(g, recurse)
            if prepare is not None:
                rw.facts = prepare(g)
            for n in g.nodes:
                new = visit(n, tuple(map(rw._lookup, n.inputs)), rw)
                if new is None:
                    continue
                rw.emit(new)
                rw._mapping[n.id] = new
            output = rw._mapping[g.output.id]
            if finish is not None:
                output = rw.emit(finish(rw, output))
            done = rw._result(output)
            memo[id(g)] = done
            memo[id(done)] = done  # a result reached again (shared subgraphs) is already rewritten
        return done

    return recurse(graph)


def keep_all(node, inputs, rw):
    """The visitor that changes nothing itself (subgraphs are still rewritten by the same call)."""
    return rw.keep(node, inputs)
