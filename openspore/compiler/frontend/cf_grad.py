"""Backward rules of `if` and `while` nodes, recorded while a grad transform is active.

The core autodiff records a control-flow node like a primitive call whose backward rule emits structured
control flow again:

* `if`: an `if` on the same predicate whose branches compute the vjp of the respective forward branch. A branch
  vjp re-runs the branch graph (`ir.interpret.run_graph`) under a fresh grad level and differentiates it with
  the ordinary reverse-mode algorithm, so the backward ops land in the backward branch's subgraph.
* `while`: a backward `while` walking the iterations in reverse. Iteration k's input state is recomputed from
  the initial state by an inner `while` that runs the body k times, then the body's vjp maps the cotangent of
  state k+1 to that of state k. The trip count comes from one more forward `while` that counts. This costs
  O(n²) body evaluations for n iterations and stores no per-iteration state.

Operands captured from enclosing graphs are loop-carried unchanged, so their gradients accumulate through the
identity in the body's vjp. Nested control flow inside a differentiated subgraph is re-emitted through the
`on_if` / `on_while` hooks of `run_graph` and records its own backward rule (higher orders work the same way).
"""
from ...core import autograd
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ir.interpret import run_graph
from ...ops.defs.side_effect import _NONDIFF_WRITE
from .symbolic import SymbolicTensor


class _ControlOp:
    """Stands in for the primitive in an autodiff record of a control-flow node."""

    differentiable = True

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


_IF, _WHILE = _ControlOp("if"), _ControlOp("while")


def _differentiable(value):
    # MindSpore differentiates integer tensors too (the plain autodiff does; control flow must agree): only
    # booleans carry no gradient.
    return isinstance(value, Tensor) and value.dtype.kind in ("float", "complex", "int", "uint")


def on_if(node, ins):
    """run_graph hook: an `if` met while re-running a graph under a tracer."""
    pred, operands = ins[0], ins[1:]
    then_g, else_g = node.graphs
    if not isinstance(pred, SymbolicTensor):
        return run_graph(then_g if bool(pred) else else_g, list(operands), on_if, on_while)
    from .cf_graph import emit_if
    return emit_if(pred, list(operands), then_g, else_g)


def on_while(node, ins):
    """run_graph hook: a `while` met while re-running a graph under a tracer."""
    from .cf_graph import emit_while
    cond_g, body_g = node.graphs
    return emit_while(list(ins), cond_g, body_g)


def _run(graph, values):
    return run_graph(graph, list(values), on_if, on_while)


def graph_vjp(graph, operands, cotangents, diff):
    """Gradients of the graph's (tuple) output, weighted by `cotangents`, for the operands at `diff`."""
    positions = [i for i in diff if not isinstance(operands[i], Parameter)]
    weight_at = [i for i in diff if isinstance(operands[i], Parameter)]
    _, in_grads, w_grads = autograd.run_with_grad(lambda *xs: _run(graph, xs), list(operands), {}, positions,
                                                  [operands[i] for i in weight_at], tuple(cotangents))
    by_index = dict(zip(positions, in_grads))
    by_index.update(zip(weight_at, w_grads))
    return tuple(by_index[i] for i in diff)


def _where(graph):
    locs = [n.loc for n in graph.nodes if getattr(n, "loc", "")]
    return f"(loop at {locs[0]})" if locs else "(in a compiled loop)"


def _spread(diff, grads, n):
    out = [None] * n
    for i, g in zip(diff, grads):
        out[i] = g
    return tuple(out)


def record_if(pred, operands, results, then_g, else_g):
    if not autograd.ACTIVE or not results:
        return

    def bprop(*args):
        ops, dout = args[1:-2], args[-1]
        return (None,) + if_vjp(args[0], ops, tuple(dout), then_g, else_g)
    autograd.record(_IF, (pred, *operands), results, results, bprop_fn=bprop)


def if_vjp(pred, operands, douts, then_g, else_g):
    diff = [i for i, o in enumerate(operands) if _differentiable(o)]
    if not diff:
        return (None,) * len(operands)
    from .control_flow import cond_if
    grads = cond_if(pred, lambda: graph_vjp(then_g, operands, douts, diff),
                    lambda: graph_vjp(else_g, operands, douts, diff), (), (), returns=True)
    return _spread(diff, grads, len(operands))


