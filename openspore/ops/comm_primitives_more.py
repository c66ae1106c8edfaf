"""More of MindSpore's collective Primitive classes, composed from the collective primitives where the result
is a fixed-shape function of the inputs (Reduce, CollectiveGather, CollectiveScatter: they differentiate through
AllReduce/AllGather/Broadcast's backward rules), and run on the host through `_comm_world` for the variable-size
exchanges (AllGatherV, ReduceScatterV, AlltoAllV, NeighborExchange, BatchISendIRecv, Barrier).

Ranks named by the attributes (dest_rank, src_rank, send/recv ranks) are world ranks. Before
`communication.init()` the world is this one process.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.AllGatherV()(ms.Tensor(np.array([1.0, 2.0], np.float32)), [2]).asnumpy().tolist()  # a world of one
[1.0, 2.0]
"""
import numpy as np

from ..common import dtype as mstype
from ..core.registry import prim
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive
from .defs import _comm_world as world
from .defs.comm import WORLD, ReduceOp

_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _host(x):
    return np.ascontiguousarray(x.asnumpy())


def _members(op, group, *ranks):
    members = world.group_ranks(group)
    for r in ranks:
        if r not in members:
            raise ValueError(f"For '{op}', rank {r!r} is not a member of the group '{group}' (ranks {members}).")
    return members


def _check_op(op, value):
    if value not in _OPS:
        raise ValueError(f"For '{op}', 'op' must be one of {list(_OPS)}, but got {value!r}.")


# ---- fixed-shape collectives written with the differentiable primitives ----------------------------------------------
def _placeholder(result):
    """A one-element zero that still depends on `result`: every member then runs the collective's backward too
    (a member skipping it would leave the others waiting)."""
    return F.narrow(F.reshape(result * 0, (-1,)), 0, 0, 1)


def _reduce(self, x):
    _check_op("Reduce", self.op)
    _members("Reduce", self.group, self.dest_rank)
    total = prim("AllReduce", op=self.op, group=self.group)(x)
    # only the destination gets the reduction; the others get MindSpore's meaningless one-element tensor
    return total if world.state()["rank"] == self.dest_rank else _placeholder(total)


def _collective_gather(self, x):
    _members("CollectiveGather", self.group, self.dest_rank)
    gathered = prim("AllGather", group=self.group)(x)
    return gathered if world.state()["rank"] == self.dest_rank else _placeholder(gathered)


def _collective_scatter(self, x):
    _members("CollectiveScatter", self.group, self.src_rank)
    n = world.group_size(self.group)
    if x.shape[0] % n:
        raise ValueError(f"For 'CollectiveScatter', the first dimension {x.shape[0]} must divide evenly among the "
                         f"{n} members of group '{self.group}'.")
    whole = prim("Broadcast", root_rank=self.src_rank, group=self.group)((x,))[0]
    block = x.shape[0] // n
    return F.narrow(whole, 0, world.group_rank(self.group) * block, block)


Reduce = _primitive("Reduce", _reduce, attrs=[("dest_rank", 0), ("op", ReduceOp.SUM), ("group", WORLD)],
                    doc="Reduce(dest_rank, op='sum', group)(x): the reduction of x over the group, on dest_rank.")
CollectiveGather = _primitive("CollectiveGather", _collective_gather, attrs=[("dest_rank", 0), ("group", WORLD)],
                              doc="CollectiveGather(dest_rank, group)(x): the members' x joined along axis 0, on "
                                  "dest_rank.")
CollectiveScatter = _primitive("CollectiveScatter", _collective_scatter, attrs=[("src_rank", 0), ("group", WORLD)],
                               doc="CollectiveScatter(src_rank, group)(x): src_rank's x split evenly along axis 0; "
                                   "member r gets block r.")


# ---- variable-size exchanges on the host --------------------------------------------------------------------------------
def _gather_flat(array, group):
    """[each member's 1-D array] in group-rank order; lengths may differ."""
    if world.group_size(group) == 1:
        return [array.copy()]
    sizes = world.all_gather(np.array([array.size], np.int64), group)
    flat = np.zeros(max(int(sizes.max()), 1), array.dtype)
    flat[:array.size] = array
    parts = world.all_gather(flat.reshape(1, -1), group)
    return [parts[r, :int(sizes[r])] for r in range(len(sizes))]


def _sizes(op, name, values, n):
    values = [int(v) for v in (values.asnumpy().tolist() if isinstance(values, Tensor) else values)]
    if len(values) != n or min(values) < 0:
        raise ValueError(f"For '{op}', '{name}' must hold {n} non-negative sizes (one per member), but got {values}.")
    return values


