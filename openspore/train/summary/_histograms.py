"""Several arrays' `Summary.Histogram`s at once, as wire bytes: what `_pack.fill_histogram` and protobuf write.

A default collection has five weight histograms, and `fill_histogram` cost the writer process 60-130 us each
(LeNet's weights, 32 to 6400 values): nearly all of it the fixed cost of its ~30 numpy calls, not arithmetic. Here
the arrays that are all finite floats of one dtype are concatenated and go through the same arithmetic together,
~30 numpy calls for all of them (~3x less CPU for LeNet's five). Each number is made by the same float operations
as before, element by element: `np.linspace`'s in the arrays' dtype (a range times the step, plus the start, the
last edge set to the stop), each array's float64 sum of its own contiguous values, np.histogram's bin by
arithmetic and a one-step correction (`_pack._bin_index`). The bytes are the same as `fill_histogram` and
`SerializeToString` (tested). Anything else (ints, a NaN or an infinity, an empty array, float16, a step of zero)
takes `fill_histogram`, one array at a time. What depends only on the arrays' sizes (bins, where each histogram's
edges and values lie) is made once per sizes (`_Plan`): a collection's ~15 numpy calls and passes fewer.

    >>> import numpy as np
    >>> from openspore.train.summary import summary_pb2
    >>> h = summary_pb2.Summary.Histogram.FromString(histogram_bytes([np.arange(12, dtype=np.float32)])[0])
    >>> [(b.left, b.width, b.count) for b in h.buckets], h.sum
    ([(0.0, 5.5, 6), (5.5, 5.5, 6)], 66.0)
"""
import struct

import numpy as np

from . import summary_pb2
from ._pack import bucket_records, fill_histogram, histogram_bins

_TOGETHER = (np.dtype(np.float32), np.dtype(np.float64))  # the dtypes packed together (linspace in that dtype)
_NO_NONFINITE = b"\x10\x00\x18\x00\x20\x00"  # nan_count, pos_inf_count, neg_inf_count: 0 (set, so written)
_STATS = struct.Struct("<BdBdBd")  # max (field 5), min (6), sum (7): doubles
_SLICED_FROM = 1000  # values a histogram on average from which a group is shifted and scaled slice by slice


def histogram_bytes(arrays):
    """The serialized `Summary.Histogram` of each array, in order; an array `fill_histogram` rejects gives the
    exception in its place."""
    out = [None] * len(arrays)
    groups = {}
    for i, array in enumerate(arrays):
        if array.dtype in _TOGETHER and array.size:
            groups.setdefault(array.dtype, []).append(i)
    for members in groups.values():
        packed = _together([arrays[i] for i in members])
        if packed is not None:
            for i, data in zip(members, packed):
                out[i] = data
    for i, array in enumerate(arrays):
        if out[i] is None:
            try:
                proto = summary_pb2.Summary.Histogram()
                fill_histogram(proto, array)
                out[i] = proto.SerializeToString()
            except (ValueError, TypeError) as exc:
                out[i] = exc
    return out


class _Plan:
    """What the histograms of arrays of these sizes share whatever their values: the bins, where each one's edges
    and values lie among all of them, and for each value its histogram's first and last edge. The writer packs
    the same weights' sizes at every collection: made once per sizes and dtype (`_plan`), they save each
    collection the ~15 numpy calls and the passes over all the values (`np.repeat`) that made them."""

    def __init__(self, sizes, dtype):
        sizes = np.array(sizes, np.intp)
        self.sizes = sizes.tolist()
        bounds = np.concatenate(([0], np.cumsum(sizes)))
        self.starts = bounds[:-1]
        self.slices = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
        self.bins = np.array([histogram_bins(n) for n in self.sizes], np.intp)
        self.bins_in_dtype = self.bins.astype(dtype)
        nums = self.bins + 1
        self.edge_starts = np.cumsum(nums) - nums
        self.last = self.edge_starts + self.bins  # each histogram's last edge (set to its maximum)
        self.edge_owner = np.repeat(np.arange(sizes.size), nums)  # the histogram of each edge
        self.ramp = (np.arange(int(nums.sum())) - self.edge_starts[self.edge_owner]).astype(dtype)
        self.owner = np.repeat(np.arange(sizes.size), sizes)  # the histogram of each value
        self.first_at = self.edge_starts[self.owner]  # each value's histogram's first edge, in all the edges
        self.top_at = self.first_at + self.bins[self.owner] - 1  # ... and the left edge of its last bin
        self.lefts = np.delete(np.arange(self.ramp.size), self.last)  # the bins' left edges
        self.bin_ends = np.cumsum(self.bins)  # each histogram's bins end here among all the bins
        # few large histograms (LeNet's weights): each one's values shifted and scaled by its own scalars, slice by
        # slice, instead of gathering a per-value array of them (~3x less time for LeNet's five); many small ones
        # (biases): one gather each, fewer numpy calls
        self.sliced = int(sizes.sum()) >= _SLICED_FROM * sizes.size
        for value in vars(self).values():  # shared by every collection of these sizes: never written
            if isinstance(value, np.ndarray):
                value.flags.writeable = False


