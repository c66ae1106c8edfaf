"""Graph-kernel fusion's attention pattern: a training step's softmax attention (forward and the backward
autodiff made for it) becomes FusedAttention + FusedAttentionGrad; matched and not matched cases, values of the
rewritten graph against the unfused ops (1e-5 relative), the flash kernels against the unfused formula, and a
training run with fusion on whose losses match fusion off; the short-sequence kernels that keep the
probabilities, and the backward writing the merged qkv gradient itself."""
import numpy as np
import pytest

import openspore as ms
from openspore import nn, ops
from openspore.compiler.graph_kernel import attention
from openspore.compiler.graph_kernel.attention import FusedAttention, FusedAttentionGrad
from openspore.compiler.graph_kernel.flags import resolve
from openspore.compiler.passes.graph_kernel_attention import graph_kernel_attention
from openspore.ir.parser import parse_graph

from .pass_check import assert_same_values

torch = pytest.importorskip("torch")

_MASK = "const tensor([[0.0, -1000000000.0, -1000000000.0], [0.0, 0.0, -1000000000.0], [0.0, 0.0, 0.0]], f32)"

# the forward and the backward nodes autodiff emits for softmax(q·kᵀ·c + mask)·v (as in the GPT benchmark's IR)
ATTENTION = f'''graph @main(%0 q: f32[2,2,3,4], %1 kt: f32[2,2,4,3], %2 v: f32[2,2,3,4], %3 do: f32[2,2,3,4]) {{
  %4 = BatchMatMul[transpose_a=False, transpose_b=False](%0, %1) : f32[2,2,3,3]
  %5 = const tensor(0.5, f32) : f32[]
  %6 = Mul(%4, %5) : f32[2,2,3,3]
  %7 = {_MASK} : f32[3,3]
  %8 = Add(%6, %7) : f32[2,2,3,3]
  %9 = Softmax[axis=-1](%8) : f32[2,2,3,3]
  %10 = BatchMatMul[transpose_a=False, transpose_b=False](%9, %2) : f32[2,2,3,4]
  %11 = BatchMatMul[transpose_a=False, transpose_b=True](%3, %2) : f32[2,2,3,3]
  %12 = BatchMatMul[transpose_a=True, transpose_b=False](%9, %3) : f32[2,2,3,4]
  %13 = SoftmaxGrad[axis=(3,)](%9, %11) : f32[2,2,3,3]
  %14 = Mul(%13, %5) : f32[2,2,3,3]
  %15 = BatchMatMul[transpose_a=False, transpose_b=True](%14, %1) : f32[2,2,3,4]
  %16 = BatchMatMul[transpose_a=True, transpose_b=False](%0, %14) : f32[2,2,4,3]
  %17 = make_tuple(%10, %15, %16, %12) : (f32[2,2,3,4], f32[2,2,3,4], f32[2,2,4,3], f32[2,2,3,4])
  return %17
}}'''

# the heads merged back and the three gradients concatenated (the backward of the head reshapes and of the split
# of one qkv projection, as in the GPT benchmark)
MERGED = ATTENTION.replace("%17 = make_tuple(%10, %15, %16, %12) : (f32[2,2,3,4], f32[2,2,3,4], f32[2,2,4,3], f32[2,2,3,4])\n",
                           """%20 = const (0, 2, 1, 3) : py
  %21 = const (0, 3, 1, 2) : py
  %22 = const (2, 3, 8) : py
  %23 = Transpose(%15, %20) : f32[2,3,2,4]
  %24 = Reshape(%23, %22) : f32[2,3,8]
  %25 = Transpose(%16, %21) : f32[2,3,2,4]
  %26 = Reshape(%25, %22) : f32[2,3,8]
  %27 = Transpose(%12, %20) : f32[2,3,2,4]
  %28 = Reshape(%27, %22) : f32[2,3,8]
  %29 = make_tuple(%24, %26, %28) : (f32[2,3,8], f32[2,3,8], f32[2,3,8])
  %30 = Concat[axis=2](%29) : f32[2,3,24]
  %17 = make_tuple(%10, %30) : (f32[2,2,3,4], f32[2,3,24])
""")
# an additive mask that is not causal (a bias below the diagonal): the kernels take it as it is
BIASED_MASK = "const tensor([[0.0, -1000000000.0, -1000000000.0], [0.5, 0.0, -1000000000.0], [0.0, 0.25, 0.0]], f32)"
NO_MASK = ATTENTION.replace("%8 = Add(%6, %7)", "%8 = Neg(%6)").replace("Softmax[axis=-1](%8)", "Softmax[axis=-1](%6)")
# the probabilities read once more (returned): the backward cannot recompute them alone
PROBABILITIES_KEPT = ATTENTION.replace("%17 = make_tuple(%10, %15, %16, %12) : (",
                                       "%17 = make_tuple(%10, %15, %16, %12, %9) : (f32[2,2,3,3], ")
