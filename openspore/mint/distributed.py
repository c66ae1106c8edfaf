"""`mindspore.mint.distributed`: torch.distributed-style process groups and collectives. They are
`openspore.communication.distributed`'s (which also serves `mindspore.ops.communication`): Gloo on CPU, NCCL on
GPU, and a job of one process (no launcher) needs neither.

>>> import numpy as np, openspore as ms
>>> from openspore.mint import distributed as dist
>>> dist.init_process_group()
>>> t = ms.Tensor(np.array([1.0, 2.0], np.float32))
>>> dist.all_reduce(t) is None, t.asnumpy().tolist(), dist.get_rank(), dist.get_world_size()
(True, [1.0, 2.0], 0, 1)
>>> dist.destroy_process_group()
"""
from ..communication.distributed import (init_process_group, destroy_process_group, get_rank, get_world_size,
    new_group, get_backend, get_global_rank, get_process_group_ranks, get_group_rank, all_reduce,
    all_gather_into_tensor, all_gather_into_tensor_uneven, all_to_all, all_to_all_single, reduce_scatter_tensor,
    reduce_scatter_tensor_uneven, isend, irecv, send, recv, send_object_list, recv_object_list, gather, scatter,
    all_gather, reduce_scatter, barrier, broadcast, reduce, P2POp, batch_isend_irecv, all_gather_object,
    broadcast_object_list, gather_object, scatter_object_list, is_available, is_initialized)

__all__ = ["init_process_group", "destroy_process_group", "get_rank", "get_world_size", "new_group", "get_backend",
           "get_global_rank", "get_process_group_ranks", "get_group_rank", "all_reduce", "all_gather_into_tensor",
           "all_gather_into_tensor_uneven", "all_to_all", "all_to_all_single", "reduce_scatter_tensor",
           "reduce_scatter_tensor_uneven", "isend", "irecv", "send", "recv", "send_object_list", "recv_object_list",
           "gather", "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast", "reduce", "P2POp",
           "batch_isend_irecv", "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
           "is_available", "is_initialized"]
