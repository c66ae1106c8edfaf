"""`--dump_as_text`: the clusters of every compile, as text, in `graph_kernel_dump/graph_kernel_cluster_<pid>.txt`
(under `save_graphs_path`, default the working directory), as MindSpore writes them:

    Source nodes of Default/network-ResNet/GraphKernel_BatchNorm_Mul_Sub_Add_ReLU_fusion-op196 =
      Default/.../bn2-BatchNorm2d/BatchNorm-op93  BatchNorm
      ...
    graph @GraphKernel_BatchNorm_Mul_Sub_Add_ReLU_fusion(%0 x0: f32[32,32,16,16], ...) { ... }

>>> from openspore.ir.parser import parse_graph
>>> from openspore.compiler.passes.graph_kernel_cluster import graph_kernel_cluster
>>> g = graph_kernel_cluster(parse_graph('''graph @f(%0 x: f32[4]) {
...   %1 = Neg(%0) : f32[4]
...   %2 = Exp(%1) : f32[4]
...   return %2
... }'''))
>>> print(clusters_text(g).splitlines()[0])
Source nodes of  =
"""
import os

from ... import context
from ...common.files import write_atomic
from ...ir.printer import print_graph
from .fused import GraphKernel

_written = {}  # path -> texts written by this process (the file holds all of them)


def clusters_text(graph):
    """Every GraphKernel node of `graph`: its source nodes, then its cluster graph; every fused pattern node
    (FusedAttention, FusedAttentionGrad): its source nodes, then the node."""
    parts = []
    for n in graph.nodes:
        sources = getattr(n.op, "sources", None) if n.is_primitive else None
        if sources:
            lines = [f"Source nodes of {n.scope or ''} ="]
            lines += [f"  {scope}  {name}" for scope, name in sources]
            attrs = ", ".join(f"{k}={v!r}" for k, v in n.attrs.items())
            inputs = ", ".join(f"{i.op_name if i.is_primitive else i.op} %{i.id}" for i in n.inputs)
            parts.append("\n".join(lines) + f"\n%{n.id} = {n.op_name}[{attrs}]({inputs})\n")
        elif isinstance(n.op, GraphKernel):
            members = [m for m in n.op.graph.nodes if m.is_primitive]
            lines = [f"Source nodes of {n.scope or ''} ="]
            lines += [f"  {m.scope or m.op_name}  {m.op_name}" for m in members]
            parts.append("\n".join(lines) + "\n" + print_graph(n.op.graph) + "\n")
    return "\n".join(parts)


def dump_clusters(graph):
    """Append the clusters of `graph` to this process's dump file; returns its path."""
    directory = os.path.join(context.get_context("save_graphs_path") or ".", "graph_kernel_dump")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"graph_kernel_cluster_{os.getpid()}.txt")
    texts = _written.setdefault(path, [])
    texts.append(f"# graph @{graph.name}\n{clusters_text(graph)}")
    write_atomic(path, [t.encode("utf-8") for t in texts], read_only=False)
    return path
