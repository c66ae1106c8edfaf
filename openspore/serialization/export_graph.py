"""The graph an export writes: the traced network with calls inlined and unused values removed.

Both writers (MindIR and ONNX) start here: `capture(net, inputs, where, writable)` checks the arguments, traces
`net(*inputs)` with the graph frontend (in the cell's current train/eval state, as MindSpore compiles it for
export), decomposes the fused primitives the writer has no converter for (`export_lowering`) and returns the
prepared graph plus the names the file needs.
"""
import numpy as np

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ir import Graph
from .export_lowering import lower_for_export


class ExportError(ValueError, RuntimeError):
    """A network or argument that cannot be exported (a ValueError; MindSpore raises RuntimeError here)."""


class UnsupportedExportError(ExportError):
    """The network uses operators the target format cannot express (all of them are listed)."""


class Captured:
    """`graph` (prepared IR), `traced` (frontend result), `net`, `param_cells` (checkpoint name -> rank of the
    cell owning the parameter, in the network's cell order), `training` (the state it was traced in),
    `class_name`, `module`."""

    def __init__(self, graph, traced, net, training):
        self.graph, self.traced, self.net, self.training = graph, traced, net, training
        cells = {}
        self.param_cells = {}
        for path, p in net.parameters_and_names():
            self.param_cells[p.name] = cells.setdefault(path.rpartition(".")[0], len(cells))
        self.class_name = type(net).__name__
        self.module = type(net).__module__


def check_net(net, where):
    from ..nn.cell import Cell
    if not isinstance(net, Cell):
        raise TypeError(f"For '{where}', the argument 'net' should be a Cell, but got {type(net).__name__}.")


def check_inputs(inputs, where):
    if not inputs:
        raise ValueError(f"For '{where}', the network inputs are required: pass example inputs after 'net', "
                         f"e.g. {where}(net, Tensor(np.ones([1, 1, 32, 32]), ms.float32), file_name=...).")
    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            x = Tensor(x)
        if not isinstance(x, (Tensor, bool, int, float, tuple, list)) or x is None:
            raise TypeError(f"For '{where}', the network inputs should be Tensors (or Python numbers), but input "
                            f"{i} is {type(x).__name__}.")
        out.append(x)
    return tuple(out)


def capture(net, inputs, where, writable):
    """Trace `net(*inputs)` into a prepared graph (see the module docstring); fused primitives that
    `writable(op_name)` rejects are decomposed first (export_lowering)."""
    from ..compiler.frontend import trace
    check_net(net, where)
    inputs = check_inputs(inputs, where)
    traced = trace(net, inputs)
    # dead values go first (a tuple element nobody reads must not stop a decomposition), then what it leaves
    graph = prepare(lower_for_export(prepare(traced.graph), writable))
    _check_parameter_names(graph, where)
    return Captured(graph, traced, net, bool(getattr(net, "training", False)))


def prepare(graph):
    """`graph` with `call` nodes inlined (recursively, branch graphs included) and dead values removed."""
    nodes, mapping = [], {}

    def get(node):
        return mapping.get(node.id, node)

    for n in graph.nodes:
        ins = tuple(get(i) for i in n.inputs)
        if n.op == "call":
            callee = prepare(n.graphs[0])
            sub = {ci.id: a for ci, a in zip(callee.inputs, ins)}
            for cn in callee.nodes:
                new = cn.clone(inputs=tuple(sub.get(i.id, i) for i in cn.inputs))
                sub[cn.id] = new
                nodes.append(new)
            mapping[n.id] = sub.get(callee.output.id, callee.output)
            continue
        new = n.clone(inputs=ins, graphs=tuple(prepare(g) for g in n.graphs)) if n.graphs else n.clone(inputs=ins)
        mapping[n.id] = new
        nodes.append(new)
    output = get(graph.output)
    live = {output.id}
    for n in reversed(nodes):
        # a Print (side effect outside the graph's values: `writes_input` False) is debugging output, not
        # computation: an exported file leaves it out unless its result is used
        if n.id in live or (n.has_side_effect and getattr(n.op, "writes_input", True)):
            live.add(n.id)
            live.update(i.id for i in n.inputs)
    return Graph(graph.name, graph.inputs, [n for n in nodes if n.id in live], output, graph.flags)


def _check_parameter_names(graph, where):
    seen = {}
    for g in graph.all_graphs():
        for n in g.nodes:
            if n.op == "weight" and isinstance(n.value, Parameter):
                other = seen.setdefault(n.value.name, n.value)
                if other is not n.value:
                    raise ExportError(f"For '{where}', two different parameters share the name '{n.value.name}'; "
                                      "parameter names must be unique to be stored.")


def unsupported_report(graph, is_supported, where, fmt):
    """Raise UnsupportedExportError listing every node kind `is_supported(node)` rejects (with scopes)."""
    bad = {}
    for g in graph.all_graphs():
        for n in g.nodes:
            reason = is_supported(n)
            if reason is not True:
                bad.setdefault(reason or n.op_name, []).append(n.scope or g.name)
    if bad:
        lines = "\n".join(f"  {op}: {'; '.join(sorted(set(places))[:5])}" for op, places in bad.items())
        raise UnsupportedExportError(f"For '{where}', the network uses {len(bad)} operator(s) that cannot be exported "
                                     f"to {fmt}: {list(bad)}\n{lines}")
