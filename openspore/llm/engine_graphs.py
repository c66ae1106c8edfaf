"""The two compiled graphs of `LLMEngine`: `PrefillGraph` (a packed batch of whole prompts) and `DecodeGraph` (one
token per running sequence). Both are Cells over the model's own sub-cells and the pool's Parameters, with fixed
input shapes, so each compiles once; both write the new keys/values into the pool in place (one ScatterUpdate of
the new rows per layer) and work head-major ([heads, tokens, head_dim]) so attention is batched matmuls with no
copy of the state beyond the one gather that decode needs.

Prefill runs R prompts as R rows of T positions (a length bucket), attention batched over rows and heads with
one causal mask; the engine groups prompts of similar lengths into such calls, longest first.

Decode reads the stored keys/values in one of two ways, fixed when the engine is built:
* through block tables (the default): each sequence's blocks are gathered in order (one index_select per layer),
  so gathered slot j is its token j, and the mask opens its first `length` slots. The table width is a length
  bucket (the engine picks the smallest bucket holding the longest running sequence; one graph is compiled per
  bucket), so the work follows the longest sequence, not max_model_len;
* `over_pool` (a pool no larger than max_batch_size blocks, e.g. tests of tiny pools): each query attends over every
  slot of the pool, with a mask that opens exactly its own sequence's slots — no gather, one GEMM per head.
"""
import math

from .. import nn, ops
from ..common.tensor import Tensor
from .model import causal_mask


class _PoolGraph(nn.Cell):
    def __init__(self, model, pool):
        super().__init__(auto_prefix=False)  # the model's parameters keep their own names (checkpoints)
        self.model = model
        self.k, self.v = pool.k, pool.v
        self.write = ops.ScatterUpdate()
        self.unstack = ops.Unstack(0)
        self.matmul = ops.BatchMatMul()
        self.matmul_t = ops.BatchMatMul(transpose_b=True)
        cfg = model.config
        self.n_head, self.head_dim, self.n_embd = cfg.n_head, cfg.head_dim, cfg.n_embd
        self.scale = 1.0 / math.sqrt(cfg.head_dim)
        self.num_slots, self.block_size, self.num_rows = pool.num_slots, pool.block_size, pool.num_blocks + 1

    def _attention_inputs(self, i, block, x, rows, n):
        """q [H, n, D] (pre-scaled) and this step's k, v [H, n, D]; k and v are stored in the pool first."""
        qkv = block.attn.c_attn(block.ln_1(x))                                     # [n, 3C]
        qkv = ops.transpose(ops.reshape(qkv, (n, 3, self.n_head, self.head_dim)), (1, 2, 0, 3))  # [3, H, n, D]
        q, k, v = self.unstack(qkv)                                                 # one kernel, no slices
        self.write(self.k[i], rows, ops.reshape(k, (self.n_head * n, self.head_dim)))   # in place
        self.write(self.v[i], rows, ops.reshape(v, (self.n_head * n, self.head_dim)))
        return q * self.scale, k, v

    def _finish_block(self, block, x, out, n):
        """The residual stream after attention output out [H, n, D] and the MLP."""
        x = x + block.attn.c_proj(ops.reshape(ops.transpose(out, (1, 0, 2)), (n, self.n_embd)))
        return x + block.mlp(block.ln_2(x))


