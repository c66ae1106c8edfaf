"""What the debugger knows of a compiled openspore graph: its kernels in execution order (full scope names,
operator types, input edges, code stacks), its parameters and inputs. The dump writer turns it into the graph
file and the execution order; the online debugger into the node records it watches.

Kernel names are the tracer's scope names (`Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/
Conv2D-op0`); graph inputs are named `inputs{k}` and parameters by their names, as in MindSpore's graphs.
"""
import linecache
import re

from ...ir.node import value_producers as _sources
from .dump_store import NodeRecord, _looks_like_weight
from .graph_text import StackFrame, write_graph_text

_OP_SCOPE = re.compile(r"/[^/]+-op\d+$")  # the tracer names kernels `.../<PrimName>-op<N>`


class KernelInfo:
    __slots__ = ("index", "full_name", "op_type", "inputs", "stack", "abstract")

    def __init__(self, index, full_name, op_type, stack, abstract):
        self.index, self.full_name, self.op_type = index, full_name, op_type
        self.inputs, self.stack, self.abstract = [], stack, abstract


class GraphDescription:
    """`kernels` {IR node id: KernelInfo}, `order` (KernelInfos in execution order), `params` [(name, is_weight,
    shape, dtype text)], `weights` [(name, Parameter)], `input_names`."""

    def __init__(self, graph):
        self.kernels, self.order, self.weights = {}, [], []
        self.input_names = [f"inputs{k}" for k in range(len(graph.inputs))]
        params = {}
        for k, n in enumerate(graph.inputs):
            params[n.id] = (self.input_names[k], False, _shape(n.abstract), _dtype_text(n.abstract))
        for g in graph.all_graphs():
            for n in g.nodes:
                if n.op == "weight":
                    params.setdefault(n.id, (n.name, True, _shape(n.abstract), _dtype_text(n.abstract)))
                    if all(p is not n.value for _, p in self.weights):
                        self.weights.append((n.name, n.value))
                elif n.is_primitive:
                    full = n.scope if _OP_SCOPE.search(n.scope or "") else \
                        f"{n.scope or 'Default'}/{n.op_name}-op{len(self.order)}"
                    info = KernelInfo(len(self.order), full, n.op_name, _stack(n), n.abstract)
                    self.kernels[n.id] = info
                    self.order.append(info)
        for g in graph.all_graphs():
            for n in g.nodes:
                if n.id in self.kernels:
                    refs = self.kernels[n.id].inputs
                    for src in _sources(n.inputs):
                        if src.id in self.kernels:
                            refs.append(self.kernels[src.id].index)
                        elif src.id in params:
                            refs.append(params[src.id][0])
        seen, self.params = set(), []
        for name, is_weight, shape, dtype in params.values():
            if name not in seen:
                seen.add(name)
                self.params.append((name, is_weight, shape, dtype))

    def text(self, graph_id):
        return write_graph_text(graph_id, self.params,
                                [(k.index, k.op_type, k.inputs, k.full_name, k.stack, _out_text(k.abstract))
                                 for k in self.order])

    def records(self, rank, graph_id):
        """NodeRecords (as the dump store makes them) for the parameters and kernels."""
        out = []
        for k, (name, is_weight, _, _) in enumerate(self.params):
            out.append(NodeRecord(rank, graph_id, name, "Parameter", -len(self.params) + k, is_parameter=True,
                                  is_weight=is_weight and _looks_like_weight(name)))
        for info in self.order:
            inputs = [self.order[i].full_name if isinstance(i, int) else i for i in info.inputs]
            out.append(NodeRecord(rank, graph_id, info.full_name, info.op_type, info.index, inputs, info.stack))
        return out


def _stack(node):
    """The node's user code stack as graph-file frames, outermost first (MindSpore's order); a backward node's
    is its forward node's."""
    return stack_frames(node.stack)


def stack_frames(frames):
    """ir.source frames (innermost first) -> StackFrames with their code lines, outermost first."""
    return [StackFrame(f.file, f.line, linecache.getline(f.file, f.line).strip()) for f in reversed(frames)]


def _shape(abstract):
    return tuple(getattr(abstract, "shape", ()) or ())


def _dtype_text(abstract):
    dtype = getattr(abstract, "dtype", None)
    return str(dtype) if dtype is not None else "Unknown"


def _out_text(abstract):
    if abstract is None:
        return ""
    if isinstance(abstract, tuple):
        return "(" + ", ".join(_out_text(a) for a in abstract) + ")"
    return f"<Tensor[{_dtype_text(abstract)}], {_shape(abstract)}>"
