"""`GPT`: a GPT-2-architecture decoder written as a MindSpore-style Cell (pre-LN blocks, learned positions,
tanh-approximated gelu — GPT-2's "gelu_new" — and an LM head tied to the token embedding).

Parameter names (stable: checkpoints, the engine and `to_hf_gpt2_state_dict` rely on them), for layer i:

    wte.embedding_table [vocab, C]            wpe.embedding_table [n_positions, C]
    blocks.i.ln_1.gamma / .beta [C]           blocks.i.attn.c_attn.weight [3C, C]  .bias [3C]   (q, k, v)
    blocks.i.attn.c_proj.weight [C, C] .bias  blocks.i.ln_2.gamma / .beta [C]
    blocks.i.mlp.c_fc.weight [4C, C] .bias    blocks.i.mlp.c_proj.weight [C, 4C] .bias
    ln_f.gamma / .beta [C]

Dense weights are [out, in] (MindSpore's layout); Hugging Face GPT-2 keeps them as Conv1D [in, out], so the
mapping transposes them.

>>> import numpy as np, openspore as ms
>>> from openspore.llm import GPT, GPTConfig
>>> net = GPT(GPTConfig(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2))
>>> net(ms.Tensor(np.array([[1, 2, 3]], np.int32))).shape
(1, 3, 32)
>>> sorted(to_hf_gpt2_state_dict(net.parameters_dict()))[:2]
['lm_head.weight', 'transformer.h.0.attn.c_attn.bias']
"""
import math

import numpy as np

from .. import nn, ops
from ..common import dtype as mstype
from ..common.initializer import Normal
from ..common.tensor import Tensor
from .config import GPTConfig

_NEG = -1e9  # an additive mask value: exp() of it underflows to exactly 0 in float32 and float16 softmax


def _dense(n_in, n_out, std, dtype):
    return nn.Dense(n_in, n_out, weight_init=Normal(std), bias_init="zeros", dtype=dtype)


class Attention(nn.Cell):
    """Causal multi-head self-attention: `c_attn` makes q, k, v at once, `c_proj` mixes the heads."""

    def __init__(self, config, dtype):
        super().__init__()
        c = config.n_embd
        self.n_head, self.head_dim = config.n_head, config.head_dim
        self.c_attn = _dense(c, 3 * c, 0.02, dtype)
        self.c_proj = _dense(c, c, 0.02 / math.sqrt(2 * config.n_layer), dtype)

    def construct(self, x, mask_add):
        b, t, c = x.shape
        qkv = ops.reshape(self.c_attn(x), (b, t, 3, self.n_head, self.head_dim))
        qkv = ops.transpose(qkv, (2, 0, 3, 1, 4))                      # [3, B, H, T, D]
        out = attend(qkv[0], qkv[1], qkv[2], mask_add, self.head_dim)  # [B, H, T, D]
        out = ops.reshape(ops.transpose(out, (0, 2, 1, 3)), (b, t, c))
        return self.c_proj(out)


def attend(q, k, v, mask_add, head_dim):
    """softmax(q kᵀ / √d + mask_add) v for q [.., Tq, D], k and v [.., Tk, D]; mask_add broadcasts to [.., Tq, Tk]
    (0 where a key is visible, a large negative number where it is not)."""
    scores = ops.matmul(q, ops.transpose(k, (0, 1, 3, 2))) * (1.0 / math.sqrt(head_dim)) + mask_add
    return ops.matmul(ops.softmax(scores, -1), v)


class MLP(nn.Cell):
    """c_fc (4× wider) → gelu (tanh form) → c_proj."""

    def __init__(self, config, dtype):
        super().__init__()
        c = config.n_embd
        self.c_fc = _dense(c, 4 * c, 0.02, dtype)
        self.c_proj = _dense(4 * c, c, 0.02 / math.sqrt(2 * config.n_layer), dtype)

    def construct(self, x):
        return self.c_proj(ops.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Cell):
    """A pre-LN transformer block: x + attn(ln_1(x)), then x + mlp(ln_2(x))."""

    def __init__(self, config, dtype):
        super().__init__()
        c, eps = config.n_embd, config.layer_norm_epsilon
        self.ln_1 = nn.LayerNorm((c,), epsilon=eps, dtype=dtype)
        self.attn = Attention(config, dtype)
        self.ln_2 = nn.LayerNorm((c,), epsilon=eps, dtype=dtype)
        self.mlp = MLP(config, dtype)

    def construct(self, x, mask_add):
        x = x + self.attn(self.ln_1(x), mask_add)
        return x + self.mlp(self.ln_2(x))


