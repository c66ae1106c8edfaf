"""The two compiled graphs of `LLMEngine`: `PrefillGraph` (a packed batch of whole prompts) and `DecodeGraph` (one
token per running sequence). Both are Cells over the model's own sub-cells and the pool's Parameters, with fixed
input shapes, so each compiles once; both write the new keys/values into the pool in place.

Prefill packs the prompts into one row of `P` token slots: `segment` says which prompt a slot belongs to (padding
gets its own segment) and a token sees the earlier tokens of its own segment only. Decode reads each sequence's
keys/values through its block table: gathering the table's blocks gives the sequence's slots in order.
"""
from .. import nn, ops
from ..common import dtype as mstype
from .model import _NEG, attend


def _write_rows(pool_param, slots, rows):
    """pool_param[slots[i]] = rows[i], in place."""
    ops.scatter_update(pool_param, slots, rows)


class PrefillGraph(nn.Cell):
    """(ids, positions, segment, slots [P] int32; last [M] int32) → logits [M, vocab] of the tokens at `last`."""

    def __init__(self, model, pool):
        super().__init__()
        self.model = model
        self.keys = pool.keys
        self.values = pool.values
        cfg = model.config
        self.n_head, self.head_dim, self.n_embd = cfg.n_head, cfg.head_dim, cfg.n_embd

    def construct(self, ids, positions, segment, slots, last):
        model = self.model
        p = ids.shape[0]
        x = model.wte(ids) + model.wpe(positions)                                  # [P, C]
        same = ops.equal(ops.expand_dims(segment, 1), ops.expand_dims(segment, 0))
        causal = ops.less_equal(ops.expand_dims(positions, 0), ops.expand_dims(positions, 1))
        mask_add = ops.select(ops.logical_and(same, causal), ops.zeros((p, p), x.dtype),
                              ops.fill(x.dtype, (p, p), _NEG))
        mask_add = ops.reshape(mask_add, (1, 1, p, p))
        for i, block in enumerate(model.blocks):
            qkv = block.attn.c_attn(block.ln_1(x))                                 # [P, 3C]
            q, k, v = ops.split(qkv, self.n_embd, 1)
            _write_rows(self.keys[i], slots, k)
            _write_rows(self.values[i], slots, v)
            heads = (p, self.n_head, self.head_dim)
            q = ops.expand_dims(ops.transpose(ops.reshape(q, heads), (1, 0, 2)), 0)  # [1, H, P, D]
            k = ops.expand_dims(ops.transpose(ops.reshape(k, heads), (1, 0, 2)), 0)
            v = ops.expand_dims(ops.transpose(ops.reshape(v, heads), (1, 0, 2)), 0)
            out = attend(q, k, v, mask_add, self.head_dim)                         # [1, H, P, D]
            out = ops.reshape(ops.transpose(out[0], (1, 0, 2)), (p, self.n_embd))
            x = x + block.attn.c_proj(out)
            x = x + block.mlp(block.ln_2(x))
        h = ops.gather(x, last, 0)                                                 # [M, C]
        return model.lm_head(model.ln_f(h))


class DecodeGraph(nn.Cell):
    """(ids, positions, slots, lengths [B] int32; tables [B, MB] int32) → next-token logits [B, vocab].

    `lengths[b]` counts the sequence's tokens including this one; keys at table positions ≥ lengths[b] are
    masked out (padding rows point at the scratch block)."""

    def __init__(self, model, pool):
        super().__init__()
        self.model = model
        self.keys = pool.keys
        self.values = pool.values
        self.block_size = pool.block_size
        self.num_rows = pool.num_blocks + 1
        cfg = model.config
        self.n_head, self.head_dim, self.n_embd = cfg.n_head, cfg.head_dim, cfg.n_embd

    def construct(self, ids, positions, slots, lengths, tables):
        model = self.model
        b, mb = tables.shape
        span = mb * self.block_size
        x = model.wte(ids) + model.wpe(positions)                                  # [B, C]
        visible = ops.less(ops.expand_dims(ops.arange(0, span, 1, dtype=mstype.int32), 0),
                           ops.expand_dims(lengths, 1))                           # [B, L]
        mask_add = ops.select(visible, ops.zeros((b, span), x.dtype), ops.fill(x.dtype, (b, span), _NEG))
        mask_add = ops.reshape(mask_add, (b, 1, 1, span))
        for i, block in enumerate(model.blocks):
            qkv = block.attn.c_attn(block.ln_1(x))                                 # [B, 3C]
            q, k, v = ops.split(qkv, self.n_embd, 1)
            _write_rows(self.keys[i], slots, k)
            _write_rows(self.values[i], slots, v)
            keys = self._gather(self.keys[i], tables, b, span)                    # [B, H, L, D]
            values = self._gather(self.values[i], tables, b, span)
            q = ops.reshape(q, (b, self.n_head, 1, self.head_dim))
            out = attend(q, keys, values, mask_add, self.head_dim)                 # [B, H, 1, D]
            x = x + block.attn.c_proj(ops.reshape(out, (b, self.n_embd)))
            x = x + block.mlp(block.ln_2(x))
        return model.lm_head(model.ln_f(x))

    def _gather(self, pool_param, tables, b, span):
        blocks = ops.reshape(pool_param, (self.num_rows, self.block_size * self.n_embd))
        rows = ops.gather(blocks, tables, 0)                                       # [B, MB, bs*C]
        rows = ops.reshape(rows, (b, span, self.n_head, self.head_dim))
        return ops.transpose(rows, (0, 2, 1, 3))