def _all_gather_v(self, input_x, output_split_sizes):
    group = self.group
    parts = _gather_flat(_host(input_x).reshape(-1), group)
    want = _sizes("AllGatherV", "output_split_sizes", output_split_sizes, len(parts))
    if [p.size for p in parts] != want:
        raise ValueError(f"For 'AllGatherV', 'output_split_sizes' {want} does not match the members' element counts "
                         f"{[p.size for p in parts]}.")
    return Tensor(np.concatenate(parts))


def _reduce_scatter_v(self, input_x, input_split_sizes):
    _check_op("ReduceScatterV", self.op)
    group = self.group
    n = world.group_size(group)
    flat = _host(input_x).reshape(-1)
    sizes = _sizes("ReduceScatterV", "input_split_sizes", input_split_sizes, n)
    if sum(sizes) != flat.size:
        raise ValueError(f"For 'ReduceScatterV', 'input_split_sizes' {sizes} must sum to the input's {flat.size} "
                         f"elements.")
    reduced = world.all_reduce(flat, self.op, group)
    me = world.group_rank(group)
    return Tensor(reduced[sum(sizes[:me]):sum(sizes[:me + 1])])


def _exchange_blocks(blocks, group):
    """blocks[r] (1-D) goes to member r; returns what each member sent here, in rank order."""
    me = world.group_rank(group)
    received = None
    for r, block in enumerate(blocks):
        parts = _gather_flat(block, group)
        if r == me:
            received = parts
    return received


def _all_to_all_v(self, input_x, send_numel_list, recv_numel_list):
    group = self.group
    n = world.group_size(group)
    flat = _host(input_x).reshape(-1)
    send = [s * self.block_size for s in _sizes("AlltoAllV", "send_numel_list", send_numel_list, n)]
    recv = [s * self.block_size for s in _sizes("AlltoAllV", "recv_numel_list", recv_numel_list, n)]
    if sum(send) != flat.size:
        raise ValueError(f"For 'AlltoAllV', 'send_numel_list' covers {sum(send)} elements but the input has "
                         f"{flat.size}.")
    bounds = np.cumsum([0] + send)
    received = _exchange_blocks([flat[bounds[r]:bounds[r + 1]] for r in range(n)], group)
    if [p.size for p in received] != recv:
        raise ValueError(f"For 'AlltoAllV', 'recv_numel_list' {recv} does not match what arrived "
                         f"{[p.size for p in received]}.")
    return Tensor(np.concatenate(received))


AllGatherV = _primitive("AllGatherV", _all_gather_v, attrs=[("group", WORLD)],
                        doc="AllGatherV(group)(input_x, output_split_sizes): the members' flattened inputs (sizes "
                            "may differ) joined in rank order.")
ReduceScatterV = _primitive("ReduceScatterV", _reduce_scatter_v, attrs=[("op", ReduceOp.SUM), ("group", WORLD)],
                            doc="ReduceScatterV(op, group)(input_x, input_split_sizes): reduce the flattened inputs, "
                                "keep this member's (uneven) block.")
AlltoAllV = _primitive("AlltoAllV", _all_to_all_v, attrs=[("group", WORLD), ("block_size", 1)],
                       doc="AlltoAllV(group, block_size=1)(input_x, send_numel_list, recv_numel_list): flattened "
                           "blocks of send_numel_list[r]·block_size elements go to member r; the received ones are "
                           "joined in rank order.")


def _point_to_point(op, sends, send_ranks, recv_shapes, recv_dtypes, recv_ranks, group):
    """Post every send without waiting, then receive in order: a pattern that cannot deadlock."""
    received = []
    if world.group_size(group) == 1:  # a world of one: each receive takes the next send to itself
        pending = [_host(x) for x in sends]
        for shape, dtype in zip(recv_shapes, recv_dtypes):
            if not pending:
                raise RuntimeError(f"For '{op}', a receive in a one-process world has no matching send.")
            received.append(Tensor(pending.pop(0).reshape(tuple(shape)).astype(mstype.to_dtype(dtype, op).np_dtype)))
        return tuple(received)
    import torch
    import torch.distributed as dist
    pg = world._process_group(group)
    works = [dist.isend(torch.from_numpy(_host(x).copy()), dst=dst, group=pg) for x, dst in zip(sends, send_ranks)]
    for shape, dtype, src in zip(recv_shapes, recv_dtypes, recv_ranks):
        buf = torch.from_numpy(np.empty(tuple(shape), mstype.to_dtype(dtype, op).np_dtype))
        dist.recv(buf, src=src, group=pg)
        received.append(Tensor(buf.numpy()))
    for w in works:
        w.wait()
    return tuple(received)


def _neighbor_exchange(self, input_x):
    inputs = tuple(input_x) if isinstance(input_x, (tuple, list)) else (input_x,)
    if len(inputs) != len(self.send_rank_ids):
        raise ValueError(f"For 'NeighborExchange', {len(self.send_rank_ids)} send ranks need as many inputs, but got "
                         f"{len(inputs)}.")
    _members("NeighborExchange", self.group, *self.send_rank_ids, *self.recv_rank_ids)
    dtypes = [self.recv_type] * len(self.recv_rank_ids)
    return _point_to_point("NeighborExchange", inputs, self.send_rank_ids, self.recv_shapes, dtypes,
                           self.recv_rank_ids, self.group)


