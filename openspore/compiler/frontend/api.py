"""`trace(fn, args, kwargs=None, name=None)`: run a function (or a Cell's construct) on symbolic inputs and
return its IR graph with the specs that map Python arguments / results to graph inputs / outputs.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> from openspore.compiler.frontend import trace
>>> def f(x, scale):
...     return ops.relu(x) * scale, x.shape[0]
>>> t = trace(f, (ms.Tensor(np.ones((2, 3), np.float32)), 2.0))
>>> [n.op_name for n in t.graph.nodes]
['ReLU', 'const', 'Mul', 'make_tuple']
>>> t.unflatten(["y"])  # the executor's output leaves back into f's structure
('y', 2)
"""
import functools
import inspect
import sys

from ... import context
from ...core import dispatch
from ...core.primitive import AbstractTensor
from ...ir.node import Graph
from .ast_transform import convert
from . import control_flow
from .control_flow import check_defined
from .graph_builtins import materialized
from .scope import ScopeStack, is_cell
from .spec import TENSOR, Same, flatten, static_key, unflatten
from .symbolic import SymbolicTensor
from .tracer import Tracer, _Shared


class Traced:
    """The result of `trace`: `graph`, `in_spec`, `out_spec`, `static_key`, `unflatten(leaves)`."""

    def __init__(self, graph, in_spec, out_spec):
        self.graph = graph
        self.in_spec = in_spec      # spec of (args tuple, kwargs dict); tensor leaves = graph inputs in order
        self.out_spec = out_spec    # spec of the output; tensor leaves = graph output (make_tuple) elements
        self.static_key = static_key(in_spec)

    def unflatten(self, leaves):
        """fn's output structure from the graph's output leaves (a list; one element for a single tensor)."""
        return unflatten(self.out_spec, leaves)

    def __repr__(self):
        return f"Traced(@{self.graph.name}, {len(self.graph.inputs)} inputs)"


def flatten_args(args, kwargs=None):
    """(tensor leaves, static key) of call arguments, as `trace` flattens them (for compile caches)."""
    leaves, spec = flatten((tuple(args), dict(kwargs or {})))
    return leaves, static_key(spec)


def _split(fn):
    """(root cell or None, callable to run, callable whose signature names the inputs).

    A Cell runs through `Cell.__call__` (hooks, custom bprop and `to_float` included); the root cell adds
    nothing to scope names. For `partial(f, ..., cell, ...)` the first Cell among the bound arguments is the
    root (the runtime binds the cell that way)."""
    if is_cell(fn):
        return fn, fn, fn.construct
    if type(fn) is functools.partial:
        return next((a for a in fn.args if is_cell(a)), None), fn, fn
    owner = getattr(fn, "__self__", None)
    return (owner if is_cell(owner) else None), fn, fn


def _input_names(fn, args, kwargs):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names, positional = [], [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
    for i, a in enumerate(args):
        base = positional[i].name if i < len(positional) else f"{var}_{i - len(positional)}"
        names.extend(_leaf_names(base, a))
    for k, v in kwargs.items():
        names.extend(_leaf_names(k, v))
    return names


def _leaf_names(base, value):
    leaves, _ = flatten(value)
    if len(leaves) == 1 and flatten(value)[1] == TENSOR:
        return [base]
    return [f"{base}_{i}" for i in range(len(leaves))]


def _graph_name_error(err):
    """MindSpore's graph compiler words an unknown name as its own error; the name is kept on the new one."""
    name = getattr(err, "name", None)
    if type(err) is not NameError or not name or str(err).startswith("The name"):
        return err
    return NameError(f"The name '{name}' is not defined, or not supported in graph mode.", name=name)


def _globals_of(fn):
    """The module globals of the user's function being traced (a construct, a @jit function), or {}."""
    while type(fn) is functools.partial:
        fn = fn.func
    fn = getattr(fn, "__func__", fn)
    fn = getattr(fn, "fn", fn)  # a JitFunction (runtime/jit.py) holds the function as `fn`
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__globals__", None) or {}


def _same_globals(out, module_globals, mutated=()):
    """MindSpore returns a module's global list (or dict) from a graph as that very object, when the graph computed
    nothing into it: `return GLOBAL_LIST` gives `GLOBAL_LIST` itself (at the top of the result, or as an item of
    a returned tuple), so the caller's identity checks and later reads see the global."""
    if not module_globals:
        return out

    def same(value):
        if type(value) in (list, dict) and any(value is g for g in module_globals.values()) \
                and not any(value is m for m in mutated):  # changed by the graph: its value, not the global
            leaves, _ = flatten(value)
            if not any(isinstance(t, SymbolicTensor) for t in leaves):
                return Same(value)
        return value
    if type(out) is tuple:
        return tuple(same(v) for v in out)
    return same(out)


def trace(fn, args, kwargs=None, name=None):
    """Trace `fn(*args, **kwargs)` into a graph: one `input` per Tensor leaf of args/kwargs (flattened in order),
    Python values baked in as constants (they are part of `static_key`)."""
    kwargs = dict(kwargs or {})
    root, func, signature_of = _split(fn)
    leaves, in_spec = flatten((tuple(args), kwargs))
    gname = name or getattr(getattr(signature_of, "func", signature_of), "__name__", None) or type(fn).__name__
    tracer = Tracer(gname, _Shared(gname, ScopeStack(root), entry=sys._getframe()))
    names = _input_names(signature_of, args, kwargs)
    if len(names) != len(leaves):
        names = [f"arg{i}" for i in range(len(leaves))]
    symbolic = [tracer.add_input(n, AbstractTensor(t.shape, t.dtype)) for n, t in zip(names, leaves)]
    s_args, s_kwargs = unflatten(in_spec, symbolic)
    run = convert(func)
    mark = len(control_flow.MUTATED)
    try:
        return _run_traced(tracer, run, s_args, s_kwargs, signature_of, gname, in_spec, mark)
    finally:
        control_flow.undo_mutations(mark)


def _run_traced(tracer, run, s_args, s_kwargs, signature_of, gname, in_spec, mark):
    dispatch.push_tracer(tracer)
    # A graph call level takes several Python frames (call wrapper, rewritten function, branch helpers): give
    # Python's stack room for max_call_depth levels, so that the limit that stops a deep recursion is
    # MindSpore's RuntimeError and not Python's RecursionError.
    python_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(python_limit, 8 * context.get_context("max_call_depth") + 2000))
    try:
        out = run(*s_args, **s_kwargs)
        if dispatch._output_hook is not None:  # operator sharding: a graph returns whole tensors
            out = dispatch._output_hook(out)
    except NameError as err:
        worded = _graph_name_error(err)
        if worded is err:
            raise
        raise worded from err
    finally:
        sys.setrecursionlimit(python_limit)
        dispatch.pop_tracer(tracer)
    out = materialized(out)
    check_defined(out, "the return value")
    mutated = [obj for obj, _ in control_flow.MUTATED[mark:]]
    out = _same_globals(out, _globals_of(signature_of), mutated)
    out_leaves, out_spec = flatten(out)
    nodes = [tracer.node_of(t) for t in out_leaves]
    output = nodes[0] if out_spec == TENSOR else tracer.make_tuple(nodes)
    marks = tracer.shared.scopes.dump_marks
    graph = Graph(gname, tracer.inputs, tracer.nodes, output, {"dump_marks": dict(marks)} if marks else None)
    return Traced(graph, in_spec, out_spec)
