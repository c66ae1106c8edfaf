"""`mindspore.mint.distributed` / `mindspore.ops.communication`: torch.distributed-style collectives that write
their results into the tensors they are given (`all_reduce(t)` changes `t`) and return a `CommHandle` when
`async_op=True` (else None).

They run on the communication layer `communication.init()` starts (Gloo on CPU, NCCL on GPU, through the
process groups of `ops/defs/_comm_world.py`); `src`/`dst`/`peer` are world ranks and `group` a group name (None:
the world). A world of one process needs no torch.distributed: collectives are copies, a send to oneself is kept
for the matching receive. Gloo lacks reduce-scatter and all-to-all, which run as all-reduce + slice and pairwise
exchanges (the primitives' way).

>>> import numpy as np, openspore as ms
>>> from openspore.communication import distributed as dist
>>> dist.init_process_group()                 # no launcher: a job of one process
>>> t = ms.Tensor(np.array([1.0, 2.0], np.float32))
>>> dist.all_reduce(t) is None, t.asnumpy().tolist(), dist.get_world_size()
(True, [1.0, 2.0], 1)
>>> dist.destroy_process_group()
"""
import pickle

import numpy as np

from ..core.tensor import Tensor
from ..ops.defs import _comm_world as world
from ..ops.defs.comm import ReduceOp
from . import management

__all__ = ["P2POp", "CommHandle", "TCPStore", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "all_to_all_v_c", "barrier", "batch_isend_irecv",
           "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
           "init_process_group", "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
           "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven",
           "scatter", "scatter_object_list", "send", "send_object_list"]

_OPS = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min", ReduceOp.PROD: "prod"}


# ---- process group -------------------------------------------------------------------------------------------------
def is_available():
    """True when torch.distributed (the engine under the collectives) is importable."""
    try:
        import torch.distributed as dist
    except ImportError:
        return False
    return dist.is_available()


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       pg_options=None, device_id=None):
    """Join the job the launcher describes (`communication.init`). "hccl" (MindSpore's default) means this
    platform's backend: Gloo on CPU, NCCL when device_target is GPU; "mccl"/"gloo"/"nccl" pick one."""
    if backend not in (None, "hccl", "mccl", "gloo", "nccl"):
        raise ValueError(f"For 'init_process_group', 'backend' must be 'hccl', 'mccl', 'gloo' or 'nccl', but got "
                         f"{backend!r}.")
    management.init(None if backend in (None, "hccl") else backend)
    if world_size not in (-1, None) and world_size != world.state()["size"]:
        raise ValueError(f"For 'init_process_group', world_size={world_size} does not match the launched job's "
                         f"{world.state()['size']} processes.")
    if rank not in (-1, None) and rank != world.state()["rank"]:
        raise ValueError(f"For 'init_process_group', rank={rank} does not match this process's rank "
                         f"{world.state()['rank']}.")


def destroy_process_group(group=None):
    """Leave the job (group None) or destroy one group made by `new_group`."""
    if group is None or world.is_world(group):
        management.release()
    else:
        management.destroy_group(group)


def is_initialized():
    return management.GlobalComm.INITED


def _group(api, group):
    if not management.GlobalComm.INITED:
        raise RuntimeError(f"For '{api}', the process group is not initialized: call init_process_group() first "
                           f"(under msrun for more than one process).")
    if group is None:
        return world.state()["world"]
    if not isinstance(group, str):
        raise TypeError(f"For '{api}', 'group' must be a str or None, but got {type(group).__name__}.")
    world.group_ranks(group)  # a clear error for an unknown group
    return group


def get_backend(group=None):
    _group("get_backend", group)
    return management.GlobalComm.BACKEND


def get_rank(group=None):
    """This process's rank in `group` (−1 when it is not a member)."""
    group = _group("get_rank", group)
    ranks = world.group_ranks(group)
    return ranks.index(world.state()["rank"]) if world.state()["rank"] in ranks else -1


def get_world_size(group=None):
    return world.group_size(_group("get_world_size", group))


def get_global_rank(group, group_rank):
    return management.get_world_rank_from_group_rank(_group("get_global_rank", group), group_rank)


def get_group_rank(group, global_rank):
    return management.get_group_rank_from_world_rank(global_rank, _group("get_group_rank", group))


