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
    return isinstance(value, Tensor) and value.dtype.kind in ("float", "complex")


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


def while_vjp(operands, douts, cond_g, body_g):
    diff = [i for i, o in enumerate(operands) if _differentiable(o)]
    if not diff:
        return (None,) * len(operands)
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
