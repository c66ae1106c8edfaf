"""rematerialize: recompute cheap values for their distant readers instead of keeping them alive (O1 only).

A training graph keeps many forward values alive until the backward reads them. Under
`memory_optimize_level="O1"` (priority memory), a value whose readers fall in two groups far apart in the schedule
(the forward's, then the backward's) is recomputed just before its first late reader, from values that stay
alive that long anyway, and the late readers read the copy: the original dies after its early readers, so the
bytes it held are free over the gap, where a training step has its peak. What AOTAutograd's min-cut partitioner
and XLA's rematerialisation do; MindSpore's `Cell.recompute()` asks for it per cell, this pass finds it itself.

    %4 = Dense(%3, %w, %b) : f32[8,1024]            %4 = Dense(%3, %w, %b) : f32[8,1024]
    %5 = GeluExt(%4) : f32[8,1024]                  %5 = GeluExt(%4) : f32[8,1024]
    %6 = Dense(%5, ...)               ...     →     %6 = Dense(%5, ...)               ...
    %9 = DenseGrad(%8, %5, ...)                     %10 = GeluExt(%4) : f32[8,1024]
    %11 = GeluGradExt(%10, %4)                      %9 = DenseGrad(%8, %10, ...)
                                                    %11 = GeluGradExt(%10', %4)

* **Late readers**: a value's reads, in schedule order, split at the first gap of at least `min_gap` positions
  between two reads; the reads after it are late. Tuple-valued primitives (LayerNorm's
  (y, mean, variance)) count the reads of all their `tuple_get_item`s together and are recomputed once.
* **What is recomputed**: a chain of nodes walked back from the value through its inputs until every input is
  *available* at the first late read — a Parameter, a constant, a graph input, or a value read at or after that
  point anyway. So recomputation never makes another value live longer: the peak can only fall. Chain nodes are
  the cheap primitives of graph-kernel fusion's default cluster list (elementwise ops, activations, casts,
  reductions, reshapes, LayerNorm, Softmax, ...), views (Transpose, Split), and matrix products (MatMul,
  BatchMatMul, Dense) within a budget: the chain's multiply-add flops (as `runtime/flops.py` counts them) at most
  `max_flops_per_byte` per byte freed. The default 32 admits an fp32 product contracting up to 64 elements per
  output (attention scores over a head dimension of 64) and no Dense layer of more than 64 inputs. A chain holds
  at most `MAX_CHAIN` kernels, and no node is recomputed for two copies (the second would need the first's
  value, whose late reads moved away).
* **Never recomputed**: random primitives (a dropout mask is read from the saved output, never drawn again),
  side-effecting ones, control flow, and any chain reading a Parameter or input that a side-effecting node
  between the value and its late readers updates in place (it would see the new value).
* **Bit for bit**: the copy is the same primitive with the same attributes on the same inputs, so it computes
  the same bits as the original (the backends' kernels are deterministic for a fixed shape and thread count);
  losses and gradients equal O0's exactly (tests/compiler/test_rematerialize.py).
* **Cost**: the recomputed kernels run a second time in the backward (docs/memory.md has the measured step time).

Runs after every other pass (compiler/pipeline.py `MEMORY_O1`), so nothing merges a copy back into its original
(CSE) or moves it; the executor runs nodes in list order and drops each value after its last reader, which is
what makes the original die early. Runs inside every subgraph on its own.

>>> from openspore.ir.parser import parse_graph
>>> g = parse_graph('''graph @f(%0 x: f32[64]) {
...   %1 = Exp(%0) : f32[64]
...   %2 = Neg(%1) : f32[64]
...   %3 = Neg(%2) : f32[64]
...   %4 = Neg(%3) : f32[64]
...   %5 = Mul(%4, %1) : f32[64]
...   %6 = Add(%5, %0) : f32[64]
...   return %6
... }''')
>>> print(rematerialize(g, min_gap=3, min_bytes=0))
graph @f(%0 x: f32[64]) {
  %1 = Exp(%0) : f32[64]
  %2 = Neg(%1) : f32[64]
  %3 = Neg(%2) : f32[64]
  %4 = Neg(%3) : f32[64]
  %5 = Exp(%0) : f32[64]
  %6 = Mul(%4, %5) : f32[64]
  %7 = Add(%6, %0) : f32[64]
  return %7
}
"""
import functools

