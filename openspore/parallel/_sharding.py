"""Operator-level sharding (`Primitive.shard`) in semi_auto_parallel / auto_parallel mode, with layouts that
propagate from operator to operator.

Each shardable operator names its dimensions with labels (`_op_rules`: MatMul rows/contraction/columns,
elementwise ops the output dimensions, ...). A call runs on a device matrix where every label gets a split:

* an operator given a strategy (`shard`, or one loaded from a strategy file) gets a fresh device matrix,
  `[repeat] + splits` (`_layout.DeviceMatrix`, ranks row-major as in MindSpore);
* an operator without one, receiving a sharded tensor, takes the layout it arrives in (propagation): the
  labels of that tensor's dimensions keep their device-matrix axes, so an elementwise op after a sharded
  MatMul stays sharded instead of going back to replicated. An operator without a rule (Reshape, slicing,
  ...) gets its inputs replicated.

Then every input is redistributed (`_redistribute`) from the layout it has to the one the operator takes —
nothing moves where they agree — and enters through MirrorOperator over the ranks that use the same block
for different work (their partial gradients are summed). A Parameter split by its operator is sliced in place
the first time (`_param_shard`). The local result keeps the operator's output layout (partial sums over a
split contraction are all-reduced, or reduce-scattered when `out_strategy` asks for that split) and carries it
(`_tensor_layout.tag`) to the next operator. Backward rules of the inserted operators give the backward
redistribution. Everything is primitive calls, so PyNative executes it and Graph mode traces it; the layout
propagation is consulted by `core.dispatch.bind` (outside backward passes) once sharding is active.

What each call did is recorded (`_shard_report`: strategy, layouts, inserted communication).
"""
from .. import context
from ..core import autograd, dispatch
from ..core.dispatch import bind
from ..core.parameter import Parameter
from ..core.primitive import set_shard_hook
from ..ops.defs import _comm_world as world
from . import _shard_report as report
from ._layout import DeviceMatrix
from ._op_rules import ELEMENTWISE, RULES, full_shape
from ._param_shard import ShardLayout, slice_parameter
from ._redistribute import (all_gather, group_of, mirror, redistribute, reset_groups,  # noqa: F401
                            resolve_partial, split_block)
from ._tensor_layout import TensorLayout, layout_of, replicated, tag

_SEMI = ("semi_auto_parallel", "auto_parallel")
_BUSY = [0]  # > 0 while a rule runs: its own calls on blocks are plain
_FLOAT_KINDS = ("float", "bfloat", "complex")


def _world_size():
    return world.group_size(world.state()["world"])


