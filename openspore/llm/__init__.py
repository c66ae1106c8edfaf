"""openspore.llm: a GPT-2-architecture decoder and incremental (state-reuse) inference over a paged key/value pool.

* `GPTConfig`, `GPT` (model.py): the decoder as a Cell; `to_hf_gpt2_state_dict` maps its weights to Hugging Face.
* `LLMEngine` (engine.py): prefill and decode as two compiled graphs sharing a paged block pool (kv_pool.py).
  Decode reads the running sequences' keys/values from a row-contiguous copy beside the pool (kv_view.py).
* `SamplingParams`, `Sampler` (sampling.py) and `generate` (generate.py): greedy and sampled generation.
"""
from .config import GPTConfig
from .engine import LLMEngine
from .generate import generate
from .kv_pool import KVPool, OutOfBlocks
from .model import GPT, to_hf_gpt2_state_dict
from .sampling import Sampler, SamplingParams

__all__ = ["GPTConfig", "GPT", "to_hf_gpt2_state_dict", "LLMEngine", "KVPool", "OutOfBlocks",
           "SamplingParams", "Sampler", "generate"]
