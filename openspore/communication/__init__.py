"""`mindspore.communication`: collective communication over torch.distributed (Gloo on CPU, NCCL on CUDA).

Launch workers with `msrun` (or torchrun, or MindSpore's MS_* variables by hand), call `init()` in each, then
use the collective primitives (`ops.AllReduce`, ...) or `communication.comm_func`.

>>> from openspore import communication
>>> communication.init()
>>> communication.get_rank(), communication.get_group_size(), communication.GlobalComm.BACKEND
(0, 1, 'mccl')
>>> communication.release()
"""
from .management import (GlobalComm, HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP,  # noqa: F401
                         create_group, destroy_group, get_group_rank_from_world_rank, get_group_size,
                         get_local_rank, get_local_rank_size, get_process_group_ranks, get_rank,
                         get_world_rank_from_group_rank, init, release)
from .management import get_comm_name  # noqa: F401
from . import comm_func  # noqa: F401

__all__ = ["GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "init",
           "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size", "create_group",
           "destroy_group", "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
           "get_process_group_ranks", "comm_func", "get_comm_name"]
from ..parallel import _sharding  # noqa: F401,E402 - installs Primitive.shard's sharded call
