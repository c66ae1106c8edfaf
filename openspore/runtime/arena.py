"""The memory arena: a planned graph's tensors live in one preallocated buffer (`memory_optimize_level="O1"`).

The static memory plan (compiler/memory) gives every tensor of a graph an offset in one arena. `Arena` turns the
plan into one byte buffer per compiled graph and one array view per planned tensor (its offset, shape and
dtype); the generated code (executor.py) writes each kernel's result into its view, so the bytes a step uses are
the planned peak, allocated once and kept between steps, as SOMAS's whole block is.

What gets a view (`arena_slots`): each tensor leaf a primitive makes, except the graph's outputs (they leave the
step and must not be overwritten by the next one) and what makes no array (views such as Reshape on the torch
backend, side-effecting updates: the planner gave them no bytes). A kernel result of another shape or dtype than
inferred is kept as it is (`Backend.copy_into`), so the arena never converts a value.

A call that starts while another call of the same graph still runs (re-entry, another thread) gets a buffer of
its own; one idle buffer is kept for the next call.

>>> from openspore import backends
>>> from openspore.common import dtype as mstype
>>> arena = Arena(backends.get("numpy"), 1024, [(0, (2, 2), mstype.float32), (512, (4,), mstype.int32)])
>>> buffer, views = arena.acquire()
>>> [v.shape for v in views], buffer.nbytes
([(2, 2), (4,)], 1024)
>>> arena.release((buffer, views)); arena.acquire()[0] is buffer
True

Off by default (`arena_enabled`): on the CPU, torch's allocator does not cache, so O0 already frees each tensor
after its last use and its measured peak is the plan's lower bound; the arena adds the copy of every result whose
kernel cannot write into a view (most of them today) — measured 1.08–1.55x O0's peak and 1.18–1.33x its step time
(docs/memory.md). `OPENSPORE_O1_ARENA=1` turns it on for O1 graphs, to study placement and for kernels with `out=`.
"""
import os


def arena_enabled():
    """Whether O1 graphs run in an arena: the environment variable OPENSPORE_O1_ARENA is "1" (read per compile)."""
    return os.environ.get("OPENSPORE_O1_ARENA", "0") == "1"


class Arena:
    """`Arena(backend, nbytes, layout, keys=None)`: `layout` lists (offset, shape, openspore dtype) per slot, in
    slot order; `keys` the plan's tensor key of each slot (for `check_arena`)."""

    __slots__ = ("backend", "nbytes", "layout", "keys", "_idle")

    def __init__(self, backend, nbytes, layout, keys=None):
        self.backend, self.nbytes, self.layout, self.keys = backend, nbytes, list(layout), keys
        self._idle = []

    def acquire(self):
        """(buffer, views) for one call: the idle buffer, or a new one while the idle one is in use."""
        if self._idle:
            return self._idle.pop()
        buffer = self.backend.byte_buffer(max(self.nbytes, 1))
        return buffer, [self.backend.view_bytes(buffer, off, shape, dtype) for off, shape, dtype in self.layout]

    def release(self, held):
        """Give a call's (buffer, views) back for the next call (one is kept; others are freed)."""
        if not self._idle:
            self._idle.append(held)

    def own(self, buffer, value):
        """`value`, copied out of the arena when it is a view into `buffer` (a value leaving the step)."""
        if self.backend.in_buffer(buffer, value):
            clone = getattr(value, "clone", None)
            return clone() if clone is not None else value.copy()
        return value

    def copy_leaves(self, views, value):
        """A tuple-valued kernel result with each leaf that has a view (not None) written into it."""
        if not isinstance(value, (tuple, list)) or len(value) != len(views):
            return value
        put = self.backend.copy_into
        return tuple(v if view is None else put(view, v) for view, v in zip(views, value))

    def __repr__(self):
        return f"Arena({self.nbytes} B, {len(self.layout)} tensors)"


def _address_range(arr):
    """[start, end) of the bytes an array view covers (torch tensor or numpy array)."""
    if hasattr(arr, "data_ptr"):
        start = arr.data_ptr()
        return start, start + arr.numel() * arr.element_size()
    start = arr.__array_interface__["data"][0]
    return start, start + arr.nbytes


def check_arena(arena, plan):
    """Raise AssertionError when two tensors of `plan` live at the same time share bytes of the arena as the
    generated code writes it: the byte ranges come from the views' own addresses, not from the plan's offsets.
    Also checks that every view lies inside the buffer and has the bytes its tensor needs."""
    held = arena.acquire()
    try:
        buffer, views = held
        low, high = _address_range(buffer)
        lives = {t.key: t for t in plan.tensors}
        placed = []
        for key, view in zip(arena.keys, views):
            life, (start, end) = lives[key], _address_range(view)
            if start < low or end > high or end - start != life.raw_size:
                raise AssertionError(f"{life.name}: view [{start - low}, {end - low}) of {end - start} B does not "
                                     f"hold its {life.raw_size} B inside the arena of {high - low} B")
            placed.append((start, end, life))
        placed.sort(key=lambda p: p[0])
        for i, (_, end, life) in enumerate(placed):
            for other_start, other_end, other in placed[i + 1:]:
                if other_start >= end:
                    break
                if life.overlaps(other):
                    raise AssertionError(f"{life.name} and {other.name} share arena bytes "
                                         f"[{other_start - low}, {min(end, other_end) - low}) while both live")
    finally:
        arena.release(held)


_CONTROL_FLOW = ("if", "while", "call")


def arena_slots(graph, plan):
    """(layout, {node id: slot index, or a tuple with a slot index or None per leaf}, keys) for `graph`'s planned
    tensors; None when the graph cannot run in an arena: control flow (a branch may return one of its operands,
    a view into the arena outliving its planned lifetime) or no plan tensors."""
    if plan is None or not plan.tensors or any(n.op in _CONTROL_FLOW for n in graph.nodes):
        return None
    planned = {t.key: t for t in plan.tensors if t.end < plan.schedule_length}  # outputs leave the step
    layout, slots, keys = [], {}, []
    for node in graph.nodes:
        if not node.is_primitive:
            continue
        abstract = node.abstract
        leaves = abstract if isinstance(abstract, tuple) else (abstract,)
        if any(isinstance(leaf, tuple) for leaf in leaves):
            continue  # nested tuples: left to the kernel's own allocation
        per_leaf = []
        for index, leaf in enumerate(leaves):
            key = (node.id, index)
            if key in planned:
                per_leaf.append(len(layout))
                layout.append((plan.offsets[key], tuple(leaf.shape), leaf.dtype))
                keys.append(key)
            else:
                per_leaf.append(None)
        if any(s is not None for s in per_leaf):
            slots[node.id] = tuple(per_leaf) if isinstance(abstract, tuple) else per_leaf[0]
    return (layout, slots, keys) if layout else None
