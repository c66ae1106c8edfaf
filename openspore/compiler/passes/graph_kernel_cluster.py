"""graph_kernel_cluster: chains of elementwise, broadcast and reduction ops become one fused `GraphKernel` node.

Runs only when graph-kernel fusion is on (compiler/graph_kernel), after `graph_kernel_expand`:

    %3 = Mul(%0, %1) : f32[8,16]                     %3 = GraphKernel_Mul_Add_ReLU_fusion(%0, %1, %2) : f32[8,16]
    %4 = Add(%3, %2) : f32[8,16]             →
    %5 = ReLU(%4) : f32[8,16]

Clustering walks the graph in order and puts each fusible node (`ops.cluster_ops`: a primitive of the cluster
list, tensor-valued, without side effects or randomness) into the cluster of one of its producers, unless that
would make a cycle (another input of the node depends on the cluster through an outside node). A cluster with
a single basic op is left as it was (nothing to fuse); a lone normalisation composite is kept (its kernel
compiler decomposition is the fusion). Each cluster becomes one node whose kernel is compiled by
`graph_kernel.fused` (the node carries the cluster as a small graph); values used outside come out of it
through `tuple_get_item`.

Moving a cluster's ops to one place must not move a read of a Parameter across an in-place write of it (the
BatchNorm moving-average `AssignSub`s sit between BatchNorm and the ReLU that follows it): the new order is a
topological sort in which every side-effecting node keeps its order with the other side-effecting nodes and
with every reader of what it writes; a cluster that cannot be placed so is dissolved. Only the top graph is
clustered (control-flow subgraphs run as they are).

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[4], %1 y: f32[4]) {
...   %2 = Mul(%0, %1) : f32[4]
...   %3 = ReLU(%2) : f32[4]
...   %4 = Neg(%3) : f32[4]
...   return %4
... }''')
>>> print(graph_kernel_cluster(g))
graph @f(%0 x: f32[4], %1 y: f32[4]) {
  %2 = GraphKernel_Mul_ReLU_Neg_fusion(%0, %1) : f32[4]
  return %2
}
"""
import heapq

from ...core.primitive import AbstractTensor
from ...ir.node import Graph, Node
from ..graph_kernel.fused import GraphKernel
from ..graph_kernel.ops import VIEW_OPS, _COMPOSITES, cluster_ops

_FRESH_EXTRA = frozenset(("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MatMul", "BatchMatMul",
                          "Dense", "DenseGrad", "GraphKernel"))
_DTYPE_KINDS = ("float", "int", "uint", "bool")


def graph_kernel_cluster(graph, flags=None):
    """graph_kernel_cluster(graph, flags=None) -> Graph with each cluster of fusible nodes as one GraphKernel."""
    names = cluster_ops(flags)
    position = {n.id: k for k, n in enumerate(graph.nodes)}
    cluster_of = _form_clusters(graph, names)
    while True:
        members = _members(graph, cluster_of)
        order, stuck = _schedule(graph, cluster_of, members, position)
        if not stuck:
            break
        for cid in stuck:  # dissolve the clusters that cannot be placed, and try again
            for n in members[cid]:
                del cluster_of[n.id]
    out = _rebuild(graph, order, cluster_of, members) if members else graph
    if flags is not None and flags.dump_as_text:
        from ..graph_kernel.dump import dump_clusters  # writing files is the dump's business, not the pass's
        dump_clusters(out)
    return out


# ---- forming clusters ------------------------------------------------------------------------------------------
def _fusible(n, names):
    if not n.is_primitive or n.op_name not in names or n.has_side_effect:
        return False
    if not all(_tensor_ok(a) for a in (n.abstract if isinstance(n.abstract, tuple) else (n.abstract,))):
        return False
    return all(i.op == "const" or (i.op != "make_tuple" and _tensor_ok(i.abstract)) for i in n.inputs)


def _tensor_ok(a):
    return isinstance(a, AbstractTensor) and getattr(a.dtype, "kind", None) in _DTYPE_KINDS \
        and all(isinstance(d, int) and d >= 0 for d in a.shape)


