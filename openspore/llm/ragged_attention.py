"""Ragged decode attention: each run of view rows reads only as many positions as its longest sequence holds.

Why: the view decode graph's attention (engine_graphs.ViewDecodeGraph) read, for every row, the positions of the
longest running sequence's length bucket; in a continuous-batching run of mixed lengths only about half of the
positions read were a row's own. `RaggedDecodeAttention` is one kernel per layer that takes, besides the query
and the KVView's buffer, a `spans` vector: consecutive rows with the same span form one group, and each group
runs its own products over the first `span` positions of its rows, as views of the buffer (no copy). The engine
picks the spans each step (`row_spans`): a contiguous split of the rows that trades the positions a group saves
against the fixed cost of one more group of products; and KVView places joining sequences next to rows of
similar length (KVView.place's `lengths`), so such splits save much.

A row's result is the same softmax over its own positions as before: positions past its length inside its
group's span are masked with -1e9 (probability exactly 0), positions past the span are not read at all.

>>> import numpy as np
>>> row_spans(np.array([100, 96, 90, 12, 10, 9]), group_cost=50).tolist()
[112, 112, 112, 16, 16, 16]
>>> row_spans(np.array([100, 96, 90, 12, 10, 9]), group_cost=1000).tolist()
[112, 112, 112, 112, 112, 112]
"""
import numpy as np

from ..core.primitive import AbstractTensor, Primitive

# the fixed cost of one more group of products, in row-positions read: per layer two batched products, a mask
# add and a softmax cost ~13 us on torch CPU, a row-position ~0.035-0.08 us (isolated calls / inside the decode
# step; bench GPT, head size 32, one thread); 150 and 400 measured alike within the noise of a loaded machine
GROUP_COST = 400


def row_spans(lengths, group_cost=GROUP_COST, align=16):
    """Per row, how many positions its group reads: `lengths` (int array, rows in view order) split into runs of
    consecutive rows, each run reading its longest length rounded up to a multiple of `align`, chosen to minimise
    Σ rows × span + group_cost per run (dynamic programming over the split points; at most a few dozen rows).
    Why `align`: torch's CPU softmax and batched products are several times slower on a last axis that is not a
    multiple of 16 (a span of 10: 12 us against 2 us for 16, for 16 rows × 4 heads)."""
    return np.array(_plan(lengths, group_cost, align)[1], np.int64)


def split_cost(lengths, group_cost=GROUP_COST, align=16):
    """The cost (row-positions read plus group_cost per group) of row_spans' best split of `lengths`."""
    return _plan(lengths, group_cost, align)[0]


_PLANS = {}


def _plan(lengths, group_cost, align):
    """(cost, spans) of the best split, cached: a batch's aligned lengths change only every `align` steps."""
    values = tuple(-(-int(n) // align) * align for n in np.asarray(lengths).tolist())
    key = (values, group_cost)
    found = _PLANS.get(key)
    if found is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        found = _PLANS[key] = _split(values, group_cost)
    return found


def _split(values, group_cost):
    n = len(values)
    if n == 0:
        return 0, []
    best = [0] + [None] * n      # best[j]: the least cost of rows [0, j)
    start = [0] * (n + 1)        # the first row of the last run in that best split
    for j in range(1, n + 1):
        longest, choice, at = 0, None, 0
        for i in range(j - 1, -1, -1):
            if values[i] > longest:
                longest = values[i]
            cost = best[i] + (j - i) * longest + group_cost
            if choice is None or cost < choice:
                choice, at = cost, i
        best[j], start[j] = choice, at
    spans = [0] * n
    j = n
    while j:
        i = start[j]
        spans[i:j] = [max(values[i:j])] * (j - i)
        j = i
    return best[n], spans


class RaggedDecodeAttention(Primitive):
    """RaggedDecodeAttention(rows, length)(q, kv, mask_add, spans) -> out [B, H, 1, D]: softmax(q·kᵀ + mask)·v per
    row over the first spans[b] positions of row b of a KVView layer buffer.

    q [B, H, 1, D] (already scaled); kv: one layer's KVView Parameter [2 * rows * H * length, D] (rows counting the
    scratch row); mask_add [B, 1, 1, S] (0 on each row's positions, -1e9 past them; S >= every span); spans [B]
    int64, equal for the consecutive rows of one group (row_spans)."""

    attr_defaults = {"rows": 1, "length": 1}
    differentiable = False
    nondiff_reason = "decode attention reads the inference cache; nothing is trained through it"

    def infer(self, q, kv, mask_add, spans):
        return AbstractTensor(tuple(q.shape), q.dtype)

    @staticmethod
    def _groups(spans):
        """(first row, end row, span) of each run of equal spans."""
        values = spans.tolist()
        out, first = [], 0
        for row in range(1, len(values) + 1):
            if row == len(values) or values[row] != values[first]:
                out.append((first, row, int(values[first])))
                first = row
        return out

    def numpy(self, np_, q, kv, mask_add, spans):
        b, h, _, d = q.shape
        kv = kv.reshape(2, self.rows, h, self.length, d)
        out = np_.empty(q.shape, q.dtype)
        for first, end, span in self._groups(spans):
            keys, values = kv[0, first:end, :, :span], kv[1, first:end, :, :span]
            scores = np_.matmul(q[first:end], keys.swapaxes(-1, -2)) + mask_add[first:end, ..., :span]
            scores = np_.exp(scores - scores.max(-1, keepdims=True))
            out[first:end] = np_.matmul(scores / scores.sum(-1, keepdims=True), values)
        return out

    def torch(self, torch, q, kv, mask_add, spans):
        b, h, _, d = q.shape
        length = self.length
        kv = kv.contiguous()                       # the views below are built from its strides (no-op: a Parameter)
        if mask_add.stride(-1) != 1:
            mask_add = mask_add.contiguous()
        base = kv.storage_offset()
        half = base + self.rows * h * length * d   # where the values start, after every row's keys
        row_stride = h * length * d                # one view row: every head's positions
        queries = q.reshape(b * h, 1, d)
        mask_row = mask_add.stride(0)
        parts = []
        for first, end, span in self._groups(spans):
            n = end - first
            # rows [first, end) and positions [0, span) as [n * H, span, D] matrices straight from the buffer
            # (the row and head axes merge into one stride): no copy, one as_strided each instead of index chains
            keys = kv.as_strided((n * h, d, span), (length * d, 1, d), base + first * row_stride)
            values = kv.as_strided((n * h, span, d), (length * d, d, 1), half + first * row_stride)
            scores = torch.bmm(queries[first * h:end * h], keys)                    # [n * H, 1, span]
            mask = mask_add.as_strided((n, 1, span), (mask_row, 0, 1), mask_add.storage_offset() + first * mask_row)
            scores.view(n, h, span).add_(mask)
            # a fresh result each, not bmm(out=) into a slice (~20 us more a call)
            parts.append(torch.bmm(torch.softmax(scores, -1), values))
        out = parts[0] if len(parts) == 1 else torch.cat(parts)
        return out.view(b, h, 1, d)
