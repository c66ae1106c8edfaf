"""openspore.llm's engine against Hugging Face `transformers` on the same GPT-2 weights, side by side in one
process (ratios of medians, alternating rounds, so the machine's load hits both alike).

    python bench/llm_engine.py                       # n_embd 256, 4 layers, 16 sequences, 64 new tokens
    python bench/llm_engine.py --n-embd 128 --rounds 5 --threads 1

Rows:
* decode step: one token for each of 16 running sequences (openspore: `LLMEngine.decode`, logits back as numpy;
  HF: `GPT2LMHeadModel` forward with `past_key_values` and the attention mask, torch no_grad) at the same context
  lengths;
* generate: 16 prompts of mixed lengths, greedy, 64 new tokens each, tokens/s (openspore: `openspore.llm.generate`,
  prefill + decode graphs; HF: `model.generate` on the left-padded batch, `min_new_tokens` = `max_new_tokens`).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def build(args):
    import torch
    import transformers

    from openspore.llm import GPT, GPTConfig, LLMEngine, to_hf_gpt2_state_dict
    cfg = GPTConfig(vocab_size=args.vocab, n_positions=512, n_embd=args.n_embd, n_layer=args.n_layer,
                    n_head=args.n_head)
    net = GPT(cfg)
    engine = LLMEngine(net, block_size=16, max_batch_size=args.batch, max_model_len=args.max_model_len,
                       decode_attention=args.decode_attention)
    hf_cfg = transformers.GPT2Config(vocab_size=cfg.vocab_size, n_positions=cfg.n_positions, n_embd=cfg.n_embd,
                                     n_layer=cfg.n_layer, n_head=cfg.n_head, activation_function="gelu_new",
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, pad_token_id=0,
                                     bos_token_id=0, eos_token_id=0)
    hf = transformers.GPT2LMHeadModel(hf_cfg).eval()
    hf.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in to_hf_gpt2_state_dict(net.parameters_dict()).items()},
                       strict=False)
    return engine, hf


def time_decode(engine, hf, prompts, steps):
    """Seconds per decode step (median over `steps`), each side from the same prefilled state."""
    import torch
    ids = list(range(len(prompts)))
    engine.prefill(ids, prompts)
    ours = []
    for _ in range(steps):
        t = time.perf_counter()
        engine.decode(ids, [1] * len(ids))
        ours.append(time.perf_counter() - t)
    for s in ids:
        engine.free(s)
    width = max(len(p) for p in prompts)
    batch = torch.zeros((len(prompts), width), dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):  # left padding, as generate() does for a decoder-only model
        batch[i, width - len(p):] = torch.tensor(p)
        mask[i, width - len(p):] = 1
    theirs = []
    with torch.no_grad():
        out = hf(batch, attention_mask=mask, use_cache=True)
        past = out.past_key_values
        token = torch.ones((len(prompts), 1), dtype=torch.long)
        for _ in range(steps):
            mask = torch.cat([mask, torch.ones((len(prompts), 1), dtype=torch.long)], 1)
            t = time.perf_counter()
            out = hf(token, attention_mask=mask, past_key_values=past, use_cache=True)
            out.logits.numpy()
            theirs.append(time.perf_counter() - t)
            past = out.past_key_values
    return statistics.median(ours), statistics.median(theirs)


def time_generate(engine, hf, prompts, new_tokens):
    """Generated tokens per second of each side (greedy, every sequence runs to new_tokens)."""
    import torch

    from openspore.llm import SamplingParams, generate
    t = time.perf_counter()
    out = generate(engine, prompts, SamplingParams(max_tokens=new_tokens, temperature=0))
    ours = sum(len(o) for o in out) / (time.perf_counter() - t)
    width = max(len(p) for p in prompts)
    batch = torch.zeros((len(prompts), width), dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        batch[i, width - len(p):] = torch.tensor(p)
        mask[i, width - len(p):] = 1
    t = time.perf_counter()
    with torch.no_grad():
        seqs = hf.generate(batch, attention_mask=mask, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                           do_sample=False, pad_token_id=0)
    theirs = (seqs.shape[0] * (seqs.shape[1] - width)) / (time.perf_counter() - t)
    return ours, theirs, out, seqs[:, width:].tolist()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-embd", type=int, default=256)
    parser.add_argument("--n-layer", type=int, default=4)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=256)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--max-model-len", type=int, default=192)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--decode-steps", type=int, default=20)
    parser.add_argument("--decode-attention", default="auto", choices=("auto", "tables", "pool", "view"))
    parser.add_argument("--threads", type=int, default=0, help="torch threads for both sides (0: torch's default)")
    args = parser.parse_args(argv)
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    engine, hf = build(args)
    rng = np.random.default_rng(0)
    prompts = [rng.integers(1, args.vocab, int(n)).tolist() for n in rng.integers(16, 96, args.batch)]
    engine.prefill(["warm"], [prompts[0]])  # compile both graphs before timing
    engine.decode(["warm"], [1])
    engine.free("warm")
    rows = {"decode": [], "generate": []}
    same = None
    for r in range(args.rounds):
        ours, theirs = time_decode(engine, hf, prompts, args.decode_steps)
        rows["decode"].append((ours, theirs))
        ours_tps, theirs_tps, out, ref = time_generate(engine, hf, prompts, args.new_tokens)
        rows["generate"].append((ours_tps, theirs_tps))
        same = sum(a == b for a, b in zip(out, ref))
        print(f"round {r}: decode {ours * 1e3:.2f} ms vs HF {theirs * 1e3:.2f} ms; generate {ours_tps:.0f} vs "
              f"{theirs_tps:.0f} tokens/s", flush=True)
    print(f"\nGPT n_embd={args.n_embd} n_layer={args.n_layer} n_head={args.n_head} vocab={args.vocab}, "
          f"{args.batch} sequences, max_model_len {args.max_model_len}, decode attention "
          f"{'pool' if engine.decode_over_pool else 'tables'}, torch threads {torch.get_num_threads()}, {args.rounds} rounds (medians)")
    print(f"{'row':<34}{'openspore':>12}{'HF transformers':>17}{'ratio':>8}")
    d_ours = statistics.median(o for o, _ in rows["decode"])
    d_hf = statistics.median(t for _, t in rows["decode"])
    print(f"{'decode step, batch %d (ms)' % args.batch:<34}{d_ours * 1e3:>12.2f}{d_hf * 1e3:>17.2f}"
          f"{d_hf / d_ours:>7.2f}x")
    g_ours = statistics.median(o for o, _ in rows["generate"])
    g_hf = statistics.median(t for _, t in rows["generate"])
    print(f"{'generate %d new tokens (tokens/s)' % args.new_tokens:<34}{g_ours:>12.0f}{g_hf:>17.0f}"
          f"{g_ours / g_hf:>7.2f}x")
    print(f"greedy outputs identical to HF's for {same}/{args.batch} sequences")
    print(f"compilations: {engine.compile_counts()}")


if __name__ == "__main__":
    main()
