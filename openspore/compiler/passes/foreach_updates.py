"""foreach_updates: a run of per-parameter optimizer updates becomes one multi-tensor update.

    %5 = ApplyMomentum[...](%0, %1, %lr, %g0, %mom) : f32[6,5]          %7 = make_tuple(%0, %3) : (...)
    %6 = weight "moments.b" : f32[6]                             →      %8 = make_tuple(%1, %6) : (...)
    %9 = ApplyMomentum[...](%3, %6, %lr, %g1, %mom) : f32[6]            %9 = make_tuple(%g0, %g1) : (...)
                                                                        %10 = ForeachApplyMomentum[...](%7, %lr, ...)

MindSpore's optimizers (and captured graphs) update each parameter with its own ApplyMomentum / Adam node; a
compiled step does them as one ForeachApplyMomentum / ForeachAdam (torch's multi-tensor kernels, the same
arithmetic bit for bit). A run is consecutive updates of one primitive with equal attributes and the same shared
hyper-parameter nodes, whose results nobody reads. Nodes between them may stay in between only when they are
side-effect free and read no variable an earlier update of the run wrote (the fused update happens at the place
of the last one). Runs inside subgraphs are fused too.
"""
from ...core.primitive import PRIMITIVES, AbstractTensor
from ...ir.node import Node
from ._util import Recursive, same_graph

# per-parameter primitive -> (multi-tensor primitive, per-parameter input indices, shared input indices)
FOREACH = {
    "ApplyMomentum": ("ForeachApplyMomentum", (0, 1, 3), (2, 4)),
    "Adam": ("ForeachAdam", (0, 1, 2, 9), (3, 4, 5, 6, 7, 8)),
}


def foreach_updates(graph):
    """foreach_updates(graph) -> Graph with runs of per-parameter updates fused into multi-tensor updates."""
    return Recursive(_graph).graph(graph)


def _run_key(n, used):
    """What members of one run share, or None when `n` cannot join a run."""
    if not n.is_primitive or n.op.name not in FOREACH or n.id in used:
        return None
    _, _, shared = FOREACH[n.op.name]
    return (n.op.name, tuple(sorted((k, repr(v)) for k, v in n.attrs.items())),
            tuple(n.inputs[i].id for i in shared))


def _runs(g):
    """Lists of update nodes to fuse (each at least two long)."""
    used = set(g.users())
    if g.output is not None:
        used.add(g.output.id)
    runs, current, key, written = [], [], None, set()
    for n in g.nodes:
        k = _run_key(n, used)
        if k is not None and k == key:
            current.append(n)
            written.update(n.inputs[i].id for i in FOREACH[n.op.name][1][:-1])  # variable and state, not grad
            continue
        if k is None and current and not n.has_side_effect and not any(i.id in written for i in n.inputs):
            continue  # may stay before the fused update
        if len(current) > 1:
            runs.append(current)
        current, key = ([n], k) if k is not None else ([], None)
        written = {n.inputs[i].id for i in FOREACH[n.op.name][1][:-1]} if k is not None else set()
    if len(current) > 1:
        runs.append(current)
    return runs


def _graph(g, rec):
    runs = _runs(g)
    last = {run[-1].id: run for run in runs}
    members = {n.id for run in runs for n in run}
    mapping = {n.id: n for n in g.inputs}
    nodes = []
    for n in g.nodes:
        if n.id in members:
            run = last.get(n.id)
            if run is not None:
                nodes.extend(_fused(run, mapping))
            continue
        new = rec.node(n, tuple(mapping[i.id] for i in n.inputs))
        nodes.append(new)
        mapping[n.id] = new
    return same_graph(g, g.inputs, nodes, mapping[g.output.id])


def _fused(run, mapping):
    """make_tuple nodes for the per-parameter inputs, then the multi-tensor update (inputs in the same order)."""
    first = run[0]
    name, per_param, shared = FOREACH[first.op.name]
    tuples, out = {}, []
    for i in per_param:
        items = tuple(mapping[n.inputs[i].id] for n in run)
        node = Node("make_tuple", items, abstract=tuple(x.abstract for x in items), loc=first.loc,
                    scope=first.scope)
        tuples[i] = node
        out.append(node)
    inputs = tuple(tuples[i] if i in tuples else mapping[first.inputs[i].id] for i in range(len(first.inputs)))
    variables = tuples[per_param[0]].inputs
    abstract = tuple(AbstractTensor(v.abstract.shape, v.abstract.dtype) for v in variables)
    out.append(Node(PRIMITIVES[name](**first.attrs), inputs, abstract=abstract, loc=run[-1].loc,
                    scope=run[-1].scope))
    return out
