"""graph_kernel_expand: composite primitives become the basic primitives they are made of (graph-kernel fusion).

Runs only when graph-kernel fusion is on (compiler/graph_kernel). An expanded composite's pieces are basic
elementwise ops, so `graph_kernel_cluster` can put them in one fused kernel with their neighbours:

    %2 = SiLU(%0) : f32[4]                     %2 = Sigmoid(%0) : f32[4]
                                        →      %3 = Mul(%0, %2) : f32[4]

Expanded by default (`ops.EXPAND_OPS`; `--enable_expand_ops` / `--disable_expand_ops` edit the list):
Square → Mul(x, x); SquaredDifference → Mul(d, d) of d = Sub(x, y); SiLU → Mul(x, Sigmoid(x)); AddN → a chain
of Add; BiasAdd → Add(x, Reshape(bias)); GeluExt(approximate='none') → x * (0.5 + 0.5 * Erf(x / sqrt 2)).
The new nodes keep the composite's scope with `Expand/_<Op>` inserted, as MindSpore names them. Subgraphs
(control flow) are expanded too.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[4]) {
...   %1 = Square(%0) : f32[4]
...   return %1
... }''')
>>> print(graph_kernel_expand(g))
graph @f(%0 x: f32[4]) {
  %1 = Mul(%0, %0) : f32[4]  # Expand/_Square/Mul-op1
  return %1
}
"""
import math

import numpy as np

from ...core.primitive import PRIMITIVES, AbstractTensor
from ...core.tensor import Tensor
from ...ir.node import Node
from ...ir.rewrite import rewrite
from ..graph_kernel.ops import expand_ops


def graph_kernel_expand(graph, flags=None):
    """graph_kernel_expand(graph, flags=None) -> Graph with the expandable composites written in basic ops."""
    names = expand_ops(flags)

    def visit(n, inputs, rw):
        expander = _EXPANDERS.get(n.op_name) if n.is_primitive and n.op_name in names else None
        if expander is None or not _float_tensor(n.abstract):
            return rw.keep(n, inputs)
        out = expander(_Builder(n, rw), n, list(inputs))
        return out if out is not None else rw.keep(n, inputs)
    return rewrite(graph, visit)


def _float_tensor(abstract):
    return isinstance(abstract, AbstractTensor) and getattr(abstract.dtype, "kind", "") == "float"


class _Builder:
    """Makes the expansion's nodes: in the composite's scope (under Expand/_<Op>), emitted into the new graph."""

    def __init__(self, node, rw):
        self.node, self.rw = node, rw
        parent, _, leaf = node.scope.rpartition("/")
        self.scope = f"{parent}/Expand/_{node.op_name}/" if parent else f"Expand/_{node.op_name}/"
        self.count = 0

    def op(self, name, inputs, abstract, emit=True, **attrs):
        self.count += 1
        n = Node(PRIMITIVES[name](**attrs), tuple(inputs), abstract=abstract, loc=self.node.loc,
                 scope=f"{self.scope}{name}-op{self.count}")
        if emit:
            self.rw.emit(n)
        return n

    def const(self, value, dtype):
        a = AbstractTensor((), dtype)
        n = Node("const", value=Tensor(np.asarray(value, dtype.np_dtype)), abstract=a, loc=self.node.loc,
                 scope=self.node.scope)
        self.rw.emit(n)
        return n

    def literal(self, value):
        n = Node("const", value=value, abstract=None, loc=self.node.loc, scope=self.node.scope)
        self.rw.emit(n)
        return n


def _square(b, n, inputs):
    return b.op("Mul", (inputs[0], inputs[0]), n.abstract, emit=False)


def _squared_difference(b, n, inputs):
    d = b.op("Sub", inputs, n.abstract)
    return b.op("Mul", (d, d), n.abstract, emit=False)


def _silu(b, n, inputs):
    s = b.op("Sigmoid", inputs, n.abstract)
    return b.op("Mul", (inputs[0], s), n.abstract, emit=False)


def _add_n(b, n, inputs):
    parts = inputs[0].inputs if len(inputs) == 1 and inputs[0].op == "make_tuple" else inputs
    if len(parts) < 2 or any(not _float_tensor(p.abstract) or tuple(p.abstract.shape) != tuple(n.abstract.shape)
                             for p in parts):
        return None
    acc = parts[0]
    for i, p in enumerate(parts[1:]):
        acc = b.op("Add", (acc, p), n.abstract, emit=i < len(parts) - 2)
    return acc


def _bias_add(b, n, inputs):
    x, bias = inputs
    ndim = len(n.abstract.shape)
    shape = [1] * ndim
    shape[ndim - 1 if n.attrs.get("data_format") == "NHWC" else 1] = bias.abstract.shape[0]
    reshaped = b.op("Reshape", (bias, b.literal(tuple(shape))), AbstractTensor(tuple(shape), bias.abstract.dtype))
    return b.op("Add", (x, reshaped), n.abstract, emit=False)


def _gelu(b, n, inputs):
    if n.attrs.get("approximate", "none") != "none":
        return None
    x, dtype = inputs[0], n.abstract.dtype
    scaled = b.op("Mul", (x, b.const(1.0 / math.sqrt(2.0), dtype)), n.abstract)
    erf = b.op("Erf", (scaled,), n.abstract)
    half = b.const(0.5, dtype)
    cdf = b.op("Add", (b.op("Mul", (erf, half), n.abstract), half), n.abstract)
    return b.op("Mul", (x, cdf), n.abstract, emit=False)


_EXPANDERS = {"Square": _square, "SquaredDifference": _squared_difference, "SiLU": _silu, "AddN": _add_n,
              "BiasAdd": _bias_add, "GeluExt": _gelu}
