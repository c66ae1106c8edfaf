"""graph_kernel_batchnorm: BatchNorm's training backward and the ReLU mask (and residual add) before it, as one kernel.

Runs only when graph-kernel fusion is on (compiler/graph_kernel), before clustering. In a ResNet training step
the backward of `relu(bn(conv(x)) [+ shortcut])` is a ReluGrad, then a BatchNormGrad of the masked gradient;
where a residual branch joins, the ReluGrad reads the Add of the two incoming gradients:

    %5 = Add(%1, %2) : f32[32,16,32,32]                     %7 = FusedBatchNormReluGrad[has_add=True,
    %6 = ReluGrad(%5, %3) : f32[32,16,32,32]           →          keep_grad=True](%1, %2, %3, %x, %s, %m, %v)
    %7 = BatchNormGrad(%6, %x, %s, %m, %v, None, None)      %8 = tuple_get_item[3](%7)   (only if %6 has readers)
    ... ReluGrad's other readers read %6 ...                 ... they read %8 ...

The three become one FusedBatchNormReluGrad (graph_kernel/batchnorm_grad.py: the mask applied inside
BatchNorm's two passes, the values fusion off's bit for bit) at the BatchNormGrad's place. Conditions: NCHW
BatchNormGrad whose batch-statistic cotangents are None (a training step's BatchNorm), its gradient a float32
ReluGrad of the same shape; the Add is taken in only when the ReluGrad is its one reader and both its inputs
have its shape; the masked gradient is an extra output when other nodes read it, which must then all come after
the BatchNormGrad (the projection shortcut's BatchNormGrad reading the same gradient does). One ReluGrad joins
one BatchNormGrad; a BatchNormGrad without one (that projection shortcut's) runs alone in the same kernel
(`relu=False`), which is faster than ATen's by the same measure.

Then the moving-average updates: every `AssignSub` writing a Parameter that nothing reads afterwards (BatchNorm's
moving mean and variance: read by their BatchNorm and its update, both earlier) moves to the last such update's
place, all of them as one ForeachAssignSub (graph_kernel/moving_average.py): ResNet-20's 42 kernel calls on 16
to 64 numbers become one, 1.5% of its fused step (20 interleaved pairs, thread CPU time). Not in a graph with
control flow (a branch could read a Parameter after the original write). `--disable_cluster_ops=BatchNormReluGrad`
keeps all of this apart.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[4]) {
...   %1 = Neg(%0) : f32[4]
...   return %1
... }''')
>>> graph_kernel_batchnorm(g) is g
True
"""
from ...common import dtype as mstype
from ...ir.node import Node
from ...ir.rewrite import rewrite
from ..graph_kernel.batchnorm_grad import FusedBatchNormReluGrad
from ..graph_kernel.moving_average import ForeachAssignSub
from ..graph_kernel.ops import norm_grad_ops

_NAME = "BatchNormReluGrad"


def graph_kernel_batchnorm(graph, flags=None):
    """graph_kernel_batchnorm(graph, flags=None) -> Graph with each ReluGrad (+ Add) + BatchNormGrad as one node."""
    if _NAME not in norm_grad_ops(flags):
        return graph
    graph = rewrite(graph, _visit, prepare=_matches)
    return rewrite(graph, _visit_updates, prepare=_deferrable_updates)


def _is(n, name):
    return n.is_primitive and n.op_name == name


def _float32(n, shape):
    a = n.abstract
    return getattr(a, "shape", None) is not None and tuple(a.shape) == shape and a.dtype is mstype.float32


def _none(n):
    return n.op == "const" and n.value is None


def _matches(graph):
    """{BatchNormGrad id: (ReluGrad, Add or None, keep the masked gradient)} and the ids of the nodes they absorb."""
    position = {n.id: k for k, n in enumerate(graph.nodes)}
    readers = {}
    for n in graph.nodes:
        for i in n.inputs:
            readers.setdefault(i.id, []).append(n)
    found, absorbed = {}, set()
    for n in graph.nodes:
        if not _is(n, "BatchNormGrad") or n.attrs.get("data_format", "NCHW") != "NCHW" \
                or not (_none(n.inputs[5]) and _none(n.inputs[6])):
            continue
        relu, x = n.inputs[0], n.inputs[1]
        shape = tuple(getattr(x.abstract, "shape", ()))
        if len(shape) != 4 or not _float32(x, shape) or not _float32(relu, shape):
            continue
        if not _is(relu, "ReluGrad") or relu.id in absorbed or relu is graph.output \
                or not all(_float32(v, shape) for v in relu.inputs):
            found[n.id] = (None, None, False)  # BatchNormGrad alone, in the same kernel (no mask)
            continue
        others = [m for m in readers.get(relu.id, []) if m is not n]
        if any(position[m.id] < position[n.id] for m in others):
            found[n.id] = (None, None, False)
            continue
        add = relu.inputs[0]
        if not (_is(add, "Add") and len(readers.get(add.id, [])) == 1 and add is not graph.output
                and all(_float32(v, shape) for v in add.inputs)):
            add = None
        found[n.id] = (relu, add, bool(others))
        absorbed.add(relu.id)
        if add is not None:
            absorbed.add(add.id)
    return found, absorbed, {}


