"""Ragged decode attention: the kernel equals plain masked attention over each row's own positions; row_spans'
splits; KVView places joining sequences by length; an engine with ragged_decode
gives the greedy tokens and logits of one without, with sequences of mixed lengths joining and leaving."""
import numpy as np
import pytest

import openspore as ms
from openspore.llm import GPT, GPTConfig, LLMEngine
from openspore.llm.kv_view import KVView
from openspore.llm.model import _NEG
from openspore.llm.ragged_attention import RaggedDecodeAttention, row_spans, split_cost


def _reference(q, keys, values, lengths):
    """softmax over each row's first lengths[b] positions, computed row by row in float64."""
    out = np.empty(q.shape, np.float64)
    for b, n in enumerate(lengths):
        scores = q[b] @ keys[b, :, :n].swapaxes(-1, -2)              # [H, 1, n]
        p = np.exp(scores - scores.max(-1, keepdims=True))
        out[b] = (p / p.sum(-1, keepdims=True)) @ values[b, :, :n]
    return out


@pytest.mark.parametrize("backend_kernel", ["torch", "numpy"])
def test_kernel_equals_attention_over_own_positions(backend_kernel):
    rng = np.random.default_rng(0)
    rows, heads, length, dim, batch = 6, 2, 48, 8, 5     # rows counts the view's scratch row
    buffer = rng.standard_normal((2 * rows * heads * length, dim)).astype(np.float32)
    grid = buffer.reshape(2, rows, heads, length, dim)
    lengths = np.array([40, 33, 7, 9, 1])
    spans = np.array([48, 48, 16, 16, 16])                # two runs; every span >= its rows' lengths
    q = rng.standard_normal((batch, heads, 1, dim)).astype(np.float32)
    mask = np.where(np.arange(length)[None, :] < lengths[:, None], 0.0, _NEG).astype(np.float32)[:, None, None]
    op = RaggedDecodeAttention(rows=rows, length=length)
    if backend_kernel == "numpy":
        got = op.numpy(np, q, buffer, mask, spans)
    else:
        got = op(ms.Tensor(q), ms.Tensor(buffer), ms.Tensor(mask), ms.Tensor(spans)).asnumpy()
    want = _reference(q.astype(np.float64), grid[0, :batch], grid[1, :batch], lengths)
    assert got.shape == (batch, heads, 1, dim)
    np.testing.assert_allclose(got, want, atol=2e-6, rtol=1e-5)


def test_row_spans_cover_each_row_in_aligned_runs():
    lengths = np.array([130, 120, 20, 18, 3, 140, 150, 1])
    for cost in (0, 100, 400, 10 ** 6):
        spans = row_spans(lengths, group_cost=cost)
        assert (spans >= lengths).all() and (spans % 16 == 0).all()
        runs = np.split(spans, np.flatnonzero(np.diff(spans)) + 1)
        starts = np.cumsum([0] + [len(r) for r in runs[:-1]])
        for start, run in zip(starts, runs):   # a run reads its longest row's aligned length, no more
            assert run[0] == -(-lengths[start:start + len(run)].max() // 16) * 16
    assert row_spans(lengths, group_cost=0).tolist() == [144, 128, 32, 32, 16, 144, 160, 16]
    assert set(row_spans(lengths, group_cost=10 ** 6).tolist()) == {160}
    assert split_cost([20, 3], group_cost=7) == min(2 * 32 + 7, 32 + 16 + 2 * 7)   # rows x span + 7 a run


def test_view_places_by_length():
    view = KVView(n_layer=1, n_head=1, head_dim=2, rows=8, length=256)
    moves = view.place(list("abcdef"), 6, lengths=[30, 200, 20, 190, 25, 180])
    # into an empty view: descending length, so the long three and the short three each form one run
    assert sorted(moves, key=lambda m: m[1]) == [("b", 0), ("d", 1), ("f", 2), ("a", 3), ("e", 4), ("c", 5)]
    assert row_spans([200, 190, 180, 30, 25, 20]).tolist() == [208] * 3 + [32] * 3
    view.drop("d")
    view.drop("a")                            # rows 1 and 3 free; a long and a short sequence join
    moves = dict(view.place(list("bfecgh"), 6, lengths=[201, 181, 26, 21, 195, 28]))
    assert moves == {"g": 1, "h": 3}          # each next to its like, not the lowest free row first
    assert view.place(list("bfecgh"), 6, lengths=[202, 182, 27, 22, 196, 29]) == []   # nobody moves
    plain = KVView(n_layer=1, n_head=1, head_dim=2, rows=8, length=256)
    assert plain.place(list("abc"), 3) == [("a", 0), ("b", 1), ("c", 2)]   # without lengths: the lowest rows


def test_engine_ragged_matches_plain_decode():
    cfg = GPTConfig(vocab_size=61, n_positions=128, n_embd=32, n_layer=2, n_head=4)
    net = GPT(cfg)
    rng = np.random.default_rng(1)
    for p in net.get_parameters():
        p.set_data(ms.Tensor((rng.standard_normal(p.shape) * 0.3).astype(np.float32)))
    engines = [LLMEngine(net, block_size=4, max_batch_size=6, max_model_len=128, ragged_decode=flag)
               for flag in (True, False)]
    assert engines[0].ragged_decode and not engines[1].ragged_decode
    prompts = [rng.integers(0, cfg.vocab_size, int(n)).tolist() for n in (3, 70, 12, 55, 9, 90, 30, 5)]
    budget = [20, 9, 30, 14, 25, 12, 18, 22]
    for engine in engines:
        engine.trace = {}
        waiting, running, nxt = list(range(len(prompts))), [], {}
        while waiting or running:
            joining = waiting[:6 - len(running)]
            waiting = waiting[len(joining):]
            if joining:
                for i, row in zip(joining, engine.prefill(joining, [prompts[i] for i in joining])):
                    nxt[i], engine.trace[i] = int(np.argmax(row)), [row]
                running += joining
            out = engine.decode(running, [nxt[i] for i in running])
            for i, row in zip(running, out):
                engine.trace[i].append(row)
                nxt[i] = int(np.argmax(row))
            for i in [i for i in running if len(engine.trace[i]) > budget[i]]:
                running.remove(i)
                engine.free(i)
    ragged, plain = engines
    for i in range(len(prompts)):
        a, b = np.array(ragged.trace[i]), np.array(plain.trace[i])
        assert (a.argmax(-1) == b.argmax(-1)).all()
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="ragged_decode"):
        LLMEngine(net, block_size=4, ragged_decode="yes")
