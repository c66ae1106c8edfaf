"""`KVView`: a row-contiguous copy of the running sequences' keys and values, read by decode's attention.

Why: reading the paged pool through block tables makes decode gather every sequence's blocks at every step (one
index_select per layer of rows x the longest sequence's blocks), about half of a decode step at 16 rows. Here each
running sequence owns a row of one buffer per layer; its keys and values are copied in from the pool once (when it
first decodes, or when it comes back after being moved out), and each decode step writes the new token's key and
value into the row in place, and only there. Attention then reads a prefix of the buffer as it lies: rows [0, B) and
positions [0, L) are views, no copy. The pool stays the state of record for every sequence not in the view: a
sequence moved out of its row while it still runs first has its decoded tokens copied back into the pool (`place`
hands them to a `flush` callback before any bookkeeping changes), so a refill, a prefill or a preemption reads
(or frees) a complete pool. Per row the view counts `synced` (its first positions, also in the pool) and `filled`
(the positions it holds): the caller sets both after a refill and `filled` after each decode step.

Layout of a layer's Parameter: [2 * (rows + 1) * n_head * length, head_dim], row
`((kind * (rows + 1) + r) * n_head + h) * length + pos` holding the key (kind 0) or value (kind 1) of head h of the
token at position pos of the sequence in row r. Seen as [2, rows + 1, n_head, length, head_dim], a prefix of rows
and positions of one kind is [B, n_head, L, head_dim] whose (B, n_head) batch merges into one stride, which a
batched matmul takes without a copy. Row `rows` is scratch: padding rows and refill padding write there.

The view is an extra cache beside the pool: `nbytes` counts it (`LLMEngine.pool_stats()['view_bytes']`), the
same as `rows` full-length sequences in the pool.

>>> view = KVView(n_layer=1, n_head=2, head_dim=4, rows=2, length=8)
>>> view.place(["a", "b"], 2), view.row("b")
([('a', 0), ('b', 1)], 1)
>>> view.synced[0], view.filled[0] = 3, 5     # row 0 ("a") holds 5 positions, the first 3 also in the pool
>>> view.place(["c", "b"], 2, flush=print)    # "a" is not decoded now: its row goes to "c"; "b" keeps its row
[('a', 0, 3, 5)]
[('c', 0)]
>>> view.drop("b"); "b" in view, view.nbytes == 2 * 3 * 2 * 8 * 4 * 4   # K/V x (2 + scratch) rows x H x L x D x 4 B
(False, True)
"""
import numpy as np

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..core.parameter import Parameter
from .ragged_attention import split_cost


