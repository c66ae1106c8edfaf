"""The communication world the collective primitives run in: which groups exist, this process's rank in each,
and the torch.distributed calls that move the data.

It lives beside the primitive definitions (the `ops` layer) because the collectives' `infer` needs group sizes
and their kernels need process groups; `openspore.communication` (the public API, above `ops`) fills it in
`init()` and `create_group()`.

Before `init()` the world is this one process: every group has one member (rank 0), so a collective over it is
the identity and a Send to rank 0 is a loopback. That is the stand-alone case MindSpore scripts hit when they
build a reducer without launching workers, and it lets the generated op tests run each primitive alone.

torch is imported lazily: kernels receive the backend's array module, and the numpy backend moves its arrays
through torch CPU tensors (`torch.from_numpy`) so that Gloo carries them.
"""
import time

WORLD_ALIASES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")

_state = {"inited": False, "backend": None, "world": "mccl_world_group", "rank": 0, "size": 1,
          "local_rank": 0, "local_size": 1}
_groups = {}      # name -> {"ranks": [world ranks], "pg": torch ProcessGroup or None}
_loopback = {}    # (group, sr_tag) -> last array sent to itself in a group of one
_stats = {"calls": 0, "seconds": 0.0}  # time spent inside torch.distributed calls (for profiling/bench)


def stats(reset=False):
    """{'calls', 'seconds'} spent in collective and point-to-point transfers since the last reset."""
    out = dict(_stats)
    if reset:
        _stats.update(calls=0, seconds=0.0)
    return out


class _timed:
    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        _stats["calls"] += 1
        _stats["seconds"] += time.perf_counter() - self.start


def is_inited():
    return _state["inited"]


ON_WORLD = []  # callbacks(size) after a job is formed (openspore.parallel installs its layout propagation)


def set_world(backend, world_name, rank, size, local_rank, local_size):
    _state.update(inited=True, backend=backend, world=world_name, rank=rank, size=size,
                  local_rank=local_rank, local_size=local_size)
    _groups.clear()
    _loopback.clear()
    for callback in ON_WORLD:
        callback(size)


def clear_world():
    _state.update(inited=False, backend=None, world="mccl_world_group", rank=0, size=1, local_rank=0, local_size=1)
    _groups.clear()
    _loopback.clear()


def state():
    return dict(_state)


def is_world(group):
    return group == _state["world"] or group in WORLD_ALIASES


def add_group(name, ranks, process_group):
    _groups[name] = {"ranks": list(ranks), "pg": process_group}


def remove_group(name):
    return _groups.pop(name, None)


def group_names():
    return list(_groups)


def group_ranks(group):
    """World ranks of `group`, in group-rank order."""
    if not isinstance(group, str):
        raise TypeError(f"The communication group must be a str, but got {type(group).__name__}.")
    if is_world(group):
        return list(range(_state["size"]))
    if group not in _groups:
        raise ValueError(f"The communication group '{group}' does not exist: create it with "
                         f"communication.create_group('{group}', rank_ids) first (known groups: "
                         f"{[_state['world']] + list(_groups)}).")
    return list(_groups[group]["ranks"])


def group_size(group):
    return len(group_ranks(group))


def group_rank(group):
    ranks = group_ranks(group)
    if _state["rank"] not in ranks:
        raise ValueError(f"This process (world rank {_state['rank']}) is not a member of the communication group "
                         f"'{group}' (its ranks: {ranks}).")
    return ranks.index(_state["rank"])


def _process_group(group):
    if is_world(group):
        return None  # torch.distributed's default group
    return _groups[group]["pg"]


# ---- data movement ---------------------------------------------------------------------------------
# Each helper takes arrays of the backend (numpy arrays or torch tensors) and returns arrays of the same kind.
def _to_wire(x):
    """(torch CPU/CUDA tensor that the process group can carry, converter back to the caller's kind)."""
    import torch
    if isinstance(x, torch.Tensor):
        device = x.device
        wire = x.detach().contiguous().clone()
        if _state["backend"] == "gloo" and device.type != "cpu":
            wire = wire.cpu()
        return wire, (lambda t: t.to(device))
    import numpy as np
    arr = np.ascontiguousarray(x)
    if arr.dtype == np.bool_:  # Gloo reduces no bools: carry them as bytes
        return torch.from_numpy(arr.astype(np.uint8)), (lambda t: t.numpy().astype(np.bool_))
    return torch.from_numpy(arr.copy()), (lambda t: t.numpy())


def _reduce_op(op):
    import torch.distributed as dist
    return {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
            "prod": dist.ReduceOp.PRODUCT}[op]


def all_reduce(x, op, group):
    if group_size(group) == 1:
        return x
    import torch.distributed as dist
    wire, back = _to_wire(x)
    with _timed():
        dist.all_reduce(wire, op=_reduce_op(op), group=_process_group(group))
    return back(wire)


def all_reduce_start(x, op, group):
    """Launch an AllReduce of x without waiting; returns wait() -> the reduced array. Only the time spent
    in wait() is counted in stats(): the part of the transfer that did not overlap other work."""
    if group_size(group) == 1:
        return lambda: x
    import torch.distributed as dist
    wire, back = _to_wire(x)
    work = dist.all_reduce(wire, op=_reduce_op(op), group=_process_group(group), async_op=True)

    def wait():
        with _timed():
            work.wait()
        return back(wire)
    return wait


