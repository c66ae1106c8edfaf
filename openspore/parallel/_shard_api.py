"""`ms.Layout`, and `ms.shard(fn, in_strategy, ...)` / `Cell.shard(...)`: a strategy for a whole function or
cell, the operators inside running on this rank's blocks.

openspore does not propagate layouts into the cell's operators, so a cell-level strategy may split only the
leading (batch) dimension of its inputs (`None` = data parallel: split it across all devices), as MindSpore's
examples do for data-parallel cells. Each rank then runs the cell on its block of the batch; the outputs are
gathered back along the batch dimension. The cell's parameters stay replicated: their gradients (partial, from
each rank's block) are summed over the ranks that split the batch by `TrainOneStepCell`
(nn/wrap/grad_reducer.mirror_shard_grads).

>>> layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
>>> layout("dp", "mp").to_dict()
{'device_matrix': (2, 2, 2), 'tensor_map': (2, 0)}
>>> layout(("dp", "sp"), "None").to_strategy()
(4, 1)
"""
from .. import context
from ..core.primitive import PRIMITIVES
from ..nn import _cell_misc
from ..nn.cell import Cell
from ..ops.defs import _comm_world as world
from ._layout import DeviceMatrix
from ._sharding import group_of


class Layout:
    """`Layout(device_matrix, alias_name, rank_list=None)`; calling it with one alias (or a tuple of aliases,
    or "None") per tensor dimension gives the layout of a tensor. openspore honours a layout as the strategy
    it implies (the split count of each dimension, `to_strategy()`); ranks are arranged in the default order."""

    def __init__(self, device_matrix, alias_name, rank_list=None):
        if not isinstance(device_matrix, tuple) or not all(isinstance(d, int) and d > 0 for d in device_matrix):
            raise TypeError(f"For 'Layout', the 'device_matrix' must be a tuple of positive ints, got "
                            f"{device_matrix!r}.")
        if not isinstance(alias_name, tuple) or not all(isinstance(a, str) for a in alias_name):
            raise TypeError(f"For 'Layout', the 'alias_name' must be a tuple of str, got {alias_name!r}.")
        if len(alias_name) != len(device_matrix):
            raise ValueError(f"For 'Layout', 'device_matrix' {device_matrix} and 'alias_name' {alias_name} must "
                             f"have the same length.")
        if any(a in ("", "None") for a in alias_name) or len(set(alias_name)) != len(alias_name):
            raise ValueError(f"For 'Layout', the alias names must be distinct, non-empty and not 'None', got "
                             f"{alias_name}.")
        if rank_list is not None and not isinstance(rank_list, list):
            raise TypeError(f"For 'Layout', 'rank_list' must be a list, got {type(rank_list).__name__}.")
        self._device_matrix, self._alias_name, self._rank_list = device_matrix, alias_name, rank_list
        self._tensor_map = None

    def __call__(self, *tensor_map):
        used, out = [], []
        for entry in tensor_map:
            names = entry if isinstance(entry, tuple) else (entry,)
            axes = []
            for name in names:
                if name == "None":
                    continue
                if name not in self._alias_name:
                    raise ValueError(f"For 'Layout', '{name}' is not one of the alias names {self._alias_name}.")
                if name in used:
                    raise ValueError(f"For 'Layout', the alias '{name}' shards more than one dimension.")
                used.append(name)
                axes.append(len(self._alias_name) - 1 - self._alias_name.index(name))
            out.append(tuple(axes) if isinstance(entry, tuple) else (axes[0] if axes else -1))
        layout = Layout(self._device_matrix, self._alias_name, self._rank_list)
        layout._tensor_map = tuple(out)
        return layout

    def to_dict(self):
        if self._tensor_map is None:
            raise ValueError("For 'Layout.to_dict', call the layout with one alias per tensor dimension first.")
        return {"device_matrix": self._device_matrix, "tensor_map": self._tensor_map}

    def to_strategy(self):
        """The split count of each tensor dimension this layout implies."""
        size = len(self._device_matrix)
        counts = []
        for entry in self.to_dict()["tensor_map"]:
            axes = entry if isinstance(entry, tuple) else (entry,)
            count = 1
            for axis in axes:
                if axis >= 0:
                    count *= self._device_matrix[size - 1 - axis]
            counts.append(count)
        return tuple(counts)

    def __repr__(self):
        return f"Layout(device_matrix={self._device_matrix}, alias_name={self._alias_name}, " \
               f"tensor_map={self._tensor_map})"