def causal_mask(t, dtype=np.float32):
    """[1, 1, t, t] additive mask: 0 on and below the diagonal, a large negative number above it."""
    return np.triu(np.full((t, t), _NEG, dtype), 1)[None, None]


class GPT(nn.Cell):
    """GPT(config): input_ids [B, T] int → logits [B, T, vocab_size] float32 (full recomputation, causal)."""

    def __init__(self, config=None):
        super().__init__()
        if config is None:
            config = GPTConfig()
        if not isinstance(config, GPTConfig):
            raise TypeError(f"GPT expects a GPTConfig, but got {type(config).__name__}.")
        config.validate()
        self.config = config
        dtype = mstype.float16 if config.dtype == "float16" else mstype.float32
        self.wte = nn.Embedding(config.vocab_size, config.n_embd, embedding_table=Normal(0.02), dtype=dtype)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd, embedding_table=Normal(0.01), dtype=dtype)
        self.blocks = nn.CellList([Block(config, dtype) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm((config.n_embd,), epsilon=config.layer_norm_epsilon, dtype=dtype)

    def construct(self, input_ids):
        b, t = input_ids.shape
        if t > self.config.n_positions:
            raise ValueError(f"GPT: the input has {t} positions but the model has n_positions="
                             f"{self.config.n_positions}.")
        positions = ops.arange(0, t, 1, dtype=mstype.int32)
        x = self.wte(input_ids) + self.wpe(positions)
        mask_add = Tensor(causal_mask(t), x.dtype)
        for block in self.blocks:
            x = block(x, mask_add)
        return self.lm_head(self.ln_f(x))

    def lm_head(self, h):
        """Logits (float32) of final hidden states h [..., C]: h @ wteᵀ (the head is tied to the embedding)."""
        logits = ops.matmul(h, ops.transpose(self.wte.embedding_table, (1, 0)))
        return ops.cast(logits, mstype.float32)


_HF_TRANSPOSED = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")


def to_hf_gpt2_state_dict(param_dict):
    """Map GPT parameters (name → Parameter/Tensor/ndarray, e.g. `net.parameters_dict()` or
    `ms.load_checkpoint(path)`) to Hugging Face GPT2LMHeadModel names → numpy arrays (Conv1D weights
    transposed to [in, out]; `lm_head.weight` is the tied token embedding)."""
    out = {}
    for name, value in param_dict.items():
        arr = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
        if name in ("wte.embedding_table", "wpe.embedding_table"):
            out[f"transformer.{name.split('.')[0]}.weight"] = arr
            continue
        if name.startswith("ln_f."):
            out["transformer.ln_f." + ("weight" if name.endswith("gamma") else "bias")] = arr
            continue
        parts = name.split(".")
        if parts[0] != "blocks" or len(parts) < 4:
            raise ValueError(f"to_hf_gpt2_state_dict: unexpected parameter name {name!r} (not a GPT parameter).")
        rest = ".".join(parts[2:])
        if rest.startswith("ln_"):
            rest = rest.replace("gamma", "weight").replace("beta", "bias")
        elif rest in _HF_TRANSPOSED:
            arr = np.ascontiguousarray(arr.T)
        out[f"transformer.h.{parts[1]}.{rest}"] = arr
    if "transformer.wte.weight" not in out:
        raise ValueError("to_hf_gpt2_state_dict: 'wte.embedding_table' is missing, so the tied lm_head is unknown.")
    out["lm_head.weight"] = out["transformer.wte.weight"]
    return out
