"""`LLMEngine`: incremental (state-reuse) inference of a GPT over a paged key/value pool.

`prefill(seq_ids, prompts)` runs whole prompts (as rows padded to a common width) and stores their keys/values;
`decode(seq_ids, tokens)` appends one token to each given running sequence, reusing the stored state. Each is a
GRAPH_MODE graph with fixed input shapes, compiled once per shape whatever the global context mode is, and both
update the same pool Parameters in place. Shapes come in a few buckets (`shape_buckets=True`, the default):
prefill runs 1, 2, 4, 8, ... prompts padded to 16, 32, 48, ..., 128, 160, ... positions (rows × width at most
`prefill_tokens`, default max(max_model_len, 1024); the engine sorts a call's prompts longest first and groups
similar lengths); decode runs 1, 2, ..., 8, 10, 12, ... rows (up to `max_batch_size`) and reads 1, 2, ..., 8, 10,
12, ... blocks per sequence (the smallest bucket holding the longest running sequence, up to
`max_model_len / block_size`); four buckets per doubling (`_quarter_steps`), so a bucket pads by less than 25%. So
a short prompt does not pay for `max_model_len` positions, nor a few short sequences for a full batch of long ones,
and each bucket is compiled once (`warm_up()` compiles them all ahead of time; `compile_counts()` counts them).
`shape_buckets=False` keeps one shape each: as many `max_model_len`-wide prefill rows as `prefill_tokens` allows;
`max_batch_size` decode rows of all blocks.
Larger calls are split into chunks. `decode_attention` chooses how decode reads the pool (engine_graphs.py):
'tables' gathers each sequence's blocks every step, 'pool' attends over the whole pool with a mask (one shape),
'view' keeps the decoded sequences' keys and values also in a row-contiguous `KVView` (kv_view.py: copied in once
when a sequence joins, the new token appended in place each step and only there, attention over views of it: no
gather; the tokens decoded meanwhile go back into the pool when a running sequence leaves its row; an extra cache
of max_batch_size full-length sequences, counted as pool_stats()['view_bytes']); 'auto' takes 'pool' for pools of
at most max_batch_size blocks, else 'view'.
`ragged_decode` (default True; 'view' only): each decode step's attention reads, for each run of consecutive view
rows, only the positions of its longest sequence (rounded up to 16), not the longest running sequence's bucket,
and joining sequences are placed (one swap at most) next to rows of similar length (ragged_attention.py,
KVView.place); the graphs stay one per bucket.

>>> import numpy as np
>>> from openspore.llm import GPT, GPTConfig, LLMEngine
>>> engine = LLMEngine(GPT(GPTConfig(vocab_size=32, n_positions=32, n_embd=16, n_layer=1, n_head=2)),
...                    block_size=4, max_batch_size=2)
>>> engine.prefill(["a", "b"], [[1, 2, 3], [4, 5]]).shape
(2, 32)
>>> engine.decode(["b"], [6]).shape, engine.seq_len("b")
((1, 32), 3)
>>> engine.free("a"); engine.free("b"); engine.num_free_blocks() == engine.num_blocks
True
"""
import numpy as np

from .. import backends
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..context import jit_disabled
from ..core.dispatch import current_tracer
from ..runtime.jit import jit
from .config import GPTConfig
from .engine_graphs import DecodeGraph, PrefillGraph, RowCopyGraph, ViewDecodeGraph
from .kv_pool import KVPool, OutOfBlocks
from .kv_view import KVView
from .model import _NEG, GPT
from .engine_view import ViewDecoding

__all__ = ["LLMEngine", "OutOfBlocks"]


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"LLMEngine: '{name}' must be a positive int, but got {value!r}.")
    return int(value)


