"""freeze_weights: Parameters read by the graph become constants holding their current values.

    %1 = weight "fc.weight" : f32[10,64]              →      %1 = const tensor(<fc.weight's array>) : f32[10,64]

Only the inference path runs it (runtime/inference.py), on eval-mode graphs with no side effects: once the
weights are constants, constant folding, BatchNorm folding and weight pre-packing can do at compile time what
would otherwise be done at every call. The constants share the Parameters' arrays (no copy); the runtime
recompiles when a Parameter gets a new array or one is written in place (`Parameter.set_data`,
`load_param_into_net`, an optimizer step). Subgraphs are frozen too.

>>> import numpy as np, openspore as ms
>>> from openspore.ir.node import Graph, Node
>>> from openspore.core.primitive import AbstractTensor
>>> w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
>>> node = Node("weight", value=w, abstract=AbstractTensor((2,), ms.float32))
>>> g = freeze_weights(Graph("f", [], [node], node))
>>> g.nodes[0].op, g.nodes[0].value.asnumpy().tolist()
('const', [1.0, 1.0])
"""
from ...core.tensor import Tensor
from ...ir.node import Node
from ...ir.rewrite import rewrite


def freeze_weights(graph):
    """freeze_weights(graph) -> Graph whose `weight` nodes are `const` nodes over the Parameters' arrays."""
    return rewrite(graph, _visit)


def _visit(n, inputs, rw):
    if n.op != "weight":
        return rw.keep(n, inputs)
    param = n.value
    value = Tensor._wrap(param.data_ref(), param.dtype)
    return Node("const", value=value, abstract=n.abstract, loc=n.loc, scope=n.scope)
