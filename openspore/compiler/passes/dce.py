"""dce: dead code elimination. Nodes that neither reach the output nor a side effect are removed.

    %1 = Neg(%0) : f32[2]                        %2 = Exp(%0) : f32[2]
    %2 = Exp(%0) : f32[2]                 →      return %2
    return %2

Side-effecting and random nodes (and everything they read) stay, in order; control flow nodes whose
subgraphs have side effects count as side-effecting. Runs inside every subgraph too; graph inputs are the
signature and always stay.
"""
from ...ir.rewrite import rewrite


def dce(graph):
    """dce(graph) -> Graph without dead nodes (the input is not modified)."""
    return rewrite(graph, _visit, prepare=_live)


def _live(g):
    live = {g.output.id}
    effects = {}  # id(subgraph) -> has side effects, so nested control flow is scanned once
    for n in reversed(g.nodes):
        if n.id in live or _effectful(n, effects):
            live.add(n.id)
            live.update(i.id for i in n.inputs)
    return live


def _visit(n, inputs, rw):
    return rw.keep(n, inputs) if n.id in rw.facts else None


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