def _form_clusters(graph, names):
    """node id -> cluster number, for the fusible nodes worth fusing."""
    cluster_of, dep = {}, {}  # dep[id]: bitmask of clusters the value depends on (itself included)
    alias = _aliases(graph)
    first = {}      # cluster -> position of its first member
    writes = []     # (position, Parameters written) of the side-effecting nodes so far
    next_id = 0
    for pos, n in enumerate(graph.nodes):
        ins = [i for i in n.inputs if i.op != "const"]
        anc, reads = 0, 0
        for i in ins:
            anc |= dep.get(i.id, 0)
            reads |= alias.get(i.id, 0)
        if n.has_side_effect:
            writes.append((pos, reads))
        cid = None
        if n.op == "tuple_get_item" and n.inputs[0].id in cluster_of:
            cid = cluster_of[n.inputs[0].id]
        elif _fusible(n, names):
            for i in ins:
                c = cluster_of.get(i.id)
                if c is not None and all(cluster_of.get(j.id) == c or not (dep.get(j.id, 0) >> c) & 1 for j in ins) \
                        and not _written_since(writes, first[c], reads):
                    cid = c
                    break
            if cid is None:
                cid, next_id = next_id, next_id + 1
                first[cid] = pos
        if cid is not None:
            cluster_of[n.id] = cid
            anc |= 1 << cid
        dep[n.id] = anc
    # keep clusters with two basic ops, or one composite (its decomposition is fused), and not only views
    groups = {}
    for n in graph.nodes:
        if n.id in cluster_of and n.is_primitive:
            groups.setdefault(cluster_of[n.id], []).append(n.op_name)
    keep = {c for c, ops in groups.items()
            if any(o not in VIEW_OPS for o in ops) and (len(ops) >= 2 or ops[0] in _COMPOSITES)}
    return {i: c for i, c in cluster_of.items() if c in keep}


def _written_since(writes, start, reads):
    """Whether a Parameter that `reads` covers was written in place after position `start` (the node would read
    the new value, while the cluster's earlier members read the old one: they cannot run as one kernel)."""
    if not reads:
        return False
    for pos, mask in reversed(writes):
        if pos < start:
            return False
        if mask & reads:
            return True
    return False


def _members(graph, cluster_of):
    members = {}
    for n in graph.nodes:
        c = cluster_of.get(n.id)
        if c is not None:
            members.setdefault(c, []).append(n)
    return members


# ---- placing them ----------------------------------------------------------------------------------------------
def _aliases(graph):
    """node id -> bitmask of the Parameters whose storage the value may share (a view, or the array itself)."""
    bits, alias = {}, {}
    for n in graph.nodes:
        if n.op == "weight":
            alias[n.id] = 1 << bits.setdefault(id(n.value), len(bits))
        elif n.op in ("make_tuple", "tuple_get_item", "if", "while", "call") or n.has_side_effect or (
                n.is_primitive and (n.op_name in VIEW_OPS or not _is_fresh(n))):
            mask = 0
            for i in n.inputs:
                mask |= alias.get(i.id, 0)
            alias[n.id] = mask
    return alias


def _is_fresh(n):
    """Whether the kernel's output is a new array (never one of its inputs' storage)."""
    return n.op_name in _FRESH_EXTRA or (n.op_name in cluster_ops(None) and n.op_name not in VIEW_OPS)


