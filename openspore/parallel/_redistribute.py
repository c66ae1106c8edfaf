"""Tensor redistribution between layouts: the communication operator sharding inserts, and only where two
layouts differ.

From layout `src` (what a tensor is) to `dst` (what an operator takes), dimension by dimension:

* cut the same way in both (every rank holds the same block): nothing moves;
* split in `src`, cut otherwise in `dst`: ForwardAllGather along it over the ranks that split it (backward:
  this rank's block of the cotangent);
* then split in `dst` only: MirrorOperator over the ranks that will hold different blocks (backward: the
  zero-padded block cotangents are summed, which is their concatenation), and Split keeps this rank's block.

An operator's partial result (its contraction was split) is resolved by `resolve_partial`: ForwardAllReduce
over the ranks holding partial sums, or — when the wanted output layout splits a dimension along exactly
those ranks (`out_strategy`) — one ReduceScatter (backward: AllGather), never both.

Every inserted operator is reported to `_shard_report` (forward and the backward it brings). The groups are
created on first use, on every rank in the same order (program order is the same on every rank, PyNative and
tracing alike).
"""
from ..core.primitive import PRIMITIVES
from ..ops.defs import _comm_world as world
from . import _shard_report as report
from ._tensor_layout import TensorLayout, layout_of, replicated

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


def _ranks(group):
    return "world" if group == _world() else list(world.group_ranks(group))


def mirror(x, dm, axes):
    """x unchanged; its cotangent summed over the ranks varying along `axes` (partial gradients of one block)."""
    group = group_of(dm, axes)
    if group is None:
        return x
    report.comm(f"MirrorOperator(group={_ranks(group)})", "AllReduce")
    return PRIMITIVES["MirrorOperator"](group=group)(x)


def all_gather(x, dm, axis, dim):
    group = group_of(dm, [axis])
    if group is None:
        return x
    report.comm(f"AllGather(dim={dim}, group={_ranks(group)})", "Split (own block)")
    return PRIMITIVES["ForwardAllGather"](axis=dim, group=group)(x)


def split_block(x, dim, count, index):
    report.comm(f"Split(dim={dim}, {count} ways)", "concat (zero-padded block)")
    return PRIMITIVES["Split"](axis=dim, output_num=count)(x)[index]


def redistribute(x, dst, src=None):
    """The local block of x (layout `src`, default its own) in layout `dst` (same device count, same rank)."""
    src = src if src is not None else (layout_of(x) or replicated(dst.ndim, dst.dm.world_size))
    if src.ndim != dst.ndim:
        raise ValueError(f"Cannot redistribute a {src.ndim}-D layout ({src.describe()}) to a {dst.ndim}-D one "
                         f"({dst.describe()}).")
    tmap = list(src.tmap)
    for d in range(dst.ndim):  # gather what dst cuts otherwise
        if src.splits[d] > 1 and not src.same_dim_cut(dst, d):
            x = all_gather(x, src.dm, src.tmap[d], d)
            tmap[d] = None
    now = TensorLayout(src.dm, tmap)
    todo = [d for d in range(dst.ndim) if dst.splits[d] > 1 and now.splits[d] == 1]
    if todo:
        x = mirror(x, dst.dm, [dst.tmap[d] for d in todo])
        block = dst.block(world.state()["rank"])
        for d in todo:
            x = split_block(x, d, dst.splits[d], block[d])
    return x


def resolve_partial(local, dm, partial_axes, out, wanted=None):
    """`local` holds partial sums over `partial_axes` of a tensor laid out as `out`: the summed block, in
    `wanted` (default `out`). One ReduceScatter when `wanted` splits a dimension exactly along the partial
    axis; else ForwardAllReduce, then what `wanted` needs."""
    partial_axes = [a for a in partial_axes if dm.shape[a] > 1]
    if partial_axes and wanted is not None and len(partial_axes) == 1:
        axis = partial_axes[0]
        for d in range(out.ndim):
            if out.tmap[d] is not None:
                continue
            candidate = TensorLayout(dm, tuple(axis if i == d else a for i, a in enumerate(out.tmap)))
            if candidate.same_cut(wanted):
                return _reduce_scatter(local, group_of(dm, [axis]), d), candidate
    if partial_axes:
        group = group_of(dm, partial_axes)
        report.comm(f"AllReduce(sum, group={_ranks(group)})", "identity")
        local = PRIMITIVES["ForwardAllReduce"](group=group)(local)
    if wanted is not None and not out.same_cut(wanted):
        return redistribute(local, wanted, out), wanted
    return local, out


def _reduce_scatter(x, group, dim):
    report.comm(f"ReduceScatter(sum, dim={dim}, group={_ranks(group)})", "AllGather")
    if dim == 0:
        return PRIMITIVES["ReduceScatter"](group=group)(x)
    perm = list(range(x.ndim))
    perm[0], perm[dim] = dim, 0
    transpose = PRIMITIVES["Transpose"]()
    return transpose(PRIMITIVES["ReduceScatter"](group=group)(transpose(x, tuple(perm))), tuple(perm))