def get_process_group_ranks(group=None):
    return world.group_ranks(_group("get_process_group_ranks", group))


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of the given world ranks (None: all); returns its name ("" in a process that is not a member)."""
    _group("new_group", None)
    ranks = sorted(range(world.state()["size"]) if ranks is None else ranks)
    name = group_desc or "group_" + "_".join(map(str, ranks))
    if world.state()["rank"] not in ranks:
        return ""
    if name not in world.group_names():
        management.create_group(name, list(ranks))
    return name


# ---- moving data ---------------------------------------------------------------------------------------------------
class CommHandle:
    """What an `async_op=True` call returns: `wait()` blocks until the transfer is done and the results are written."""

    def __init__(self, works=(), finish=None):
        self._works, self._finish, self._done = list(works), finish, False

    def wait(self):
        if not self._done:
            for w in self._works:
                w.wait()
            if self._finish is not None:
                self._finish()
            self._done = True
        return True

    def is_completed(self):
        return self._done


def _check_tensor(api, name, t):
    if not isinstance(t, Tensor):
        raise TypeError(f"For '{api}', '{name}' must be a Tensor, but got {type(t).__name__}.")


def _host(t):
    return np.ascontiguousarray(t.asnumpy())


def _write(t, array):
    array = np.asarray(array)
    if tuple(array.shape) != tuple(t.shape):
        raise ValueError(f"The output tensor has shape {list(t.shape)}, but the result has shape {list(array.shape)}.")
    t.copy_(Tensor(array.astype(t.dtype.np_dtype)))


def _done(async_op, finish=None):
    """Run `finish` now; hand back a completed handle when the caller asked for one."""
    if finish is not None:
        finish()
    return CommHandle() if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `tensor` over the group; every member's `tensor` receives the result."""
    _check_tensor("all_reduce", "tensor", tensor)
    group = _group("all_reduce", group)
    if op not in _OPS:
        raise ValueError(f"For 'all_reduce', 'op' must be one of {sorted(_OPS)}, but got {op!r}.")
    return _done(async_op, lambda: _write(tensor, world.all_reduce(_host(tensor), _OPS[op], group)))


def broadcast(tensor, src, group=None, async_op=False):
    """Every member's `tensor` receives world rank `src`'s."""
    _check_tensor("broadcast", "tensor", tensor)
    group = _group("broadcast", group)
    return _done(async_op, lambda: _write(tensor, world.broadcast(_host(tensor), src, group)))


def barrier(group=None, async_op=False, device_ids=None):
    group = _group("barrier", group)
    if world.group_size(group) > 1:
        world.all_reduce(np.zeros(1, np.float32), "sum", group)  # returns only once every member has joined
    return _done(async_op)


def _gathered(api, tensor, group):
    """[each member's array] in group-rank order; shapes may differ between members (same rank)."""
    return _gather_arrays(_host(tensor), group)


def _gather_arrays(array, group):
    n = world.group_size(group)
    if n == 1:
        return [array.copy()]
    shapes = world.all_gather(np.array(array.shape, np.int64).reshape(1, -1), group)  # (members, ndim)
    sizes = [int(np.prod(shape)) for shape in shapes]
    flat = np.zeros(max(max(sizes), 1), array.dtype)
    flat[:array.size] = array.reshape(-1)
    parts = world.all_gather(flat.reshape(1, -1), group)  # padded to the largest, then cut back
    return [parts[r, :sizes[r]].reshape(tuple(int(d) for d in shapes[r])) for r in range(n)]


def _exchange(blocks, group):
    """blocks[r] goes to member r; returns what every member sent to this one, in rank order."""
    me = world.group_rank(group)
    received = None
    for r, block in enumerate(blocks):  # one gather per destination: blocks of any shape, on any backend
        parts = _gather_arrays(block, group)
        if r == me:
            received = parts
    return received


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] receives member r's `tensor`."""
    _check_tensor("all_gather", "tensor", tensor)
    group = _group("all_gather", group)
    if len(tensor_list) != world.group_size(group):
        raise ValueError(f"For 'all_gather', 'tensor_list' must hold {world.group_size(group)} tensors (one per "
                         f"member), but got {len(tensor_list)}.")

    def finish():
        for out, part in zip(tensor_list, _gathered("all_gather", tensor, group)):
            _write(out, part)
    return _done(async_op, finish)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """`output_tensor` receives the members' inputs joined along axis 0."""
    return all_gather_into_tensor_uneven(output_tensor, input_tensor, None, group, async_op)


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None, async_op=False):
    """Like all_gather_into_tensor, members' inputs may differ in their first dimension."""
    _check_tensor("all_gather_into_tensor", "input", input)
    _check_tensor("all_gather_into_tensor", "output", output)
    group = _group("all_gather_into_tensor", group)

    def finish():
        parts = _gathered("all_gather_into_tensor", input, group)
        if output_split_sizes is not None and [p.shape[0] for p in parts] != list(output_split_sizes):
            raise ValueError(f"For 'all_gather_into_tensor_uneven', 'output_split_sizes' {list(output_split_sizes)} "
                             f"does not match the members' first dimensions {[p.shape[0] for p in parts]}.")
        _write(output, np.concatenate(parts))
    return _done(async_op, finish)


