"""`ViewDecoding`: the part of `LLMEngine` that decodes through a `KVView` (decode_attention 'view'): placing the
decoded sequences in view rows (by length, for ragged attention), refilling rows from the pool and flushing decoded
tokens back, and the view decode graph's inputs. A mixin: it uses the engine's pool, view, graphs and buckets.
"""
import numpy as np

from .ragged_attention import row_spans


class ViewDecoding:
    """LLMEngine's decode through the KVView (see the module docstring)."""

    def _run_decode_view(self, seq_ids, tokens):
        """One decode call through the KVView: the sequences take view rows below the row bucket (a running
        sequence moved out of a row first has its decoded tokens flushed into the pool; those newly placed are
        filled from the pool), graph row r is view row r, the logits come back in call order."""
        b = len(seq_ids)
        width = next(r for r in self.decode_row_buckets if r >= b)
        lengths_now = [self.pool.length(s) for s in seq_ids]   # already count this token
        placed = self.view.place(seq_ids, width, flush=self._flush_view,
                                 lengths=lengths_now if self.ragged_decode else None)
        if placed:
            try:
                self._fill_view(placed)
            except BaseException:   # a row half filled: the pool still holds all of it; refill next time
                for s, _ in placed:
                    self.view.drop(s)
                raise
        rows = np.array([self.view.row(s) for s in seq_ids], np.int64)
        lengths = np.ones(width, np.int64)    # padding rows: token 0 at position 0, one open position
        lengths[rows] = lengths_now
        blocks = next(n for n in self.decode_buckets if n * self.block_size >= lengths.max())
        inputs = self._decode_view_inputs(width, blocks, tokens, rows, lengths)
        out = self._run_graph(self._decode, self._decode_cell, inputs)[rows]
        self.view.filled[rows] = lengths[rows]
        return out

    def _decode_view_inputs(self, width, blocks, tokens, rows, lengths):
        """The view decode graph's arrays (ids, positions, view index, mask_add); padding rows write into the
        view's scratch row."""
        ids = np.zeros(width, np.int32)
        ids[rows] = tokens
        positions = lengths - 1
        view_rows = np.full(width, self.view.scratch_row, np.int64)
        view_rows[rows] = rows
        view_pos = np.where(view_rows == self.view.scratch_row, 0, positions)
        span = blocks * self.block_size
        # row n of the open-prefix table is 0 on positions [0, n) and _NEG after: one row gather per sequence
        # instead of a comparison, a where and a cast over [rows, span] every step
        mask_add = self._open_prefix[lengths, :span]
        # per row, the positions its run of rows reads (ragged_attention.py); without ragged_decode all of them
        # (rounded up to 16 by row_spans, so at most the bucket's span: the mask's and the view's width)
        spans = np.minimum(row_spans(lengths), span) if self.ragged_decode else np.full(width, span, np.int64)
        return (ids, positions.astype(np.int32), self.view.index(view_rows, view_pos), mask_add[:, None, None, :],
                spans)

    def _fill_view(self, placed):
        """Copy the stored tokens (all but this step's) of each newly placed (seq_id, row) from the pool into its
        view row, in calls of at most the largest fill bucket."""
        pieces = []
        for s, r in placed:
            n = self.pool.length(s) - 1
            pieces.append((self._slots(s, n), np.full(n, r, np.int64), np.arange(n, dtype=np.int64)))
        self._copy_rows(self._fill, self._fill_cell, pieces, reverse=False)
        for s, r in placed:
            self.view.synced[r] = self.view.filled[r] = self.pool.length(s) - 1

    def _flush_view(self, moves):
        """Copy positions [synced, filled) of each (seq_id, row, synced, filled) from its view row back into the
        sequence's pool slots (KVView.place calls this before the rows change hands)."""
        pieces = [(self._slots(s, stop)[start:], np.full(stop - start, r, np.int64),
                   np.arange(start, stop, dtype=np.int64)) for s, r, start, stop in moves]
        self._copy_rows(self._flush, self._flush_cell, pieces, reverse=True)

    def _copy_rows(self, compiled, cell, pieces, reverse):
        """Run a RowCopyGraph over (pool slots, view rows, view positions) pieces in calls of at most the largest
        fill bucket: pool → view, or view → pool when `reverse`."""
        slots, vrows, vpos = (np.concatenate(p) for p in zip(*pieces))
        most = self.fill_buckets[-1]
        for at in range(0, len(slots), most):
            part = slice(at, at + most)
            tokens = next(t for t in self.fill_buckets if t >= len(slots[part]))
            src, dst = self._fill_inputs(tokens, (slots[part], vrows[part], vpos[part]))
            self._run_graph(compiled, cell, (dst, src) if reverse else (src, dst))

    def _fill_inputs(self, tokens, parts):
        """The fill graph's (src, dst) — pool rows, view rows — for `tokens` tokens: `parts` = (pool slots, view
        rows, view positions) of the real ones, or () for padding only (the pool's scratch block and the view's
        scratch row); swapped, the flush graph's."""
        slots = np.full(tokens, self.pool.scratch_block * self.block_size, np.int64)
        vrows = np.full(tokens, self.view.scratch_row, np.int64)
        vpos = np.zeros(tokens, np.int64)
        if parts:
            n = len(parts[0])
            slots[:n], vrows[:n], vpos[:n] = parts
        return self.pool.rows(slots).reshape(-1), self.view.index(vrows, vpos).reshape(-1)