def record_while(operands, results, cond_g, body_g):
    if not autograd.ACTIVE or not results:
        return

    def bprop(*args):
        ops, dout = args[:-2], args[-1]
        return while_vjp(ops, tuple(dout), cond_g, body_g)
    autograd.record(_WHILE, tuple(operands), results, results, bprop_fn=bprop)


def _subgraph_inputs(node):
    """(subgraph, the node inputs bound to its inputs) for each subgraph of a structural node."""
    outer = node.inputs[1:] if node.op == "if" else node.inputs
    return [(g, outer) for g in node.graphs]


def _parameter_use(graph, params, writes, cond_reads, in_cond=False):
    """Collect ids of the Parameters written in `graph` and read by a `while` condition in it. `params` maps
    node ids to Parameter ids: weight nodes, and graph inputs bound to a Parameter by an enclosing node."""
    used = {i.id for n in graph.nodes for i in n.inputs} | {graph.output.id}
    if in_cond:
        cond_reads.update(params[i.id] for i in graph.inputs if i.id in params and i.id in used)
    for n in graph.nodes:
        if n.op == "weight":
            params[n.id] = id(n.value)
            if in_cond:
                cond_reads.add(id(n.value))
        elif n.is_primitive and n.inputs and n.inputs[0].id in params and (
                (getattr(n.op, "side_effect", False) and getattr(n.op, "writes_input", True))
                or getattr(n.op, "nondiff_reason", None) is _NONDIFF_WRITE):
            # an in-place write (Assign has a backward by MindSpore's convention, so its nondiff mark is gone)
            writes.add(params[n.inputs[0].id])
        for k, (sub, outer) in enumerate(_subgraph_inputs(n)):
            for inner, o in zip(sub.inputs, outer):
                if o.id in params:
                    params[inner.id] = params[o.id]
            _parameter_use(sub, params, writes, cond_reads, in_cond or (n.op == "while" and k == 0))


def _loop_reads_what_it_writes(operands, cond_g, body_g):
    """Does a loop condition (this loop's or a nested one's) read a Parameter that the loop body writes?"""
    params, writes, cond_reads = {}, set(), set()
    for g, in_cond in ((cond_g, True), (body_g, False)):
        for inner, o in zip(g.inputs, operands):
            if isinstance(o, Parameter):
                params[inner.id] = id(o)
        _parameter_use(g, params, writes, cond_reads, in_cond)
    return bool(writes & cond_reads)


def while_vjp(operands, douts, cond_g, body_g):
    diff = [i for i, o in enumerate(operands) if _differentiable(o)]
    if not diff:
        return (None,) * len(operands)
    if any(isinstance(o, SymbolicTensor) for o in operands) and _loop_reads_what_it_writes(operands, cond_g, body_g):
        # the compiled backward recomputes iterations from the loop's initial state, but a Parameter is read
        # live: a loop condition over a Parameter the loop writes would see the final value and could spin
        raise NotImplementedError(f"The gradient, compiled in graph mode, of a `while` loop whose condition reads "
                                  f"a Parameter that the loop writes is not supported {_where(body_g)}: carry "
                                  f"the value in a local variable, or take the gradient in PyNative mode.")
    from .control_flow import while_loop
    names = ("count",) + tuple(f"s{i}" for i in range(len(operands)))

    def step(c, *s):
        return (c + 1, *_run(body_g, s))

    trips = while_loop(lambda c, *s: _run(cond_g, s), step, (0, *operands), names)[0]

    def reverse_body(j, *g):
        state_j = while_loop(lambda c, *s: c < j, step, (0, *operands), names)[1:]
        cot = [autograd.zeros_like(s) for s in state_j]
        for i, gi in zip(diff, g):
            cot[i] = gi
        return (j - 1, *graph_vjp(body_g, state_j, cot, diff))

    rnames = ("j",) + tuple(f"g{i}" for i in diff)
    final = while_loop(lambda j, *g: j >= 0, reverse_body, (trips - 1, *(douts[i] for i in diff)), rnames)
    return _spread(diff, final[1:], len(operands))