class PrefillGraph(_PoolGraph):
    """(ids [R, T] int32, positions [T] int32, rows [R * H * T] int64, last [R] int32) → logits [R, vocab] of the
    tokens at `last` (indices into the R * T tokens, row after row). Row r holds one prompt from position 0,
    padded to T; `rows` are the pool rows of each token's keys and values in (row, head, position) order
    (KVPool.head_rows per row; padding writes into the scratch block). Attention is batched over rows and heads,
    causal within each row: R·T² scores, not (R·T)² as one packed row of every prompt would need."""

    def construct(self, ids, positions, rows, last):
        model = self.model
        r, t = ids.shape
        n = r * t
        x = ops.reshape(model.wte(ids) + model.wpe(positions), (n, -1))            # [R*T, C]
        mask_add = Tensor(causal_mask(t)[0], x.dtype)             # [1, T, T]: a constant
        for i, block in enumerate(model.blocks):
            qkv = block.attn.c_attn(block.ln_1(x))                                 # [R*T, 3C]
            qkv = ops.transpose(ops.reshape(qkv, (r, t, 3, self.n_head, self.head_dim)), (2, 0, 3, 1, 4))
            q, k, v = self.unstack(qkv)                                             # [R, H, T, D] each
            self.write(self.k[i], rows, ops.reshape(k, (n * self.n_head, self.head_dim)))   # in place
            self.write(self.v[i], rows, ops.reshape(v, (n * self.n_head, self.head_dim)))
            probs = ops.softmax(self.matmul_t(q * self.scale, k) + mask_add, -1)   # [R, H, T, T]
            out = ops.transpose(self.matmul(probs, v), (0, 2, 1, 3))                # [R, T, H, D]
            x = x + block.attn.c_proj(ops.reshape(out, (n, self.n_embd)))
            x = x + block.mlp(block.ln_2(x))
        return model.lm_head(model.ln_f(ops.gather(x, last, 0)))                   # [R, vocab]


class DecodeGraph(_PoolGraph):
    """(ids, positions [B] int32, rows [H * B] int64, mask_add, tables) → next-token logits [B, vocab].

    * over the pool: mask_add [B, S] float (S: the pool's slots); tables unused;
    * through tables: tables [B * NB] int64 (each sequence's first NB blocks, row after row; NB is the length
      bucket in blocks) and mask_add [B, 1, NB * block_size] float (0 on each sequence's tokens)."""

    def __init__(self, model, pool, over_pool):
        super().__init__(model, pool)
        self.over_pool = over_pool

    def construct(self, ids, positions, rows, mask_add, tables):
        model = self.model
        b = ids.shape[0]
        x = model.wte(ids) + model.wpe(positions)                                  # [B, C]
        for i, block in enumerate(model.blocks):
            q, _, _ = self._attention_inputs(i, block, x, rows, b)                # [H, B, D]
            if self.over_pool:
                keys = ops.reshape(self.k[i], (self.n_head, self.num_slots, self.head_dim))
                values = ops.reshape(self.v[i], (self.n_head, self.num_slots, self.head_dim))
                probs = ops.softmax(self.matmul_t(q, keys) + mask_add, -1)        # [H, B, S]
                out = self.matmul(probs, values)                                   # [H, B, D]
            else:
                out = self._table_attention(i, q, mask_add, tables, b)
            x = self._finish_block(block, x, out, b)
        return model.lm_head(model.ln_f(x))

    def _table_attention(self, i, q, mask_add, tables, b):
        """Attention of q [H, B, D] over the blocks in each sequence's table → [H, B, D]."""
        shape = (self.n_head, self.num_rows, self.block_size * self.head_dim)
        # gathered [H, B * NB, block_size * D] is [H, B, L, D] as it lies: a reshape, not a copy
        keys = ops.reshape(ops.gather(ops.reshape(self.k[i], shape), tables, 1), (self.n_head, b, -1, self.head_dim))
        values = ops.reshape(ops.gather(ops.reshape(self.v[i], shape), tables, 1), (self.n_head, b, -1, self.head_dim))
        # q as [H, B, 1, D] rows: row-vector matmuls are the fast kernels here (a K @ q column form is ~7x
        # slower in torch CPU for these shapes); mask_add [B, 1, L] broadcasts over the heads
        probs = ops.softmax(self.matmul_t(ops.expand_dims(q, 2), keys) + mask_add, -1)   # [H, B, 1, L]
        return ops.reshape(self.matmul(probs, values), (self.n_head, b, self.head_dim))
