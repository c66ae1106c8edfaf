"""A static memory plan for one training step: every activation of forward + backward + optimizer gets a fixed
offset in one arena, and tensors whose lifetimes overlap never share bytes.

Lifetimes are [producing op, last reading op] in execution order (results the step returns live to its end).
Placement is greedy, largest tensor first, at the lowest offset that clears every already-placed tensor with an
overlapping lifetime (the classic offset-assignment heuristic behind SOMAS-style planners). `peak_bytes` is the
arena size; `total_bytes` what one buffer per tensor would take; `live_bytes` the largest sum of simultaneously
live tensors (no plan can go below it).

>>> plan = plan_arena({1: 100, 2: 100, 3: 50}, {1: (0, 1), 2: (1, 2), 3: (2, 3)})
>>> plan.peak_bytes, plan.total_bytes, plan.offsets[3] in (0, 128)
(256, 250, True)
"""
ALIGN = 64


class ArenaPlan:
    def __init__(self, offsets, sizes, lifetimes, peak_bytes):
        self.offsets, self.sizes, self.lifetimes = offsets, sizes, lifetimes
        self.peak_bytes = peak_bytes
        self.total_bytes = sum(sizes.values())
        ends = [e for _, e in lifetimes.values()] or [0]
        self.live_bytes = max((sum(sizes[t] for t, (s, e) in lifetimes.items() if s <= k <= e)
                               for k in range(max(ends) + 1)), default=0)

    def check(self):
        """Raise if two tensors with overlapping lifetimes overlap in memory (used by the tests)."""
        items = sorted(self.offsets)
        for i, a in enumerate(items):
            for b in items[i + 1:]:
                (sa, ea), (sb, eb) = self.lifetimes[a], self.lifetimes[b]
                if sa <= eb and sb <= ea:
                    oa, ob = self.offsets[a], self.offsets[b]
                    if oa < ob + self.sizes[b] and ob < oa + self.sizes[a]:
                        raise AssertionError(f"tensors {a} and {b} are live together and share memory")

    def __repr__(self):
        return (f"ArenaPlan({len(self.offsets)} tensors, peak {self.peak_bytes} B, live bound {self.live_bytes} B, "
                f"one buffer each {self.total_bytes} B)")


def _aligned(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def plan_arena(sizes, lifetimes):
    """Offsets for tensors `sizes` (id → bytes) with `lifetimes` (id → (first, last) op index)."""
    offsets = {}
    placed = []  # (offset, end, start_t, end_t)
    for t in sorted(sizes, key=lambda k: (-sizes[k], k)):
        size = _aligned(max(sizes[t], 1))
        s, e = lifetimes[t]
        busy = sorted((o, oe) for o, oe, ps, pe in placed if ps <= e and s <= pe)
        offset = 0
        for o, oe in busy:
            if offset + size <= o:
                break
            offset = max(offset, oe)
        offsets[t] = offset
        placed.append((offset, offset + size, s, e))
    peak = max((oe for _, oe, _, _ in placed), default=0)
    return ArenaPlan(offsets, dict(sizes), dict(lifetimes), peak)


def lifetimes_of(ops, planned, returned):
    """(first, last) op index of each planned tensor id over `ops`; `returned` ids live to the end."""
    first, last = {}, {}
    for k, op in enumerate(ops):
        for t in op.tensor_inputs():
            if t in planned:
                last[t] = k
        for t in op.outputs:
            if t in planned:
                first.setdefault(t, k)
                last.setdefault(t, k)
    end = len(ops)
    for t in returned:
        if t in first:
            last[t] = end
    return {t: (first[t], max(last[t], first[t])) for t in first}