_plans = {}


def _plan(sizes, dtype):
    plan = _plans.get((sizes, dtype))
    if plan is None:
        if len(_plans) > 64:  # the sizes a run collects are few; anything else is not kept for good
            _plans.clear()
        plan = _plans[(sizes, dtype)] = _Plan(sizes, dtype)
    return plan


def _together(arrays):
    """The histograms' bytes of non-empty float arrays of one dtype; None in the place of one that is not all
    finite (the others are packed together without it), or None for all where their edges are not finite: those
    go `fill_histogram`'s way."""
    flats = [a.reshape(-1) for a in arrays]
    flat = np.concatenate(flats) if len(flats) > 1 else flats[0]
    finite = np.isfinite(flat)
    if not finite.all():  # a diverging weight: the finite ones still go together
        bounds = np.cumsum([0] + [f.size for f in flats])
        clean = np.logical_and.reduceat(finite, bounds[:-1]).tolist()
        packed = _together([a for a, ok in zip(arrays, clean) if ok]) if any(clean) else None
        if packed is None:
            return None
        packed = iter(packed)
        return [next(packed) if ok else None for ok in clean]
    dtype = flat.dtype
    plan = _plan(tuple(f.size for f in flats), dtype)
    lo, hi = np.minimum.reduceat(flat, plan.starts), np.maximum.reduceat(flat, plan.starts)
    stats = (hi.tolist(), lo.tolist())  # the minimum and maximum before a flat array's widening
    values = flat.astype(np.float64)
    sums = [float(values[a:b].sum()) for a, b in plan.slices]
    flat_ones = lo == hi
    if flat_ones.any():  # as fill_histogram widens them: lo - 0.5, hi + 0.5 in the dtype
        lo = np.where(flat_ones, lo - 0.5, lo)
        hi = np.where(flat_ones, hi + 0.5, hi)
    # np.linspace(lo, hi, bins + 1) in the dtype: delta / div, arange * step, + start, last = stop
    delta = hi - lo
    step = delta / plan.bins_in_dtype
    if not (np.isfinite(delta).all() and step.all()):  # overflow, or linspace's denormal branch: one at a time
        return None
    edge_owner = plan.edge_owner
    edges = plan.ramp * step[edge_owner]
    edges += lo[edge_owner]
    edges[plan.last] = hi
    # _pack._bin_index for all of them: (x - first) * (bins / (last - first)) in float64, clipped, corrected;
    # kept as the index into `edges` of each value's bin's left edge
    first64 = edges[plan.edge_starts].astype(np.float64)
    scale = plan.bins / (hi.astype(np.float64) - first64)
    if plan.sliced:  # the same float64 subtraction and product per value, by Python floats of the same values
        for (a, b), first, factor in zip(plan.slices, first64.tolist(), scale.tolist()):
            part = values[a:b]
            part -= first
            part *= factor
    else:
        owner = plan.owner
        values -= first64[owner]
        values *= scale[owner]
    at = values.astype(np.intp)
    at += plan.first_at
    top = plan.top_at
    np.minimum(at, top, out=at)  # (no clip at 0: x >= lo = the first edge, and the scale is positive)
    at -= flat < np.take(edges, at)  # (`take`: a third cheaper than indexing with an array)
    up = flat >= np.take(edges[1:], at)  # the right edge of each value's bin
    up &= at != top
    at += up
    counts = np.bincount(at, minlength=edges.size)[plan.lefts]
    wide = edges.astype(np.float64)
    lefts = wide[plan.lefts]
    records, lengths = bucket_records(lefts, wide[plan.lefts + 1] - lefts, counts)
    cuts = np.concatenate(([0], np.cumsum(lengths)[plan.bin_ends - 1])).tolist()
    out = []
    for k, (n, top_value, low_value, total) in enumerate(zip(plan.sizes, stats[0], stats[1], sums)):
        out.append(b"".join((records[cuts[k]:cuts[k + 1]], _NO_NONFINITE,
                             _STATS.pack(0x29, top_value, 0x31, low_value, 0x39, total), b"\x40", varint(n))))
    return out


def varint(n):
    """A non-negative int as protobuf's base-128 varint.

    >>> varint(5), varint(300)
    (b'\\x05', b'\\xac\\x02')
    """
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
