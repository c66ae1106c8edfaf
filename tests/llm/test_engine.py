"""LLMEngine: incremental decoding over the paged pool gives the logits and tokens of full recomputation, with
sequences joining and leaving between steps, two graphs compiled once each; the pool's memory; refused requests."""
import numpy as np
import pytest

import openspore as ms
from openspore.llm import GPT, GPTConfig, LLMEngine, OutOfBlocks

CFG = GPTConfig(vocab_size=61, n_positions=128, n_embd=32, n_layer=2, n_head=4)


def make_model(seed=0, cfg=CFG):
    net = GPT(cfg)
    rng = np.random.default_rng(seed)  # weights large enough that the greedy choice is far from ties
    for p in net.get_parameters():
        p.set_data(ms.Tensor((rng.standard_normal(p.shape) * 0.3).astype(np.float32)))
    return net


def full_logits(net, tokens):
    """Logits of full recomputation: row t is the next-token distribution after tokens[:t + 1]."""
    return net(ms.Tensor(np.array([tokens], np.int32))).asnumpy()[0]


def _run_schedule(engine, prompts, starts, new_tokens, rng):
    """Greedy decoding; sequence i joins (prefill) at step starts[i] and leaves after new_tokens tokens. Each
    step decodes the running sequences in a shuffled order, sometimes leaving one out for a step."""
    seqs = {i: list(p) for i, p in enumerate(prompts)}
    logged = {i: [] for i in seqs}  # the engine's next-token logits after each token of sequence i
    pending = {}
    running = []
    step = 0
    while len(running) or len(pending) or any(starts[i] >= step for i in seqs):
        joining = [i for i in seqs if starts[i] == step]
        if joining:
            out = engine.prefill([f"s{i}" for i in joining], [prompts[i] for i in joining])
            for i, row in zip(joining, out):
                logged[i].append(row)
                pending[i] = int(np.argmax(row))
                running.append(i)
        batch = [i for i in running if not (step % 5 == 3 and i == running[0])]  # one sequence sits out
        rng.shuffle(batch)
        if batch:
            out = engine.decode([f"s{i}" for i in batch], [pending[i] for i in batch])
            for i, row in zip(batch, out):
                seqs[i].append(pending[i])
                logged[i].append(row)
                pending[i] = int(np.argmax(row))
                if len(seqs[i]) - len(prompts[i]) == new_tokens:
                    engine.free(f"s{i}")
                    running.remove(i)
                    del pending[i]
        step += 1
        assert step < 1000
    return seqs, logged


@pytest.mark.parametrize("mode,attention,buckets", [(ms.PYNATIVE_MODE, "auto", True), (ms.GRAPH_MODE, "auto", False),
                                                    (ms.PYNATIVE_MODE, "tables", True),
                                                    (ms.GRAPH_MODE, "tables", False),
                                                    (ms.PYNATIVE_MODE, "pool", True)])
def test_incremental_equals_full_recompute(mode, attention, buckets):
    # decode reads the keys/values through the row view (auto, for this pool size) or through the block tables,
    # with length buckets (1, 2, ..., 8, 10, 12, 14 blocks) and row buckets (1, 2, 3, 4), or one shape (4 rows x 14
    # blocks), or attends over the whole pool. Up to 6 sequences run in a 4-row batch (decode calls of 6 are
    # split in two), so the view's rows change hands and are refilled from the pool.
    net = make_model()
    rng = np.random.default_rng(1)
    lengths = [5, 23, 11, 40, 1, 17]
    prompts = [rng.integers(0, CFG.vocab_size, n).tolist() for n in lengths]
    starts = [0, 0, 7, 20, 21, 21]
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        engine = LLMEngine(net, block_size=8, max_batch_size=4, max_model_len=112, decode_attention=attention,
                           shape_buckets=buckets)
        assert engine.decode_over_pool == (attention == "pool")
        assert engine.prefill_buckets == ([16, 32, 48, 64, 80, 96, 112] if buckets else [112])
        assert (engine.view is not None) == (attention == "auto")
        assert engine.decode_buckets == ([1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14] if buckets and attention != "pool"
                                         else [14])
        assert engine.decode_row_buckets == ([1, 2, 3, 4] if buckets else [4])
        warm = engine.warm_up()       # every bucket compiled once, before any sequence
        # prefill: 1, 2, 4 rows of each width bucket (rows x width <= 1024 tokens), or one shape (4 rows x 112)
        widths = (16, 32, 48, 64, 80, 96, 112)
        assert engine.prefill_shapes == ([(r, w) for w in widths for r in (1, 2, 4)] if buckets else [(4, 112)])
        want = {"prefill": len(engine.prefill_shapes),
                "decode": len(engine.decode_buckets) * len(engine.decode_row_buckets)}
        if engine.view is not None:   # view refills and flushes of 8, 16, ..., 448 tokens (4 rows x 112)
            assert engine.fill_buckets == [8, 16, 32, 64, 128, 256, 448]
            want["fill"] = want["flush"] = len(engine.fill_buckets)
        assert warm == want
        assert engine.num_free_blocks() == engine.num_blocks
        seqs, logged = _run_schedule(engine, prompts, starts, 64, rng)
        counts = engine.compile_counts()
    finally:
        ms.set_context(mode=old)
    assert counts == warm  # every step reused the bucket's graph
    for i, tokens in seqs.items():
        n = len(prompts[i])
        assert len(tokens) == n + 64
        ref = full_logits(net, tokens)[n - 1:]          # after the prompt, then after each generated token
        got = np.stack(logged[i])[:len(ref)]
        np.testing.assert_allclose(got, ref, atol=1e-4, rtol=0, err_msg=f"sequence {i}")
        assert tokens[n:] == [int(t) for t in np.argmax(ref[:-1], -1)]  # the same greedy tokens
    assert engine.num_free_blocks() == engine.num_blocks and engine.pool_stats()["num_sequences"] == 0


