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
from ...ir.rewrite import rewrite


def inline(graph):
    """inline(graph) -> Graph without `call` nodes (the input graph is not modified)."""
    return rewrite(graph, _visit)


def _visit(n, inputs, rw):
    if n.op == "call":
        return splice(rw.subgraph(n.graphs[0]), inputs, rw.emit)
    return rw.keep(n, inputs)


def splice(callee, operands, emit):
    """`emit` clones of `callee`'s nodes reading `operands`; return what stands for its output."""
    inner = {p.id: a for p, a in zip(callee.inputs, operands)}
    for n in callee.nodes:
        clone = n.clone(inputs=tuple(inner[i.id] for i in n.inputs))
        inner[n.id] = clone
        emit(clone)
    return inner[callee.output.id]