# no backward (inference): the pattern needs both halves
FORWARD_ONLY = '''graph @main(%0 q: f32[2,2,3,4], %1 kt: f32[2,2,4,3], %2 v: f32[2,2,3,4]) {
  %4 = BatchMatMul[transpose_a=False, transpose_b=False](%0, %1) : f32[2,2,3,3]
  %5 = const tensor(0.5, f32) : f32[]
  %6 = Mul(%4, %5) : f32[2,2,3,3]
  %9 = Softmax[axis=-1](%6) : f32[2,2,3,3]
  %10 = BatchMatMul[transpose_a=False, transpose_b=False](%9, %2) : f32[2,2,3,4]
  return %10
}'''


def _ops(graph):
    return [n.op_name for n in graph.nodes if n.is_primitive]


@pytest.mark.parametrize("text", [ATTENTION, NO_MASK.replace("%8 = Neg(%6) : f32[2,2,3,3]\n", "")],
                         ids=["masked", "unmasked"])
def test_the_attention_pattern_becomes_two_fused_nodes(text):
    before = parse_graph(text)
    after = graph_kernel_attention(before)
    names = _ops(after)
    assert names.count("FusedAttention") == 1 and names.count("FusedAttentionGrad") == 1, names
    assert not {"BatchMatMul", "Softmax", "SoftmaxGrad", "Mul"} & set(names), names
    assert_same_values(before, after, {})


def _fused(graph, name):
    return next(n for n in graph.nodes if n.is_primitive and n.op_name == name)


def test_short_sequences_keep_the_probabilities_and_write_the_merged_gradient():
    before = parse_graph(MERGED.replace(_MASK, BIASED_MASK))
    after = graph_kernel_attention(before)
    names = _ops(after)
    assert not {"Concat", "Transpose", "Reshape", "BatchMatMul", "Softmax"} & set(names), names
    assert _fused(after, "FusedAttention").op.keep_probabilities
    grad = _fused(after, "FusedAttentionGrad")
    assert grad.op.keep_probabilities and grad.op.heads_merged and tuple(grad.abstract.shape) == (2, 3, 24)
    assert not grad.op.causal and len(grad.inputs) == 7  # the mask read as it is
    assert_same_values(before, after, {})


def test_longer_sequences_run_flash_and_merge_the_gradient(monkeypatch):
    monkeypatch.setattr(attention, "KEEP_PROBABILITIES_UP_TO", 2)  # these 3 queries x 3 keys count as long
    before = parse_graph(MERGED.replace(_MASK, BIASED_MASK))
    after = graph_kernel_attention(before)
    assert not _fused(after, "FusedAttention").op.keep_probabilities
    grad = _fused(after, "FusedAttentionGrad")
    assert grad.op.heads_merged and not grad.op.causal and "Concat" not in _ops(after)
    assert_same_values(before, after, {})