def test_paged_memory_is_within_ten_percent_of_the_true_state():
    # The true state of a sequence of n tokens is n × 2 (K and V) × n_layer × n_embd × 4 bytes; the pool holds
    # ceil(n / block_size) blocks of block_size tokens for it, so it wastes < block_size tokens per sequence.
    net = make_model()
    engine = LLMEngine(net, block_size=8, max_batch_size=8, max_model_len=128)
    rng = np.random.default_rng(2)
    lengths = [97, 70, 120, 83, 101, 75, 110, 88]
    engine.prefill(list(range(8)), [rng.integers(0, CFG.vocab_size, n).tolist() for n in lengths])
    engine.decode(list(range(8)), [1] * 8)
    stats = engine.pool_stats()
    per_token = 2 * CFG.n_layer * CFG.n_embd * 4
    assert stats["true_bytes"] == sum(n + 1 for n in lengths) * per_token
    assert stats["used_bytes"] == sum(-(-(n + 1) // 8) * 8 for n in lengths) * per_token
    assert stats["used_bytes"] <= 1.1 * stats["true_bytes"]
    # a contiguous cache reserving max_model_len per sequence would hold far more
    assert 8 * 128 * per_token > 1.3 * stats["used_bytes"]
    # decode's KVView (auto here) is an extra cache beside the pool, counted apart: max_batch_size rows of
    # max_model_len tokens plus a scratch row
    assert engine.view is not None and stats["view_bytes"] == (8 + 1) * 128 * per_token


def test_out_of_blocks_leaves_the_pool_unchanged():
    net = make_model()
    engine = LLMEngine(net, block_size=4, num_blocks=6, max_batch_size=4, max_model_len=32)
    engine.prefill(["a"], [[1, 2, 3, 4, 5, 6, 7, 8]])           # 2 blocks
    engine.prefill(["b"], [[3, 4, 5, 6, 7, 8, 9, 10, 11, 12]])  # 3 blocks
    before = engine.pool.snapshot()
    state = [p.asnumpy().copy() for p in engine.pool.parameters]
    with pytest.raises(OutOfBlocks, match="1 free block"):
        engine.prefill(["c", "d"], [[1], [2, 3, 4, 5, 6]])      # needs 1 + 2
    assert engine.pool.snapshot() == before and "c" not in engine.pool
    assert all(np.array_equal(p.asnumpy(), s) for p, s in zip(engine.pool.parameters, state))  # no key/value written
    engine.decode(["b"], [3])                                   # b: 11 tokens, still 3 blocks
    engine.prefill(["c"], [[7]])                                # c takes the last free block
    before = engine.pool.snapshot()
    with pytest.raises(OutOfBlocks, match="0 free block"):
        engine.decode(["b", "a"], [1, 1])                       # b fits, a would need a 3rd block: neither grows
    assert engine.pool.snapshot() == before
    engine.free("c")
    out = engine.decode(["b", "a"], [1, 1])
    assert out.shape == (2, CFG.vocab_size) and (engine.seq_len("b"), engine.seq_len("a")) == (12, 9)
    assert engine.num_free_blocks() == 0


def test_bad_input_errors():
    engine = LLMEngine(make_model(), block_size=4, max_batch_size=2, max_model_len=16)
    with pytest.raises(ValueError, match="2 seq_ids but 1 prompts"):
        engine.prefill(["a", "b"], [[1]])
    with pytest.raises(ValueError, match="is empty"):
        engine.prefill(["a"], [[]])
    with pytest.raises(ValueError, match=r"token id 61 outside \[0, 61\)"):
        engine.prefill(["a"], [[1, 61]])
    with pytest.raises(ValueError, match="17 tokens, more than max_model_len=16"):
        engine.prefill(["a"], [list(range(17))])
    with pytest.raises(ValueError, match="list of int token ids"):
        engine.prefill(["a"], [[1.5]])
    with pytest.raises(KeyError, match="unknown sequence 'zz'"):
        engine.decode(["zz"], [1])
    engine.prefill(["a"], [list(range(15))])
    with pytest.raises(ValueError, match="already running"):
        engine.prefill(["a"], [[1]])
    engine.decode(["a"], [1])
    with pytest.raises(ValueError, match="already holds max_model_len=16"):
        engine.decode(["a"], [1])
    with pytest.raises(ValueError, match="cannot exceed the model's n_positions"):
        LLMEngine(make_model(), max_model_len=500)
    with pytest.raises(TypeError, match="expects an openspore.llm.GPT"):
        LLMEngine(object())
    engine.free("a")
    with pytest.raises(KeyError, match="already freed"):
        engine.free("a")


def test_view_rows_change_hands_and_reused_ids_are_refilled():
    # A freed sequence id started again with another prompt must not read its old row; a decode call that shrinks
    # the row bucket moves sequences to lower rows (refilled from the pool); each step's logits stay exact. Decode
    # writes the new token into the view only, so this also checks that a running sequence moved out of its row
    # gets its decoded tokens back into the pool (a, b, c, d below, later refilled from it).
    net = make_model()
    engine = LLMEngine(net, block_size=4, max_batch_size=6, max_model_len=64)
    assert engine.view is not None
    rng = np.random.default_rng(3)
    stored, nxt = {}, {}

    def start(names, lengths):
        prompts = [rng.integers(0, CFG.vocab_size, n).tolist() for n in lengths]
        for s, p, row in zip(names, prompts, engine.prefill(names, prompts)):
            stored[s], nxt[s] = p, int(np.argmax(row))

    def step(names):
        out = engine.decode(names, [nxt[s] for s in names])
        for s, row in zip(names, out):
            stored[s] = stored[s] + [nxt[s]]
            np.testing.assert_allclose(row, full_logits(net, stored[s])[-1], atol=1e-4, rtol=0, err_msg=s)
            nxt[s] = int(np.argmax(row))

    start(list("abcdef"), (9, 3, 14, 6, 11, 5))
    step(list("abcdef"))                       # 6 rows
    assert sorted(engine.view.row(s) for s in "abcdef") == list(range(6))
    displaced = {s for s in "abcd" if engine.view.row(s) < 2}
    step(["f", "e"])                           # a 2-row bucket: f and e move to rows 0 and 1
    assert {engine.view.row("f"), engine.view.row("e")} == {0, 1}
    assert displaced and not any(s in engine.view for s in displaced)   # their rows changed hands
    step(["c", "a", "f"])
    engine.free("a")
    assert "a" not in engine.view
    start(["a"], (7,))                         # the same id, another prompt
    step(list("fabcde"))
    step(list("edcbaf"))
    assert engine.pool_stats()["num_sequences"] == 6


def test_view_refuses_to_drop_unflushed_rows():
    from openspore.llm.kv_view import KVView
    view = KVView(n_layer=1, n_head=1, head_dim=2, rows=2, length=4)
    view.place(["a"], 2)
    view.synced[0], view.filled[0] = 1, 3
    with pytest.raises(ValueError, match=r"rows \[0\] hold decoded tokens that are not in the pool"):
        view.place(["b", "c"], 2)             # "a" would lose positions 1 and 2
    assert view.row("a") == 0 and "b" not in view   # nothing changed
    moved = []
    assert view.place(["b", "c"], 2, flush=moved.extend) == [("b", 0), ("c", 1)]
    assert moved == [("a", 0, 1, 3)] and "a" not in view and view.filled[0] == 0
