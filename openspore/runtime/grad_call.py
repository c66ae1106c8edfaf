"""A compiled function called while a PyNative gradient transform is active (`ms.grad(f)(x)` where `f` calls a
jitted function or a GRAPH_MODE cell).

The call runs its compiled forward graph and is recorded as ONE autodiff node. Its backward rule is the vjp of
the same function, traced into a graph of its own and compiled on first use (it recomputes the forward inside,
then the backward). When the backward itself runs under a grad transform (higher-order gradients), the vjp
runs op by op, so it is recorded and differentiable again.

Graphs with random or side-effecting nodes (dropout, BatchNorm statistics, optimizer updates) would repeat
their draws and writes in the recomputed forward; they run op by op instead (the PyNative path), as do calls
with `mutable` numbers among their inputs.
"""
from ..core import autograd
from ..core.dispatch import current_tracer
from ..core.tensor import Tensor
from .inference import graph_parameters
from .signature import flatten_call


class _JitCall:
    """Stands in for the primitive of the recorded node (autograd reads `name` for messages)."""

    differentiable = True

    def __init__(self, name):
        self.name = f"jit({name})"


def call_recording(cache, args, kwargs, run_python):
    """Run `cache`'s compiled graph for this call as one autodiff node; `run_python()` is the op-by-op path."""
    saved = autograd.ACTIVE[:]
    autograd.ACTIVE.clear()  # compiling traces symbolic values: they must not join the caller's tape
    try:
        entry, leaves, backend = cache.lookup(args, kwargs, differentiating=bool(saved))
    finally:
        autograd.ACTIVE.extend(saved)
    if entry.graph.has_side_effect or any(not isinstance(t, Tensor) for t in leaves):
        return run_python()
    weights = graph_parameters(entry.traced.graph if entry.frozen is not None else entry.graph)  # frozen: consts now
    node_args = tuple(leaves) + tuple(weights)
    if not any(_tracked(a) for a in node_args):
        return entry.run(leaves, backend)  # nothing here is being differentiated
    flat = entry.run_flat(leaves, backend)
    outs = tuple(o for o in flat if isinstance(o, Tensor))
    n_in = len(leaves)

    def bprop(*a):
        douts = a[-1]
        grads = _backward(cache, entry, a[:n_in], weights, douts)
        return tuple(grads)

    autograd.record(_JitCall(cache.name), node_args, outs, outs, bprop_fn=bprop)
    return entry.unflatten(flat)


def _tracked(t):
    return isinstance(t, Tensor) and bool(t._nodes) and any(level in t._nodes for level in autograd.ACTIVE)


def _backward(cache, entry, inputs, weights, douts):
    """Gradients for (inputs..., weights...) given the output cotangents."""
    douts = list(douts) if isinstance(douts, (tuple, list)) else [douts]
    if autograd.ACTIVE or current_tracer() is not None:
        # recorded op by op: the gradient can be differentiated again
        return _vjp_function(cache, entry, len(inputs), weights)(*inputs, *douts)
    if entry.vjp is None:
        from .cache import GraphCache
        entry.vjp = GraphCache(_vjp_function(cache, entry, len(inputs), weights), f"{cache.name}_vjp",
                               cache.level_of)
    return entry.vjp(tuple(inputs) + tuple(douts), {})


def _vjp_function(cache, entry, n_in, weights):
    """fn(*inputs, *douts) -> (grad per input..., grad per weight...), in openspore ops (traceable)."""
    from ..compiler.frontend import convert
    from ..compiler.frontend.spec import unflatten
    from ..core.grad_api import vjp
    fn = cache.fn if cache.owner is None else cache.fn(cache.owner)
    in_spec = entry.traced.in_spec

    def forward(*leaves):
        args, kwargs = unflatten(in_spec, list(leaves))
        run = convert(fn) if current_tracer() is not None else fn
        _, leaves_out = flatten_call((run(*args, **kwargs),), {})
        return tuple(leaves_out)

    def vjp_of_call(*flat):
        inputs, douts = flat[:n_in], flat[n_in:]
        _, pull = vjp(forward, *inputs, weights=list(weights) or None)
        grads = pull(*douts)
        if weights:
            in_grads, w_grads = grads
        else:
            in_grads, w_grads = grads, ()
        return tuple(in_grads) + tuple(w_grads)

    vjp_of_call.__name__ = f"{getattr(fn, '__name__', 'fn')}_vjp"
    return vjp_of_call