def test_a_causal_mask_runs_the_causal_flash_kernels():
    before = parse_graph(MERGED)  # _MASK: 0 on and below the diagonal, -1e9 above it
    after = graph_kernel_attention(before)
    fwd, grad = _fused(after, "FusedAttention"), _fused(after, "FusedAttentionGrad")
    assert fwd.op.causal and grad.op.causal and not fwd.op.keep_probabilities and grad.op.heads_merged
    assert len(fwd.inputs) == 3 and len(grad.inputs) == 6  # no mask: the kernels skip the keys after each query
    assert not {"Concat", "Transpose", "Reshape", "BatchMatMul", "Softmax"} & set(_ops(after))
    assert_same_values(before, after, {})


@pytest.mark.parametrize("mask, causal", [
    (np.triu(np.full((4, 4), -1e9, np.float32), 1), True),
    (np.triu(np.full((1, 4, 4), -np.inf, np.float32), 1), True),
    (np.triu(np.full((4, 4), -1e4, np.float32), 1), True),     # BERT's -10000 masks exactly in float32
    (np.triu(np.full((4, 4), -1e3, np.float32), 1), False),    # exp(-1000 + ..) need not underflow
    (np.tril(np.full((4, 4), -1e9, np.float32), -1), False),   # the keys before the query masked
    (np.zeros((4, 4), np.float32), False),
    (np.triu(np.full((4, 5), -1e9, np.float32), 1), False),    # not square
], ids=["-1e9", "-inf", "-1e4", "-1e3", "anti", "zeros", "4x5"])
def test_is_causal_mask(mask, causal):
    assert attention.is_causal_mask(np, mask) is causal


@pytest.mark.parametrize("merged", [False, True])
def test_kept_probability_kernels_match_the_unfused_formula(merged):
    rng = np.random.default_rng(1)
    qkv = torch.from_numpy(rng.standard_normal((2, 16, 3 * 4 * 8)).astype(np.float32))
    # q, kᵀ, v as the GPT block slices them from one projection: strided views, no copies
    q, k, v = (qkv[..., i * 32:(i + 1) * 32].reshape(2, 16, 4, 8) for i in range(3))
    q, kt, v = q.permute(0, 2, 1, 3), k.permute(0, 2, 3, 1), v.permute(0, 2, 1, 3)
    do = torch.from_numpy(rng.standard_normal((2, 16, 4, 8)).astype(np.float32)).permute(0, 2, 1, 3)
    mask = torch.triu(torch.full((16, 16), -1e9), 1)
    fwd = FusedAttention(scale=0.35, keep_probabilities=True)
    grad = FusedAttentionGrad(scale=0.35, keep_probabilities=True, heads_merged=merged)
    out, p = fwd.torch(torch, q, kt, v, mask)
    assert out.transpose(1, 2).is_contiguous()  # laid out [B, L, H, D]: merging the heads is a view
    want_out, want_p = fwd.numpy(np, *(t.numpy() for t in (q, kt, v, mask)))
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p.numpy(), want_p, rtol=1e-5, atol=1e-7)
    got = grad.torch(torch, do, q, kt, v, out, p, mask)
    want = grad.numpy(np, *(t.numpy() for t in (do, q, kt, v, out, p, mask)))
    for g, w in zip((got,) if merged else got, (want,) if merged else want):
        assert tuple(g.shape) == w.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5)
    if merged:  # the same numbers as the three gradients merged by the graph's own ops
        dq, dkt, dv = FusedAttentionGrad(scale=0.35, keep_probabilities=True).torch(torch, do, q, kt, v, out, p, mask)
        parts = [dq.permute(0, 2, 1, 3), dkt.permute(0, 3, 1, 2), dv.permute(0, 2, 1, 3)]
        np.testing.assert_array_equal(got.numpy(), torch.cat([t.reshape(2, 16, 32) for t in parts], -1).numpy())