from ...core.primitive import AbstractTensor
from ...ir.rewrite import rewrite
from ..graph_kernel.ops import VIEW_OPS, default_cluster_ops

MATMULS = frozenset({"MatMul", "BatchMatMul", "Dense"})
# views and structural primitives: they may be recomputed inside a chain but own no bytes to free themselves
_VIEWS = frozenset(VIEW_OPS | {"Split", "Depend", "StopGradient", "Transpose"})
_ALWAYS_AVAILABLE = ("weight", "const", "input")
MIN_GAP = 8            # schedule positions between a value's early and late reads
MIN_BYTES = 16 * 1024  # smaller values are not worth a second kernel launch
MAX_FLOPS_PER_BYTE = 32.0
MAX_CHAIN = 4          # recomputed kernels per value (views and tuple items not counted)


def rematerialize(graph, min_gap=MIN_GAP, min_bytes=MIN_BYTES, max_flops_per_byte=MAX_FLOPS_PER_BYTE):
    """rematerialize(graph, min_gap=8, min_bytes=16384, max_flops_per_byte=64.0) -> Graph in which cheap values
    with distant readers are recomputed for them (see the module docstring); the input is not modified."""
    decide = functools.partial(_Decisions, min_gap=min_gap, min_bytes=min_bytes,
                               max_flops_per_byte=max_flops_per_byte)
    return rewrite(graph, _visit, prepare=decide)


def _visit(n, inputs, rw):
    plan = rw.facts
    swaps = plan.swaps.get(n.id)
    if swaps:
        for group in plan.starts.get(n.id, ()):
            for leaf in group.leaf_clones(rw):   # the copy's tuple items right after it: its tuple dies at once
                rw.emit(leaf)
        inputs = tuple(plan.clone_of(swaps[i.id], rw) if i.id in swaps else x for i, x in zip(n.inputs, inputs))
    return rw.keep(n, inputs)


def _nbytes(abstract):
    if not isinstance(abstract, AbstractTensor):
        return 0
    itemsize = getattr(abstract.dtype, "itemsize", None)
    if itemsize is None or any(not isinstance(d, int) or d < 0 for d in abstract.shape):
        return 0
    return abstract.size * itemsize


def _flops(node):
    from ...runtime.flops import _node_flops   # the project's one count of a node's multiply-add flops
    return _node_flops(node)


class _Group:
    """One recomputed value: `root` (the primitive whose value is recomputed), `chain` (old nodes recomputed, in
    schedule order), `leaves` (old nodes standing for the value: root, or its tuple_get_items read late)."""

    def __init__(self, root, chain, leaves):
        self.root, self.chain, self.leaves = root, chain, leaves
        self.clones = {}   # old node id -> its copy (made when the first late reader is visited)

    def clone(self, node, rw):
        copy = self.clones.get(node.id)
        if copy is None:
            if node.id not in self.chain_ids:
                return rw.get(node)   # available: the value itself
            copy = node.clone(inputs=tuple(self.clone(i, rw) for i in node.inputs))
            self.clones[node.id] = copy
        return copy

    @functools.cached_property
    def chain_ids(self):
        return {c.id for c in self.chain} | {leaf.id for leaf in self.leaves}

    def leaf_clones(self, rw):
        return [self.clone(leaf, rw) for leaf in self.leaves]


