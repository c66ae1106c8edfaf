"""Graph-kernel fusion's cross-entropy pattern: a training step's SparseSoftmaxCrossEntropyWithLogits loss and
gradient of the same logits and labels become one FusedSparseCrossEntropy; matched and not matched cases and
values against the unfused pair (gradient bit for bit, loss 1e-6 relative), and the underflow fallback."""
import numpy as np
import pytest

from openspore.compiler.graph_kernel.cross_entropy import FusedSparseCrossEntropy
from openspore.compiler.graph_kernel.flags import resolve
from openspore.compiler.passes.graph_kernel_cross_entropy import graph_kernel_cross_entropy
from openspore.core.primitive import PRIMITIVES
from openspore.ir.parser import parse_graph

torch = pytest.importorskip("torch")

PAIR = '''graph @main(%0 x: f32[6,5], %1 y: i32[6]) {
  %2 = SparseSoftmaxCrossEntropyWithLogits[is_grad=False](%0, %1) : f32[]
  %3 = Neg(%0) : f32[6,5]
  %4 = SparseSoftmaxCrossEntropyWithLogits[is_grad=True](%0, %1) : f32[6,5]
  %5 = make_tuple(%2, %3, %4) : (f32[], f32[6,5], f32[6,5])
  return %5
}'''
LOSS_ONLY = '''graph @main(%0 x: f32[6,5], %1 y: i32[6]) {
  %2 = SparseSoftmaxCrossEntropyWithLogits[is_grad=False](%0, %1) : f32[]
  return %2
}'''
OTHER_LOGITS = '''graph @main(%0 x: f32[6,5], %1 y: i32[6]) {
  %2 = SparseSoftmaxCrossEntropyWithLogits[is_grad=False](%0, %1) : f32[]
  %3 = Neg(%0) : f32[6,5]
  %4 = SparseSoftmaxCrossEntropyWithLogits[is_grad=True](%3, %1) : f32[6,5]
  %5 = make_tuple(%2, %4) : (f32[], f32[6,5])
  return %5
}'''


def _ops(graph):
    return [n.op_name for n in graph.nodes if n.is_primitive]


def test_the_pair_becomes_one_fused_node():
    before = parse_graph(PAIR)
    after = graph_kernel_cross_entropy(before)
    assert _ops(after).count("FusedSparseCrossEntropy") == 1
    assert "SparseSoftmaxCrossEntropyWithLogits" not in _ops(after)


@pytest.mark.parametrize("text", [LOSS_ONLY, OTHER_LOGITS], ids=["loss_only", "other_logits"])
def test_not_matched_is_left_as_it_is(text):
    before = parse_graph(text)
    assert graph_kernel_cross_entropy(before) is before


def test_disable_cluster_ops_keeps_the_pair():
    before = parse_graph(PAIR)
    flags = resolve("--disable_cluster_ops=SparseSoftmaxCrossEntropyWithLogits", enabled=True)
    assert graph_kernel_cross_entropy(before, flags) is before


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_fused_values_match_the_unfused_pair(backend):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((32, 10)).astype(np.float32) * 3
    labels = rng.integers(0, 10, 32).astype(np.int32)
    loss_op = PRIMITIVES["SparseSoftmaxCrossEntropyWithLogits"](is_grad=False)
    grad_op = PRIMITIVES["SparseSoftmaxCrossEntropyWithLogits"](is_grad=True)
    fused = FusedSparseCrossEntropy()
    if backend == "torch":
        args = (torch.from_numpy(logits), torch.from_numpy(labels))
        want = [t.numpy() for t in (loss_op.torch(torch, *args), grad_op.torch(torch, *args))]
        got = [t.numpy() for t in fused.torch(torch, *args)]
        np.testing.assert_array_equal(got[1], want[1])  # the gradient kernel's own steps: bit for bit
    else:
        want = [loss_op.numpy(np, logits, labels), grad_op.numpy(np, logits, labels)]
        got = list(fused.numpy(np, logits, labels))
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_an_underflowing_label_probability_takes_the_log_softmax(backend):
    logits = np.array([[200.0, 0.0, 0.0], [0.0, 1.0, 2.0]], np.float32)  # p[0, 1] = exp(-200): 0 in float32
    labels = np.array([1, 2], np.int32)
    want = PRIMITIVES["SparseSoftmaxCrossEntropyWithLogits"](is_grad=False).numpy(np, logits, labels)
    if backend == "torch":
        loss = FusedSparseCrossEntropy().torch(torch, torch.from_numpy(logits), torch.from_numpy(labels))[0].numpy()
    else:
        loss = FusedSparseCrossEntropy().numpy(np, logits, labels)[0]
    assert np.isfinite(loss)
    np.testing.assert_allclose(loss, want, rtol=1e-6)


def test_labels_out_of_range_are_a_clear_error():
    with pytest.raises(ValueError, match=r"every label must be in \[0, 5\)"):
        FusedSparseCrossEntropy().torch(torch, torch.zeros(2, 5), torch.tensor([0, 7], dtype=torch.int32))
