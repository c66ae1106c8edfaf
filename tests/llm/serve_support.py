"""Helpers of the generation-serving tests: a tiny randomly initialised GPT saved as a checkpoint + config, the
byte-level tokenizer, and generation servable directories written from text.

The model is small (2 layers, 32 wide) so compiling its two graphs and serving it stays quick on CPU; its weights
are random but fixed by a seed, so greedy outputs are deterministic and differ between prompts.
"""
import json
import os
import textwrap

import numpy as np

from openspore.llm.tokenizer import ByteTokenizer  # noqa: F401  (the tests' tokenizer, re-exported)

VOCAB = ByteTokenizer.vocab_size   # 256 bytes + the end-of-text id


def tiny_config(max_positions=512):
    from openspore.llm.config import GPTConfig
    return GPTConfig(vocab_size=VOCAB, n_positions=max_positions, n_embd=32, n_layer=2, n_head=2)


def save_tiny_model(folder, seed=7, max_positions=512):
    """Write `gpt.ckpt` and `config.json` of a randomly initialised tiny GPT into `folder`."""
    import openspore as ms
    from openspore.llm.model import GPT
    os.makedirs(folder, exist_ok=True)
    ms.set_seed(seed)
    np.random.seed(seed)
    config = tiny_config(max_positions)
    model = GPT(config)
    ms.save_checkpoint(model, os.path.join(folder, "gpt.ckpt"))
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config.to_dict(), f)
    return os.path.join(folder, "gpt.ckpt"), os.path.join(folder, "config.json")


def load_engine(folder, **engine_kw):
    from openspore.llm.engine import LLMEngine
    return LLMEngine.from_checkpoint(os.path.join(folder, "gpt.ckpt"), os.path.join(folder, "config.json"),
                                     **engine_kw)


def write_llm_servable(root, name, model_folder, **declare_kw):
    """`<root>/<name>/servable_config.py` declaring a generation servable over the model in `model_folder`, with
    openspore's ByteTokenizer."""
    folder = os.path.join(root, name)
    os.makedirs(os.path.join(folder, "1"), exist_ok=True)
    for file in ("gpt.ckpt", "config.json"):
        target = os.path.join(folder, "1", file)
        if not os.path.exists(target):
            os.symlink(os.path.join(model_folder, file), target)
    args = ", ".join(f"{k}={v!r}" for k, v in declare_kw.items())
    with open(os.path.join(folder, "servable_config.py"), "w") as f:
        f.write(textwrap.dedent(f"""\
            from openspore.serving.server import register
            from openspore.llm.tokenizer import ByteTokenizer

            register.declare_llm_servable(checkpoint="gpt.ckpt", config="config.json", tokenizer=ByteTokenizer(),
                                          {args})
            """))
    return folder


def mixed_requests(count, seed=0):
    """`count` (prompt text, max_tokens) pairs with mixed prompt and output lengths (ASCII prompts)."""
    rng = np.random.default_rng(seed)
    words = ["the", "model", "serves", "tokens", "in", "batches", "while", "clients", "wait", "stream", "a"]
    out = []
    for i in range(count):
        text = " ".join(rng.choice(words, size=int(rng.integers(1, 12))))
        out.append((f"{i}: {text}", int(rng.integers(3, 40))))
    return out
