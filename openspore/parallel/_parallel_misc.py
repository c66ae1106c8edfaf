"""The rest of `mindspore.parallel`'s helpers: the strategy-search settings (`set_algo_parameters`), weight
synchronisation (`parameter_broadcast`, `sync_pipeline_shared_parameters`) and group-info files
(`restore_group_info_list`, written when `group_ckpt_save_file` is set).

openspore has no automatic strategy search (auto_parallel runs the strategies set with `shard`, unsharded
operators stay replicated), so the algorithm settings are validated and kept for `get_algo_parameters`.

>>> set_algo_parameters(elementwise_op_strategy_follow=True)
>>> get_algo_parameters("elementwise_op_strategy_follow")
True
>>> reset_algo_parameters(); get_algo_parameters("elementwise_op_strategy_follow")
False
"""
import os

from .. import context
from ..common.files import write_atomic
from ..core.primitive import PRIMITIVES
from ..ops.defs import _comm_world as world
from . import node_strategy_pb2 as pb
from ._strategy_file import layouts_from_file

_ALGO_DEFAULTS = {"fully_use_devices": False, "elementwise_op_strategy_follow": False,
                  "enable_algo_approxi": False, "algo_approxi_epsilon": 0.1,
                  "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
_algo = dict(_ALGO_DEFAULTS)


def _check_algo(key, value):
    if key not in _ALGO_DEFAULTS:
        raise ValueError(f"For 'set_algo_parameters', '{key}' is not an algorithm parameter (expected one of "
                         f"{sorted(_ALGO_DEFAULTS)}).")
    if key == "algo_approxi_epsilon":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise ValueError(f"For 'set_algo_parameters', 'algo_approxi_epsilon' must be in (0, 1], got {value!r}.")
    elif key == "tensor_slice_align_size":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1024:
            raise ValueError(f"For 'set_algo_parameters', 'tensor_slice_align_size' must be an int in [1, 1024], "
                             f"got {value!r}.")
    elif not isinstance(value, bool):
        raise TypeError(f"For 'set_algo_parameters', '{key}' must be a bool, got {type(value).__name__}.")


def set_algo_parameters(**kwargs):
    for key, value in kwargs.items():
        _check_algo(key, value)
    _algo.update(kwargs)


def get_algo_parameters(attr_key):
    if attr_key not in _ALGO_DEFAULTS:
        raise ValueError(f"For 'get_algo_parameters', '{attr_key}' is not an algorithm parameter (expected one "
                         f"of {sorted(_ALGO_DEFAULTS)}).")
    return _algo[attr_key]


def reset_algo_parameters():
    _algo.clear()
    _algo.update(_ALGO_DEFAULTS)


def _bcast(param, root):
    param.set_data(PRIMITIVES["Broadcast"](root_rank=root)((param,))[0], slice_shape=True)


def parameter_broadcast(net, layout, cur_rank=0, initial_rank=0):
    """Give every rank rank `initial_rank`'s value of the parameters named in `layout` (a dict, or a strategy
    file name) that are replicated; a sliced parameter is broadcast among the ranks holding the same block."""
    from ._sharding import group_of
    from ._layout import DeviceMatrix
    if world.is_inited() and cur_rank != world.state()["rank"]:
        raise ValueError(f"For 'parameter_broadcast', 'cur_rank' {cur_rank} is not this process's rank "
                         f"{world.state()['rank']}.")
    names = set(layouts_from_file("parameter_broadcast", layout) if isinstance(layout, str) else layout)
    params = {p.name: p for p in net.get_parameters()}
    unknown = sorted(names - set(params))
    if unknown:
        raise ValueError(f"For 'parameter_broadcast', parameters {unknown} of the layout are not in the network.")
    if world.group_size(world.state()["world"]) == 1:
        return
    for name in sorted(names):
        p = params[name]
        sl = getattr(p, "shard_layout", None)
        if sl is None:
            _bcast(p, initial_rank)
            continue
        dm = DeviceMatrix(sl.device_matrix[1:], world.group_size(world.state()["world"]))
        group = group_of(dm, [0])  # the repeat axis: ranks holding the same block
        if group is not None:
            ranks = world.group_ranks(group)
            p.set_data(PRIMITIVES["Broadcast"](root_rank=ranks[0], group=group)((p,))[0], slice_shape=True)


def sync_pipeline_shared_parameters(net):
    """Make the copies of parameters that several pipeline stages hold (a shared embedding) equal again: each
    takes the value of the first stage (world rank 0)."""
    if world.group_size(world.state()["world"]) == 1:
        return
    for p in net.get_parameters():
        if getattr(p, "shard_layout", None) is None:
            _bcast(p, 0)


def save_group_info(path, name, ranks):
    """Append the group (name, world ranks) to the group-info file (ParallelGroupMap) at `path`."""
    message = pb.ParallelGroupMap()
    if os.path.isfile(path):
        with open(path, "rb") as f:
            message.ParseFromString(f.read())
    if any(item.group_name == name for item in message.parallel_group_item):
        return
    item = message.parallel_group_item.add(group_name=name)
    item.parallel_group_ranks.dim.extend(ranks)
    mine = f"{path}.{os.getpid()}"
    write_atomic(mine, [message.SerializeToString()], read_only=False)
    os.replace(mine, path)


def group_info_target():
    return context.get_auto_parallel_context("group_ckpt_save_file") or None


def restore_group_info_list(group_info_file_name):
    """The world ranks of the first group in a group-info file (the ranks a rank's checkpoint slices are
    shared with)."""
    if not isinstance(group_info_file_name, str) or not os.path.isfile(group_info_file_name):
        raise ValueError(f"For 'restore_group_info_list', the group info file '{group_info_file_name}' does not "
                         f"exist.")
    message = pb.ParallelGroupMap()
    with open(group_info_file_name, "rb") as f:
        message.ParseFromString(f.read())
    if not message.parallel_group_item:
        raise ValueError(f"For 'restore_group_info_list', '{group_info_file_name}' holds no group.")
    return list(message.parallel_group_item[0].parallel_group_ranks.dim)