class KVView:
    """Per-layer row buffers plus the sequence → row bookkeeping (see the module docstring)."""

    def __init__(self, n_layer, n_head, head_dim, rows, length, dtype=mstype.float32):
        for name, value in (("n_layer", n_layer), ("n_head", n_head), ("head_dim", head_dim), ("rows", rows),
                            ("length", length)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"KVView: '{name}' must be a positive int, but got {value!r}.")
        self.n_layer, self.n_head, self.head_dim = int(n_layer), int(n_head), int(head_dim)
        self.rows, self.length = int(rows), int(length)
        self.scratch_row = self.rows
        size = 2 * (self.rows + 1) * self.n_head * self.length
        self.kv = [Parameter(Tensor(np.zeros((size, self.head_dim), dtype.np_dtype), dtype), name=f"kv_view.kv.{i}",
                             requires_grad=False) for i in range(self.n_layer)]
        self.nbytes = self.n_layer * size * self.head_dim * np.dtype(dtype.np_dtype).itemsize
        # [2, H] offsets of (kind, head) for row 0, position 0
        self._offsets = (np.arange(2, dtype=np.int64)[:, None] * (self.rows + 1) * self.n_head
                         + np.arange(self.n_head, dtype=np.int64)[None, :]) * self.length
        self._row_of = {}
        self._seq_at = [None] * self.rows
        self.synced = np.zeros(self.rows, np.int64)   # per row: positions [0, synced) are also in the pool
        self.filled = np.zeros(self.rows, np.int64)   # per row: positions [0, filled) hold the sequence's tokens

    def __contains__(self, seq_id):
        return seq_id in self._row_of

    def row(self, seq_id):
        return self._row_of[seq_id]

    def index(self, rows, positions):
        """The Parameter rows of (row, position) pairs (int arrays of one shape): shape + (2, n_head) int64,
        [..., 0, h] the key of head h and [..., 1, h] its value."""
        base = np.asarray(rows, np.int64) * (self.n_head * self.length) + np.asarray(positions, np.int64)
        return base[..., None, None] + self._offsets

    def place(self, seq_ids, width, flush=None, lengths=None):
        """Give every sequence of `seq_ids` a row below `width` (at most `rows`): a sequence already there keeps
        its row; the others take the lowest rows not held by one of `seq_ids`, moving out whichever sequence held
        them. Before anything changes, `flush(moves)` gets (seq_id, row, synced, filled) for each sequence that
        leaves a row holding positions not yet in the pool, for the caller to copy positions [synced, filled)
        back. Returns the (seq_id, row) pairs newly placed, whose rows the caller must fill from the pool.
        With `lengths` (each sequence's length, in seq_ids' order) a joining sequence takes the free row where
        it makes the cheapest ragged attention (`_rows_by_length`), else the lowest free row."""
        if width > self.rows or len(seq_ids) > width:
            raise ValueError(f"KVView.place: {len(seq_ids)} sequences in {width} rows of a {self.rows}-row view.")
        keep = {s for s in seq_ids if self._row_of.get(s, width) < width}
        taken = {self._row_of[s] for s in keep}
        joining = [s for s in seq_ids if s not in keep]
        if lengths is None:
            free = (r for r in range(width) if r not in taken)
            moves = [(s, next(free)) for s in joining]
        else:
            moves = self._rows_by_length(seq_ids, lengths, keep, joining, width)
        leaving = [s for s, _ in moves if s in self._row_of] + [self._seq_at[r] for _, r in moves
                                                                if self._seq_at[r] is not None]
        dirty = [(s, r, int(self.synced[r]), int(self.filled[r])) for s, r in
                 ((s, self._row_of[s]) for s in leaving) if self.filled[r] > self.synced[r]]
        if dirty:
            if flush is None:
                raise ValueError(f"KVView.place: rows {[m[1] for m in dirty]} hold decoded tokens that are not in the "
                                 "pool yet; pass a 'flush' callback that copies them back.")
            flush(dirty)
        for s, r in moves:
            self.drop(s)  # held a row at or past width: leave it
            if self._seq_at[r] is not None:
                del self._row_of[self._seq_at[r]]
            self._seq_at[r], self._row_of[s] = s, r
            self.synced[r] = self.filled[r] = 0
        return moves

    def _rows_by_length(self, seq_ids, lengths, keep, joining, width):
        """(seq_id, row) for each joining sequence, longest first: the free row (below width) that makes the
        cheapest ragged attention (ragged_attention.split_cost over the rows' lengths; rows not yet held count
        as one position), the lowest such row on a tie. Decode attention reads runs of consecutive rows up to
        their longest length, so sequences of similar lengths belong next to each other: into an empty view they
        go in descending length. (With every row in use, a joining sequence has only the row just left free;
        moving a held sequence to make room by length, one swap a join, cut the positions read by 3-6% in the
        bench's workload, less than the refills cost, so rows stay where they are.)"""
        if not joining:
            return []
        length_of = dict(zip(seq_ids, (int(n) for n in lengths)))
        held = [1] * width                      # per row below width: the length it will hold
        free = set(range(width))
        for s in keep:
            r = self._row_of[s]
            held[r] = length_of[s]
            free.discard(r)
        moves = []
        for s in sorted(joining, key=lambda s: -length_of[s]):
            best, at = None, None
            for r in sorted(free):
                held[r] = length_of[s]
                cost = split_cost(held)
                held[r] = 1
                if best is None or cost < best:
                    best, at = cost, r
            held[at] = length_of[s]
            free.discard(at)
            moves.append((s, at))
        return moves

    def drop(self, seq_id):
        """Forget the sequence's row (nothing happens if it holds none)."""
        r = self._row_of.pop(seq_id, None)
        if r is not None:
            self._seq_at[r] = None
            self.synced[r] = self.filled[r] = 0