def all_gather(x, group):
    """The members' arrays joined along axis 0, in group-rank order."""
    if group_size(group) == 1:
        return x
    import torch
    import torch.distributed as dist
    wire, back = _to_wire(x)
    parts = [torch.empty_like(wire) for _ in range(group_size(group))]
    with _timed():
        dist.all_gather(parts, wire, group=_process_group(group))
    return back(torch.cat(parts, dim=0))


def reduce_scatter(x, op, group):
    """Reduce over the members, then keep this member's block of axis 0 (blocks in group-rank order)."""
    n = group_size(group)
    if n == 1:
        return x
    # Gloo has no reduce_scatter: an all-reduce then a slice gives the same values.
    reduced = all_reduce(x, op, group)
    block = reduced.shape[0] // n
    me = group_rank(group)
    return reduced[me * block:(me + 1) * block]


def broadcast(x, root_rank, group):
    """`root_rank` is a world rank, as in MindSpore's Broadcast."""
    if group_size(group) == 1:
        return x
    import torch.distributed as dist
    wire, back = _to_wire(x)
    with _timed():
        dist.broadcast(wire, src=root_rank, group=_process_group(group))
    return back(wire)


def all_to_all(x, split_count, split_dim, concat_dim, group):
    """Block k of `x` along `split_dim` goes to member k; the received blocks are joined along `concat_dim`."""
    n = group_size(group)
    if n == 1:
        return x
    import torch
    import torch.distributed as dist
    wire, back = _to_wire(x)
    blocks = [b.contiguous() for b in torch.chunk(wire, split_count, dim=split_dim)]
    received = [torch.empty_like(b) for b in blocks]
    pg = _process_group(group)
    ranks = group_ranks(group)
    me = group_rank(group)
    # Gloo lacks all_to_all; pairwise exchange in a fixed order (lower rank sends first) cannot deadlock.
    for peer in range(n):
        if peer == me:
            received[me] = blocks[me].clone()
            continue
        if me < peer:
            with _timed():
                dist.send(blocks[peer], dst=ranks[peer], group=pg)
            with _timed():
                dist.recv(received[peer], src=ranks[peer], group=pg)
        else:
            with _timed():
                dist.recv(received[peer], src=ranks[peer], group=pg)
            with _timed():
                dist.send(blocks[peer], dst=ranks[peer], group=pg)
    return back(torch.cat(received, dim=concat_dim))


def send(x, dest_rank, sr_tag, group):
    """`dest_rank` is the peer's rank in `group`."""
    if group_size(group) == 1:
        # stored as a host numpy copy, so either backend can read it back
        _loopback[(group, sr_tag)] = x.detach().cpu().numpy().copy() if hasattr(x, "detach") else x.copy()
        return
    import torch.distributed as dist
    wire, _ = _to_wire(x)
    with _timed():
        dist.send(wire, dst=group_ranks(group)[dest_rank], group=_process_group(group), tag=sr_tag)


def receive(empty, src_rank, sr_tag, group):
    """Fills an array shaped like `empty` with what `src_rank` (a rank in `group`) sent with `sr_tag`."""
    if group_size(group) == 1:
        if (group, sr_tag) not in _loopback:
            raise RuntimeError(f"Receive(sr_tag={sr_tag}, src_rank={src_rank}) in a group of one process: nothing "
                               f"was sent to this process with that tag (a one-process world receives only what "
                               f"it sent to itself; launch workers with msrun for a real peer).")
        return _loopback[(group, sr_tag)]
    import torch.distributed as dist
    wire, back = _to_wire(empty)
    with _timed():
        dist.recv(wire, src=group_ranks(group)[src_rank], group=_process_group(group), tag=sr_tag)
    return back(wire)


# ---- pipeline transfers: non-blocking sends of self-describing arrays ---------------------------------------
# A pipeline stage sends activations forward and gradients back while its peer may itself be sending (1F1B), so
# sends do not wait for the receiver (isend); each message carries a small header (dtype, rank, shape) so the
# receiver needs no shape declared up front.
_HEADER = 10
_DTYPES = ("float32", "float64", "float16", "int32", "int64")


def isend_array(array, dst_world_rank, tag):
    """Starts sending a numpy array; returns the works to wait on (the buffers are kept alive by them)."""
    import numpy as np
    import torch
    import torch.distributed as dist
    if array.ndim > _HEADER - 2 or str(array.dtype) not in _DTYPES:
        raise ValueError(f"Pipeline transfers carry arrays of up to {_HEADER - 2} dimensions of {_DTYPES}, but got "
                         f"{array.dtype} of shape {list(array.shape)}.")
    header = np.zeros(_HEADER, np.int64)
    header[0], header[1] = _DTYPES.index(str(array.dtype)), array.ndim
    header[2:2 + array.ndim] = array.shape
    head, body = torch.from_numpy(header), torch.from_numpy(np.ascontiguousarray(array).copy())
    with _timed():
        works = [dist.isend(head, dst=dst_world_rank, tag=2 * tag), dist.isend(body, dst=dst_world_rank, tag=2 * tag + 1)]
    return [(w, head, body) for w in works]


def recv_array(src_world_rank, tag):
    import numpy as np
    import torch
    import torch.distributed as dist
    head = torch.zeros(_HEADER, dtype=torch.int64)
    with _timed():
        dist.recv(head, src=src_world_rank, tag=2 * tag)
    header = head.numpy()
    shape = tuple(int(d) for d in header[2:2 + int(header[1])])
    body = torch.from_numpy(np.empty(shape, _DTYPES[int(header[0])]))
    with _timed():
        dist.recv(body, src=src_world_rank, tag=2 * tag + 1)
    return body.numpy()
