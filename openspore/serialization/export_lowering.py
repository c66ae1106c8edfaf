"""Fused primitives written in the structure a file format expects: each primitive's `export_decomposition`.

Layers emit fused primitives in PyNative and in captured graphs alike (`nn.Dense` → Dense, `nn.MaxPool2d` →
max pooling that keeps its argmax, `nn.Momentum` → ForeachApplyMomentum). MindSpore's files hold its own
structure instead (MatMul + BiasAdd, MaxPool, one ApplyMomentum per parameter), so before writing, every node
whose primitive the writer has no converter for, and whose class declares

    def export_decomposition(self, b, *inputs): ...

is replaced by the primitives that method calls. `b.call(name, *inputs, **attrs)` emits a primitive,
`b.abstract(x)` is an input's shape and dtype, `b.get_item(x, i)` an element of a tuple value. Inputs arrive as IR
nodes, Python values (constants such as a missing bias, None) or tuples of them (tuple inputs). The method returns
the node standing for the result or, for a tuple result, a tuple with one entry per output — None for an output the
decomposition cannot give (MaxPool has no argmax): the rule then applies only where nobody reads that output.
Returning NotImplemented declines (the node stays, and the writer reports it as unsupported).
"""
import re

from ..core.primitive import AbstractTensor
from ..ir.rewrite import rewrite
from .mindir_builder import Builder


_OP_SUFFIX = re.compile(r"/[A-Za-z0-9_]+-op(?=\d+$)")


def lower_for_export(graph, writable):
    """`graph` with every node that `writable(op_name)` rejects and that has a decomposition decomposed
    (subgraphs included); `graph` is not modified."""
    return rewrite(graph, lambda n, inputs, rw: _visit(n, inputs, rw, writable), prepare=_Facts)


class _Facts:
    def __init__(self, graph):
        self.users = graph.users()
        if graph.output is not None:
            self.users.setdefault(graph.output.id, []).append(None)  # the graph's result is a read as well
        self.parts = {}  # id of a decomposed tuple-valued node -> its per-output replacements


def _visit(n, inputs, rw, writable):
    facts = rw.facts
    if n.op == "tuple_get_item" and n.inputs[0].id in facts.parts:
        return facts.parts[n.inputs[0].id][n.index]
    if not n.is_primitive or writable(n.op_name):
        return rw.keep(n, inputs)
    decompose = getattr(n.op, "export_decomposition", None)
    if decompose is None:
        return rw.keep(n, inputs)
    b = Builder(rw.old.name)
    b.scope = n.scope
    result = decompose(b, *(_argument(i) for i in inputs))
    if result is NotImplemented:
        return rw.keep(n, inputs)
    readers = facts.users.get(n.id, ())
    whole_read = any(u is None or u.op != "tuple_get_item" for u in readers)
    if isinstance(result, tuple):
        read = {u.index for u in readers if u is not None and u.op == "tuple_get_item"}
        if any(result[i] is None for i in read) or (whole_read and None in result):
            return rw.keep(n, inputs)  # a reader needs an output the decomposition does not give
    for made in b.nodes:  # unread ones are dropped with the other dead values (export_graph.prepare)
        made.loc = n.loc
        made.scope = _OP_SUFFIX.sub(f"/{made.op_name}-op", made.scope)  # its own op name in the scope
        rw.emit(made)
    if not isinstance(result, tuple):
        return result
    facts.parts[n.id] = result
    if not whole_read:
        return None  # readers take their element from `parts`
    return b.node(result)


def _argument(node):
    """What a decomposition receives for an input node (see the module docstring)."""
    if node.op == "const" and not isinstance(node.abstract, AbstractTensor):
        return node.value
    if node.op == "make_tuple":
        return tuple(_argument(i) for i in node.inputs)
    return node
