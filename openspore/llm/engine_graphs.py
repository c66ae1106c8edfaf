"""The two compiled graphs of `LLMEngine`: `PrefillGraph` (a batch of whole prompts) and `DecodeGraph` (one
token per running sequence). Both are Cells over the model's own sub-cells and the pool's Parameters, with fixed
input shapes, so each compiles once; both write the new keys and values into the pool in place (one ScatterUpdate
per layer: a layer's keys and values share one Parameter, kv_pool.py) straight from the q/k/v projection's layout,
and attention is batched matmuls over heads, with no copy of the state beyond the one gather per layer that decode
needs.

Prefill runs R prompts as R rows of T positions (a length bucket), attention batched over rows and heads with
one causal mask; the engine groups prompts of similar lengths into such calls, longest first.

Decode reads the stored keys/values in one of two ways, fixed when the engine is built:
* through block tables (the default): each sequence's blocks of keys and values are gathered in order (one
  index_select per layer for both), so gathered slot j is its token j, and the mask opens its first `length`
  slots. The table width is a length bucket (the engine picks the smallest bucket holding the longest running sequence; one graph is compiled per
  bucket), so the work follows the longest sequence, not max_model_len;
* `over_pool` (a pool no larger than max_batch_size blocks, e.g. tests of tiny pools): each query attends over every
  slot of the pool, with a mask that opens exactly its own sequence's slots — no gather, one GEMM per head;
* through a `KVView` (kv_view.py, `ViewDecodeGraph`): each sequence's keys and values also sit in a row of a
  contiguous buffer, attention reads the first B rows and L positions as views, so no gather at all, and the step
  writes the new token into the view only (one scatter per layer, not two). `RowCopyGraph` copies a sequence's
  stored tokens from the pool into its row when it joins, and its decoded tokens back from the row into the pool
  when it leaves the row while still running (the engine's `_flush_view`).
"""
import math

from .. import nn, ops
from ..common.tensor import Tensor
from .model import causal_mask
from .ragged_attention import RaggedDecodeAttention


class _PoolGraph(nn.Cell):
    def __init__(self, model, pool):
        super().__init__(auto_prefix=False)  # the model's parameters keep their own names (checkpoints)
        self.model = model
        self.kv = pool.kv
        self.write = ops.ScatterUpdate()
        self.split_q_kv = ops.SplitV((1, 2), -3, 2)   # [.., 3, H, D] → q [.., 1, H, D], k and v [.., 2, H, D] (views)
        self.split_k_v = ops.Split(0, 2)               # [2, ...] → keys [1, ...], values [1, ...] (views)
        self.unstack = ops.Unstack(0)
        self.matmul = ops.BatchMatMul()
        self.matmul_t = ops.BatchMatMul(transpose_b=True)
        cfg = model.config
        self.n_head, self.head_dim, self.n_embd = cfg.n_head, cfg.head_dim, cfg.n_embd
        self.scale = 1.0 / math.sqrt(cfg.head_dim)
        self.num_slots, self.block_size, self.num_rows = pool.num_slots, pool.block_size, pool.num_blocks + 1


class PrefillGraph(_PoolGraph):
    """(ids [R, T] int32, positions [T] int32, rows [R, T, 2, H] int64, last [R] int32) → logits [R, vocab] of the
    tokens at `last` (indices into the R * T tokens, row after row). Row r holds one prompt from position 0,
    padded to T; `rows` are the pool rows of each token's key and value of each head (KVPool.rows; padding writes
    into the scratch block). Attention is batched over rows and heads, causal within each row: R·T² scores, not
    (R·T)² as one packed row of every prompt would need."""

    def construct(self, ids, positions, rows, last):
        model = self.model
        r, t = ids.shape
        n = r * t
        x = ops.reshape(model.wte(ids) + model.wpe(positions), (n, -1))            # [R*T, C]
        mask_add = Tensor(causal_mask(t)[0], x.dtype)                              # [1, T, T]: a constant
        for i, block in enumerate(model.blocks):
            qkv = ops.reshape(block.attn.c_attn(block.ln_1(x)), (r, t, 3, self.n_head, self.head_dim))
            self.write(self.kv[i], rows, self.split_q_kv(qkv)[1])                  # in place
            q, k, v = self.unstack(ops.transpose(qkv, (2, 0, 3, 1, 4)))             # [R, H, T, D] each
            probs = ops.softmax(self.matmul_t(q * self.scale, k) + mask_add, -1)   # [R, H, T, T]
            out = ops.transpose(self.matmul(probs, v), (0, 2, 1, 3))                # [R, T, H, D]
            x = x + block.attn.c_proj(ops.reshape(out, (n, self.n_embd)))
            x = x + block.mlp(block.ln_2(x))
        return model.lm_head(model.ln_f(ops.gather(x, last, 0)))                   # [R, vocab]