def _visit(n, inputs, rw):
    found, absorbed, replaced = rw.facts
    if n.id in absorbed:
        return None  # computed inside the fused node (its other readers read `replaced`)
    inputs = tuple(replaced.get(i.id, new) for i, new in zip(n.inputs, inputs))
    match = found.get(n.id)
    if match is None:
        return rw.keep(n, inputs)
    relu, add, keep = match
    if relu is None:
        op = FusedBatchNormReluGrad(n.attrs.get("epsilon", 1e-5), relu=False)
        op.sources = [(n.scope or n.op_name, n.op_name)]
        return Node(op, inputs[:5], abstract=n.abstract, loc=n.loc, scope=n.scope)

    def new(i):  # an absorbed ReluGrad earlier in the chain stands as its fused node's extra output
        return replaced[i.id] if i.id in replaced else rw.get(i)
    grads = [new(i) for i in add.inputs] if add is not None else [new(relu.inputs[0])]
    op = FusedBatchNormReluGrad(n.attrs.get("epsilon", 1e-5), has_add=add is not None, keep_grad=keep)
    op.sources = [(m.scope or m.op_name, m.op_name) for m in (add, relu, n) if m is not None]  # --dump_as_text
    abstract = tuple(n.abstract) + ((relu.abstract,) if keep else ())
    parent = n.scope.rpartition("/")[0]
    fused = Node(op, tuple(grads) + (new(relu.inputs[1]),) + inputs[1:5], abstract=abstract, loc=n.loc,
                 scope=f"{parent}/FusedBatchNormReluGrad-op{n.id}" if parent else n.scope)
    if keep:
        rw.emit(fused)
        replaced[relu.id] = Node("tuple_get_item", (fused,), abstract=relu.abstract, loc=relu.loc,
                                 scope=relu.scope, index=3)
        rw.emit(replaced[relu.id])
    return fused


# ---- the moving-average updates as one write (graph_kernel/moving_average.py) ----------------------------------
def _deferrable_updates(graph):
    """(the AssignSub nodes that can move to the last one's place, (that last one's id, them)): each writes a
    Parameter with a float32 value of its shape, is the only side-effecting node touching that Parameter, and
    every other reader of it comes before the write, so writing later changes nothing anyone reads. None in a graph
    with control-flow nodes, whose subgraphs read Parameters through weight nodes of their own."""
    if any(n.graphs for n in graph.nodes):
        return set(), None
    position = {n.id: k for k, n in enumerate(graph.nodes)}
    readers, touching = {}, {}  # node id -> its readers; Parameter -> the nodes reading any weight node of it
    for n in graph.nodes:
        for i in n.inputs:
            readers.setdefault(i.id, []).append(n)
            if i.op == "weight":
                touching.setdefault(id(i.value), []).append(n)
    updates, seen = [], set()
    for n in graph.nodes:
        if not _is(n, "AssignSub") or n is graph.output or readers.get(n.id):
            continue
        variable, value = n.inputs
        shape = tuple(getattr(variable.abstract, "shape", ()))
        if variable.op != "weight" or id(variable.value) in seen or not _float32(variable, shape) \
                or not _float32(value, shape):
            continue
        others = [m for m in touching[id(variable.value)] if m is not n]
        if any(m.has_side_effect or position[m.id] > position[n.id] for m in others):
            continue
        seen.add(id(variable.value))
        updates.append(n)
    if len(updates) < 2:
        return set(), None
    return {u.id for u in updates}, (updates[-1].id, updates)


def _visit_updates(n, inputs, rw):
    ids, where = rw.facts
    if n.id not in ids:
        return rw.keep(n, inputs)
    last, updates = where
    if n.id != last:
        return None  # written by the one ForeachAssignSub at the last update's place
    variables = [rw.get(u.inputs[0]) for u in updates]
    values = [rw.get(u.inputs[1]) for u in updates]
    group = [rw.emit(Node("make_tuple", tuple(vs), abstract=tuple(v.abstract for v in vs)))
             for vs in (variables, values)]
    op = ForeachAssignSub()
    op.sources = [(u.scope or u.op_name, u.op_name) for u in updates]
    return Node(op, tuple(group), abstract=tuple(v.abstract for v in variables), loc=n.loc, scope=n.scope)
