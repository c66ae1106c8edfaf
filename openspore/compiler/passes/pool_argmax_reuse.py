"""pool_argmax_reuse: a MaxPool whose backward rule recomputes the same window with MaxPoolWithArgmax is
computed once, as MaxPoolWithArgmax at the forward's place; the forward reads its values.

    %1 = MaxPool[kernel_size=2, ...](%0) : f32[2,6,14,14]            %1 = MaxPoolWithArgmax[...](%0) : (f32[..], i32[..])
    ...                                                       →      %2 = tuple_get_item[0](%1) : f32[2,6,14,14]
    %7 = MaxPoolWithArgmax[kernel_size=2, ...](%0) : (...)             ...   (uses of %7 read %1)

PyNative pays for the pooling twice per training step (the forward has no use for indices); a compiled step
need not. Only pairs with the same input node and equal attributes are merged; runs inside subgraphs too.
"""
from ...ir.node import Node
from ._util import Recursive, same_graph


def pool_argmax_reuse(graph):
    """pool_argmax_reuse(graph) -> Graph where forward max-pools share the backward's argmax computation."""
    return Recursive(_graph).graph(graph)


_ARGMAX_POOLS = ("MaxPoolWithArgmax", "MaxPoolWithArgmaxV2")


def _key(node, op=None):
    """The input and the argmax pooling (name and attributes) `node` computes, or, for a MaxPool, would need
    (`op`: its `argmax_twin()`, the primitive its backward rule runs)."""
    op = op or node.op
    return node.inputs[0].id, op.name, tuple(sorted((k, repr(v)) for k, v in op.attrs.items()))


def _graph(g, rec):
    argmax = {}
    for n in g.nodes:
        if n.is_primitive and n.op.name in _ARGMAX_POOLS:
            argmax.setdefault(_key(n), n)
    mapping = {n.id: n for n in g.inputs}
    moved = {}  # id of a backward MaxPoolWithArgmax -> its copy placed at the forward MaxPool
    nodes = []
    for n in g.nodes:
        inputs = tuple(mapping[i.id] for i in n.inputs)
        if n.id in moved:
            mapping[n.id] = moved[n.id]
            continue
        twin = argmax.get(_key(n, n.op.argmax_twin())) if n.is_primitive and n.op.name == "MaxPool" else None
        if twin is not None and twin.id not in moved:
            pair = twin.clone(inputs=inputs, loc=n.loc, scope=n.scope)
            values = Node("tuple_get_item", (pair,), abstract=n.abstract, loc=n.loc, scope=n.scope, index=0)
            nodes += [pair, values]
            moved[twin.id] = pair
            mapping[n.id] = values
            continue
        new = rec.node(n, inputs)
        nodes.append(new)
        mapping[n.id] = new
    return same_graph(g, g.inputs, nodes, mapping[g.output.id])