def _reduced_blocks(api, input_array, op, group, split_sizes=None):
    n = world.group_size(group)
    if op not in _OPS:
        raise ValueError(f"For '{api}', 'op' must be one of {sorted(_OPS)}, but got {op!r}.")
    reduced = world.all_reduce(input_array, _OPS[op], group)
    sizes = list(split_sizes) if split_sizes else [reduced.shape[0] // n] * n
    if len(sizes) != n or sum(sizes) != reduced.shape[0]:
        raise ValueError(f"For '{api}', the input's first dimension {reduced.shape[0]} cannot be split into {n} "
                         f"blocks of sizes {sizes}.")
    me = world.group_rank(group)
    start = sum(sizes[:me])
    return reduced[start:start + sizes[me]]


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `input` over the group; `output` receives this member's block of axis 0."""
    return reduce_scatter_tensor_uneven(output, input, None, op, group, async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op=ReduceOp.SUM, group=None,
                                 async_op=False):
    _check_tensor("reduce_scatter_tensor", "input", input)
    group = _group("reduce_scatter_tensor", group)
    return _done(async_op, lambda: _write(output, _reduced_blocks("reduce_scatter_tensor", _host(input), op, group,
                                                                  input_split_sizes)))


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """`output` receives the reduction over the members of their input_list[my rank]."""
    group = _group("reduce_scatter", group)
    if len(input_list) != world.group_size(group):
        raise ValueError(f"For 'reduce_scatter', 'input_list' must hold {world.group_size(group)} tensors, but got "
                         f"{len(input_list)}.")
    stacked = np.stack([_host(t) for t in input_list])
    return _done(async_op, lambda: _write(output, _reduced_blocks("reduce_scatter", stacked, op, group)[0]))


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """World rank `dst`'s `tensor` receives the reduction; the others' are left as they were."""
    _check_tensor("reduce", "tensor", tensor)
    group = _group("reduce", group)
    if op not in _OPS:
        raise ValueError(f"For 'reduce', 'op' must be one of {sorted(_OPS)}, but got {op!r}.")
    result = world.all_reduce(_host(tensor), _OPS[op], group)
    return _done(async_op, (lambda: _write(tensor, result)) if world.state()["rank"] == dst else None)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """World rank `dst`'s gather_list[r] receives member r's `tensor`."""
    _check_tensor("gather", "tensor", tensor)
    group = _group("gather", group)
    parts = _gathered("gather", tensor, group)
    if world.state()["rank"] != dst:
        return _done(async_op)
    if gather_list is None or len(gather_list) != len(parts):
        raise ValueError(f"For 'gather', the destination's 'gather_list' must hold {len(parts)} tensors.")
    return _done(async_op, lambda: [_write(o, p) for o, p in zip(gather_list, parts)])


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Member r's `tensor` receives world rank `src`'s scatter_list[r]."""
    _check_tensor("scatter", "tensor", tensor)
    group = _group("scatter", group)
    n = world.group_size(group)
    if world.state()["rank"] == src:
        if scatter_list is None or len(scatter_list) != n:
            raise ValueError(f"For 'scatter', the source's 'scatter_list' must hold {n} tensors.")
        stacked = np.stack([_host(t) for t in scatter_list])
    else:
        stacked = np.zeros((n,) + tuple(tensor.shape), tensor.dtype.np_dtype)
    stacked = world.broadcast(stacked, src, group)
    return _done(async_op, lambda: _write(tensor, stacked[world.group_rank(group)]))


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[r] receives member r's input_tensor_list[my rank]."""
    group = _group("all_to_all", group)
    n = world.group_size(group)
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"For 'all_to_all', both lists must hold {n} tensors (one per member).")
    received = _exchange([_host(t) for t in input_tensor_list], group)
    return _done(async_op, lambda: [_write(o, p) for o, p in zip(output_tensor_list, received)])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """Split `input` along axis 0 (input_split_sizes, or evenly), send block r to member r; `output` receives the
    blocks from every member joined in rank order."""
    _check_tensor("all_to_all_single", "input", input)
    group = _group("all_to_all_single", group)
    n = world.group_size(group)
    array = _host(input)
    sizes = list(input_split_sizes) if input_split_sizes else [array.shape[0] // n] * n
    if len(sizes) != n or sum(sizes) != array.shape[0]:
        raise ValueError(f"For 'all_to_all_single', the input's first dimension {array.shape[0]} cannot be split "
                         f"into {n} blocks of sizes {sizes}.")
    bounds = np.cumsum([0] + sizes)
    received = _exchange([array[bounds[r]:bounds[r + 1]] for r in range(n)], group)
    if output_split_sizes is not None and [o.shape[0] for o in received] != list(output_split_sizes):
        raise ValueError(f"For 'all_to_all_single', 'output_split_sizes' {list(output_split_sizes)} does not match "
                         f"the received blocks {[o.shape[0] for o in received]}.")
    return _done(async_op, lambda: _write(output, np.concatenate(received)))


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):
    """all-to-all of flattened blocks sized by send_count_matrix (world_size × world_size, row i: what rank i
    sends to each rank); `output` receives the blocks sent to this rank, in rank order."""
    _check_tensor("all_to_all_v_c", "input", input)
    group = _group("all_to_all_v_c", group)
    n = world.group_size(group)
    counts = np.asarray(send_count_matrix, np.int64).reshape(-1)
    if counts.size != n * n or (counts < 0).any():
        raise ValueError(f"For 'all_to_all_v_c', 'send_count_matrix' must hold {n}×{n} non-negative counts, but got "
                         f"{counts.size} values.")
    counts = counts.reshape(n, n)
    me = world.group_rank(group)
    flat = _host(input).reshape(-1)
    if counts[me].sum() != flat.size:
        raise ValueError(f"For 'all_to_all_v_c', row {me} of 'send_count_matrix' sends {int(counts[me].sum())} "
                         f"elements but the input has {flat.size}.")
    bounds = np.cumsum([0] + counts[me].tolist())
    received = _exchange([flat[bounds[r]:bounds[r + 1]] for r in range(n)], group)
    return _done(async_op, lambda: _write(output, np.concatenate(received).reshape(tuple(output.shape))))


