"""`mindspore.communication.management`: start and stop collective communication, and ask about ranks/groups.

`init()` joins the job the environment describes (msrun's MS_* variables, torchrun's, or none = a job of one)
with a torch.distributed process group: Gloo on CPU, NCCL when the context's device_target is GPU.

>>> from openspore.communication import init, get_rank, get_group_size, release
>>> init()                      # no launcher: a job of one process
>>> get_rank(), get_group_size()
(0, 1)
>>> release()
"""
from .. import context
from ..ops.defs import _comm_world as world
from . import _failure_record, _rendezvous

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_BACKENDS = {"mccl": "gloo", "gloo": "gloo", "nccl": "nccl", "hccl": None}


class GlobalComm:
    """Process-wide communication settings, as MindSpore names them."""
    BACKEND = "mccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


def _pick_backend(backend_name):
    gpu = context.get_context("device_target") == "GPU"
    if backend_name is None:
        backend_name = "nccl" if gpu else "mccl"
    if not isinstance(backend_name, str) or backend_name not in _BACKENDS:
        raise ValueError(f"For 'init', the 'backend_name' must be one of {sorted(_BACKENDS)} or None, but got "
                         f"{backend_name!r}.")
    if _BACKENDS[backend_name] is None:
        raise RuntimeError("For 'init', backend 'hccl' needs Ascend devices, which openspore does not drive; use "
                           "'mccl' (Gloo on CPU) or 'nccl' (CUDA).")
    if backend_name == "nccl" and not gpu:
        raise RuntimeError("For 'init', backend 'nccl' needs device_target='GPU' (set_context(device_target='GPU')).")
    return backend_name


def init(backend_name=None):
    """Join the distributed job: blocks until every worker has joined. Calling it again is a no-op."""
    if GlobalComm.INITED:
        return
    backend_name = _pick_backend(backend_name)
    launch = _rendezvous.describe()
    if launch["role"] == "MS_SCHED":
        _rendezvous.serve_as_scheduler(launch)  # exits the process when the workers are done
    import torch.distributed as dist
    if dist.is_initialized():  # the script made torch's group itself: adopt it
        rank, size = dist.get_rank(), dist.get_world_size()
    else:
        rank, size = _rendezvous.join(_BACKENDS[backend_name], launch)
    _failure_record.install(rank)  # msrun names the worker that failed first (a no-op without msrun)
    world_name = NCCL_WORLD_COMM_GROUP if backend_name == "nccl" else MCCL_WORLD_COMM_GROUP
    world.set_world(_BACKENDS[backend_name], world_name, rank, size, launch["local_rank"] if size > 1 else 0,
                    launch["local_size"] if size > 1 else 1)
    GlobalComm.BACKEND, GlobalComm.WORLD_COMM_GROUP, GlobalComm.INITED = backend_name, world_name, True
    context.set_auto_parallel_context(global_rank=rank)


def release():
    """Leave the job: destroys the groups and torch's process group."""
    if not GlobalComm.INITED:
        return
    import torch.distributed as dist
    for name in world.group_names():
        _destroy(name)
    if dist.is_initialized():
        dist.destroy_process_group()
    world.clear_world()
    GlobalComm.INITED = False
    GlobalComm.WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP


def _require_init(api):
    if not GlobalComm.INITED:
        raise RuntimeError(f"For '{api}', the communication service is not initialized: call "
                           f"communication.init() first (under msrun for more than one process).")


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in `group`."""
    _require_init("get_rank")
    return world.group_rank(group)


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """How many processes `group` has."""
    _require_init("get_group_size")
    return world.group_size(group)


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the workers on its node."""
    _require_init("get_local_rank")
    _world_only("get_local_rank", group)
    return world.state()["local_rank"]


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """How many workers run on this node."""
    _require_init("get_local_rank_size")
    _world_only("get_local_rank_size", group)
    return world.state()["local_size"]


def _world_only(api, group):
    if not world.is_world(group):
        raise ValueError(f"For '{api}', only the world group is supported, but got group '{group}'.")


def get_world_rank_from_group_rank(group, group_rank_id):
    _require_init("get_world_rank_from_group_rank")
    ranks = world.group_ranks(group)
    if isinstance(group_rank_id, bool) or not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"For 'get_world_rank_from_group_rank', the 'group_rank_id' must be an int in "
                         f"[0, {len(ranks) - 1}] for group '{group}', but got {group_rank_id!r}.")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    _require_init("get_group_rank_from_world_rank")
    ranks = world.group_ranks(group)
    if world_rank_id not in ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', world rank {world_rank_id!r} is not in group "
                         f"'{group}' (ranks {ranks}).")
    return ranks.index(world_rank_id)


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    _require_init("get_process_group_ranks")
    return world.group_ranks(group)


def create_group(group, rank_ids, options=None):
    """Create the group `group` of the world ranks `rank_ids` (called by each member)."""
    _require_init("create_group")
    if not isinstance(group, str) or not group:
        raise TypeError(f"For 'create_group', the 'group' must be a non-empty str, but got {group!r}.")
    if world.is_world(group) or group in world.group_names():
        raise ValueError(f"For 'create_group', the group '{group}' already exists.")
    size = world.state()["size"]
    ranks = list(rank_ids) if isinstance(rank_ids, (list, tuple)) else None
    if not ranks or len(set(ranks)) != len(ranks) or any(
            isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < size for r in ranks):
        raise ValueError(f"For 'create_group', the 'rank_ids' must be a non-empty list of distinct world ranks in "
                         f"[0, {size - 1}], but got {rank_ids!r}.")
    if world.state()["rank"] not in ranks:
        raise ValueError(f"For 'create_group', this process (rank {world.state()['rank']}) must be one of the "
                         f"'rank_ids' {ranks}.")
    pg = None
    if size > 1:
        import torch.distributed as dist
        # Only the members call create_group (MindSpore's rule), so torch must not wait for the others.
        pg = dist.new_group(sorted(ranks), use_local_synchronization=True)
    world.add_group(group, sorted(ranks), pg)  # group ranks follow world-rank order, as torch's do


def _destroy(group):
    entry = world.remove_group(group)
    if entry and entry["pg"] is not None:
        import torch.distributed as dist
        dist.destroy_process_group(entry["pg"])


def destroy_group(group):
    _require_init("destroy_group")
    if world.is_world(group):
        raise ValueError("For 'destroy_group', the world group cannot be destroyed (use release()).")
    if group not in world.group_names():
        raise ValueError(f"For 'destroy_group', the group '{group}' does not exist.")
    _destroy(group)



def get_comm_name(group=GlobalComm.WORLD_COMM_GROUP):
    """The name of the communicator behind `group`. openspore's communicator of a group is the group itself (one
    torch.distributed process group per group name), so this is the group's name; MindSpore returns its HCCL
    communicator's name (and supports the call only on Ascend)."""
    if not isinstance(group, str):
        raise TypeError(f"For 'get_comm_name', the argument 'group' must be a str, but got {type(group).__name__}.")
    _require_init("get_comm_name")
    world.group_ranks(group)   # an unknown group raises here
    return GlobalComm.WORLD_COMM_GROUP if world.is_world(group) else group
