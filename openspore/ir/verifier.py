"""Check a graph's invariants (tests run this after every pass): `verify(graph)` raises IRVerificationError.

Checked: every input is defined before use (graph inputs, earlier nodes); no node appears twice; the output
is defined; structural ops have the right inputs and abstracts (make_tuple, tuple_get_item with its index in
range, const/weight values); if/while/call operand counts match their subgraphs' inputs, with matching
abstracts; if branches agree; a while body returns as many values as it carries, with the same abstracts;
re-running each primitive's `infer` on its input abstracts gives the node's abstract; subgraph names are
unique (the text format refers to subgraphs by name).
"""
import numpy as np

from ..core.primitive import AbstractTensor, Primitive
from ..core.tensor import Tensor
from .node import STRUCTURAL_OPS
from .printer import abstract_text


class IRVerificationError(ValueError):
    """The graph breaks an IR invariant; the message names the graph, the node and what is wrong."""


def verify(graph):
    """verify(graph) -> graph: raise IRVerificationError on the first broken invariant, else return the graph."""
    names = {}
    for g in graph.all_graphs():
        other = names.setdefault(g.name, g)
        if other is not g:
            raise IRVerificationError(f"two different graphs are named @{g.name}; subgraph names must be unique")
    done = set()
    for g in graph.all_graphs():
        if id(g) not in done:
            done.add(id(g))
            _verify_graph(g)
    return graph


def _describe(graph, node):
    from .printer import value_text
    op = node.op_name
    what = f"%{node.id} ({op})"
    if node.op == "const":
        text = value_text(node.value)
        what += " " + (text if len(text) <= 40 else text[:37] + "...")
    where = f" [{node.scope}]" if node.scope else ""
    loc = f" at {node.loc}" if node.loc else ""
    return f"in graph @{graph.name}, node {what}{where}{loc}"


def _verify_graph(g):
    defined = set()
    for n in g.inputs:
        if n.op != "input":
            raise IRVerificationError(f"in graph @{g.name}, the parameter %{n.id} has op {n.op_name!r}, not 'input'")
        if n.id in defined:
            raise IRVerificationError(f"in graph @{g.name}, the parameter %{n.id} ({n.name}) is listed twice")
        defined.add(n.id)
    for n in g.nodes:
        where = _describe(g, n)
        if n.id in defined:
            raise IRVerificationError(f"{where}: the node appears twice in the graph")
        if n.op == "input":
            raise IRVerificationError(f"{where}: 'input' nodes belong in graph.inputs, not in graph.nodes")
        for pos, i in enumerate(n.inputs):
            if i.id not in defined:
                raise IRVerificationError(f"{where}: input {pos} (%{i.id}, {i.op_name}) is used before it is "
                                          "defined (not a graph input or an earlier node of this graph)")
        _check_node(g, n, where)
        defined.add(n.id)
    if g.output is None or g.output.id not in defined:
        out = "None" if g.output is None else f"%{g.output.id} ({g.output.op_name})"
        raise IRVerificationError(f"in graph @{g.name}, the output {out} is not defined in the graph")


def _fail(where, msg):
    raise IRVerificationError(f"{where}: {msg}")


def _check_node(g, n, where):
    op = n.op
    if isinstance(op, Primitive):
        if n.graphs:
            _fail(where, "a primitive node has subgraphs")
        _check_primitive(n, where)
    elif op in ("weight", "const"):
        if n.inputs:
            _fail(where, f"a {op} node takes no inputs, but it has {len(n.inputs)}")
        _check_value(n, where)
    elif op == "make_tuple":
        want = tuple(i.abstract for i in n.inputs)
        if n.abstract != want:
            _fail(where, f"make_tuple's abstract {abstract_text(n.abstract)} differs from its inputs' "
                  f"{abstract_text(want)}")
    elif op == "tuple_get_item":
        _check_getitem(n, where)
    elif op in ("if", "while", "call"):
        _check_control(n, where)
    else:
        _fail(where, f"unknown op {op!r}; expected a Primitive or one of {STRUCTURAL_OPS}")


def _check_value(n, where):
    value = n.value
    if n.op == "weight":
        if not isinstance(n.abstract, AbstractTensor):
            _fail(where, f"a weight's abstract must be a tensor, but got {abstract_text(n.abstract)}")
        if value is not None and (tuple(value.shape) != n.abstract.shape or value.dtype != n.abstract.dtype):
            _fail(where, f"the Parameter {n.name!r} is {value.dtype}{list(value.shape)} but the node says "
                  f"{abstract_text(n.abstract)}")
        return
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        have = _abstract_of_array(value)
        if n.abstract != have:
            _fail(where, f"the constant is {abstract_text(have)} but the node says {abstract_text(n.abstract)}")
    elif isinstance(n.abstract, AbstractTensor):
        _fail(where, f"a Python constant of type {type(value).__name__} has the tensor abstract "
              f"{abstract_text(n.abstract)}")


