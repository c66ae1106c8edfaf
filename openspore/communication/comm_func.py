"""`mindspore.communication.comm_func`: functional collectives, written with the collective primitives, so they
run in PyNative and in compiled graphs and differentiate like the primitives.

>>> import numpy as np, openspore as ms
>>> from openspore.communication import comm_func
>>> comm_func.all_reduce(ms.Tensor(np.array([1.0, 2.0], np.float32))).asnumpy().tolist()  # a world of one
[1.0, 2.0]
"""
from ..ops.defs import _comm_world as world
from ..ops.defs.comm import WORLD, AllGather, AllReduce, Broadcast, Receive, ReduceOp, ReduceScatter, Send  # noqa: F401


def all_reduce(tensor, op=ReduceOp.SUM, group=WORLD):
    """The elementwise reduction of `tensor` over `group`, on every member."""
    return AllReduce(op=op, group=group)(tensor)


def all_gather_into_tensor(tensor, group=WORLD):
    """Every member's `tensor` joined along axis 0 in rank order."""
    return AllGather(group=group)(tensor)


def reduce_scatter_tensor(tensor, op=ReduceOp.SUM, group=WORLD):
    """Reduce over `group`, then keep this member's block of axis 0."""
    return ReduceScatter(op=op, group=group)(tensor)


def broadcast(tensor, src=0, group=WORLD):
    """`src`'s tensor (a world rank), on every member."""
    return Broadcast(root_rank=src, group=group)((tensor,))[0]


def send(tensor, dst=0, group=WORLD, tag=0):
    """Send `tensor` to `dst` (a rank in `group`); pair with `recv` on the peer with the same `tag`."""
    Send(sr_tag=tag, dest_rank=dst, group=group)(tensor)


def recv(tensor, src=0, group=WORLD, tag=0):
    """Receive from `src` what it sent with `tag`; `tensor` gives the shape and dtype. Returns the received
    tensor."""
    return Receive(sr_tag=tag, src_rank=src, shape=tuple(tensor.shape), dtype=tensor.dtype, group=group)()


def barrier(group=WORLD):
    """Wait until every member of `group` reaches the barrier."""
    if world.group_size(group) > 1:
        import torch.distributed as dist
        dist.barrier(group=None if world.is_world(group) else world._groups[group]["pg"])


def gather_into_tensor(tensor, dst=0, group=WORLD):
    """World rank `dst` gets every member's `tensor` joined along axis 0 (rank order); the others get a
    meaningless one-element tensor, as MindSpore's do."""
    import numpy as np
    from ..core.tensor import Tensor
    gathered = world.all_gather(np.ascontiguousarray(tensor.asnumpy()), group)
    if world.state()["rank"] != dst:
        return Tensor(np.zeros(1, gathered.dtype))
    return Tensor(gathered)


def scatter_tensor(tensor, src=0, group=WORLD):
    """World rank `src`'s `tensor` split evenly along axis 0; member r gets block r."""
    import numpy as np
    from ..core.tensor import Tensor
    n = world.group_size(group)
    if tensor.shape[0] % n:
        raise ValueError(f"For 'scatter_tensor', the first dimension {tensor.shape[0]} must divide evenly among the "
                         f"{n} members of the group.")
    whole = world.broadcast(np.ascontiguousarray(tensor.asnumpy()), src, group)
    block = whole.shape[0] // n
    me = world.group_rank(group)
    return Tensor(whole[me * block:(me + 1) * block])