# ---- point to point ------------------------------------------------------------------------------------------------
def _peer(api, group, peer, name):
    ranks = world.group_ranks(group)
    if peer not in ranks:
        raise ValueError(f"For '{api}', '{name}' must be a world rank in the group {ranks}, but got {peer!r}.")
    return ranks.index(peer)


def send(tensor, dst=0, group=None, tag=0):
    """Send `tensor` to world rank `dst`; pairs with `recv` there."""
    _check_tensor("send", "tensor", tensor)
    group = _group("send", group)
    world.send(_host(tensor), _peer("send", group, dst, "dst"), tag, group)


def recv(tensor, src=0, group=None, tag=0):
    """Fill `tensor` with what world rank `src` sent; returns `src`."""
    _check_tensor("recv", "tensor", tensor)
    group = _group("recv", group)
    _write(tensor, world.receive(np.empty(tensor.shape, tensor.dtype.np_dtype), _peer("recv", group, src, "src"),
                                 tag, group))
    return src


def isend(tensor, dst=0, group=None, tag=0):
    """Start sending; the handle's wait() returns once the data left."""
    _check_tensor("isend", "tensor", tensor)
    group = _group("isend", group)
    if world.group_size(group) == 1:
        send(tensor, dst, group, tag)
        return CommHandle()
    import torch
    import torch.distributed as dist
    wire = torch.from_numpy(_host(tensor).copy())
    return CommHandle([dist.isend(wire, dst=dst, group=world._process_group(group), tag=tag)])


def irecv(tensor, src=0, group=None, tag=0):
    """Start receiving into `tensor`; it holds the data once the handle's wait() returned."""
    _check_tensor("irecv", "tensor", tensor)
    group = _group("irecv", group)
    if world.group_size(group) == 1:
        return CommHandle(finish=lambda: recv(tensor, src, group, tag))
    import torch
    import torch.distributed as dist
    wire = torch.from_numpy(np.empty(tensor.shape, tensor.dtype.np_dtype))
    work = dist.irecv(wire, src=src, group=world._process_group(group), tag=tag)
    return CommHandle([work], lambda: _write(tensor, wire.numpy()))


