"""conv_backprop_merge: the two halves of a convolution's backward become one node computing both.

    %7 = Conv2DBackpropInput[...](%5, %2, %c1) : f32[32,16,32,32]       %7 = Conv2DBackpropInputFilter[...](%5, %1, %2)
    %8 = Conv2DBackpropFilter[...](%5, %1, %c2) : f32[16,16,3,3]   →    %8 = tuple_get_item[0](%7) : f32[32,16,32,32]
                                                                        %9 = tuple_get_item[1](%7) : f32[16,16,3,3]

Autodiff writes Conv2D's backward as two primitives (Conv2DBackpropInput for dx, Conv2DBackpropFilter for dw),
each a convolution_backward call on torch's CPU kernels. One call asked for both gradients reorders the shared
output gradient once and ran 1.05-1.5x faster than the two (see Conv2DBackpropInputFilter), with the same values
bit for bit. A pair merges when both read the same output gradient with the same attributes, the input size of
the one is the other's input shape and the filter size the other's weight shape (what one Conv2D's backward
gives); the merged node stands where the first of the two stood, so the pair merges only if the convolution's
input and weight are defined before that point. Runs after layout_channels_last (the merged kernel reads any
memory layout and leaves its results in the layouts the two halves did), inside subgraphs too.
"""
from ...core.primitive import PRIMITIVES, AbstractTensor
from ...ir.node import Node
from ...ir.rewrite import rewrite
from ...ops.defs import nn_conv  # noqa: F401  (registers Conv2DBackpropInputFilter)

_HALVES = ("Conv2DBackpropInput", "Conv2DBackpropFilter")


def conv_backprop_merge(graph):
    """conv_backprop_merge(graph) -> Graph with each Conv2DBackpropInput + Conv2DBackpropFilter pair of one
    convolution computed by one Conv2DBackpropInputFilter node (input untouched)."""
    return rewrite(graph, _visit, prepare=_pairs)


def _const_shape(node):
    if node.op != "const" or not isinstance(node.value, (tuple, list)):
        return None
    return tuple(node.value)


def _shape(node):
    return tuple(node.abstract.shape) if isinstance(node.abstract, AbstractTensor) else None


def _fits(to_input, to_filter):
    """Whether the halves are the backward of one convolution: dout shared, sizes those of x and the weight."""
    x, weight = to_filter.inputs[1], to_input.inputs[1]
    return (_const_shape(to_input.inputs[2]) == _shape(x) is not None
            and _const_shape(to_filter.inputs[2]) == _shape(weight) is not None
            and isinstance(to_input.abstract, AbstractTensor) and isinstance(to_filter.abstract, AbstractTensor))


def _pairs(g):
    """(first node id -> (input half, filter half), second node id -> first node id, {} for the second halves'
    replacements as they are made)."""
    position = {n.id: k for k, n in enumerate(g.nodes)}  # graph inputs are absent: defined before every node
    groups = {}
    for n in g.nodes:
        if n.is_primitive and n.op.name in _HALVES and len(n.inputs) == 3:
            key = (n.inputs[0].id, tuple(sorted((k, repr(v)) for k, v in n.op.attrs.items())))
            groups.setdefault(key, {}).setdefault(n.op.name, []).append(n)
    first, second = {}, {}
    for halves in groups.values():
        filters = list(halves.get("Conv2DBackpropFilter", ()))
        for to_input in halves.get("Conv2DBackpropInput", ()):
            for to_filter in filters:
                if not _fits(to_input, to_filter):
                    continue
                lead, other = sorted((to_input, to_filter), key=lambda n: position[n.id])
                operands = (to_input.inputs[1], to_filter.inputs[1])
                if any(position.get(v.id, -1) >= position[lead.id] for v in operands):
                    continue
                first[lead.id], second[other.id] = (to_input, to_filter), lead.id
                filters.remove(to_filter)
                break
    return first, second, {}


def _visit(n, inputs, rw):
    first, second, made = rw.facts
    if n.id in second:
        return made.pop(n.id)  # its tuple_get_item, emitted with the merged node
    pair = first.get(n.id)
    if pair is None:
        return rw.keep(n, inputs)
    to_input, to_filter = pair
    dout, weight, x = rw.get(to_input.inputs[0]), rw.get(to_input.inputs[1]), rw.get(to_filter.inputs[1])
    both = rw.emit(Node(PRIMITIVES["Conv2DBackpropInputFilter"](**to_input.op.attrs), (dout, x, weight),
                        abstract=(to_input.abstract, to_filter.abstract), loc=n.loc, scope=n.scope))
    dx = rw.emit(Node("tuple_get_item", (both,), abstract=to_input.abstract, loc=to_input.loc,
                      scope=to_input.scope, index=0))
    dw = rw.emit(Node("tuple_get_item", (both,), abstract=to_filter.abstract, loc=to_filter.loc,
                      scope=to_filter.scope, index=1))
    other = to_filter if n is to_input else to_input
    made[other.id] = dw if other is to_filter else dx
    return dx if n is to_input else dw
