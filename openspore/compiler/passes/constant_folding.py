"""constant_folding: evaluate primitive nodes whose inputs are all constants, at compile time.

    %1 = const tensor([1.0, 2.0], f32) : f32[2]           %1 = const tensor([1.0, 2.0], f32) : f32[2]
    %2 = Neg(%1) : f32[2]                          →      %2 = const tensor([-1.0, -2.0], f32) : f32[2]

Values are computed by `bind` on concrete Tensors in the current backend (`set_context(backend=...)`), so
folding gives exactly what PyNative would. Not folded: side-effecting and random primitives, results with
more than `MAX_ELEMENTS` elements (folding would bloat the graph), and nodes whose kernel raises (the error
belongs to run time, in program order). A `make_tuple` of constants counts as constant; a folded
multi-output primitive becomes a make_tuple of constants. The folded-away inputs are left for `dce`.
"""
import contextlib

import numpy as np

from ...core import dispatch
from ...core.primitive import AbstractTensor
from ...core.tensor import Tensor
from ...ir.node import Node
from ...ir.rewrite import rewrite

MAX_ELEMENTS = 1_000_000
_MISSING = object()


def constant_folding(graph):
    """constant_folding(graph) -> Graph with constant subexpressions evaluated (the input is not modified)."""
    with _outside_tracing():
        return rewrite(graph, _visit, prepare=lambda g: {})


@contextlib.contextmanager
def _outside_tracing():
    """Folding must run kernels even when the pipeline is invoked while a graph is being traced."""
    saved = []
    while dispatch.current_tracer() is not None:
        saved.append(dispatch.current_tracer())
        dispatch.pop_tracer(saved[-1])
    try:
        yield
    finally:
        for tracer in reversed(saved):
            dispatch.push_tracer(tracer)


def _visit(n, inputs, rw):
    known = rw.facts  # node id -> concrete value of a constant node (or a make_tuple of them)
    if n.op == "const":
        known[n.id] = _concrete(n.value)
        return n
    if n.op == "make_tuple" and all(i.id in known for i in inputs):
        new = rw.keep(n, inputs)
        known[new.id] = tuple(known[i.id] for i in inputs)
        return new
    if n.op == "tuple_get_item" and inputs[0].id in known:
        if inputs[0].op == "make_tuple":  # the element's own const node
            return inputs[0].inputs[n.index]
        new = _const(known[inputs[0].id][n.index], n)
        known[new.id] = new.value
        return new
    if n.is_primitive and not n.op.side_effect and not n.op.random \
            and all(i.id in known for i in inputs) and _small(n.abstract):
        value = _evaluate(n, [known[i.id] for i in inputs])
        if value is not _MISSING:
            return _emit(value, n, rw.emit, known)
    return rw.keep(n, inputs)


def _concrete(value):
    """Numpy constants take part as Tensors (kernels receive backend arrays)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor(np.asarray(value))
    return value


def _small(abstract):
    if isinstance(abstract, AbstractTensor):
        return abstract.size <= MAX_ELEMENTS
    if isinstance(abstract, tuple):
        return all(isinstance(a, AbstractTensor) for a in abstract) and \
            sum(a.size for a in abstract) <= MAX_ELEMENTS
    return False


def _evaluate(n, args):
    try:
        value = dispatch.bind(n.op, *args)
    except Exception:  # the kernel's error is reported when the graph runs, in program order
        return _MISSING
    got = _abstract(value)
    return value if got == n.abstract else _MISSING


def _abstract(value):
    if isinstance(value, Tensor):
        return AbstractTensor(value.shape, value.dtype)
    if isinstance(value, tuple):
        return tuple(_abstract(v) for v in value)
    return None


def _const(value, like, abstract=None):
    return Node("const", value=value, abstract=like.abstract if abstract is None else abstract, loc=like.loc,
                scope=like.scope)


def _emit(value, n, emit, known):
    """A const for a tensor result; a make_tuple of consts (each const emitted) for a tuple result."""
    if not isinstance(value, tuple):
        new = _const(value, n)
        known[new.id] = value
        return new
    parts = []
    for v, a in zip(value, n.abstract):
        part = _const(v, n, a)
        known[part.id] = v
        emit(part)
        parts.append(part)
    new = Node("make_tuple", inputs=parts, abstract=n.abstract, loc=n.loc, scope=n.scope)
    known[new.id] = value
    return new