class P2POp:
    """One send or receive for batch_isend_irecv: P2POp(isend or irecv (or "isend"/"irecv"), tensor, peer,
    group=None, tag=0)."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        names = {isend: "isend", irecv: "irecv", "isend": "isend", "irecv": "irecv"}
        if op not in names:
            raise ValueError(f"For 'P2POp', 'op' must be isend or irecv, but got {op!r}.")
        _check_tensor("P2POp", "tensor", tensor)
        self.op, self.tensor, self.peer, self.group, self.tag = names[op], tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Start every P2POp of the list; returns their handles."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("For 'batch_isend_irecv', 'p2p_op_list' must be a non-empty list of P2POp.")
    return [(isend if p.op == "isend" else irecv)(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


# ---- Python objects (pickled into uint8 tensors) -------------------------------------------------------------------
def _pickled(obj):
    return Tensor(np.frombuffer(pickle.dumps(obj), np.uint8).copy())


def _unpickled(array):
    return pickle.loads(np.asarray(array, np.uint8).tobytes())


def all_gather_object(object_list, obj, group=None):
    """object_list[r] receives member r's picklable `obj`."""
    group = _group("all_gather_object", group)
    parts = _gathered("all_gather_object", _pickled(obj), group)
    object_list[:] = [_unpickled(p) for p in parts]


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    group = _group("gather_object", group)
    parts = _gathered("gather_object", _pickled(obj), group)
    if world.state()["rank"] == dst:
        if object_gather_list is None:
            raise ValueError("For 'gather_object', the destination must pass 'object_gather_list'.")
        object_gather_list[:] = [_unpickled(p) for p in parts]


def broadcast_object_list(object_list, src=0, group=None):
    """Every member's object_list receives world rank `src`'s objects."""
    group = _group("broadcast_object_list", group)
    parts = _gathered("broadcast_object_list", _pickled(list(object_list)), group)
    object_list[:] = _unpickled(parts[world.group_ranks(group).index(src)])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0, group=None):
    """scatter_object_output_list[0] receives world rank `src`'s scatter_object_input_list[my rank]."""
    group = _group("scatter_object_list", group)
    mine = list(scatter_object_input_list) if world.state()["rank"] == src else None
    parts = _gathered("scatter_object_list", _pickled(mine), group)
    chosen = _unpickled(parts[world.group_ranks(group).index(src)])
    if chosen is None or len(chosen) != world.group_size(group):
        raise ValueError(f"For 'scatter_object_list', the source must pass {world.group_size(group)} objects.")
    scatter_object_output_list[0] = chosen[world.group_rank(group)]


def send_object_list(object_list, dst=0, group=None):
    group = _group("send_object_list", group)
    payload = _host(_pickled(list(object_list)))
    send(Tensor(np.array([payload.size], np.int64)), dst, group, tag=0)
    send(Tensor(payload), dst, group, tag=1)


def recv_object_list(object_list, src=0, group=None):
    """Fill object_list with the objects world rank `src` sent; returns `src`."""
    group = _group("recv_object_list", group)
    size = Tensor(np.zeros(1, np.int64))
    recv(size, src, group, tag=0)
    payload = Tensor(np.zeros(int(size.asnumpy()[0]), np.uint8))
    recv(payload, src, group, tag=1)
    object_list[:] = _unpickled(payload.asnumpy())
    return src


# ---- key-value store -----------------------------------------------------------------------------------------------
class TCPStore:
    """TCPStore(host_name=None, port=None, world_size=None, is_master=False, timeout=300, wait_for_workers=True,
    multi_tenant=False, master_listen_fd=None, use_libuv=True): a key-value store served over TCP by the master
    process (torch.distributed's store): set/get/add/delete_key/wait."""

    def __init__(self, host_name=None, port=None, world_size=None, is_master=False, timeout=300,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        import datetime
        import os
        from torch.distributed import TCPStore as _Store
        host = host_name or os.environ.get("MASTER_ADDR", "127.0.0.1")
        port = int(port if port is not None else os.environ.get("MASTER_PORT", 29500))
        self._store = _Store(host, port, world_size, is_master, datetime.timedelta(seconds=timeout),
                             wait_for_workers=wait_for_workers, multi_tenant=multi_tenant)

    @property
    def port(self):
        return self._store.port

    def set(self, key, value):
        self._store.set(key, value if isinstance(value, (bytes, str)) else str(value))

    def get(self, key):
        return self._store.get(key)

    def add(self, key, amount):
        return self._store.add(key, amount)

    def delete_key(self, key):
        return self._store.delete_key(key)

    def wait(self, keys, timeout=None):
        import datetime
        if timeout is None:
            self._store.wait(list(keys))
        else:
            self._store.wait(list(keys), datetime.timedelta(seconds=timeout))
