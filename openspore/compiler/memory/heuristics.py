"""Greedy placement heuristics: offsets in one arena for tensors with fixed lifetimes.

Each heuristic is an order in which tensors are placed and a fitting rule. A tensor is placed against the
already-placed tensors whose lifetimes overlap its own (the others may share its bytes):

* `bestfit`: the smallest gap between those neighbours that holds it (else on top of them);
* `firstfit`: the lowest offset where it fits.

Orders (SOMAS sorts blocks before its greedy "Shared Objects" pass; these are its release orders plus the
others its debug builds try): size descending; lifetime breadth descending; size x breadth descending;
number of conflicts descending; schedule start ascending (what a dynamic allocator sees). `solve` runs every
order with both rules and keeps the smallest peak, ties going to the earlier heuristic.

Placing in the order of an optimal solution's offsets with `firstfit` reproduces that optimum or better (each
tensor lands at or below its optimal offset), so these greedy passes span the optimum; the exact mode
(exact.py) searches for it.

>>> from openspore.compiler.memory.lifetimes import TensorLife
>>> ts = [TensorLife(i, s, s, a, b, f"t{i}") for i, (s, a, b) in enumerate([(512, 0, 1), (1024, 1, 2), (512, 2, 3)])]
>>> result, tried = solve(ts)
>>> result.peak, sorted(result.offsets.values())
(1536, [0, 1024, 1024])
"""


class Placement:
    """A solution: `offsets` (tensor key -> byte offset), `peak` (arena bytes), `name` (heuristic)."""

    __slots__ = ("offsets", "peak", "name")

    def __init__(self, offsets, peak, name):
        self.offsets, self.peak, self.name = offsets, peak, name

    def __repr__(self):
        return f"Placement({self.name}, peak={self.peak})"


def conflicts(tensors):
    """key -> list of tensors whose lifetimes overlap (sweep over starts: O(n log n + pairs))."""
    order = sorted(tensors, key=lambda t: t.start)
    out = {t.key: [] for t in tensors}
    active = []
    for t in order:
        active = [a for a in active if a.end >= t.start]
        for a in active:
            out[t.key].append(a)
            out[a.key].append(t)
        active.append(t)
    return out


def _orders(tensors, neighbours):
    breadth = {t.key: t.end - t.start + 1 for t in tensors}
    return [
        ("size(>)", lambda t: (-t.size, t.start)),
        ("breadth(>), size(>)", lambda t: (-breadth[t.key], -t.size, t.start)),
        ("size*breadth(>)", lambda t: (-t.size * breadth[t.key], t.start)),
        ("conflicts(>), size(>)", lambda t: (-len(neighbours[t.key]), -t.size, t.start)),
        ("start(<)", lambda t: (t.start, -t.size)),
    ]


def place(tensors, order, fitting, neighbours=None):
    """Place `tensors` in `order` (a list of them) with `fitting` ('bestfit' | 'firstfit')."""
    neighbours = conflicts(tensors) if neighbours is None else neighbours
    offsets = {}
    peak = 0
    for t in order:
        taken = sorted((offsets[n.key], offsets[n.key] + n.size) for n in neighbours[t.key] if n.key in offsets)
        offset = _fit(taken, t.size, fitting)
        offsets[t.key] = offset
        peak = max(peak, offset + t.size)
    return offsets, peak


def _fit(taken, size, fitting):
    """The offset for a block of `size` among the sorted occupied ranges `taken`."""
    best, best_gap = None, None
    cursor = 0
    for lo, hi in taken:
        gap = lo - cursor
        if gap >= size:
            if fitting == "firstfit":
                return cursor
            if best_gap is None or gap < best_gap:
                best, best_gap = cursor, gap
        cursor = max(cursor, hi)
    return cursor if best is None else best


def solve(tensors, fittings=("bestfit", "firstfit")):
    """Every heuristic; returns (best Placement, list of every Placement tried)."""
    neighbours = conflicts(tensors)
    tried = []
    for order_name, key in _orders(tensors, neighbours):
        order = sorted(tensors, key=key)
        for fitting in fittings:
            offsets, peak = place(tensors, order, fitting, neighbours)
            tried.append(Placement(offsets, peak, f"{order_name} {fitting}"))
    if not tried:
        return Placement({}, 0, "empty"), []
    best = min(tried, key=lambda p: p.peak)  # min keeps the first of equals
    return best, tried
