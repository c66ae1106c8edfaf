"""inline: replace every `call` node by fresh clones of the callee's nodes, operands in place of its inputs.

    graph @main(%0 x: f32[2]) {                     graph @main(%0 x: f32[2]) {
      %1 = call(%0) @double : f32[2]         →        %1 = Add(%0, %0) : f32[2]
      return %1                                       return %1
    }                                               }
    graph @double(%0 a: f32[2]) {
      %1 = Add(%0, %0) : f32[2]
      return %1
    }

Callees are inlined into themselves first, so nested calls disappear in one run; calls inside if/while
subgraphs are inlined too. Each call site gets its own clones, so node ids stay unique within a graph.
"""
from ._util import Recursive, same_graph


def inline(graph):
    """inline(graph) -> Graph without `call` nodes (the input graph is not modified)."""
    return Recursive(_inline_graph).graph(graph)


def _inline_graph(g, rec):
    mapping = {n.id: n for n in g.inputs}
    nodes = []
    for n in g.nodes:
        inputs = [mapping[i.id] for i in n.inputs]
        if n.op == "call":
            mapping[n.id] = splice(rec.graph(n.graphs[0]), inputs, nodes)
        else:
            new = rec.node(n, inputs)
            nodes.append(new)
            mapping[n.id] = new
    return same_graph(g, g.inputs, nodes, mapping[g.output.id])


def splice(callee, operands, nodes):
    """Append clones of `callee`'s nodes reading `operands` to `nodes`; return what stands for its output."""
    inner = {p.id: a for p, a in zip(callee.inputs, operands)}
    for n in callee.nodes:
        clone = n.clone(inputs=tuple(inner[i.id] for i in n.inputs))
        inner[n.id] = clone
        nodes.append(clone)
    return inner[callee.output.id]