def _abstract_of_array(value):
    dtype = value.dtype
    if not hasattr(dtype, "kind") or not hasattr(dtype, "np_dtype"):  # a numpy dtype
        from ..common import dtype as mstype
        dtype = mstype.nptype_to_dtype(dtype)
    return AbstractTensor(tuple(value.shape), dtype)


def _check_getitem(n, where):
    if len(n.inputs) != 1:
        _fail(where, f"tuple_get_item takes one input, but it has {len(n.inputs)}")
    src = n.inputs[0].abstract
    if not isinstance(src, tuple):
        _fail(where, f"tuple_get_item's input must be tuple-valued, but it is {abstract_text(src)}")
    if not isinstance(n.index, int) or not -len(src) <= n.index < len(src):
        _fail(where, f"index {n.index!r} is out of range for a tuple of {len(src)} values")
    if n.abstract != src[n.index]:
        _fail(where, f"the abstract {abstract_text(n.abstract)} differs from element {n.index} of the input, "
              f"{abstract_text(src[n.index])}")


def _check_control(n, where):
    op, want = n.op, 1 if n.op == "call" else 2
    if len(n.graphs) != want:
        _fail(where, f"'{op}' needs {want} subgraph(s), but has {len(n.graphs)}")
    if op == "if":
        if not n.inputs:
            _fail(where, "'if' needs a condition input")
        cond = n.inputs[0].abstract
        if isinstance(cond, AbstractTensor) and cond.size != 1:
            _fail(where, f"the condition must hold one element, but it is {abstract_text(cond)}")
        operands = n.inputs[1:]
    else:
        operands = n.inputs
    for sub in n.graphs:
        _check_operands(sub, operands, where, op)
    if op == "if":
        then_out, else_out = (sub.output.abstract for sub in n.graphs)
        if then_out != else_out:
            _fail(where, f"the branches disagree: @{n.graphs[0].name} returns {abstract_text(then_out)} and "
                  f"@{n.graphs[1].name} returns {abstract_text(else_out)}")
        _same(n, then_out, where, "the branches return")
    elif op == "call":
        _same(n, n.graphs[0].output.abstract, where, f"@{n.graphs[0].name} returns")
    else:
        cond_graph, body = n.graphs
        c = cond_graph.output.abstract
        if isinstance(c, AbstractTensor) and c.size != 1:
            _fail(where, f"the loop condition @{cond_graph.name} must return one element, but returns "
                  f"{abstract_text(c)}")
        carried = tuple(i.abstract for i in operands)
        out = body.output.abstract
        if not isinstance(out, tuple) or len(out) != len(carried):
            _fail(where, f"the loop body @{body.name} must return a tuple of {len(carried)} values, but returns "
                  f"{abstract_text(out)}")
        for k, (a, b) in enumerate(zip(carried, out)):
            if a != b:
                _fail(where, f"loop-carried value {k} enters as {abstract_text(a)} but the body @{body.name} "
                      f"returns {abstract_text(b)}")
        _same(n, carried, where, "the loop carries")


def _check_operands(sub, operands, where, op):
    if len(sub.inputs) != len(operands):
        _fail(where, f"'{op}' passes {len(operands)} operand(s) but @{sub.name} takes {len(sub.inputs)}")
    for k, (param, arg) in enumerate(zip(sub.inputs, operands)):
        if param.abstract != arg.abstract:
            _fail(where, f"operand {k} is {abstract_text(arg.abstract)} but @{sub.name}'s parameter "
                  f"{param.name or k} is {abstract_text(param.abstract)}")


def _same(n, abstract, where, what):
    if n.abstract != abstract:
        _fail(where, f"the node's abstract {abstract_text(n.abstract)} differs from what {what}: "
              f"{abstract_text(abstract)}")


def _infer_arg(node):
    """What `infer` sees for a value: abstracts for computed values, the value itself for constants (some
    primitives infer from values, such as shapes given as tensors)."""
    if node.op == "const":
        value = node.value
        return Tensor(value) if isinstance(value, np.ndarray) else value
    if node.op == "make_tuple":
        return tuple(_infer_arg(i) for i in node.inputs)
    return node.abstract


def _check_primitive(n, where):
    prim = n.op
    args = [_infer_arg(i) for i in n.inputs]
    try:
        got = prim.infer(*args)
    except Exception as exc:  # any failure of infer on the recorded inputs is an invalid node
        _fail(where, f"{prim.name}.infer rejects the node's inputs: {type(exc).__name__}: {exc}")
    if isinstance(got, list):
        got = tuple(got)
    if got != n.abstract:
        _fail(where, f"{prim.name}.infer gives {abstract_text(got)} but the node says {abstract_text(n.abstract)}")