NeighborExchange = _primitive("NeighborExchange", _neighbor_exchange,
                              attrs=[("send_rank_ids", ()), ("recv_rank_ids", ()), ("recv_shapes", ()),
                                     ("send_shapes", ()), ("recv_type", mstype.float32), ("group", WORLD)],
                              doc="NeighborExchange(send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type, "
                                  "group)(input_x): send input_x[i] to send_rank_ids[i]; returns the tensors received "
                                  "from recv_rank_ids.")


def _batch_isend_irecv(self, input_x):
    sends = list(input_x) if isinstance(input_x, (tuple, list)) else [input_x]
    kinds = list(self.op_types)
    if any(k not in ("isend", "irecv") for k in kinds) or len(kinds) != len(self.remote_ranks):
        raise ValueError(f"For 'BatchISendIRecv', 'op_types' must be 'isend'/'irecv', one per remote rank, but got "
                         f"{kinds} for ranks {list(self.remote_ranks)}.")
    send_ranks = [r for k, r in zip(kinds, self.remote_ranks) if k == "isend"]
    recv_ranks = [r for k, r in zip(kinds, self.remote_ranks) if k == "irecv"]
    if len(sends) != len(send_ranks):
        raise ValueError(f"For 'BatchISendIRecv', {len(send_ranks)} isend ops need as many inputs, but got "
                         f"{len(sends)}.")
    _members("BatchISendIRecv", self.group, *self.remote_ranks)
    return _point_to_point("BatchISendIRecv", sends, send_ranks, self.receive_shapes, self.receive_dtypes,
                           recv_ranks, self.group)


BatchISendIRecv = _primitive("BatchISendIRecv", _batch_isend_irecv,
                             attrs=[("op_types", ()), ("remote_ranks", ()), ("receive_shapes", ()),
                                    ("receive_dtypes", ()), ("group", WORLD)],
                             doc="BatchISendIRecv(op_types, remote_ranks, receive_shapes, receive_dtypes, group)"
                                 "(input_x): the sends and receives of one batch; returns the received tensors.")


def _barrier(self):
    if world.group_size(self.group) > 1:
        world.all_reduce(np.zeros(1, np.float32), "sum", self.group)  # returns once every member arrived


Barrier = _primitive("Barrier", _barrier, attrs=[("group", WORLD)],
                     doc="Barrier(group)(): wait until every member of the group reaches it.")

# ---- matmuls fused with a collective (MindSpore's Ascend fusions; here the two steps) --------------------------------
def _mm(a, b, trans_a, trans_b, bias):
    out = F.matmul(F.swapaxes(a, -1, -2) if trans_a else a, F.swapaxes(b, -1, -2) if trans_b else b)
    return out + bias if bias is not None else out


def _check_world(op, group, world_size):
    if world_size != world.group_size(group):
        raise ValueError(f"For '{op}', 'world_size' {world_size} must equal the size of group '{group}' "
                         f"({world.group_size(group)}).")


def all_gather_matmul(input, x2, group, world_size, bias=None, gather_index=0, gather_output=True, comm_turn=0,
                      trans_input=False, trans_x2=False):
    """(AllGather(input along axis 0) @ x2 (+ bias), the gathered input when gather_output else an empty
    tensor); gather_index=1 gathers x2 instead."""
    _check_world("all_gather_matmul", group, world_size)
    gather = prim("AllGather", group=group)
    if gather_index == 0:
        gathered = gather(input)
        out = _mm(gathered, x2, trans_input, trans_x2, bias)
    elif gather_index == 1:
        gathered = gather(x2)
        out = _mm(input, gathered, trans_input, trans_x2, bias)
    else:
        raise ValueError(f"For 'all_gather_matmul', 'gather_index' must be 0 or 1, but got {gather_index!r}.")
    return out, (gathered if gather_output else F.zeros((0,), input.dtype))


def matmul_reduce_scatter(input, x2, group, world_size, reduce_op=ReduceOp.SUM, bias=None, comm_turn=0,
                          trans_input=False, trans_x2=False):
    """ReduceScatter(input @ x2 along axis 0) (+ bias, added once after the reduction)."""
    _check_world("matmul_reduce_scatter", group, world_size)
    _check_op("matmul_reduce_scatter", reduce_op)
    out = prim("ReduceScatter", op=reduce_op, group=group)(_mm(input, x2, trans_input, trans_x2, None))
    return out + bias if bias is not None else out


__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive) + [
    "all_gather_matmul", "matmul_reduce_scatter"]
