"""Tensor-parallel inference over real processes on 127.0.0.1 gives the tokens of one process."""
import json
import os

import numpy as np
import pytest

import openspore as ms
from openspore.llm import GPT, GPTConfig, LLMEngine, SamplingParams, generate
from openspore.llm.scheduler import ContinuousBatchingScheduler
from openspore.llm.tensor_parallel import GPTShard, TensorParallelEngine, shard_gpt_params
from tests.communication.launch import run_workers

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPTS = [[1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11, 12], [13], [20, 21, 22, 23, 24]]
MAX_TOKENS = 12
CFG = GPTConfig(vocab_size=40, n_positions=48, n_embd=32, n_layer=2, n_head=4)


def write_model(directory, cfg=CFG, seed=0):
    """A GPT with large random weights (so greedy tokens vary), saved as checkpoint + config JSON."""
    rng = np.random.default_rng(seed)
    net = GPT(cfg)
    params = {}
    for name, p in net.parameters_and_names():
        value = rng.normal(0, 0.4, p.shape) if not name.endswith("gamma") else 1 + rng.normal(0, 0.1, p.shape)
        params[name] = ms.Tensor(value.astype(np.float32))
    ckpt, config = os.path.join(directory, "gpt.ckpt"), os.path.join(directory, "config.json")
    ms.save_checkpoint(params, ckpt)
    cfg.save(config)
    return ckpt, config


def one_process(ckpt, config):
    engine = LLMEngine.from_checkpoint(ckpt, config, block_size=4, max_batch_size=4, max_model_len=48)
    greedy = SamplingParams(max_tokens=MAX_TOKENS, temperature=0)
    tokens = generate(engine, PROMPTS, greedy)
    logits = engine.prefill(["probe"], [PROMPTS[1]])
    engine.free("probe")
    return tokens, logits, engine.pool_stats()["capacity_bytes"]


@pytest.mark.parametrize("size", [2, 4])
def test_tensor_parallel_matches_one_process(tmp_path, size):
    ckpt, config = write_model(str(tmp_path))
    prompts = os.path.join(str(tmp_path), "prompts.json")
    with open(prompts, "w") as f:
        json.dump(PROMPTS, f)
    tokens, logits, pool_bytes = one_process(ckpt, config)
    assert len({tuple(t) for t in tokens}) > 1 and len(set(tokens[1])) > 1  # the check below can fail
    results = run_workers(os.path.join(HERE, "tp_worker.py"), size, tmp_path, ckpt, config, prompts,
                          str(MAX_TOKENS), timeout=300)
    lead = results[0]
    assert lead["tokens"] == tokens
    assert lead["scheduled"] == tokens  # the continuous-batching scheduler drives it unchanged
    np.testing.assert_allclose(np.array(lead["logits"]), logits, atol=1e-4)
    assert [r["rank"] for r in results] == list(range(size))
    assert all(r["free_after"] for r in results)
    assert all(r["calls"] > 0 for r in results[1:])  # the followers ran every mirrored call
    assert all(r["pool_bytes"] * size == pool_bytes for r in results)  # each rank's pool holds its heads only


def test_shards_sum_to_the_full_model():
    """In one process: the slices of 2 ranks, run by hand, add up to the full model's projections."""
    cfg = GPTConfig(vocab_size=16, n_positions=8, n_embd=8, n_layer=1, n_head=2)
    full = {n: p.asnumpy() for n, p in GPT(cfg).parameters_and_names()}
    x = np.random.default_rng(1).normal(size=(3, 8)).astype(np.float32)
    parts = [shard_gpt_params(full, cfg, r, 2) for r in range(2)]
    hidden = [np.maximum(x @ p["blocks.0.mlp.c_fc.weight"].T + p["blocks.0.mlp.c_fc.bias"], 0) for p in parts]
    summed = sum(h @ p["blocks.0.mlp.c_proj.weight"].T for h, p in zip(hidden, parts))
    whole = np.maximum(x @ full["blocks.0.mlp.c_fc.weight"].T + full["blocks.0.mlp.c_fc.bias"], 0)
    np.testing.assert_allclose(summed, whole @ full["blocks.0.mlp.c_proj.weight"].T, rtol=1e-5, atol=1e-5)
    qkv = np.concatenate([x @ p["blocks.0.attn.c_attn.weight"].T for p in parts], 1)  # [q0 k0 v0 q1 k1 v1]
    ref = x @ full["blocks.0.attn.c_attn.weight"].T
    np.testing.assert_allclose(qkv[:, [0, 1, 2, 3, 12, 13, 14, 15]], ref[:, :8], rtol=1e-5, atol=1e-5)


def test_bad_splits_are_refused():
    with pytest.raises(ValueError, match="n_head=4 cannot be split over 3"):
        GPTShard(CFG, 0, 3)
    with pytest.raises(ValueError, match="outside"):
        shard_gpt_params({}, CFG, 2, 2)
    with pytest.raises(TypeError, match="GPTShard"):
        TensorParallelEngine(GPT(GPTConfig(vocab_size=8, n_positions=8, n_embd=8, n_layer=1, n_head=2)))
    with pytest.raises(ValueError, match="lack"):
        GPTShard(CFG, 0, 2).load_full({})


def test_one_rank_engine_equals_llm_engine(tmp_path):
    ckpt, config = write_model(str(tmp_path))
    tokens, _, _ = one_process(ckpt, config)
    engine = TensorParallelEngine.from_checkpoint(ckpt, config, rank=0, size=1, block_size=4, max_batch_size=4,
                                                  max_model_len=48)
    scheduler = ContinuousBatchingScheduler(engine, max_queue=8, max_running=2)
    try:
        greedy = SamplingParams(max_tokens=MAX_TOKENS, temperature=0)
        handles = [scheduler.submit(p, greedy, ignore_eos=True) for p in PROMPTS]
        assert [h.result() for h in handles] == tokens
    finally:
        scheduler.stop()


def test_rank_checkpoints_load_as_the_full_one(tmp_path):
    from openspore.llm.tensor_parallel import save_rank_checkpoints
    from openspore.train.serialization import load_checkpoint
    ckpt, config = write_model(str(tmp_path))
    paths = save_rank_checkpoints(ckpt, config, 2, str(tmp_path))
    full = load_checkpoint(ckpt)
    for rank, path in enumerate(paths):
        from_full = GPTShard(CFG, rank, 2).load_full(full)
        from_rank = GPTShard(CFG, rank, 2).load_full(load_checkpoint(path))
        for (name, a), (_, b) in zip(from_full.parameters_and_names(), from_rank.parameters_and_names()):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=name)
