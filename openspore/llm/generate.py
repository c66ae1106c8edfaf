"""`generate`: run a batch of prompts to completion on an LLMEngine (one prefill, then decode steps where each
finished sequence leaves the batch and frees its blocks at once). Used by tests and as a baseline.

>>> from openspore.llm import GPT, GPTConfig, LLMEngine, SamplingParams, generate
>>> engine = LLMEngine(GPT(GPTConfig(vocab_size=32, n_positions=32, n_embd=16, n_layer=1, n_head=2)),
...                    block_size=4, max_batch_size=2)
>>> out = generate(engine, [[1, 2, 3], [4]], SamplingParams(max_tokens=5, temperature=0))
>>> [len(o) for o in out], engine.num_free_blocks() == engine.num_blocks
([5, 5], True)
"""
import itertools

from .sampling import Sampler, SamplingParams, find_stop

_ids = itertools.count()


def generate(engine, prompts, params=None, *, detokenize=None):
    """Generated token ids per prompt (stop tokens and the token completing a stop string are not included).

    `params`: one SamplingParams for all prompts or a list, one each (default: SamplingParams()). Stop strings need
    `detokenize` (token ids → str, e.g. a tokenizer's decode). A sequence also ends when prompt + output reach the engine's max_model_len."""
    prompts = [list(p) for p in prompts]
    if params is None:
        params = SamplingParams()
    if isinstance(params, SamplingParams):
        params = [params] * len(prompts)
    params = list(params)
    if len(params) != len(prompts):
        raise ValueError(f"generate: {len(params)} SamplingParams for {len(prompts)} prompts.")
    samplers = [Sampler(p) for p in params]
    if any(p.stop for p in params) and detokenize is None:
        raise ValueError("generate: stop strings need 'detokenize' (a function from token ids to text).")
    if not prompts:
        return []
    seq_ids = [("generate", next(_ids), i) for i in range(len(prompts))]
    outputs = [[] for _ in prompts]
    running = []
    try:
        logits = engine.prefill(seq_ids, prompts)
        running = list(range(len(prompts)))
        while running:
            step, tokens = [], []
            for row, i in enumerate(running):
                token = samplers[i].next_token(logits[row], prompts[i] + outputs[i])
                if _finished(engine, samplers[i], seq_ids[i], outputs[i], token, detokenize):
                    engine.free(seq_ids[i])
                    continue
                step.append(i)
                tokens.append(token)
            running = step
            if running:
                logits = engine.decode([seq_ids[i] for i in running], tokens)
    finally:
        for i in running:
            if seq_ids[i] in engine.pool:
                engine.free(seq_ids[i])
    return outputs


def _finished(engine, sampler, seq_id, output, token, detokenize):
    """Record `token` unless it stops the sequence; True when the sequence is done."""
    params = sampler.params
    if sampler.is_stop_token(token):
        return True
    if params.stop and find_stop(detokenize(output + [token]), params.stop) >= 0:
        return True
    output.append(token)
    # the engine holds the prompt and all but the newest output token: prompt + output stays <= max_model_len
    return len(output) >= params.max_tokens or engine.seq_len(seq_id) + 1 >= engine.max_model_len