class Plan:
    """One sharded call: its device matrix and the axis splitting each label (None: not split)."""

    def __init__(self, op, dm, axis):
        self.op, self.dm, self.axis = op, dm, axis

    @classmethod
    def from_strategy(cls, op, strategies, labels):
        split = {}
        for strategy, dims in zip(strategies, labels):
            for s, label in zip(strategy, dims):
                if label is None:
                    if s != 1:
                        raise ValueError(f"For '{op}.shard', a broadcast dimension (size 1) cannot be split, but "
                                         f"the strategy is {tuple(strategies)}.")
                    continue
                if split.setdefault(label, s) != s:
                    raise ValueError(f"For '{op}.shard', inputs that share a dimension must split it the same "
                                     f"way, but the strategy {tuple(strategies)} splits it {split[label]} "
                                     f"and {s} ways.")
        order = list(split)
        dm = DeviceMatrix([split[lb] for lb in order], _world_size())
        return cls(op, dm, {lb: (1 + i if split[lb] > 1 else None) for i, lb in enumerate(order)})

    @classmethod
    def from_layouts(cls, op, args, spec):
        """The layout of the most split input decides the device matrix; its labels keep their axes."""
        best = None
        for pos, dims in zip(spec.positions, spec.labels):
            lay = layout_of(args[pos])
            if lay is not None and lay.ndim == len(dims):
                count = sum(1 for a in lay.tmap if a is not None)
                if best is None or count > best[0]:
                    best = (count, lay)
        if best is None:
            return cls(op, DeviceMatrix([], _world_size()), {})
        dm, axis, used = best[1].dm, {}, set()
        for pos, dims in zip(spec.positions, spec.labels):
            lay = layout_of(args[pos])
            if lay is None or lay.dm.shape != dm.shape or lay.ndim != len(dims):
                continue
            for lb, a in zip(dims, lay.tmap):
                if lb is None or a is None or lb in spec.protected or lb in axis or a in used:
                    continue
                axis[lb] = a
                used.add(a)
        return cls(op, dm, axis)

    def split(self, label):
        a = self.axis.get(label)
        return 1 if a is None else self.dm.shape[a]

    def layout(self, dims):
        return TensorLayout(self.dm, tuple(None if lb is None else self.axis.get(lb) for lb in dims))

    def compute_axes(self):
        return sorted({a for a in self.axis.values() if a is not None})

    def take(self, x, dims):
        """This rank's block of input x (its dimensions carry `dims`), entered for the backward sum."""
        want = self.layout(dims)
        own = {a for a in want.tmap if a is not None}
        others = [a for a in self.compute_axes() if a not in own]
        if isinstance(x, Parameter) and layout_of(x) is None:
            if not want.is_replicated:
                coords = want.block(world.state()["rank"])
                size = len(self.dm.shape)
                tmap = tuple(-1 if a is None else size - 1 - a for a in want.tmap)
                slice_parameter(x, ShardLayout(full_shape(x), self.dm.shape, tmap, coords))
                return mirror(x, self.dm, others)
            if x.sliced:
                raise ValueError(f"For '{self.op}.shard', parameter '{x.name}' is stored sliced "
                                 f"({x.shard_layout}) but this strategy takes it whole; give every operator that "
                                 f"takes it the same strategy for it.")
            return mirror(x, self.dm, others)
        src = layout_of(x) or replicated(want.ndim, want.dm.world_size)
        kept = list(src.tmap)
        for d in range(want.ndim):  # gather the dimensions this operator cuts otherwise
            if src.splits[d] > 1 and not src.same_dim_cut(want, d):
                x = all_gather(x, src.dm, src.tmap[d], d)
                kept[d] = None
        todo = [d for d in range(want.ndim) if want.splits[d] > 1 and kept[d] is None]
        if _is_float(x):  # indices and masks have no gradient to sum
            x = mirror(x, self.dm, others + [want.tmap[d] for d in todo])
        block = want.block(world.state()["rank"])
        for d in todo:
            x = split_block(x, d, want.splits[d], block[d])
        return x

    def out_layout(self, op, dims, partial, out_strategy):
        """The layout `out_strategy` asks for (each split on the label's own axis or a partial axis)."""
        if len(out_strategy) != len(dims):
            raise ValueError(f"For '{op}.shard', 'out_strategy' {out_strategy} needs one entry per output "
                             f"dimension ({len(dims)}).")
        free = [self.axis[lb] for lb in partial if self.axis.get(lb) is not None]
        tmap = []
        for s, lb in zip(out_strategy, dims):
            own = self.axis.get(lb)
            if s == 1:
                tmap.append(None)
            elif own is not None and self.dm.shape[own] == s:
                tmap.append(own)
            elif own is None and any(self.dm.shape[a] == s for a in free):
                a = next(a for a in free if self.dm.shape[a] == s)
                free.remove(a)
                tmap.append(a)
            else:
                raise NotImplementedError(f"For '{op}.shard', 'out_strategy' {out_strategy} splits an output "
                                          f"dimension {s} ways, which is neither its split in 'in_strategy' nor "
                                          f"that of the contraction; openspore supports those two.")
        return TensorLayout(self.dm, tuple(tmap))


def _is_float(x):
    return any(k in str(getattr(x, "dtype", "")).lower() for k in _FLOAT_KINDS)


def _check_ranks(op, strategies, args, spec):
    if len(strategies) != len(spec.positions):
        raise ValueError(f"For '{op}.shard', the strategy {tuple(strategies)} must have one tuple per tensor "
                         f"input ({len(spec.positions)}).")
    for s, pos in zip(strategies, spec.positions):
        if len(s) != args[pos].ndim:
            raise ValueError(f"For '{op}.shard', strategy {s} does not match an input of shape "
                             f"{list(full_shape(args[pos]))}: one entry per dimension.")


