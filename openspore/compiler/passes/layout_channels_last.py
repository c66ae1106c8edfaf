"""layout_channels_last: run chains of NCHW convolutions in channels-last memory format.

Eager execution converts nothing, so every convolution reads and writes NCHW memory; torch's CPU convolution,
batch norm and pooling kernels are faster on channels-last (NHWC in memory) data. This pass finds regions:
connected groups of convolutions (forward and both backprop convolutions) and the ops between them that
keep a channels-last input channels-last (BiasAdd, BatchNorm and its grad, activations and their grads,
elementwise arithmetic, max/avg pooling). It then inserts `ToChannelsLast` where a 4-D value enters a region
(graph inputs, conv weights, other ops' results) and `ToContiguous` where a region's 4-D value leaves it
(any other consumer, such as Reshape, Flatten or MatMul, control flow, and the graph output):

    %2 = Conv2D[...](%0, %1) : f32[32,16,32,32]        %2 = ToChannelsLast(%0) : f32[32,16,32,32]
    %3 = ReLU(%2) : f32[32,16,32,32]            →      %3 = ToChannelsLast(%1) : f32[16,16,3,3]
    %4 = Reshape(%3, %c) : f32[32,16384]               %4 = Conv2D[...](%2, %3) : f32[32,16,32,32]
                                                       %5 = ReLU(%4) : f32[32,16,32,32]
                                                       %6 = ToContiguous(%5) : f32[32,16,32,32]
                                                       %7 = Reshape(%6, %c) : f32[32,16384]

Shapes stay logical NCHW everywhere (channels-last is only a physical layout), so every kernel keeps working
and values agree to float32 rounding (torch's channels-last kernels accumulate in another order; a ReLU
gradient can flip where a pre-activation is within rounding of 0); on the numpy backend both conversions are
the identity. Reductions read channels-last inputs directly (their result has no layout to restore).

Measured on the 2-core CPU (torch 2.13, one thread, batch 32, 32x32, 4 x [3x3 conv + BN(train) + ReLU],
forward and backward: ReluGrad, BatchNormGrad, both backprop convolutions), through openspore's kernels with
the conversions this pass inserts, NCHW ms → channels-last ms:
    C=4: 30 → 23 (1.32x)   C=8: 34 → 26 (1.30x)   C=16: 60 → 44 (1.36x)   C=32: 120 → 113 (1.07x)
    C=64: 469 → 408 (1.15x)   (repeated runs on the loaded machine: 1.17x to 1.40x for every C)
Only float32 convolutions with group 1 and at least MIN_CHANNELS channels on every side anchor a region: the
gain was smallest and least stable for the thinnest layers, and LeNet-sized first layers (1 to 6 channels)
then stay exactly as in PyNative. One exception: the network's first convolution (its data input is a graph
input, so only its filter gradient is computed) counts only its output channels. ResNet's stem (3 -> 16
channels, 3x3, batch 32 of 32x32, one thread, best of 9): forward 2.81 ms NCHW against 0.51 ms channels-last
(oneDNN), filter gradient 0.56 against 0.43 ms; left NCHW, its 32x16x32x32 output was also converted to
channels-last for the first block (2.1 ms) and back for the filter gradient. LeNet's first layer (1 -> 6) still
has too few output channels; its second (6 -> 16, 5x5, 14x14) is not a first layer, and channels-last was slower
there (input and filter gradients 0.82 -> 1.06 ms).
"""
from ...common import dtype as mstype
from ...core.primitive import PRIMITIVES, AbstractTensor
from ...ir.node import Node
from ...ops.defs import layout  # noqa: F401  (registers ToChannelsLast / ToContiguous)
from ...ir.rewrite import rewrite
from ..graph_kernel.ops import VIEW_OPS

MIN_CHANNELS = 8

# What each primitive does with a channels-last input is declared on its class (ops/defs), `channels_last =`:
#   "anchor"  a convolution (forward or backprop) worth running channels-last: regions grow from these;
#   "keeps"   its kernel keeps a channels-last input channels-last (torch picks the output format from the inputs);
#   "reads"   it reads any memory format and produces a result without one worth keeping (reductions);
#   None      (the default) it needs contiguous NCHW memory: a region's value is converted back before it.


def _role(n):
    return getattr(n.op, "channels_last", None)


def layout_channels_last(graph):
    """layout_channels_last(graph) -> Graph with convolution regions in channels-last format (input untouched)."""
    return rewrite(graph, _visit, prepare=_Layout, finish=_restore_output)


def _is_4d(abstract):
    return isinstance(abstract, AbstractTensor) and len(abstract.shape) == 4


def _nchw(n):
    return n.attrs.get("data_format", "NCHW") == "NCHW"


