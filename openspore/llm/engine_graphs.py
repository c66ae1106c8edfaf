"""The two compiled graphs of `LLMEngine`: `PrefillGraph` (a packed batch of whole prompts) and `DecodeGraph` (one
token per running sequence). Both are Cells over the model's own sub-cells and the pool's Parameters, with fixed
input shapes, so each compiles once; both write the new keys/values into the pool in place (one ScatterUpdate of
the new rows per layer) and work head-major ([heads, tokens, head_dim]) so attention is batched matmuls with no
copy of the state beyond the one gather that decode needs.

Prefill packs the prompts into one row of `P` token slots: `segment` says which prompt a slot belongs to (padding
gets its own segment) and a token sees the earlier tokens of its own segment only.

Decode reads the stored keys/values in one of two ways, fixed when the engine is built:
* through block tables (the default): each sequence's blocks are gathered in order, so gathered slot j is its
  token j, and the mask opens its first `length` slots; the blocks come in chunks, and a loop in the graph
  visits only the chunks that hold tokens (one compiled graph, work proportional to the longest sequence);
* `over_pool` (a pool no larger than max_batch_size blocks, e.g. tests of tiny pools): each query attends over every
  slot of the pool, with a mask that opens exactly its own sequence's slots — no gather, one GEMM per head.
"""
import math

from .. import nn, ops
from ..common import dtype as mstype
from ..compiler.frontend.control_flow import while_loop
from .model import _NEG


class _PoolGraph(nn.Cell):
    def __init__(self, model, pool):
        super().__init__(auto_prefix=False)  # the model's parameters keep their own names (checkpoints)
        self.model = model
        self.kv = pool.kv
        self.write = ops.ScatterUpdate()
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
        self.write(self.kv[i], rows, ops.reshape(qkv[1:], (2 * self.n_head * n, self.head_dim)))  # in place
        return qkv[0] * self.scale, qkv[1], qkv[2]

    def _finish_block(self, block, x, out, n):
        """The residual stream after attention output out [H, n, D] and the MLP."""
        x = x + block.attn.c_proj(ops.reshape(ops.transpose(out, (1, 0, 2)), (n, self.n_embd)))
        return x + block.mlp(block.ln_2(x))


class PrefillGraph(_PoolGraph):
    """(ids, positions, segment [P] int32, rows [2 * H * P] int32, last [M] int32) → logits [M, vocab] of the tokens
    at `last`; `rows` are the pool rows of each token's keys and values (KVPool.head_rows)."""

    def construct(self, ids, positions, segment, rows, last):
        model = self.model
        p = ids.shape[0]
        x = model.wte(ids) + model.wpe(positions)                                  # [P, C]
        same = ops.equal(ops.expand_dims(segment, 1), ops.expand_dims(segment, 0))
        causal = ops.less_equal(ops.expand_dims(positions, 0), ops.expand_dims(positions, 1))
        mask_add = ops.select(ops.logical_and(same, causal), ops.zeros((p, p), x.dtype),
                              ops.fill(x.dtype, (p, p), _NEG))
        for i, block in enumerate(model.blocks):
            q, k, v = self._attention_inputs(i, block, x, rows, p)
            probs = ops.softmax(self.matmul_t(q, k) + mask_add, -1)               # [H, P, P]
            x = self._finish_block(block, x, self.matmul(probs, v), p)
        return model.lm_head(model.ln_f(ops.gather(x, last, 0)))                   # [M, vocab]


class DecodeGraph(_PoolGraph):
    """(ids, positions [B] int32, rows [2 * H * B] int32, mask_add, tables, n_chunks) → next-token logits [B, vocab].

    * over the pool: mask_add [B, S] float (S: the pool's slots); tables and n_chunks unused;
    * through tables: tables [NC, B * CB] int32 (each sequence's blocks, in chunks of CB blocks), mask_add
      [NC, 1, B, 1, CB * block_size] float, n_chunks a scalar int32: only the first n_chunks chunks (those holding some
      sequence's tokens) are gathered and attended, in a loop that merges the chunks' softmax partial sums
      (running max, sum and weighted values), so the work follows the longest sequence, not max_model_len."""

    def __init__(self, model, pool, over_pool):
        super().__init__(model, pool)
        self.over_pool = over_pool

    def construct(self, ids, positions, rows, mask_add, tables, n_chunks):
        model = self.model
        b = ids.shape[0]
        x = model.wte(ids) + model.wpe(positions)                                  # [B, C]
        for i, block in enumerate(model.blocks):
            q, _, _ = self._attention_inputs(i, block, x, rows, b)                # [H, B, D]
            if self.over_pool:
                kv = ops.reshape(self.kv[i], (2, self.n_head, self.num_slots, self.head_dim))
                probs = ops.softmax(self.matmul_t(q, kv[0]) + mask_add, -1)       # [H, B, S]
                out = self.matmul(probs, kv[1])                                    # [H, B, D]
            else:
                out = self._chunked_attention(i, ops.expand_dims(q, 2), mask_add, tables, n_chunks, b)
            x = self._finish_block(block, x, out, b)
        return model.lm_head(model.ln_f(x))

    def _chunked_attention(self, i, q, mask_add, tables, n_chunks, b):
        """Attention of q [H, B, 1, D] over the first n_chunks chunks of each sequence's blocks → [H, B, D].

        The loop is graph control flow (one `while` node; openspore's own code is not AST-rewritten, so it is
        written with the frontend's while_loop directly): each turn gathers one chunk and merges its softmax
        partial sums into the running max, sum and weighted values."""
        blocks = ops.reshape(self.kv[i], (2 * self.n_head, self.num_rows, self.block_size * self.head_dim))

        def chunk_scores(c):
            kv = ops.reshape(ops.gather(blocks, ops.gather(tables, c, 0), 1),
                             (2, self.n_head, b, -1, self.head_dim))                   # [2, H, B, CL, D]
            # q as [H, B, 1, D] rows: row-vector matmuls are the fast kernels here (a K @ q column form is ~7x
            # slower in torch CPU for these shapes); mask_add comes as [NC, 1, B, 1, CL]
            return self.matmul_t(q, kv[0]) + ops.gather(mask_add, c, 0), kv[1]         # [H, B, 1, CL]

        # chunk 0 holds a token of every row: it starts the partial sums without a rescale
        scores, values = chunk_scores(ops.zeros((), mstype.int32))
        first_max = ops.amax(scores, -1, True)
        weights = ops.exp(scores - first_max)

        def more(c, running_max, total, acc):
            return c < n_chunks

        def step(c, running_max, total, acc):
            scores, values = chunk_scores(c)
            new_max = ops.maximum(running_max, ops.amax(scores, -1, True))
            weights = ops.exp(scores - new_max)
            rescale = ops.exp(running_max - new_max)
            return (c + 1, new_max, total * rescale + ops.sum(weights, -1, True),
                    acc * rescale + self.matmul(weights, values))

        start = (ops.ones((), mstype.int32), first_max, ops.sum(weights, -1, True), self.matmul(weights, values))
        _, _, total, acc = while_loop(more, step, start, ("chunk", "running_max", "total", "acc"))
        return ops.reshape(acc / total, (self.n_head, b, self.head_dim))
