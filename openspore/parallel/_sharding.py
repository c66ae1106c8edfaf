"""Operator-level sharding (`Primitive.shard`) in semi_auto_parallel / auto_parallel mode.

Each sharded operator names its dimensions with labels (MatMul: rows, contraction, columns; elementwise ops:
the output dimensions) and the strategy gives each label a split count; `_layout.DeviceMatrix` turns the
splits into this rank's block coordinates and the groups of ranks that share a block. A call then

* takes this rank's block of every input: a Parameter is sliced in place, once (`_param_shard`: the rank then
  stores only its block, optimizer state included) and enters through MirrorOperator over the ranks that hold
  the same block (their partial gradients are summed); another tensor enters through MirrorOperator over the
  computing ranks and is cut with Split;
* runs the operator on the blocks;
* redistributes the result to the replicated layout the next operator expects: ForwardAllReduce over the
  ranks that split the contraction (they hold partial sums), then ForwardAllGather along each split output
  dimension over the ranks that split it. Sub-groups are created on first use, on every rank in the same
  order (tracing and PyNative both run the operators in program order on every rank).

It is made of primitive calls, so PyNative executes it and Graph mode traces it. Scope (stated limits):
tensors between operators are replicated (activations are not kept sharded; parameters are); `out_strategy`
is not supported; supported operators are listed in `sharded_call`'s error.
"""
from .. import context
from ..core.dispatch import bind
from ..core.parameter import Parameter
from ..core.primitive import PRIMITIVES, set_shard_hook
from ..ops.defs import _comm_world as world
from ._layout import DeviceMatrix
from ._param_shard import ShardLayout, slice_parameter

ELEMENTWISE = {"Add", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "ReLU", "Tanh", "Sigmoid", "GeLU",
               "Exp", "Neg", "Sqrt", "Square", "Abs", "FastGeLU", "SiLU", "Log", "Pow", "BiasAdd"}
_SEMI = ("semi_auto_parallel", "auto_parallel")
_PROCESS_GROUPS = {}  # tuple(world ranks) -> group name, created on every rank in the same order


def _world():
    return world.state()["world"]


def group_of(dm, axes):
    """Name of the group of ranks that differ from this rank only along device-matrix `axes` (None when that
    group is this rank alone)."""
    rank = world.state()["rank"]
    ranks = dm.ranks_varying(axes, rank)
    if len(ranks) == 1:
        return None
    if len(ranks) == dm.world_size:
        return _world()
    key = tuple(ranks)
    if key in _PROCESS_GROUPS and _PROCESS_GROUPS[key] not in world.group_names():
        _PROCESS_GROUPS.clear()  # release() + init(): the groups of the previous job are gone
    if key not in _PROCESS_GROUPS:
        import torch.distributed as dist
        for members in dm.partition(axes):  # torch: every rank creates every group, in the same order
            members = tuple(members)
            if members in _PROCESS_GROUPS:
                continue
            pg = dist.new_group(list(members))
            name = "shard_group_" + "_".join(map(str, members))
            _PROCESS_GROUPS[members] = name
            if rank in members:
                world.add_group(name, members, pg)
                from ._parallel_misc import group_info_target, save_group_info
                if group_info_target():  # group_ckpt_save_file: the groups this rank belongs to
                    save_group_info(group_info_target(), name, members)
    return _PROCESS_GROUPS[key]


def reset_groups():
    _PROCESS_GROUPS.clear()


class _Plan:
    """The labels' splits of one sharded call, on the device matrix they span."""

    def __init__(self, op, strategies, labels):
        self.op, self.split = op, {}
        for strategy, dims in zip(strategies, labels):
            for s, label in zip(strategy, dims):
                if label is None:
                    if s != 1:
                        raise ValueError(f"For '{op}.shard', a broadcast dimension (size 1) cannot be split, but "
                                         f"the strategy is {tuple(strategies)}.")
                    continue
                if self.split.setdefault(label, s) != s:
                    raise ValueError(f"For '{op}.shard', inputs that share a dimension must split it the same "
                                     f"way, but the strategy {tuple(strategies)} splits it {self.split[label]} "
                                     f"and {s} ways.")
        self.order = list(self.split)
        self.dm = DeviceMatrix([self.split[lb] for lb in self.order], world.group_size(_world()))
        self.coords = self.dm.coords(world.state()["rank"])
        self.axis = {lb: 1 + i for i, lb in enumerate(self.order)}

    def split_axes(self, labels):
        return [self.axis[lb] for lb in labels if lb is not None and self.split[lb] > 1]

    def block(self, x, dims):
        """This rank's block of input x whose dimensions carry `dims` labels."""
        compute_axes = list(range(1, len(self.dm.shape)))
        if isinstance(x, Parameter):
            tmap = tuple(len(self.dm.shape) - 1 - self.axis[lb] if lb is not None and self.split[lb] > 1 else -1
                         for lb in dims)
            if any(t >= 0 for t in tmap):
                coords = tuple(self.coords[self.axis[lb]] if t >= 0 else 0 for lb, t in zip(dims, tmap))
                slice_parameter(x, ShardLayout(x.shape if not x.sliced else x.shard_layout.full_shape,
                                               self.dm.shape, tmap, coords))
                own = set(self.split_axes(dims))
                group = group_of(self.dm, [a for a in compute_axes if a not in own])
                return x if group is None else PRIMITIVES["MirrorOperator"](group=group)(x)
            if x.sliced:
                raise ValueError(f"For '{self.op}.shard', parameter '{x.name}' is stored sliced "
                                 f"({x.shard_layout}) but this strategy takes it whole; give every operator that "
                                 f"takes it the same strategy for it.")
        group = group_of(self.dm, compute_axes)
        out = x if group is None else PRIMITIVES["MirrorOperator"](group=group)(x)
        for d, lb in enumerate(dims):
            if lb is not None and self.split[lb] > 1:
                out = PRIMITIVES["Split"](axis=d, output_num=self.split[lb])(out)[self.coords[self.axis[lb]]]
        return out

    def redistribute(self, local, out_dims, contracted):
        """Partial sums over the contraction, then the split output dimensions gathered back."""
        partial = self.split_axes(contracted)
        if partial:
            local = PRIMITIVES["ForwardAllReduce"](group=group_of(self.dm, partial))(local)
        for d, lb in enumerate(out_dims):
            for axis in self.split_axes([lb]):
                local = PRIMITIVES["ForwardAllGather"](axis=d, group=group_of(self.dm, [axis]))(local)
        return local