def _schedule(graph, cluster_of, members, position):
    """(new order of units, clusters that could not be placed). A unit is a node id or ('c', cluster number)."""
    unit = {n.id: ("c", cluster_of[n.id]) if n.id in cluster_of else n.id for n in graph.nodes}
    succ, indeg = {u: set() for u in set(unit.values())}, {}

    def edge(a, b):
        ua, ub = unit[a.id], unit[b.id]
        if ua != ub and ub not in succ[ua]:
            succ[ua].add(ub)

    for n in graph.nodes:
        for i in n.inputs:
            if i.id in unit:
                edge(i, n)
    alias = _aliases(graph)
    ordered = []  # side-effecting / random nodes and readers of written Parameters, in program order
    writes = {}
    for n in graph.nodes:
        reads = 0
        for i in n.inputs:
            reads |= alias.get(i.id, 0)
        if n.has_side_effect:
            writes[n.id] = reads
        ordered.append((n, reads))
    last_effect, written = None, 0
    for mask in writes.values():
        written |= mask
    readers = [(n, reads & written) for n, reads in ordered if reads & written or n.id in writes]
    for k, (n, _) in enumerate(readers):
        if n.id in writes:
            if last_effect is not None:
                edge(last_effect, n)
            last_effect = n
            w = writes[n.id]
            for m, r in readers[:k]:
                if r & w:
                    edge(m, n)
            for m, r in readers[k + 1:]:
                if r & w:
                    edge(n, m)
    for targets in succ.values():
        for t in targets:
            indeg[t] = indeg.get(t, 0) + 1
    first = {}
    for n in graph.nodes:
        first.setdefault(unit[n.id], position[n.id])
    heap = [(first[u], u if isinstance(u, int) else -1 - u[1], u) for u in succ if indeg.get(u, 0) == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, _, u = heapq.heappop(heap)
        order.append(u)
        for t in succ[u]:
            indeg[t] -= 1
            if indeg[t] == 0:
                heapq.heappush(heap, (first[t], t if isinstance(t, int) else -1 - t[1], t))
    if len(order) == len(succ):
        return order, set()
    placed = set(order)
    return order, {u[1] for u in succ if u not in placed and not isinstance(u, int)} or set(members)


# ---- rebuilding the graph --------------------------------------------------------------------------------------
def _rebuild(graph, order, cluster_of, members):
    by_id = {n.id: n for n in graph.nodes}
    used_outside = _used_outside(graph, cluster_of)
    remap = {}
    nodes = []

    def new_input(i):
        return remap.get(i.id, i)

    for u in order:
        if isinstance(u, int):
            n = by_id[u]
            inputs = tuple(new_input(i) for i in n.inputs)
            n = n.clone(inputs=inputs) if any(a is not b for a, b in zip(inputs, n.inputs)) else n
            remap[u] = n
            nodes.append(n)
            continue
        group = members[u[1]]
        outputs = [n for n in group if n.id in used_outside]
        fused, sub_inputs = _fused_node(graph, group, outputs, new_input)
        nodes.append(fused)
        if len(outputs) == 1:
            remap[outputs[0].id] = fused
        else:
            for k, out in enumerate(outputs):
                get = Node("tuple_get_item", (fused,), abstract=out.abstract, loc=out.loc, scope=out.scope, index=k)
                nodes.append(get)
                remap[out.id] = get
    output = _remap_output(graph.output, remap)
    return Graph(graph.name, graph.inputs, nodes, output, graph.flags)


def _remap_output(out, remap):
    return remap.get(out.id, out)


def _used_outside(graph, cluster_of):
    used = {graph.output.id}
    for n in graph.nodes:
        for i in n.inputs:
            if i.id in cluster_of and cluster_of.get(n.id) != cluster_of[i.id]:
                used.add(i.id)
    return used


def _fused_node(graph, group, outputs, new_input):
    """The GraphKernel node of one cluster (its inputs: the values it reads from outside, in first-use order)."""
    inside = {n.id for n in group}
    placeholders, outer, mapping, body = [], [], {}, []
    for n in group:
        ins = []
        for i in n.inputs:
            if i.id in inside:
                ins.append(mapping[i.id])
            elif i.op == "const" and not isinstance(i.abstract, AbstractTensor):
                c = mapping.get(i.id)
                if c is None:
                    c = mapping[i.id] = Node("const", value=i.value, abstract=i.abstract)
                    body.append(c)
                ins.append(c)
            else:
                p = mapping.get(i.id)
                if p is None:
                    p = mapping[i.id] = Node("input", abstract=i.abstract, name=f"x{len(placeholders)}")
                    placeholders.append(p)
                    outer.append(new_input(i))
                ins.append(p)
        clone = Node(n.op, tuple(ins), abstract=n.abstract, loc=n.loc, scope=n.scope, index=n.index)
        mapping[n.id] = clone
        body.append(clone)
    ops = [n.op_name for n in group if n.is_primitive]
    name = "GraphKernel_" + "_".join(dict.fromkeys(ops)) + "_fusion"
    if len(outputs) == 1:
        out, abstract = mapping[outputs[0].id], outputs[0].abstract
    else:
        out = Node("make_tuple", tuple(mapping[o.id] for o in outputs),
                   abstract=tuple(o.abstract for o in outputs))
        body.append(out)
        abstract = out.abstract
    sub = Graph(name, placeholders, body, out)
    last = group[-1]
    scope = f"{last.scope.rpartition('/')[0]}/{name}-op{last.id}" if last.scope else ""
    fused = Node(GraphKernel(fusion_name=name, graph=sub), tuple(outer), abstract=abstract, loc=last.loc,
                 scope=scope)
    return fused, placeholders