class LLMEngine(ViewDecoding):
    """Prefill/decode over a paged KV pool (see the module docstring). Sequence ids are any hashable values."""

    def __init__(self, model, *, block_size=16, num_blocks=None, max_batch_size=16, max_model_len=None,
                 memory_bytes=None, decode_attention="auto", shape_buckets=True, prefill_tokens=None, ragged_decode=True):
        if not isinstance(model, GPT):
            raise TypeError(f"LLMEngine expects an openspore.llm.GPT model, but got {type(model).__name__}.")
        self.model = model
        self.config = model.config
        self.block_size = _positive("block_size", block_size)
        self.max_batch_size = _positive("max_batch_size", max_batch_size)
        n_pos = self.config.n_positions
        self.max_model_len = n_pos if max_model_len is None else _positive("max_model_len", max_model_len)
        if self.max_model_len > n_pos:
            raise ValueError(f"LLMEngine: 'max_model_len' ({self.max_model_len}) cannot exceed the model's "
                             f"n_positions ({n_pos}).")
        self.max_blocks_per_seq = -(-self.max_model_len // self.block_size)
        dtype = mstype.float16 if self.config.dtype == "float16" else mstype.float32
        per_block = 2 * self.config.n_layer * self.config.n_embd * self.block_size * np.dtype(dtype.np_dtype).itemsize
        if num_blocks is not None and memory_bytes is not None:
            raise ValueError("LLMEngine: give 'num_blocks' or 'memory_bytes', not both.")
        if memory_bytes is not None:
            num_blocks = _positive("memory_bytes", memory_bytes) // per_block
            if num_blocks < 1:
                raise ValueError(f"LLMEngine: 'memory_bytes' ({memory_bytes}) holds no block; one block takes "
                                 f"{per_block} bytes.")
        elif num_blocks is None:
            num_blocks = self.max_batch_size * self.max_blocks_per_seq  # a full batch of full-length sequences
        self.num_blocks = _positive("num_blocks", num_blocks)
        self._mask_dtype = dtype.np_dtype
        self.pool = KVPool(self.config.n_layer, self.config.n_head, self.config.head_dim, self.num_blocks,
                           self.block_size, dtype)
        if decode_attention not in ("auto", "tables", "pool", "view"):
            raise ValueError(f"LLMEngine: 'decode_attention' must be 'auto', 'tables', 'pool' or 'view', but got "
                             f"{decode_attention!r}.")
        # auto: a pool of at most max_batch_size blocks is cheaper to attend over whole than to gather from
        self.decode_over_pool = decode_attention == "pool" or (decode_attention == "auto" and
                                                               self.num_blocks <= self.max_batch_size)
        self.view = None
        if decode_attention == "view" or (decode_attention == "auto" and not self.decode_over_pool):
            self.view = KVView(self.config.n_layer, self.config.n_head, self.config.head_dim, self.max_batch_size,
                               self.max_blocks_per_seq * self.block_size, dtype)
        # the shapes each graph is compiled for: prefill token slots, decode blocks per sequence (module docstring)
        if shape_buckets:
            # steps of at most a quarter of the value (_quarter_steps): the padding a bucket adds (prompt
            # positions, decode rows, attention positions) is at most ~25%, and a graph costs only its compile
            self.prefill_buckets = _quarter_steps(16, self.max_model_len)
            self.decode_row_buckets = _quarter_steps(1, self.max_batch_size)
            self.decode_buckets = _quarter_steps(1, self.max_blocks_per_seq)
        else:
            self.prefill_buckets, self.decode_buckets = [self.max_model_len], [self.max_blocks_per_seq]
            self.decode_row_buckets = [self.max_batch_size]
        if self.decode_over_pool:
            self.decode_buckets = [self.max_blocks_per_seq]  # one mask over the whole pool: one width
        # prefill shapes: (rows, width) with rows * width <= prefill_tokens (at least one row of each width)
        self.prefill_tokens = max(self.max_model_len, 1024) if prefill_tokens is None else \
            _positive("prefill_tokens", prefill_tokens)
        self._prefill_rows = {}
        for width in self.prefill_buckets:
            most = max(1, min(self.max_batch_size, self.prefill_tokens // width))
            self._prefill_rows[width] = _doubling(1, most) if shape_buckets else [most]
        self.prefill_shapes = [(r, w) for w in self.prefill_buckets for r in self._prefill_rows[w]]
        self._positions = np.arange(self.max_model_len, dtype=np.int32)
        if not isinstance(ragged_decode, bool):
            raise ValueError(f"LLMEngine: 'ragged_decode' must be a bool, but got {ragged_decode!r}.")
        self.ragged_decode = ragged_decode and self.view is not None
        self._prefill_cell = PrefillGraph(model, self.pool)
        self._decode_cell = DecodeGraph(model, self.pool, self.decode_over_pool) if self.view is None else \
            ViewDecodeGraph(model, self.pool, self.view, ragged=self.ragged_decode)
        self._prefill_cell.set_train(False)
        self._decode_cell.set_train(False)
        self._prefill = jit(self._prefill_cell)
        self._decode = jit(self._decode_cell)
        if self.view is not None:   # view refills and flushes: token counts in doubling buckets up to a full view
            self.fill_buckets = _doubling(self.block_size, self.max_batch_size * self.view.length)
            self._fill_cell = RowCopyGraph(self.pool.kv, self.view.kv)    # pool → view
            self._flush_cell = RowCopyGraph(self.view.kv, self.pool.kv)   # view → pool
            for cell in (self._fill_cell, self._flush_cell):
                cell.set_train(False)
            self._fill, self._flush = jit(self._fill_cell), jit(self._flush_cell)
            # decode masks (_decode_view_inputs): window L - n of [0] * L + [_NEG] * L opens positions [0, n);
            # the windows are views of those 2L values, not an [L + 1, L] table
            span = self.view.length
            edge = np.concatenate([np.zeros(span), np.full(span, _NEG)]).astype(self._mask_dtype)
            self._open_prefix = np.lib.stride_tricks.sliding_window_view(edge, span)[::-1]   # row n opens [0, n)
        self._graphs = {}   # (graph, shape) -> (backend, compiled graph): see _run_graph

    @classmethod
    def from_checkpoint(cls, ckpt_path, config_path_or_config, **kw):
        """Build the GPT from a config (GPTConfig, dict or JSON path), load `ckpt_path` into it, wrap it."""
        from ..train.serialization import load_checkpoint, load_param_into_net
        cfg = config_path_or_config
        if isinstance(cfg, dict):
            cfg = GPTConfig.from_dict(cfg)
        elif not isinstance(cfg, GPTConfig):
            cfg = GPTConfig.load(cfg)
        model = GPT(cfg)
        params = load_checkpoint(ckpt_path)
        missing = [n for n, _ in model.parameters_and_names() if n not in params]
        if missing:
            raise ValueError(f"LLMEngine.from_checkpoint: {ckpt_path} lacks parameter(s) {missing[:5]} of the GPT.")
        load_param_into_net(model, params)
        return cls(model, **kw)

    # ---- pool -------------------------------------------------------------------------------------------
    def num_free_blocks(self):
        return self.pool.num_free_blocks

    def blocks_needed(self, num_tokens):
        return self.pool.blocks_needed(num_tokens)

    def seq_len(self, seq_id):
        if seq_id not in self.pool:
            raise KeyError(f"LLMEngine.seq_len: unknown sequence {seq_id!r}.")
        return self.pool.length(seq_id)

    def free(self, seq_id):
        """Return the sequence's blocks to the pool at once."""
        if seq_id not in self.pool:
            raise KeyError(f"LLMEngine.free: unknown sequence {seq_id!r} (not running, or already freed).")
        self.pool.free(seq_id)
        if self.view is not None:
            self.view.drop(seq_id)

    def pool_stats(self):
        """KVPool.stats() plus view_bytes: the KVView's buffers (0 without one), memory beside the pool."""
        return dict(self.pool.stats(), view_bytes=0 if self.view is None else self.view.nbytes)

    def compile_counts(self):
        """How many graphs each compiled function holds (its graph cache's entries): one per shape bucket used."""
        counts = {"prefill": _entries(self._prefill, self._prefill_cell),
                  "decode": _entries(self._decode, self._decode_cell)}
        if self.view is not None:
            counts["fill"] = _entries(self._fill, self._fill_cell)
            counts["flush"] = _entries(self._flush, self._flush_cell)
        return counts

    def warm_up(self):
        """Compile the prefill and decode graph of every shape bucket now (inputs that touch only the scratch
        block), so no request waits for a compile later; returns compile_counts()."""
        for rows, width in self.prefill_shapes:
            self._run_graph(self._prefill, self._prefill_cell, self._prefill_inputs(rows, width, [], []))
        for rows in self.decode_row_buckets:
            for blocks in self.decode_buckets:
                inputs = self._decode_inputs(rows, blocks, [], []) if self.view is None else \
                    self._decode_view_inputs(rows, blocks, [], np.zeros(0, np.int64), np.ones(rows, np.int64))
                self._run_graph(self._decode, self._decode_cell, inputs)
        if self.view is not None:
            for tokens in self.fill_buckets:
                self._run_graph(self._fill, self._fill_cell, self._fill_inputs(tokens, ()))
                self._run_graph(self._flush, self._flush_cell, self._fill_inputs(tokens, ())[::-1])
        return self.compile_counts()

    def _run_graph(self, compiled, cell, arrays):
        """Run a graph on numpy inputs → its numpy output. The first call of each shape goes through the jit
        function (its graph cache compiles it, as for any call); later calls of that shape on the same backend
        run the compiled graph itself on the arrays: no Tensor wrapping, signature key or cache lookup per step.
        A traced or jit-disabled call (MS_JIT=0) takes the jit function's own path every time."""
        backend = backends.current()
        key = (id(cell),) + tuple(a.shape for a in arrays)
        found = self._graphs.get(key)
        if found is not None and found[0] is backend and not jit_disabled() and current_tracer() is None:
            out = found[1](*[backend.from_numpy(a, copy=False) for a in arrays])[0]
            return backend.to_numpy(out)
        out = compiled(*[Tensor(a) for a in arrays]).asnumpy()
        entry = compiled.graph_cache.last_entry
        cache = compiled.graph_cache
        if entry is not None and cache.eager_reason is None and entry.frozen is None and not jit_disabled() \
                and current_tracer() is None:
            self._graphs[key] = (backend, entry.compiled)
        return out

    # ---- prefill ------------------------------------------------------------------------------------------
    def prefill(self, seq_ids, prompts):
        """Start sequences: store each prompt's keys/values, return the logits of each prompt's last token
        [len(seq_ids), vocab] float32. OutOfBlocks (nothing allocated) when the pool cannot hold them."""
        seq_ids, prompts = self._check_prefill(seq_ids, prompts)
        self.pool.reserve({s: len(p) for s, p in zip(seq_ids, prompts)})
        try:
            out = np.empty((len(seq_ids), self.config.vocab_size), np.float32)
            for chunk in self._prefill_chunks(prompts):
                out[chunk] = self._run_prefill([seq_ids[i] for i in chunk], [prompts[i] for i in chunk])
            return out
        except BaseException:
            for s in seq_ids:
                self.pool.free(s)
            raise

    def _check_prefill(self, seq_ids, prompts):
        seq_ids, prompts = list(seq_ids), list(prompts)
        if len(seq_ids) != len(prompts):
            raise ValueError(f"LLMEngine.prefill: {len(seq_ids)} seq_ids but {len(prompts)} prompts.")
        if len(set(seq_ids)) != len(seq_ids):
            raise ValueError(f"LLMEngine.prefill: seq_ids must be distinct, but got {seq_ids}.")
        for s in seq_ids:
            if s in self.pool:
                raise ValueError(f"LLMEngine.prefill: sequence {s!r} is already running; free it first.")
        checked = []
        for s, p in zip(seq_ids, prompts):
            p = self._token_list(p, f"the prompt of sequence {s!r}")
            if not p:
                raise ValueError(f"LLMEngine.prefill: the prompt of sequence {s!r} is empty.")
            if len(p) > self.max_model_len:
                raise ValueError(f"LLMEngine.prefill: the prompt of sequence {s!r} has {len(p)} tokens, more than "
                                 f"max_model_len={self.max_model_len}.")
            checked.append(p)
        return seq_ids, checked

    def _token_list(self, tokens, where):
        vocab = self.config.vocab_size
        # the decode path's usual input, a short list of Python ints in range, is checked without numpy
        if isinstance(tokens, list) and all(type(t) is int for t in tokens) and \
                (not tokens or (min(tokens) >= 0 and max(tokens) < vocab)):
            return list(tokens)
        try:
            arr = np.asarray(tokens)
        except Exception:
            arr = None
        if arr is None or arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise ValueError(f"LLMEngine: {where} must be a list of int token ids, but got {tokens!r:.80}.")
        bad = arr[(arr < 0) | (arr >= self.config.vocab_size)]
        if bad.size:
            raise ValueError(f"LLMEngine: {where} has token id {int(bad[0])} outside [0, {self.config.vocab_size}).")
        return [int(t) for t in arr]

    def _prefill_chunks(self, prompts):
        """Groups of prompt indices, each one prefill call: longest prompts first, each group as many rows as its
        longest prompt's width bucket allows (prefill_shapes), so prompts of similar lengths share a call."""
        order = sorted(range(len(prompts)), key=lambda i: -len(prompts[i]))
        at = 0
        while at < len(order):
            width = self._prefill_width(len(prompts[order[at]]))
            rows = self._prefill_rows[width][-1]
            yield order[at:at + rows]
            at += rows

    def _prefill_width(self, n):
        return next(w for w in self.prefill_buckets if w >= n)

    def _run_prefill(self, seq_ids, prompts):
        width = self._prefill_width(max(len(p) for p in prompts))
        rows = next(r for r in self._prefill_rows[width] if r >= len(prompts))
        inputs = self._prefill_inputs(rows, width, seq_ids, prompts)
        return self._run_graph(self._prefill, self._prefill_cell, inputs)[:len(seq_ids)]

    def _prefill_inputs(self, rows, width, seq_ids, prompts):
        """The prefill graph's arrays for `rows` prompts padded to `width` positions; padding (whole padding rows,
        and each prompt's tail) writes into the scratch block."""
        ids = np.zeros((rows, width), np.int32)
        scratch = self.pool.scratch_block * self.block_size
        slots = np.empty((rows, width), np.int64)
        slots[:] = np.arange(width, dtype=np.int64) % self.block_size + scratch
        last = np.zeros(rows, np.int32)
        for row, (s, p) in enumerate(zip(seq_ids, prompts)):
            n = len(p)
            ids[row, :n] = p
            slots[row, :n] = self._slots(s, n)
            last[row] = row * width + n - 1
        return ids, self._positions[:width], self.pool.rows(slots), last

    def _slots(self, seq_id, n):
        """The pool slots of the sequence's first n tokens, in order."""
        table = np.asarray(self.pool.table(seq_id), np.int64)
        return (table[:, None] * self.block_size + np.arange(self.block_size)).reshape(-1)[:n]

    # ---- decode -------------------------------------------------------------------------------------------
    def decode(self, seq_ids, tokens):
        """Append one token to each given running sequence; return next-token logits [len(seq_ids), vocab]."""
        seq_ids, tokens = list(seq_ids), list(tokens)
        if len(seq_ids) != len(tokens):
            raise ValueError(f"LLMEngine.decode: {len(seq_ids)} seq_ids but {len(tokens)} tokens.")
        if len(set(seq_ids)) != len(seq_ids):
            raise ValueError(f"LLMEngine.decode: seq_ids must be distinct, but got {seq_ids}.")
        if not seq_ids:
            return np.zeros((0, self.config.vocab_size), np.float32)
        for s in seq_ids:
            if s not in self.pool:
                raise KeyError(f"LLMEngine.decode: unknown sequence {s!r} (call prefill first).")
            if self.pool.length(s) >= self.max_model_len:
                raise ValueError(f"LLMEngine.decode: sequence {s!r} already holds max_model_len="
                                 f"{self.max_model_len} tokens.")
        tokens = self._token_list(tokens, "decode's tokens")
        old = {s: self.pool.length(s) for s in seq_ids}
        self.pool.reserve({s: n + 1 for s, n in old.items()})
        try:
            if len(seq_ids) <= self.max_batch_size:   # one call: its rows are the result, no concatenation
                return self._run_decode(seq_ids, tokens)
            out = []
            for at in range(0, len(seq_ids), self.max_batch_size):
                out.append(self._run_decode(seq_ids[at:at + self.max_batch_size],
                                            tokens[at:at + self.max_batch_size]))
            return np.concatenate(out, 0)
        except BaseException:
            self.pool.shrink(old)
            if self.view is not None:   # a row holds no more than its sequence's stored tokens (a later flush)
                for s in seq_ids:
                    if s in self.view:
                        r = self.view.row(s)
                        self.view.filled[r] = min(self.view.filled[r], old[s])
                        self.view.synced[r] = min(self.view.synced[r], self.view.filled[r])
            raise

    def _run_decode(self, seq_ids, tokens):
        if self.view is not None:
            return self._run_decode_view(seq_ids, tokens)
        tables = [self.pool.table(s) for s in seq_ids]
        longest = max(len(t) for t in tables)
        blocks = next(b for b in self.decode_buckets if b >= longest)
        rows = next(r for r in self.decode_row_buckets if r >= len(seq_ids))
        inputs = self._decode_inputs(rows, blocks, seq_ids, tokens, tables)
        return self._run_graph(self._decode, self._decode_cell, inputs)[:len(seq_ids)]

    def _decode_inputs(self, rows, blocks, seq_ids, tokens, tables=None):
        """The decode graph's arrays for `rows` rows, each sequence's table `blocks` wide; padding rows write into
        (and attend to) the scratch block. `tables`: the sequences' block tables, if the caller has them."""
        bs = self.block_size
        scratch = self.pool.scratch_block
        b = len(seq_ids)
        if tables is None:
            tables = [self.pool.table(s) for s in seq_ids]
        # built as whole arrays from Python lists (a step of 16 sequences: a few numpy calls, not ~100 element
        # writes); padding rows: token 0 at position 0, a table of scratch blocks, length 1 (slot 0 of the scratch)
        lengths = np.ones(rows, np.int64)
        lengths[:b] = [self.pool.length(s) for s in seq_ids]   # already counts this token
        ids = np.zeros(rows, np.int32)
        ids[:b] = tokens
        positions = (lengths - 1).astype(np.int32)
        table_arr = np.full((rows, blocks), scratch, np.int64)
        for row, table in enumerate(tables):
            table_arr[row, :len(table)] = table
        last = lengths - 1
        slots = table_arr[np.arange(rows), last // bs] * bs + last % bs
        if self.decode_over_pool:
            mask_add = np.full((rows, self.pool.num_slots), _NEG, self._mask_dtype)
            for row, s in enumerate(seq_ids):
                mask_add[row, self._slots(s, int(lengths[row]))] = 0.0
            mask_add[b:, scratch * bs] = 0.0
        else:
            open_ = np.arange(blocks * bs)[None, :] < lengths[:, None]
            mask_add = np.where(open_, 0.0, _NEG).astype(self._mask_dtype)[:, None, :]   # [B, 1, L]
        return ids, positions, self.pool.rows(slots), mask_add, table_arr.reshape(-1)


def _entries(bound, cell):
    return len(bound.jit_fn.cache_for(cell).entries)


def _doubling(smallest, largest):
    """smallest, 2 * smallest, 4 * smallest, ... below largest, then largest: [16, 32, 64, 100] for (16, 100)."""
    out = []
    while smallest < largest:
        out.append(smallest)
        smallest *= 2
    return out + [largest]


def _quarter_steps(smallest, largest):
    """smallest, then steps of the largest power of two within a quarter of the value (at least `smallest`) up to
    largest: four buckets per doubling, so the smallest bucket holding a value pads it by less than 25% (above
    `smallest`), and a bucket set stays small (12 up to 16 rows, 20 up to 64 blocks).

    >>> _quarter_steps(1, 14), _quarter_steps(16, 256)
    ([1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14], [16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256])
    """
    out, value = [], smallest
    while value < largest:
        out.append(value)
        quarter = value // 4
        value += max(smallest, 1 << (quarter.bit_length() - 1) if quarter else 0)
    return out + [largest]

