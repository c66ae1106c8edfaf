"""Tensor lifetimes from a compiled graph's schedule: what the static memory planner places.

A planned tensor is one array a node of the graph produces: a primitive's output, each leaf of a tuple-valued
primitive, each value a control-flow node (`if`, `while`, `call`) returns. Graph inputs, Parameters (`weight`)
and constants live outside the step and are not planned (SOMAS's graph-input / lifelong tensors).

The schedule is the node order the executor runs (`graph.nodes`). A tensor lives from the position of the node
that makes it to the position of its last reader, both inclusive: the node at the last use reads it while
writing its own output, so the two must not share bytes. `make_tuple` and `tuple_get_item` make no array; a
read through them is a read of the tensors they carry. Tensors the graph returns live to the end of the
schedule (`len(graph.nodes)`). These are exactly the points where the executor's generated code drops its
last reference (`del` after the last use, executor.py), so the plan mirrors what the runtime frees.

`aliases` names the primitives whose kernel returns a view of its first input on the backend that will run the
graph (the torch backend's `view_primitives`: Reshape, Transpose, Split, ...): their output makes no array, and
a read of it is a read of the viewed tensor, which therefore lives until the view's last use. Side-effecting
primitives (Assign, the optimizers) return their first input, the Parameter they updated, and make nothing.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[256]) {
...   %1 = Neg(%0) : f32[256]
...   %2 = Exp(%1) : f32[256]
...   %3 = Add(%1, %2) : f32[256]
...   return %3
... }''')
>>> [(t.start, t.end, t.size) for t in tensor_lifetimes(g)]
[(0, 2, 1024), (1, 2, 1024), (2, 3, 1024)]
"""
from ...core.primitive import AbstractTensor

# primitives whose kernels return one of their inputs as it is: no new array (Depend(value, expr) -> value)
_RETURNS_INPUT = {"Depend": 0}
ALIGNMENT = 512  # bytes; SOMAS aligns every tensor to 512 B (kDefaultAlignmentSize)


class TensorLife:
    """One planned tensor: `key` (node id, leaf index), `size` (bytes, aligned), `start`/`end` (inclusive
    schedule positions), `name` (for reports)."""

    __slots__ = ("key", "size", "raw_size", "start", "end", "name")

    def __init__(self, key, size, raw_size, start, end, name):
        self.key, self.size, self.raw_size, self.start, self.end, self.name = key, size, raw_size, start, end, name

    def overlaps(self, other):
        """True when both are live at some schedule position (they must not share bytes)."""
        return self.start <= other.end and other.start <= self.end

    def __repr__(self):
        return f"TensorLife({self.name}, {self.size} B, [{self.start}, {self.end}])"


def aligned(nbytes, alignment=ALIGNMENT):
    return -(-nbytes // alignment) * alignment


def _leaves(abstract):
    """The AbstractTensor leaves of an abstract (nested tuples flattened), with their flat index."""
    if isinstance(abstract, AbstractTensor):
        return [abstract]
    if isinstance(abstract, tuple):
        out = []
        for a in abstract:
            out.extend(_leaves(a))
        return out
    return []


def _nbytes(abstract):
    dtype = abstract.dtype
    itemsize = getattr(dtype, "itemsize", None)
    if itemsize is None or any(not isinstance(d, int) or d < 0 for d in abstract.shape):
        return None  # an unknown shape or dtype: nothing static to plan
    return abstract.size * itemsize


def tensor_lifetimes(graph, alignment=ALIGNMENT, aliases=()):
    """The planned tensors of `graph` (not of its subgraphs: each graph is planned on its own), in schedule
    order of their producers. `aliases`: primitive names whose output is a view of their first input."""
    tensors = {}   # key -> TensorLife
    carried = {}   # node id -> tuple of keys per element (tuple-valued) or a flat list of keys
    end = len(graph.nodes)
    for pos, node in enumerate(graph.nodes):
        for inp in node.inputs:
            for key in _flat(carried.get(inp.id, ())):
                tensors[key].end = max(tensors[key].end, pos)
        if node.op == "make_tuple":
            carried[node.id] = tuple(carried.get(i.id, ()) for i in node.inputs)
        elif node.op == "tuple_get_item":
            whole = carried.get(node.inputs[0].id, ())
            index = int(node.index)
            carried[node.id] = whole[index] if isinstance(whole, tuple) and index < len(whole) else whole
        elif node.is_primitive and node.op_name in _RETURNS_INPUT:
            carried[node.id] = carried.get(node.inputs[_RETURNS_INPUT[node.op_name]].id, ())
        elif node.is_primitive and node.inputs and (node.op_name in aliases or is_side_effect(node)):
            carried[node.id] = carried.get(node.inputs[0].id, ())
        elif node.is_primitive or node.op in ("if", "while", "call"):
            carried[node.id] = _produce(node, pos, tensors, alignment)
    for key in _flat(carried.get(graph.output.id, ())):
        tensors[key].end = end
    return sorted(tensors.values(), key=lambda t: (t.start, t.key))


def is_side_effect(node):
    """A primitive that updates its first input in place and returns it (Assign, ApplyMomentum, ForeachAdam)."""
    return bool(getattr(node.op, "side_effect", False))


def _produce(node, pos, tensors, alignment):
    """Register the arrays `node` makes; returns what the node's value carries (keys, shaped like its value)."""
    abstract = node.abstract
    counter = [0]

    def walk(a):
        if isinstance(a, tuple):
            return tuple(walk(x) for x in a)
        index = counter[0]
        counter[0] += 1
        if not isinstance(a, AbstractTensor):
            return ()
        nbytes = _nbytes(a)
        if not nbytes:
            return ()
        key = (node.id, index)
        label = f"%{node.id}:{node.op_name}" + (f"[{index}]" if isinstance(abstract, tuple) else "")
        tensors[key] = TensorLife(key, aligned(nbytes, alignment), nbytes, pos, pos, label)
        return [key]

    return walk(abstract)


def _flat(carried):
    if isinstance(carried, tuple):
        out = []
        for c in carried:
            out.extend(_flat(c))
        return out
    return list(carried)


def lower_bound(tensors):
    """The most bytes live at any schedule position: no placement can use less (the bound SOMAS reports)."""
    events = {}
    for t in tensors:
        events[t.start] = events.get(t.start, 0) + t.size
        events[t.end + 1] = events.get(t.end + 1, 0) - t.size
    live = best = 0
    for pos in sorted(events):
        live += events[pos]
        best = max(best, live)
    return best