def _check_ranks(op, strategies, tensors):
    if len(strategies) != len(tensors):
        raise ValueError(f"For '{op}.shard', the strategy {tuple(strategies)} must have one tuple per tensor "
                         f"input ({len(tensors)}).")
    for s, t in zip(strategies, tensors):
        if len(s) != t.ndim:
            raise ValueError(f"For '{op}.shard', strategy {s} does not match an input of shape {list(t.shape)}: "
                             f"one entry per dimension.")


def _full_shape(t):
    return t.shard_layout.full_shape if isinstance(t, Parameter) and t.sliced else tuple(t.shape)


def _matmul(prim, args):
    a, b = args
    _check_ranks(prim.name, prim.in_strategy, args)
    ta = getattr(prim, "transpose_a", False) or getattr(prim, "adj_x", False)
    tb = getattr(prim, "transpose_b", False) or getattr(prim, "adj_y", False)
    batch = [f"b{i}" for i in range(a.ndim - 2)]
    la = batch + (["k", "m"] if ta else ["m", "k"])
    if b.ndim == 2:
        lb = ["n", "k"] if tb else ["k", "n"]
    elif b.ndim == a.ndim:
        lb = batch + (["n", "k"] if tb else ["k", "n"])
    else:
        raise ValueError(f"For '{prim.name}.shard', the inputs must have the same rank or the second must be 2-D, "
                         f"but the shapes are {list(_full_shape(a))} and {list(_full_shape(b))}.")
    plan = _Plan(prim.name, prim.in_strategy, [la, lb])
    local = bind(prim, plan.block(a, la), plan.block(b, lb))
    return plan.redistribute(local, batch + ["m", "n"], ["k"])


def _elementwise(prim, args, protected=()):
    tensors = [a for a in args if hasattr(a, "shape")]
    _check_ranks(prim.name, prim.in_strategy, tensors)
    shapes = [_full_shape(t) for t in tensors]
    out_ndim = max(len(s) for s in shapes)
    out_shape = [max((s[d - out_ndim + len(s)] for s in shapes if d - out_ndim + len(s) >= 0), default=1)
                 for d in range(out_ndim)]
    labels = [[None if (size == 1 and out_shape[j + out_ndim - len(shape)] != 1) else j + out_ndim - len(shape)
               for j, size in enumerate(shape)] for shape in shapes]
    plan = _Plan(prim.name, prim.in_strategy, labels)
    for d in protected:
        if plan.split.get(d % out_ndim, 1) > 1:
            raise ValueError(f"For '{prim.name}.shard', dimension {d % out_ndim} (the operator's axis) cannot be "
                             f"split, but the strategy is {prim.in_strategy}.")
    it = iter(labels)
    blocks = [plan.block(a, next(it)) if hasattr(a, "shape") else a for a in args]
    return plan.redistribute(bind(prim, *blocks), list(range(out_ndim)), [])


def sharded_call(prim, args):
    if context.get_auto_parallel_context("parallel_mode") not in _SEMI or not world.is_inited():
        return bind(prim, *args)  # MindSpore ignores shard outside (semi-)auto parallel
    if world.group_size(_world()) == 1:
        return bind(prim, *args)
    if getattr(prim, "out_strategy", None) is not None:
        raise NotImplementedError(f"For '{prim.name}.shard', openspore does not support 'out_strategy' (outputs "
                                  f"are redistributed to the replicated layout); leave it None.")
    if prim.name in ("MatMul", "BatchMatMul"):
        return _matmul(prim, args)
    if prim.name in ELEMENTWISE:
        return _elementwise(prim, args)
    if prim.name in ("Softmax", "LogSoftmax"):
        axes = prim.axis if isinstance(prim.axis, (tuple, list)) else (prim.axis,)
        return _elementwise(prim, args, protected=axes)
    raise NotImplementedError(f"'{prim.name}.shard' is not supported by openspore's operator-level sharding "
                              f"(supported: MatMul, BatchMatMul, Softmax, LogSoftmax, {sorted(ELEMENTWISE)}).")


set_shard_hook(sharded_call)
