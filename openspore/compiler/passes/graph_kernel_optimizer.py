"""graph_kernel_optimizer: with graph-kernel fusion on, the Adam update of all parameters runs as one fused pass.

Runs only when graph-kernel fusion is on (compiler/graph_kernel). The optimizer update is elementwise work over
every parameter, like the clusters, but it writes its inputs in place, which the cluster kernels do not. So its
fusion is a kernel choice: ForeachAdam (seven multi-tensor passes over memory, bit for bit the per-parameter
Adam) becomes ForeachAdamOnePass (torch's fused Adam kernel, one pass, the same formula rounded in another
order; ops/defs/optim_foreach.py):

    %9 = ForeachAdam(%1, %2, %3, ...) : (f32[4], f32[3])   →   %9 = ForeachAdamOnePass(%1, %2, %3, ...) : (...)

ForeachApplyMomentum needs nothing: its kernel already runs in one pass and bit for bit. Which updates are chosen is
`graph_kernel.ops.optimizer_ops`; `--disable_cluster_ops=ForeachAdam` keeps the multi-tensor form.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[4]) {
...   %1 = Neg(%0) : f32[4]
...   return %1
... }''')
>>> graph_kernel_optimizer(g) is g   # nothing to change: the same graph back
True
"""
from ...core.primitive import PRIMITIVES
from ...ir.rewrite import rewrite
from ...ops.defs import optim_foreach  # noqa: F401  (registers ForeachAdamOnePass)
from ..graph_kernel.ops import optimizer_ops

_ONE_PASS = {"ForeachAdam": "ForeachAdamOnePass"}


def graph_kernel_optimizer(graph, flags=None):
    """graph_kernel_optimizer(graph, flags=None) -> Graph with ForeachAdam updates as ForeachAdamOnePass."""
    chosen = {name: one for name, one in _ONE_PASS.items() if name in optimizer_ops(flags)}
    if not chosen:
        return graph
    return rewrite(graph, lambda n, inputs, rw: _visit(n, inputs, rw, chosen))


def _visit(n, inputs, rw, chosen):
    if n.is_primitive and type(n.op).__name__ in chosen:
        return n.clone(inputs=tuple(inputs), op=PRIMITIVES[chosen[type(n.op).__name__]](**n.op.attrs))
    return rw.keep(n, inputs)
