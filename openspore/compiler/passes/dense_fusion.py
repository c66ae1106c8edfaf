"""dense_fusion: MatMul(transpose_b=True) followed by BiasAdd becomes one Dense kernel (input @ weight.T + bias).

    %3 = MatMul[transpose_a=False, transpose_b=True](%0, %1) : f32[512,384]
    %4 = BiasAdd[data_format=NCHW](%3, %2) : f32[512,384]          →      %4 = Dense(%0, %1, %2) : f32[512,384]

This is how MindSpore's nn.Dense is captured (and exported); one fused kernel skips a full pass over the
product and a temporary (torch runs it as addmm). Only a MatMul whose single user is the BiasAdd is fused, so
no product is computed twice; the backward nodes, already in the graph, are untouched. Runs inside subgraphs.
"""
from ...core.primitive import PRIMITIVES
from ...ir.node import Node
from ...ir.rewrite import rewrite


def dense_fusion(graph):
    """dense_fusion(graph) -> Graph with each MatMul(transpose_b=True) + BiasAdd pair fused into Dense."""
    return rewrite(graph, _visit, prepare=_pairs)


def _fusable_product(node, users):
    """The MatMul feeding BiasAdd `node`, when the pair can become one Dense; else None."""
    if not (node.is_primitive and node.op.name == "BiasAdd"):
        return None
    product = node.inputs[0]
    if not (product.is_primitive and product.op.name == "MatMul"):
        return None
    if product.attrs.get("transpose_a") or not product.attrs.get("transpose_b"):
        return None
    if len(users.get(product.id, ())) != 1 or product.abstract is None or len(product.abstract.shape) != 2:
        return None
    return product  # a 2-D input: BiasAdd's channel axis is the last one in either data format


def _pairs(g):
    """BiasAdd id -> its MatMul, for the pairs to fuse."""
    users = g.users()
    if g.output is not None:
        users.setdefault(g.output.id, []).append(None)  # the graph's result is a use too
    fused = {}
    for n in g.nodes:
        product = _fusable_product(n, users)
        if product is not None:
            fused[n.id] = product
    return fused, {p.id for p in fused.values()}


def _visit(n, inputs, rw):
    fused, skipped = rw.facts
    if n.id in skipped:
        return None
    product = fused.get(n.id)
    if product is None:
        return rw.keep(n, inputs)
    x, weight = (rw.get(i) for i in product.inputs)
    return Node(PRIMITIVES["Dense"](), (x, weight, inputs[1]), abstract=n.abstract, loc=n.loc, scope=n.scope)
