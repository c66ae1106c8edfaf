"""graph_kernel_cross_entropy: a training step's sparse cross-entropy loss and its gradient as one fused kernel.

Runs only when graph-kernel fusion is on (compiler/graph_kernel). The forward's loss and the backward's
gradient of the same logits and labels

    %l = SparseSoftmaxCrossEntropyWithLogits[is_grad=False](%x, %y)        %f = FusedSparseCrossEntropy(%x, %y)
    ...                                                              →     %l = tuple_get_item[0](%f)
    %g = SparseSoftmaxCrossEntropyWithLogits[is_grad=True](%x, %y)         %g = tuple_get_item[1](%f)

become one FusedSparseCrossEntropy at the loss's place (graph_kernel/cross_entropy.py: one softmax for both,
where the pair ran a log-softmax and then a softmax over the same logits). A lone loss (evaluation) or
a lone gradient is left as it is; `--disable_cluster_ops=SparseSoftmaxCrossEntropyWithLogits` keeps the pair.
Only the top graph is rewritten.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[4]) {
...   %1 = Neg(%0) : f32[4]
...   return %1
... }''')
>>> graph_kernel_cross_entropy(g) is g
True
"""
from ...ir.node import Node
from ...ir.rewrite import rewrite
from ..graph_kernel.cross_entropy import FusedSparseCrossEntropy
from ..graph_kernel.ops import loss_ops

_NAME = "SparseSoftmaxCrossEntropyWithLogits"


def graph_kernel_cross_entropy(graph, flags=None):
    """graph_kernel_cross_entropy(graph, flags=None) -> Graph with each loss + gradient pair as one fused node."""
    if _NAME not in loss_ops(flags):
        return graph
    losses = {}
    pairs = {}  # loss node id -> gradient node
    for n in graph.nodes:
        if n.is_primitive and n.op_name == _NAME:
            key = (n.inputs[0].id, n.inputs[1].id)
            if not n.attrs.get("is_grad"):
                losses.setdefault(key, n)
            elif key in losses and losses[key].id not in pairs:
                pairs[losses[key].id] = n
    if not pairs:
        return graph
    grads = {g.id: loss_id for loss_id, g in pairs.items()}
    made = {}

    def visit(n, inputs, rw):
        if n.id in pairs:
            grad = pairs[n.id]
            op = FusedSparseCrossEntropy()
            op.sources = [(m.scope or m.op_name, m.op_name) for m in (n, grad)]  # for --dump_as_text
            parent = n.scope.rpartition("/")[0]
            fused = rw.emit(Node(op, tuple(inputs), abstract=(n.abstract, grad.abstract), loc=n.loc,
                                 scope=f"{parent}/FusedSparseCrossEntropy-op{n.id}" if parent else n.scope))
            made[n.id] = rw.emit(Node("tuple_get_item", (fused,), abstract=grad.abstract, loc=grad.loc,
                                      scope=grad.scope, index=1))
            return Node("tuple_get_item", (fused,), abstract=n.abstract, loc=n.loc, scope=n.scope, index=0)
        if n.id in grads:
            return made[grads[n.id]]
        return rw.keep(n, inputs)

    return rewrite(graph, visit)
