"""graph_kernel_expand: composite primitives become the basic primitives they are made of (graph-kernel fusion).

Runs only when graph-kernel fusion is on (compiler/graph_kernel). An expanded composite's pieces are basic
elementwise ops, so `graph_kernel_cluster` can put them in one fused kernel with their neighbours:

    %2 = SiLU(%0) : f32[4]                     %2 = Sigmoid(%0) : f32[4]
                                        →      %3 = Mul(%0, %2) : f32[4]

Expanded by default (`ops.EXPAND_OPS`; `--enable_expand_ops` / `--disable_expand_ops` edit the list):
Square → Mul(x, x); SquaredDifference → Mul(d, d) of d = Sub(x, y); SiLU → Mul(x, Sigmoid(x)); AddN → a chain
of Add; BiasAdd → Add(x, Reshape(bias)); GeluExt(approximate='none') → x * (0.5 + 0.5 * Erf(x / sqrt 2)); GeluGradExt(dy, x) → dy * GELU'(x) where the
same graph has the exact GeluExt(x) (a training step): GELU'(x) = cdf + x * exp(-(x / sqrt 2)²) / sqrt(2 pi) is
written next to the forward's expansion from its own nodes, so the forward's fused kernel computes it while it
holds x and erf, and the backward is one multiply (a lone GeluGradExt is kept: ATen's kernel is the faster).
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
    return rewrite(graph, visit, prepare=_gelu_pairs if {"GeluExt", "GeluGradExt"} <= names else None)


def _gelu_pairs(g):
    """Facts for the GELU pair: ids of the values x read by both an exact GeluExt(x) and a GeluGradExt(dy, x)
    (the forward and backward of one GELU in a training step), and a dict filled with x id -> the derivative
    node the forward's expansion made for it."""
    forward = {n.inputs[0].id for n in g.nodes if _exact_gelu(n, "GeluExt")}
    paired = {n.inputs[1].id for n in g.nodes if _exact_gelu(n, "GeluGradExt") and n.inputs[1].id in forward}
    return paired, {}


def _exact_gelu(n, name):
    return n.is_primitive and n.op_name == name and n.attrs.get("approximate", "none") == "none" \
        and _float_tensor(n.abstract)


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
    facts = b.rw.facts
    if facts is not None and n.inputs[0].id in facts[0] and n.inputs[0].id not in facts[1]:
        facts[1][n.inputs[0].id] = _gelu_derivative(b, n, x, scaled, cdf)
    return b.op("Mul", (x, cdf), n.abstract, emit=False)


def _gelu_derivative(b, n, x, scaled, cdf):
    """GELU'(x) = cdf + x * pdf, pdf = exp(-x² / 2) / sqrt(2 pi), written next to the forward's expansion.

    Built from the forward's own nodes (x² / 2 is the square of the forward's x / sqrt 2, cdf is its cdf), so
    every node joins the forward's cluster: the fused forward kernel computes the derivative in the loop that
    already holds x and erf, and the backward's GeluGradExt becomes one multiply by it (ATen's GeluGradExt
    recomputes erf and exp from x)."""
    dtype = n.abstract.dtype
    exponent = b.op("Neg", (b.op("Mul", (scaled, scaled), n.abstract),), n.abstract)
    x_gauss = b.op("Mul", (x, b.op("Exp", (exponent,), n.abstract)), n.abstract)
    x_pdf = b.op("Mul", (x_gauss, b.const(1.0 / math.sqrt(2.0 * math.pi), dtype)), n.abstract)
    return b.op("Add", (cdf, x_pdf), n.abstract)


def _gelu_grad(b, n, inputs):
    """GeluGradExt(dy, x) -> Mul(dy, GELU'(x)) when the forward GeluExt(x) was expanded with its derivative;
    otherwise kept (a lone GeluGradExt: ATen's kernel was measured faster than its fused decomposition)."""
    facts = b.rw.facts
    derivative = facts[1].get(n.inputs[1].id) if facts is not None else None
    if derivative is None or n.attrs.get("approximate", "none") != "none":
        return None
    return b.op("Mul", (inputs[0], derivative), n.abstract, emit=False)


_EXPANDERS = {"Square": _square, "SquaredDifference": _squared_difference, "SiLU": _silu, "AddN": _add_n,
              "BiasAdd": _bias_add, "GeluExt": _gelu,
              "GeluGradExt": _gelu_grad}