def _active():
    return context.get_auto_parallel_context("parallel_mode") in ("semi_auto_parallel", "auto_parallel") and \
        world.is_inited() and world.group_size(world.state()["world"]) > 1


def _batch_split(where, in_strategy, ndims):
    """The one split count of the leading dimension the strategies ask for (None = all devices)."""
    n = world.group_size(world.state()["world"])
    if len(in_strategy) != len(ndims):
        raise ValueError(f"For '{where}', 'in_strategy' has {len(in_strategy)} entries for {len(ndims)} inputs.")
    counts = set()
    for s, ndim in zip(in_strategy, ndims):
        s = s.to_strategy() if hasattr(s, "to_strategy") else s
        if s is None:
            counts.add(n)
            continue
        if len(s) != ndim or any(d != 1 for d in s[1:]):
            raise NotImplementedError(f"For '{where}', openspore splits only the leading (batch) dimension of a "
                                      f"cell's inputs (it does not propagate layouts into the cell), but got "
                                      f"{s} for an input of rank {ndim}; shard the operators inside instead.")
        counts.add(s[0])
    if len(counts) != 1:
        raise ValueError(f"For '{where}', every input must split the batch the same number of ways, got "
                         f"{sorted(counts)}.")
    return counts.pop()


class _ShardedRegion:
    """The pre/post hooks of a sharded cell or function."""

    def __init__(self, where, in_strategy, out_strategy):
        self.where, self.in_strategy, self.out_strategy = where, in_strategy, out_strategy

    def enter(self, args):
        d = _batch_split(self.where, self.in_strategy, [getattr(a, "ndim", 0) for a in args])
        self.dm = DeviceMatrix([d], world.group_size(world.state()["world"]))
        self.group = group_of(self.dm, [1])
        self.split = d
        if self.group is None:
            return args
        index = self.dm.coords(world.state()["rank"])[1]
        mirror = PRIMITIVES["MirrorOperator"](group=self.group)
        return tuple(PRIMITIVES["Split"](axis=0, output_num=d)(mirror(a))[index] for a in args)

    def leave(self, output):
        if self.group is None:
            return output
        gather = PRIMITIVES["ForwardAllGather"](axis=0, group=self.group)
        if isinstance(output, tuple):
            return tuple(gather(o) for o in output)
        return gather(output)


def _install_cell_shard(cell, in_strategy, out_strategy, parameter_plan):
    if parameter_plan:
        raise NotImplementedError("For 'Cell.shard', openspore does not support 'parameter_plan' (parameters "
                                  "are sliced by the strategies of the operators that take them).")
    region = _ShardedRegion(f"{type(cell).__name__}.shard", in_strategy, out_strategy)

    def pre(_cell, inputs):
        if not _active():
            return None
        blocks = region.enter(tuple(inputs))
        for p in _cell.trainable_params():  # their gradients come from this rank's block: summed by the train cell
            p.__dict__["_grad_mirror_group"] = region.group
        return blocks

    def post(_cell, _inputs, output):
        return region.leave(output) if _active() else None

    for handle in cell.__dict__.get("_shard_hook_handles", ()):
        handle.remove()
    cell.__dict__["_shard_hook_handles"] = (cell.register_forward_pre_hook(pre), cell.register_forward_hook(post))


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """`ms.shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0)`: a Cell is
    sharded in place (`Cell.shard`) and returned; a function is wrapped."""
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"For 'shard', 'in_strategy' should be a tuple, but got {type(in_strategy).__name__}.")
    if isinstance(fn, Cell):
        return fn.shard(in_strategy, out_strategy, parameter_plan, device, level)
    if not callable(fn):
        raise TypeError(f"For 'shard', 'fn' should be a Cell or a function, but got {type(fn).__name__}.")
    if parameter_plan:
        raise NotImplementedError("For 'shard', 'parameter_plan' applies to Cells, and openspore does not "
                                  "support it (parameters are sliced by their operators' strategies).")
    region = _ShardedRegion(getattr(fn, "__name__", "shard"), in_strategy, out_strategy)

    def sharded(*args):
        if not _active():
            return fn(*args)
        return region.leave(fn(*region.enter(args)))
    return sharded


_cell_misc.install_cell_shard(_install_cell_shard)
