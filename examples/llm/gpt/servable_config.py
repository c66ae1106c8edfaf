"""The `gpt` servable: a small GPT trained on this repository's documentation, served for text generation.

The model files live in version folders, written by ../prepare.py: `gpt/1/gpt.ckpt` (MindSpore checkpoint),
`gpt/1/config.json` (its GPTConfig) and `gpt/1/tokenizer/`. `openspore serve examples/llm` then serves
`/v1/completions`, `/v1/chat/completions` and `/v1/models` on 127.0.0.1:1500 (model id "gpt"), with continuous
batching of up to 16 sequences over a paged key/value pool of 16-token blocks (docs/llm.md).
"""
from openspore.serving.server import register

register.declare_llm_servable(checkpoint="gpt.ckpt", config="config.json", tokenizer="tokenizer",
                              max_queue=64, default_max_tokens=64,
                              block_size=16, max_batch_size=16, num_blocks=512)
