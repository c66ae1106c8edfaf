"""Floating-point operations of a compiled graph (`mindspore.flops_collection`, and the count
`FlopsUtilizationCollector` turns into model-FLOPs utilisation).

As MindSpore counts them: the matrix products and convolutions of the graph the network compiled to — forward
and backward — at 2 operations per multiply-add; element-wise work is not counted. A `Dense` of a (B, I) input
into O outputs costs 2·B·I·O; its backward costs the same for each gradient it computes (the weight's, and the
input's unless nothing needs it). A `while` body is counted once. Nothing is recomputed and nothing is sharded
here, so hardware flops equal model flops and the shard figures equal the full ones.

>>> import numpy as np, openspore as ms
>>> ms.set_context(mode=ms.GRAPH_MODE)
>>> net = ms.nn.Dense(10, 5)
>>> _ = net(ms.Tensor(np.ones((32, 10), np.float32)))
>>> ms.flops_collection("train")[:2]
(3200.0, 3200.0)
>>> ms.set_context(mode=ms.PYNATIVE_MODE)
"""
import math

__all__ = ["graph_flops", "network_graph", "flops_collection"]

_runner = [None]   # the GRAPH_MODE cell runner (install_cell_runner keeps it here); its caches hold the graphs


def set_cell_runner(runner):
    _runner[0] = runner


def _shape(node, index=None):
    abstract = node.abstract
    if isinstance(abstract, tuple):
        abstract = abstract[0 if index is None else index]
    return tuple(getattr(abstract, "shape", ()) or ())


def _prod(shape):
    return float(math.prod(shape)) if shape else 1.0


def _node_flops(node):
    name = node.op_name
    if name in ("MatMul", "BatchMatMul"):
        a = _shape(node.inputs[0])
        contracted = a[-2] if node.attrs.get("transpose_a") else a[-1]
        return 2.0 * _prod(_shape(node)) * contracted
    if name == "Dense":
        return 2.0 * _prod(_shape(node)) * _shape(node.inputs[0])[-1]
    if name == "DenseGrad":
        x, weight = _shape(node.inputs[1]), _shape(node.inputs[2])
        grads = 1 + bool(node.attrs.get("input_grad", True))
        return grads * 2.0 * _prod(x) * weight[0]
    if name == "DenseGradAccumulate":  # a weight gradient accumulated by the momentum_gemm_fusion pass: doutᵀ·x
        return 2.0 * _prod(_shape(node.inputs[1])) * _shape(node.inputs[2])[-1]
    if name in ("Conv1D", "Conv2D", "Conv3D", "Conv2DBackpropInput", "Conv2DTranspose"):
        per_output = _prod(_shape(node.inputs[1])[1:])   # weight (out, in/groups, *kernel)
        big = _shape(node) if name.startswith("Conv") and "Backprop" not in name and name != "Conv2DTranspose" \
            else _shape(node.inputs[0])
        return 2.0 * _prod(big) * per_output
    if name == "Conv2DBackpropFilter":
        return 2.0 * _prod(_shape(node.inputs[0])) * _prod(_shape(node)[1:])
    if name == "Conv2DBackpropInputFilter":  # both halves at once (the conv_backprop_merge pass): dx and dw
        return 2 * 2.0 * _prod(_shape(node.inputs[0])) * _prod(_shape(node.inputs[2])[1:])
    return 0.0


def graph_flops(graph):
    """(flops, has_dynamic_shape) of an IR graph and its subgraphs."""
    total, dynamic = 0.0, False
    for g in graph.all_graphs():
        for node in g.nodes:
            if node.is_primitive:
                total += _node_flops(node)
            shapes = node.abstract if isinstance(node.abstract, tuple) else (node.abstract,)
            dynamic = dynamic or any(d is None or (isinstance(d, int) and d < 0)
                                     for a in shapes for d in (getattr(a, "shape", ()) or ()))
    return total, dynamic


def network_graph(network):
    """The graph `network` (a Cell) last ran as in GRAPH_MODE, or None when it has not run compiled."""
    runner = _runner[0]
    cache = runner.caches.get(network) if runner is not None else None
    entry = cache.last_entry if cache is not None else None
    return entry.graph if entry is not None else None


def flops_collection(phase="train"):
    """(full_model_flops, full_hardware_flops, shard_model_flops, shard_hardware_flops, is_dynamic_shape) of the
    graph compiled last for a network in `phase` ('train', 'eval' or 'predict': the Cell's phase)."""
    runner = _runner[0]
    latest, newest = None, -1
    for cell, cache in list(runner.caches.items()) if runner is not None else []:
        entry = cache.last_entry
        if entry is None or getattr(cell, "phase", "train") != phase:
            continue
        stamp = max((n.id for n in entry.graph.nodes), default=-1)   # node ids grow with every compile
        if stamp > newest:
            latest, newest = entry.graph, stamp
    if latest is None:
        raise RuntimeError(f"For 'flops_collection', no network in phase '{phase}' has been compiled (run one in "
                           "GRAPH_MODE first).")
    flops, dynamic = graph_flops(latest)
    return flops, flops, flops, flops, dynamic
