"""Conditions computed from constants only are decided while tracing.

A tensor that a Cell keeps as a plain attribute (not a Parameter) is a constant of the graph, and so is anything
computed from constants alone. An `if` on such a value takes one branch for every call of the compiled graph,
so it is decided at trace time, as MindSpore's compiler folds constant conditions: only the branch taken is
traced, and its results need not join the other branch's (they may differ in shape, or one may be a scalar).

>>> import numpy as np, openspore as ms
>>> from openspore.compiler.frontend import trace
>>> class Net(ms.nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.flags = ms.Tensor([True, False])
...     def construct(self, x):
...         if self.flags.all():
...             return x
...         return x.sum()
>>> names = [n.op_name for n in trace(Net(), (ms.Tensor(np.ones(3, np.float32)),)).graph.nodes]
>>> "if" in names, names[-1]           # no `if` node: the else-branch alone was traced
(False, 'ReduceSum')
"""
from ...core import autograd, dispatch
from ...ir.interpret import run_graph
from ...ir.node import Graph
from .symbolic import SymbolicTensor

_MAX_NODES = 64  # conditions are small; a big constant computation is left to the graph


def _constant_nodes(node):
    """The nodes `node` depends on, inputs before users, when all of them are computable now; else None."""
    order, seen, stack = [], set(), [(node, False)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if n.id in seen:
            continue
        seen.add(n.id)
        if n.op == "const":
            order.append(n)
            continue
        pure = n.op in ("make_tuple", "tuple_get_item") or (n.is_primitive and not n.has_side_effect)
        if not pure or len(seen) > _MAX_NODES:
            return None  # graph inputs, Parameters (they change between calls), control flow, effects
        stack.append((n, True))
        stack.extend((i, False) for i in n.inputs if i.id not in seen)
    return order


def constant_condition(pred):
    """The Python truth value of a traced condition computed from constants only, or None."""
    if not isinstance(pred, SymbolicTensor) or pred.size != 1:
        return None
    nodes = _constant_nodes(pred.node)
    if nodes is None:
        return None
    saved, tracers = autograd.ACTIVE[:], dispatch._tracers[:]
    autograd.ACTIVE.clear()
    dispatch._tracers.clear()  # evaluate eagerly (PyNative), recording nothing
    try:
        value = run_graph(Graph("constant_condition", [], nodes, pred.node), [])
        return bool(value)
    finally:
        dispatch._tracers[:] = tracers
        autograd.ACTIVE[:] = saved