def _anchor(n, graph_inputs=frozenset()):
    """A convolution worth running channels-last. The network's first convolution, reading a graph input, may
    read fewer than MIN_CHANNELS channels (see the module docstring: ResNet's 3-channel stem)."""
    if _role(n) != "anchor" or not _nchw(n) or n.attrs.get("group", 1) != 1:
        return False
    if not _is_4d(n.abstract) or n.abstract.dtype != mstype.float32:
        return False
    tensors = [i for i in n.inputs if _is_4d(i.abstract)]
    if len(tensors) != 2:
        return False
    data = {"Conv2D": 0, "Conv2DBackpropFilter": 1}.get(n.op.name)
    if data is not None and n.inputs[data].id in graph_inputs:  # the stem: only its output channels count
        channels = [n.abstract.shape[1] if data == 0 else n.abstract.shape[0]]
    else:
        channels = [t.abstract.shape[1] for t in tensors] + [n.abstract.shape[1]]
        if n.op.name == "Conv2DBackpropFilter":  # the result is a weight (out, in, kh, kw)
            channels.append(n.abstract.shape[0])
    return min(channels) >= MIN_CHANNELS


def _agnostic(n, users):
    if _role(n) != "keeps" or not _nchw(n):
        return False
    if _is_4d(n.abstract):
        return True
    # multi-output (BatchNorm): the 4-D result must be reached through tuple_get_item only
    return isinstance(n.abstract, tuple) and _is_4d(n.abstract[0]) and \
        all(u.op == "tuple_get_item" for u in users.get(n.id, ()))


class _Regions:
    """Union-find over eligible nodes; a region is a component holding at least one convolution."""

    def __init__(self):
        self.parent = {}

    def find(self, a):
        root = a
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[a] != root:
            self.parent[a], a = root, self.parent[a]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _region_members(g):
    users = g.users()
    graph_inputs = {i.id for i in g.inputs}
    regions = _Regions()
    anchors = []
    for n in g.nodes:
        if n.is_primitive:
            member = _anchor(n, graph_inputs)
            if member:
                anchors.append(n.id)
            else:
                member = _agnostic(n, users)
        else:  # a 4-D element of an eligible multi-output op
            member = n.op == "tuple_get_item" and _is_4d(n.abstract) and n.inputs[0].id in regions.parent
        if not member:
            continue
        regions.parent[n.id] = n.id
        for i in n.inputs:
            if i.id in regions.parent:
                regions.union(n.id, i.id)
    roots = {regions.find(a) for a in anchors}
    return {nid for nid in regions.parent if regions.find(nid) in roots}


class _Layout:
    """Per graph: the region members, ids (in the new graph) of values stored channels-last, and the conversions
    made so far (reused by later readers)."""

    def __init__(self, g):
        self.members = _region_members(g)
        self.channels_last = set()
        self.to_cl, self.to_contig = {}, {}

    def convert(self, value, cache, prim_name, emit):
        done = cache.get(value.id)
        if done is None:
            done = Node(PRIMITIVES[prim_name](), inputs=(value,), abstract=value.abstract, loc=value.loc,
                        scope=value.scope)
            cache[value.id] = emit(done)
        return done


def _visit(n, inputs, rw):
    lay = rw.facts
    if not lay.members:
        return rw.keep(n, inputs)
    if n.has_side_effect:  # an Assign may rewrite a Parameter: later reads of it need a fresh conversion
        _forget_written(lay, n, inputs)
    if n.id in lay.members:
        if n.is_primitive:
            inputs = [lay.convert(v, lay.to_cl, "ToChannelsLast", rw.emit)
                      if _is_4d(v.abstract) and v.id not in lay.channels_last else v for v in inputs]
    elif not (n.is_primitive and _role(n) == "reads"):
        inputs = [lay.convert(v, lay.to_contig, "ToContiguous", rw.emit) if v.id in lay.channels_last else v
                  for v in inputs]
    new = rw.keep(n, inputs)
    if n.id in lay.members and _is_4d(n.abstract) or (n.is_primitive and n.op.name == "ToChannelsLast"):
        lay.channels_last.add(new.id)
    return new


def _forget_written(lay, n, inputs):
    """Drop the conversions of every value a side-effecting node may write: its inputs, and the elements of a
    tuple input (ForeachApplyMomentum's variables). Conversions of other values stay valid, so a convolution
    weight read by the forward and again by the backward is converted once, although BatchNorm's moving-average
    writes sit between the two. After a control-flow node, which may write anything: forget every conversion."""
    if not n.is_primitive:
        lay.to_cl.clear()
        lay.to_contig.clear()
        return
    written, stack = set(), list(inputs)
    while stack:  # what the node writes may be reached through a tuple or a view of it
        v = stack.pop()
        if v.id in written:
            continue
        written.add(v.id)
        if v.op == "make_tuple" or (v.is_primitive and v.op_name in VIEW_OPS):
            stack.extend(v.inputs)
    for cache in (lay.to_cl, lay.to_contig):
        for key in written & cache.keys():
            del cache[key]


def _restore_output(rw, output):
    lay = rw.facts
    if output.id in lay.channels_last:
        return lay.convert(output, lay.to_contig, "ToContiguous", rw.emit)
    return output
