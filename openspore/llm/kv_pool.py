"""`KVPool`: the paged key/value state of incremental inference.

The keys and values of each layer live in one openspore Parameter of shape [2 * n_head * num_slots, head_dim]
(num_slots = (num_blocks + 1) * block_size): row `(kind * n_head + h) * num_slots + slot` holds the key (kind 0) or
the value (kind 1) of head h of the token in `slot`. So a graph reads a head's keys as one contiguous
[num_slots, head_dim] matrix, writes a step's keys and values with one scatter, and gathers a sequence's blocks of
keys and values with one index_select over [2 * n_head, num_blocks + 1, block_size * head_dim] whose result is
[2, n_head, tokens, head_dim] as it lies, ready for attention. Slots are grouped in fixed-size blocks of
`block_size`. A sequence owns a list of blocks (its block table): token t of the sequence sits in slot
`table[t // block_size] * block_size + t % block_size`.
Sequences of any lengths share the pool without fragmentation (any free block serves any sequence) and waste at
most `block_size - 1` slots each. The compiled prefill and decode graphs write new rows into these Parameters in
place and read them through block tables; the bookkeeping (free list, tables, lengths) is host-side here.

The extra last block is scratch: padding rows of a fixed-shape graph write there, and nothing reads it as state.

>>> pool = KVPool(n_layer=1, n_head=2, head_dim=2, num_blocks=3, block_size=2)
>>> pool.reserve({"a": 3}); pool.table("a"), pool.num_free_blocks
([0, 1], 1)
>>> pool.reserve({"b": 3})
Traceback (most recent call last):
  ...
openspore.llm.kv_pool.OutOfBlocks: the KV pool has 1 free block(s) of 2 slots but 2 are needed (for sequence(s) ['b']).
>>> pool.free("a"); pool.num_free_blocks
3
"""
import numpy as np

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..core.parameter import Parameter


class OutOfBlocks(RuntimeError):
    """The KV pool cannot hold the requested tokens; nothing was allocated."""


class KVPool:
    """Per-layer key and value Parameters plus the block bookkeeping (see the module docstring)."""

    def __init__(self, n_layer, n_head, head_dim, num_blocks, block_size, dtype=mstype.float32):
        for name, value in (("n_layer", n_layer), ("n_head", n_head), ("head_dim", head_dim),
                            ("num_blocks", num_blocks), ("block_size", block_size)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"KVPool: '{name}' must be a positive int, but got {value!r}.")
        self.n_layer, self.n_head, self.head_dim = int(n_layer), int(n_head), int(head_dim)
        self.n_embd = self.n_head * self.head_dim
        self.num_blocks, self.block_size = int(num_blocks), int(block_size)
        self.scratch_block = self.num_blocks  # padding rows write here
        self.num_slots = (self.num_blocks + 1) * self.block_size
        self.dtype = dtype
        self.kv = [Parameter(Tensor(np.zeros((2 * self.n_head * self.num_slots, self.head_dim), dtype.np_dtype),
                                    dtype), name=f"kv_pool.kv.{i}", requires_grad=False) for i in range(self.n_layer)]
        self._row_offsets = np.arange(2 * self.n_head, dtype=np.int64).reshape(2, self.n_head) * self.num_slots
        self.bytes_per_token = 2 * self.n_layer * self.n_embd * np.dtype(dtype.np_dtype).itemsize
        self._free = list(range(self.num_blocks - 1, -1, -1))  # a stack: low block ids are handed out first
        self._tables = {}
        self._lengths = {}

    # ---- bookkeeping --------------------------------------------------------------------------------
    @property
    def num_free_blocks(self):
        return len(self._free)

    def blocks_needed(self, num_tokens):
        return -(-int(num_tokens) // self.block_size)

    def __contains__(self, seq_id):
        return seq_id in self._tables

    def seq_ids(self):
        return list(self._tables)

    def length(self, seq_id):
        return self._lengths[seq_id]

    def table(self, seq_id):
        return list(self._tables[seq_id])

    def reserve(self, new_lengths):
        """Grow (or create) each sequence to hold `new_lengths[seq_id]` tokens: all at once or, raising
        OutOfBlocks, not at all."""
        extra = {s: self.blocks_needed(n) - len(self._tables.get(s, ())) for s, n in new_lengths.items()}
        total = sum(max(e, 0) for e in extra.values())
        if total > len(self._free):
            short = [s for s, e in extra.items() if e > 0]
            raise OutOfBlocks(f"the KV pool has {len(self._free)} free block(s) of {self.block_size} slots but "
                              f"{total} are needed (for sequence(s) {short}).")
        for s, n in new_lengths.items():
            table = self._tables.setdefault(s, [])
            for _ in range(max(extra[s], 0)):
                table.append(self._free.pop())
            self._lengths[s] = int(n)

    def shrink(self, lengths):
        """Undo a `reserve` that grew sequences: each goes back to `lengths[seq_id]` tokens, surplus blocks freed."""
        for s, n in lengths.items():
            table = self._tables[s]
            keep = self.blocks_needed(n)
            self._free.extend(reversed(table[keep:]))
            del table[keep:]
            self._lengths[s] = int(n)

    def free(self, seq_id):
        """Return the sequence's blocks to the free list (KeyError naming it if it is unknown)."""
        if seq_id not in self._tables:
            raise KeyError(f"KVPool.free: unknown sequence {seq_id!r}.")
        self._free.extend(reversed(self._tables.pop(seq_id)))
        del self._lengths[seq_id]

    def slot(self, seq_id, position):
        """The pool row of token `position` of the sequence."""
        return self._tables[seq_id][position // self.block_size] * self.block_size + position % self.block_size

    @property
    def parameters(self):
        """Every key/value Parameter: layer 0's, layer 1's, ..."""
        return list(self.kv)

    def rows(self, slots):
        """The rows of `slots` (an int array of any shape) in a layer's Parameter: slots.shape + (2, n_head) int64,
        [..., 0, h] the key of head h and [..., 1, h] its value (int64: the kernels' own index type, no conversion
        at each call)."""
        return np.asarray(slots, np.int64)[..., None, None] + self._row_offsets

    def snapshot(self):
        """The bookkeeping as plain values (tests compare it before and after a refused request)."""
        return (list(self._free), {s: list(t) for s, t in self._tables.items()}, dict(self._lengths))

    def stats(self):
        """used_bytes: the blocks held by sequences; true_bytes: Σ tokens × bytes per token; capacity_bytes: the
        whole pool (scratch block excluded)."""
        used_blocks = sum(len(t) for t in self._tables.values())
        return {"used_bytes": used_blocks * self.block_size * self.bytes_per_token,
                "true_bytes": sum(self._lengths.values()) * self.bytes_per_token,
                "capacity_bytes": self.num_blocks * self.block_size * self.bytes_per_token,
                "num_free_blocks": len(self._free), "num_blocks": self.num_blocks,
                "num_sequences": len(self._tables)}