class DecodeGraph(_PoolGraph):
    """(ids, positions [B] int32, rows [B, 2, H] int64, mask_add, tables) → next-token logits [B, vocab].

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
            qkv = ops.reshape(block.attn.c_attn(block.ln_1(x)), (b, 3, self.n_head, self.head_dim))
            q, kv = self.split_q_kv(qkv)                                            # [B, 1, H, D], [B, 2, H, D]
            self.write(self.kv[i], rows, kv)                                        # in place, before reading
            q = ops.transpose(q, (2, 0, 1, 3)) * self.scale                        # [H, B, 1, D]
            if self.over_pool:
                out = self._pool_attention(i, q, mask_add, b)
            else:
                out = self._table_attention(i, q, mask_add, tables, b)
            x = x + block.attn.c_proj(out)
            x = x + block.mlp(block.ln_2(x))
        return model.lm_head(model.ln_f(x))

    def _table_attention(self, i, q, mask_add, tables, b):
        """Attention of q [H, B, 1, D] over the blocks in each sequence's table → [B, C]."""
        h, d = self.n_head, self.head_dim
        pool = ops.reshape(self.kv[i], (2 * h, self.num_rows, self.block_size * d))
        # gathered [2H, B * NB, block_size * D] is [2, H, B, L, D] as it lies: a reshape, not a copy
        keys, values = self.split_k_v(ops.reshape(ops.gather(pool, tables, 1), (2, h, b, -1, d)))
        # q as [H, B, 1, D] rows: row-vector matmuls are the fast kernels here (a K @ q column form is ~7x
        # slower in torch CPU for these shapes); mask_add [B, 1, L] broadcasts over the heads
        probs = ops.softmax(self.matmul_t(q, keys) + mask_add, -1)                 # [1, H, B, 1, L]
        out = ops.transpose(self.matmul(probs, values), (2, 0, 1, 3, 4))          # [B, 1, H, 1, D]
        return ops.reshape(out, (b, self.n_embd))

    def _pool_attention(self, i, q, mask_add, b):
        """Attention of q [H, B, 1, D] over every slot of the pool, mask_add [B, S] opening its own → [B, C]."""
        h, d = self.n_head, self.head_dim
        keys, values = self.split_k_v(ops.reshape(self.kv[i], (2, h, self.num_slots, d)))   # [1, H, S, D] each
        probs = ops.softmax(self.matmul_t(ops.reshape(q, (h, b, d)), keys) + mask_add, -1)  # [1, H, B, S]
        out = ops.transpose(self.matmul(probs, values), (2, 0, 1, 3))             # [B, 1, H, D]
        return ops.reshape(out, (b, self.n_embd))


class ViewDecodeGraph(_PoolGraph):
    """(ids, positions [B] int32, index [B, 2, H] int64, mask_add [B, 1, 1, L] float, spans [B] int64) →
    next-token logits [B, vocab], through a `KVView`: row b of the graph is row b of the view, `index`
    (KVView.index) is where each row's new key and value go, L the length bucket in positions. The new token is
    written into the view only; the pool gets it when the sequence leaves its row (the engine's `_flush_view`), so
    a step writes once. With `ragged` (the engine's ragged_decode) each layer's attention is one
    RaggedDecodeAttention: each run of rows with the same span reads only its first `span` positions
    (ragged_attention.py); without it every row reads all L positions and `spans` is unused."""

    def __init__(self, model, pool, view, ragged=True):
        super().__init__(model, pool)
        self.view = view.kv
        self.view_rows, self.view_length = view.rows + 1, view.length
        self.ragged = ragged
        self.ragged_attention = RaggedDecodeAttention(rows=self.view_rows, length=self.view_length)

    def construct(self, ids, positions, index, mask_add, spans):
        model = self.model
        b = ids.shape[0]
        x = model.wte(ids) + model.wpe(positions)                                  # [B, C]
        for i, block in enumerate(model.blocks):
            qkv = ops.reshape(block.attn.c_attn(block.ln_1(x)), (b, 3, self.n_head, self.head_dim))
            q, kv = self.split_q_kv(qkv)                                            # [B, 1, H, D], [B, 2, H, D]
            self.write(self.view[i], index, kv)                                     # in place, before reading
            q = ops.transpose(q, (0, 2, 1, 3)) * self.scale                        # [B, H, 1, D]
            if self.ragged:
                out = ops.reshape(self.ragged_attention(q, self.view[i], mask_add, spans), (b, self.n_embd))
            else:
                out = self._attention(i, q, mask_add, b)
            x = x + block.attn.c_proj(out)
            x = x + block.mlp(block.ln_2(x))
        return model.lm_head(model.ln_f(x))

    def _attention(self, i, q, mask_add, b):
        """Attention of q [B, H, 1, D] over the first B rows and L positions of the view → [B, C]."""
        h, d, rows, length = self.n_head, self.head_dim, self.view_rows, self.view_length
        span = mask_add.shape[-1]
        kv = ops.reshape(self.view[i], (2, rows, h, length, d))
        if b < rows:   # split pieces are views (a slice would copy)
            kv = ops.split(kv, [b, rows - b], 1)[0]
        if span < length:
            kv = ops.split(kv, [span, length - span], 3)[0]
        keys, values = self.split_k_v(kv)                                          # [1, B, H, L, D] each
        probs = ops.softmax(self.matmul_t(q, keys) + mask_add, -1)                 # [1, B, H, 1, L]
        return ops.reshape(self.matmul(probs, values), (b, self.n_embd))          # [B, H, 1, D] as it lies


class RowCopyGraph(nn.Cell):
    """(src [M] int64, dst [M] int64) → dst: copies rows `src` of every layer's Parameter in `source` (a list, one per
    layer) into rows `dst` of the matching Parameter in `target`, in place. The engine copies pool rows
    (KVPool.rows) into view rows (KVView.index) when a sequence joins the view, and back when it leaves; padding
    entries copy a scratch row into a scratch row."""

    def __init__(self, source, target):
        super().__init__(auto_prefix=False)
        self.source, self.target = source, target
        self.write = ops.ScatterUpdate()

    def construct(self, src, dst):
        for i in range(len(self.target)):
            self.write(self.target[i], dst, ops.gather(self.source[i], src, 0))
        return dst
