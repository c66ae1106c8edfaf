"""dce: dead code elimination. Nodes that neither reach the output nor a side effect are removed.

    %1 = Neg(%0) : f32[2]                        %2 = Exp(%0) : f32[2]
    %2 = Exp(%0) : f32[2]                 →      return %2
    return %2

Side-effecting and random nodes (and everything they read) stay, in order; control flow nodes whose
subgraphs have side effects count as side-effecting. Runs inside every subgraph too; graph inputs are the
signature and always stay.
"""
from ._util import Recursive, same_graph


def dce(graph):
    """dce(graph) -> Graph without dead nodes (the input is not modified)."""
    return Recursive(_graph).graph(graph)


def _graph(g, rec):
    live = {g.output.id}
    effects = {}  # id(subgraph) -> has side effects, so nested control flow is scanned once
    for n in reversed(g.nodes):
        if n.id in live or _effectful(n, effects):
            live.add(n.id)
            live.update(i.id for i in n.inputs)
    mapping = {n.id: n for n in g.inputs}
    nodes = []
    for n in g.nodes:
        if n.id not in live:
            continue
        new = rec.node(n, [mapping[i.id] for i in n.inputs])
        nodes.append(new)
        mapping[n.id] = new
    return same_graph(g, g.inputs, nodes, mapping[g.output.id])


def _effectful(n, effects):
    if n.is_primitive:
        return n.op.side_effect or n.op.random
    if not n.graphs:
        return False
    for sub in n.graphs:
        known = effects.get(id(sub))
        if known is None:
            known = effects[id(sub)] = any(_effectful(m, effects) for m in sub.nodes)
        if known:
            return True
    return False