def _run(prim, args, strategy, out_strategy, how):
    spec = RULES[prim.name](prim, args)
    if strategy is not None:
        _check_ranks(prim.name, strategy, args, spec)
        plan = Plan.from_strategy(prim.name, strategy, spec.labels)
        for lb in spec.protected:
            if plan.split(lb) > 1:
                raise ValueError(f"For '{prim.name}.shard', dimension {lb} (the operator's axis) cannot be "
                                 f"split, but the strategy is {strategy}.")
    else:
        plan = Plan.from_layouts(prim.name, args, spec)
    from ._strategy_file import op_key, record_op_strategy
    name = op_key(prim, args)
    if how != "propagated":
        record_op_strategy(name, strategy)
    report.begin(name, how, strategy if strategy is not None else
                 tuple(plan.layout(d).splits for d in spec.labels), f"dev_matrix={plan.dm.shape}")
    try:
        inputs = [layout_of(args[p]) or replicated(args[p].ndim, plan.dm.world_size) for p in spec.positions]
        blocks = list(args)
        for pos, dims in zip(spec.positions, spec.labels):
            blocks[pos] = plan.take(args[pos], dims)
        local = spec.compute(plan, blocks)
        outs = local if isinstance(local, tuple) else (local,)
        results = []
        for i, (o, dims) in enumerate(zip(outs, spec.outputs)):
            lay = plan.layout(dims)
            wanted = plan.out_layout(prim.name, dims, spec.partial, out_strategy[i]) \
                if out_strategy is not None and i < len(out_strategy) else None
            partial = [plan.axis[lb] for lb in spec.partial if plan.axis.get(lb) is not None] if i == 0 else []
            o, lay = resolve_partial(o, plan.dm, partial, lay, wanted)
            results.append(tag(o, lay))
        report.end([x.describe() if not x.is_replicated else "replicated" for x in inputs], [layout_of(r).describe() if layout_of(r) else "replicated"
                                                    for r in results])
    except BaseException:
        report.abandon()
        raise
    return tuple(results) if isinstance(local, tuple) else results[0]


def _active():
    return context.get_auto_parallel_context("parallel_mode") in _SEMI and world.is_inited() and \
        _world_size() > 1


def sharded_call(prim, args):
    """A primitive carrying `shard` strategies (core.primitive's shard hook)."""
    if not _active():
        return bind(prim, *args)  # MindSpore ignores shard outside (semi-)auto parallel
    if prim.name not in RULES:
        raise NotImplementedError(f"'{prim.name}.shard' is not supported by openspore's operator-level sharding "
                                  f"(supported: {sorted(RULES)}).")
    _install_propagation()
    from ._strategy_file import loaded_strategy
    loaded = loaded_strategy(prim, args)
    _BUSY[0] += 1
    try:
        if loaded is not None:
            return _run(prim, args, loaded, None, "loaded")
        return _run(prim, args, prim.in_strategy, prim.out_strategy, "explicit")
    finally:
        _BUSY[0] -= 1


def _tagged(args):
    for a in args:
        if layout_of(a) is not None:
            return True
        if type(a) in (tuple, list) and any(layout_of(b) is not None for b in a):
            return True
    return False


def propagate(prim, args):
    """core.dispatch's layout hook: an unsharded operator that receives a sharded tensor (or whose strategy a
    loaded strategy file gives) runs with the propagated layout; one without a rule gets replicated inputs."""
    if _BUSY[0] or autograd.DIFFERENTIATING[0] is not None or not _active():
        return dispatch.NOT_HANDLED
    from ._strategy_file import loaded_strategy
    loaded = loaded_strategy(prim, args) if prim.name in RULES else None
    if loaded is None and not _tagged(args):
        return dispatch.NOT_HANDLED
    _BUSY[0] += 1
    try:
        if loaded is not None:
            return _run(prim, args, loaded, None, "loaded")
        if prim.name in RULES:
            return _run(prim, args, None, None, "propagated")
        return _replicated_call(prim, args)
    finally:
        _BUSY[0] -= 1


def _replicated_call(prim, args):
    report.begin(prim.name, "replicated (no sharding rule)", None, "")
    try:
        def full(a):
            lay = layout_of(a)
            return a if lay is None else redistribute(a, replicated(lay.ndim, lay.dm.world_size))
        plain = [type(a)(full(b) for b in a) if type(a) in (tuple, list) else full(a) for a in args]
        report.end([layout_of(a).describe() for a in args if layout_of(a) is not None], ["replicated"])
    except BaseException:
        report.abandon()
        raise
    return bind(prim, *plain)


def _install_propagation(size=2):
    """Once a job has several processes, every op call consults `propagate` (cheap when nothing is sharded)."""
    if size > 1 and dispatch._layout_hook is None:
        dispatch.set_layout_hook(propagate, outputs=_whole_outputs)


def _whole_outputs(value):
    if type(value) in (tuple, list):
        return type(value)(_whole_outputs(v) for v in value)
    if isinstance(value, dict):
        return {k: _whole_outputs(v) for k, v in value.items()}
    return to_full(value) if layout_of(value) is not None else value


def to_full(t):
    """The whole tensor of a sharded (layout-carrying) result, on every rank (every rank must call it)."""
    lay = layout_of(t)
    if lay is None:
        return t
    _BUSY[0] += 1
    try:
        return redistribute(t, replicated(lay.ndim, lay.dm.world_size))
    finally:
        _BUSY[0] -= 1


__all__ = ["ELEMENTWISE", "sharded_call", "propagate", "to_full", "group_of", "reset_groups"]
set_shard_hook(sharded_call)
world.ON_WORLD.append(_install_propagation)
if world.is_inited():
    _install_propagation(_world_size())