@pytest.mark.parametrize("text", [PROBABILITIES_KEPT, FORWARD_ONLY], ids=["probabilities_read", "forward_only"])
def test_not_matched_is_left_as_it_is(text):
    before = parse_graph(text)
    assert graph_kernel_attention(before) is before


def test_disable_cluster_ops_keeps_the_unfused_attention():
    before = parse_graph(ATTENTION)
    assert graph_kernel_attention(before, resolve("--disable_cluster_ops=FlashAttention", enabled=True)) is before


@pytest.mark.parametrize("masked", ["mask", "none", "causal"])
def test_flash_kernels_match_the_unfused_formula(masked):
    rng = np.random.default_rng(0)
    shape = (2, 4, 16, 8)
    q, v, do = (torch.from_numpy(rng.standard_normal(shape).astype(np.float32)) for _ in range(3))
    kt = torch.from_numpy(rng.standard_normal((2, 4, 8, 16)).astype(np.float32))
    mask = torch.triu(torch.full((16, 16), -1e9), 1) if masked == "mask" else None
    extra = () if mask is None else (mask,)
    causal = masked == "causal"
    fwd, grad = FusedAttention(scale=0.35, causal=causal), FusedAttentionGrad(scale=0.35, causal=causal)
    out, lse = fwd.torch(torch, q, kt, v, *extra)
    grads = grad.torch(torch, do, q, kt, v, out, lse, *extra)
    want_out, _ = fwd.numpy(np, *(t.numpy() for t in (q, kt, v) + extra))
    want = grad.numpy(np, *(t.numpy() for t in (do, q, kt, v, out, lse) + extra))
    if causal:  # the causal kernels give what the -1e9 mask gives
        reference = FusedAttention(scale=0.35).numpy(np, q.numpy(), kt.numpy(), v.numpy(),
                                                     np.triu(np.full((16, 16), -1e9, np.float32), 1))[0]
        np.testing.assert_allclose(want_out, reference, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
    for got, expected in zip(grads, want):
        assert tuple(got.shape) == expected.shape
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)


class _Attention(nn.Cell):
    def __init__(self, d=16, heads=2, seq=8):
        super().__init__()
        self.qkv, self.head = nn.Dense(d, 3 * d), nn.Dense(d, 5)
        self.mask = ms.Tensor(np.triu(np.full((seq, seq), -1e9, np.float32), 1))
        self.heads, self.d = heads, d

    def construct(self, x):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = ops.split(self.qkv(x), d, axis=-1)
        q = q.reshape(b, t, self.heads, hd).transpose(0, 2, 1, 3)
        k = k.reshape(b, t, self.heads, hd).transpose(0, 2, 3, 1)
        v = v.reshape(b, t, self.heads, hd).transpose(0, 2, 1, 3)
        att = ops.softmax(ops.matmul(q, k) * (1.0 / hd ** 0.5) + self.mask, axis=-1)
        y = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, t, d)
        return self.head(y).reshape(-1, 5)


def _losses(enable, steps=4):
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=enable)
    try:
        ms.set_seed(0)
        rng = np.random.default_rng(0)
        net = _Attention()
        x = ms.Tensor(rng.standard_normal((2, 8, 16)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 5, 16).astype(np.int32))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), 1e-2))
        step.set_train()
        return [float(step(x, y).asnumpy()) for _ in range(steps)]
    finally:
        ms.set_context(enable_graph_kernel=False, mode=ms.PYNATIVE_MODE)


def test_training_with_fused_attention_gives_the_same_losses(tmp_path):
    off = _losses(False)
    ms.set_context(save_graphs_path=str(tmp_path), graph_kernel_flags="--dump_as_text")
    try:
        on = _losses(True)
    finally:
        ms.set_context(graph_kernel_flags="")
    np.testing.assert_allclose(on, off, rtol=1e-5)
    dumped = "".join(p.read_text() for p in (tmp_path / "graph_kernel_dump").glob("*.txt"))
    assert "FusedAttention" in dumped and "FusedAttentionGrad" in dumped
