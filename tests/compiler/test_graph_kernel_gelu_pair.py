"""Graph-kernel fusion of a GELU's forward and backward: with the exact GeluExt(x) and GeluGradExt(dy, x) in one
graph (a training step), the expand pass writes GELU'(x) next to the forward from its nodes, the forward's
cluster computes it, and the backward becomes dy * GELU'(x). Pattern matched and not matched; numerics of the
rewritten graph and of the compiled kernel against ATen's gelu_backward (1e-5 relative)."""
import numpy as np
import pytest

from openspore.compiler.graph_kernel import fused
from openspore.compiler.graph_kernel.flags import resolve
from openspore.compiler.graph_kernel.fused import GraphKernel
from openspore.compiler.passes.graph_kernel_cluster import graph_kernel_cluster
from openspore.compiler.passes.graph_kernel_expand import graph_kernel_expand
from openspore.ir.parser import parse_graph

from .pass_check import assert_same_values

torch = pytest.importorskip("torch")

PAIR = '''graph @main(%0 x: f32[4,16], %1 dy: f32[4,16]) {
  %2 = GeluExt[approximate='none'](%0) : f32[4,16]
  %3 = Neg(%2) : f32[4,16]
  %4 = GeluGradExt[approximate='none'](%1, %0) : f32[4,16]
  %5 = make_tuple(%3, %4) : (f32[4,16], f32[4,16])
  return %5
}'''

LONE_GRAD = '''graph @main(%0 x: f32[4,16], %1 dy: f32[4,16]) {
  %2 = GeluGradExt[approximate='none'](%1, %0) : f32[4,16]
  %3 = Neg(%2) : f32[4,16]
  return %3
}'''

TANH_PAIR = PAIR.replace("approximate='none'", "approximate='tanh'")


def _ops(graph):
    return [n.op_name for n in graph.nodes if n.is_primitive]


def test_the_backward_becomes_a_multiply_by_the_forwards_derivative():
    before = parse_graph(PAIR)
    expanded = graph_kernel_expand(before)
    assert "GeluGradExt" not in _ops(expanded) and "GeluExt" not in _ops(expanded)
    assert _ops(expanded).count("Erf") == 1 and "Exp" in _ops(expanded)  # erf shared, not recomputed
    assert_same_values(before, expanded, {})
    clustered = graph_kernel_cluster(expanded)
    kernels = [n for n in clustered.nodes if n.is_primitive and isinstance(n.op, GraphKernel)]
    assert len(kernels) == 1, _ops(clustered)
    members = _ops(kernels[0].op.graph)
    assert {"Erf", "Exp", "Neg"} <= set(members)
    assert_same_values(before, clustered, {})


@pytest.mark.parametrize("text", [LONE_GRAD, TANH_PAIR], ids=["lone_grad", "tanh"])
def test_not_matched_keeps_gelu_grad(text):
    after = graph_kernel_expand(parse_graph(text))
    assert "GeluGradExt" in _ops(after)


def test_disable_expand_ops_keeps_gelu_grad():
    flags = resolve("--disable_expand_ops=GeluGradExt", enabled=True)
    after = graph_kernel_expand(parse_graph(PAIR), flags)
    assert "GeluGradExt" in _ops(after) and "GeluExt" not in _ops(after)


def test_compiled_derivative_matches_aten_gelu_backward(monkeypatch):
    """The fused kernel's dy * GELU'(x) agrees with ATen's gelu_backward to 1e-5 relative (here dy is a graph
    input, so the multiply joins the cluster; in a training step dy comes from the backward and it does not)."""
    monkeypatch.setattr(fused, "MEASURE", False)  # the compiled kernel even where op by op would be faster
    clustered = graph_kernel_cluster(graph_kernel_expand(parse_graph(PAIR)))
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.uniform(-6, 6, (4, 16)).astype(np.float32))
    dy = torch.from_numpy(rng.standard_normal((4, 16)).astype(np.float32))
    node = next(n for n in clustered.nodes if n.is_primitive and isinstance(n.op, GraphKernel))
    args = {clustered.inputs[0].id: x, clustered.inputs[1].id: dy}
    for i in node.inputs:  # the constants (1/sqrt 2, 0.5, ...) are inputs of the fused node
        if i.op == "const":
            args[i.id] = torch.from_numpy(np.array(i.value.asnumpy()))
    fallbacks = fused.COMPILE_STATS["fallbacks"]
    outs = GraphKernel.torch(node.op, torch, *[args[i.id] for i in node.inputs])
    assert fused.COMPILE_STATS["fallbacks"] == fallbacks, "the kernel compiler refused the cluster"
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    want_y = torch.nn.functional.gelu(x)
    want_dx = torch.ops.aten.gelu_backward(dy, x)
    assert len(outs) == 2
    np.testing.assert_allclose(outs[0].numpy(), -want_y.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1].numpy(), want_dx.numpy(), rtol=1e-5, atol=1e-6)