class _Decisions:
    """The analysis of one graph (the rewrite's `facts`): `swaps` (reader id -> {old input id: _Group}) and
    `starts` (id of the first late reader -> groups whose copies go in before it)."""

    def __init__(self, graph, min_gap, min_bytes, max_flops_per_byte):
        self.swaps, self.starts, self.recomputed = {}, {}, set()
        self.min_gap, self.min_bytes, self.budget = min_gap, min_bytes, max_flops_per_byte
        self.cheap = default_cluster_ops() | _VIEWS | MATMULS
        self.pos = {n.id: i for i, n in enumerate(graph.nodes)}
        self.readers = {}   # node id -> [(position, reader)]
        for i, n in enumerate(graph.nodes):
            for inp in n.inputs:
                self.readers.setdefault(inp.id, []).append((i, n))
        self.last_read = {nid: max(p for p, _ in reads) for nid, reads in self.readers.items()}
        self.last_read[graph.output.id] = len(graph.nodes)
        for o in (graph.output.inputs if graph.output.op == "make_tuple" else ()):
            self.last_read[o.id] = len(graph.nodes)
        self.getitems = {}  # tuple-valued node id -> its tuple_get_item nodes
        for n in graph.nodes:
            if n.op == "tuple_get_item":
                self.getitems.setdefault(n.inputs[0].id, []).append(n)
        self.updates = [(i, n) for i, n in enumerate(graph.nodes) if n.is_primitive and n.op.side_effect]
        for n in graph.nodes:
            if self._candidate(n):
                self._consider(n)

    def clone_of(self, group_and_leaf, rw):
        group, leaf = group_and_leaf
        return group.clone(leaf, rw)

    # ---- deciding -------------------------------------------------------------------------------
    def _candidate(self, n):
        return (n.is_primitive and not n.op.side_effect and not n.op.random and n.op_name in self.cheap
                and n.op_name not in _VIEWS and n.id in self.readers)

    def _leaves(self, n):
        if isinstance(n.abstract, tuple):
            return [g for g in self.getitems.get(n.id, ()) if g.id in self.readers]
        return [n]

    def _consider(self, root):
        leaves = self._leaves(root)
        reads = sorted(((p, r, leaf) for leaf in leaves for p, r in self.readers.get(leaf.id, ())),
                       key=lambda read: (read[0], read[2].id))
        late = self._late(reads)
        if not late:
            return
        start = late[0][0]
        late_leaves = {leaf.id: leaf for _, _, leaf in late}
        freed = sum(_nbytes(leaf.abstract) for leaf in late_leaves.values())
        if freed < max(self.min_bytes, 1):
            return
        chain = self._chain(root, start)
        if chain is None or sum(c.op_name not in _VIEWS and c.op != "tuple_get_item" for c in chain) > MAX_CHAIN \
                or self._updated_between(chain, self.pos[root.id], start):
            return
        if sum(_flops(c) for c in chain if c.op_name in MATMULS) > self.budget * freed:
            return
        if any(c.id in self.recomputed for c in chain if c.op != "tuple_get_item"):
            return   # a node another copy recomputes already (its late reads moved): never recompute it twice
        self.recomputed.update(c.id for c in chain)
        group = _Group(root, chain, [late_leaves[k] for k in sorted(late_leaves, key=lambda k: self.pos[k])])
        self.starts.setdefault(late[0][1].id, []).append(group)
        for _, reader, leaf in late:
            self.swaps.setdefault(reader.id, {})[leaf.id] = (group, leaf)
        for leaf in late_leaves.values():   # its late reads now go to the copy
            early = [p for p, _ in self.readers[leaf.id] if p < start]
            self.last_read[leaf.id] = max(early, default=self.pos[leaf.id])

    def _late(self, reads):
        """The reads after the first gap of `min_gap` positions between two reads (the first read is never late:
        the original keeps at least one reader, else recomputing would only move it)."""
        for k in range(1, len(reads)):
            if reads[k][0] - reads[k - 1][0] >= self.min_gap:
                return reads[k:]
        return []

    def _available(self, node, at):
        if node.op in _ALWAYS_AVAILABLE:
            return True
        if isinstance(node.abstract, tuple):
            return False   # some of its items may have died: recompute the tuple or read an item that lives
        return self.last_read.get(node.id, -1) >= at

    def _chain(self, root, at):
        """The old nodes to recompute for `root` at position `at`, in schedule order, or None when one of them
        is not cheap (or not recomputable)."""
        chain, seen = {}, set()
        stack = [root]
        while stack:
            node = stack.pop()
            if node.id in seen:
                continue
            seen.add(node.id)
            if node is not root and self._available(node, at):
                continue
            if node.op == "tuple_get_item":
                pass
            elif not (node.is_primitive and not node.op.side_effect and not node.op.random
                      and node.op_name in self.cheap):
                return None
            chain[node.id] = node
            stack.extend(node.inputs)
        return sorted(chain.values(), key=lambda c: self.pos[c.id])

    def _updated_between(self, chain, begin, end):
        """Whether a side-effecting node in (begin, end) updates a Parameter or input the chain reads."""
        read = {i.id for c in chain for i in c.inputs if i.op in ("weight", "input")}
        params = {id(i.value) for c in chain for i in c.inputs if i.op == "weight" and i.value is not None}
        for p, n in self.updates:
            if begin < p < end and n.inputs:
                target = n.inputs[0]
                if target.id in read or (target.op == "weight" and id(target.value) in params):
                    return True
        return False
