"""Primitives: collective communication (AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll) and
point-to-point Send/Receive, over torch.distributed (Gloo on CPU, NCCL on CUDA).

Every member of a group must call the same collectives in the same order; in Graph mode that holds because
each rank compiles the same graph. The group is an attribute (`group='hccl_world_group'` by default; every
world-group name means the world). Before `communication.init()` the world is this process alone, where each
collective is the identity over a group of one (see `_comm_world`).

Backward rules follow from each collective's linear algebra: the cotangent of a sum over ranks is the
sum of the cotangents (AllReduce again); AllGather and ReduceScatter are each other's transpose; AlltoAll's
transpose swaps its split and concat axes; Broadcast sends the summed cotangent back to its root.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> ops.AllReduce()(ms.Tensor(np.array([1.0, 2.0], np.float32))).asnumpy().tolist()  # a world of one
[1.0, 2.0]
"""
import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from . import _comm_world as world
from ._export import not_exportable
from ._util import check_tensor, normalize_axis, prim, rand_float, rand_positive, same_as

WORLD = "hccl_world_group"


class ReduceOp:
    """Reduction names for the collectives (MindSpore's constants; `ops.ReduceOp`, `comm_func.ReduceOp`)."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
# Export: a collective needs the live process group of a training job; an exported (inference) model runs in
# one process, so these are not exportable (marked at the end of this file).
COLLECTIVE = "a collective needs the process group of a running distributed job; export the single-rank model"
_REDUCE_OPS = ("sum", "max", "min", "prod")


def _check_group(op, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{op}', the 'group' must be a str, but got {type(group).__name__}.")


def _check_int(op, name, value, low=None):
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
        bound = f" >= {low}" if low is not None else ""
        raise TypeError(f"For '{op}', the '{name}' must be an int{bound}, but got {value!r}.")


class _Collective(Primitive):
    """A collective over `group`. `exchange` is its one kernel: _comm_world moves numpy arrays and torch tensors
    alike, so the numpy and torch backends both call it."""

    def check_attrs(self):
        _check_group(self.name, self.group)

    def exchange(self, x):
        raise NotImplementedError(f"{self.name} gives its own numpy and torch kernels")

    def numpy(self, np, x):
        return self.exchange(x)

    def torch(self, torch, x):
        return self.exchange(x)


@register
class AllReduce(_Collective):
    """AllReduce(op='sum', group='hccl_world_group')(x): the elementwise sum/max/min/prod of x over the group,
    returned on every member."""
    attr_defaults = {"op": "sum", "group": WORLD}
    input_names = ("input_x",)

    def check_attrs(self):
        super().check_attrs()
        if self.op not in _REDUCE_OPS:
            raise ValueError(f"For 'AllReduce', the 'op' must be one of {list(_REDUCE_OPS)}, but got {self.op!r}.")

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        world.group_size(self.group)  # an unknown group fails here, naming it
        return same_as(x)

    def bprop(self, x, out, dout):
        summed = prim("AllReduce", op="sum", group=self.group)(dout)
        if self.op == "sum":
            return (summed,)
        if self.op == "prod":  # d(prod)/dx_r = prod / x_r
            return (prim("Div")(prim("Mul")(summed, out), x),)
        # max/min: the cotangent goes to the members (and elements) that hold the extreme value
        hit = prim("Cast")(prim("Equal")(x, out), x.dtype)
        return (prim("Mul")(summed, hit),)

    def exchange(self, x):
        return world.all_reduce(x, self.op, self.group)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 4)))
        yield Sample(rand_float(rng, (5,)), attrs={"op": "max"})
        yield Sample(rand_float(rng, (2, 3)), attrs={"op": "min"})
        yield Sample(rand_positive(rng, (2, 2)), attrs={"op": "prod"})
        yield Sample(np.arange(6, dtype=np.int32).reshape(2, 3), name="int")


@register
class AllGather(_Collective):
    """AllGather(group='hccl_world_group')(x): every member's x joined along axis 0 in rank order."""
    attr_defaults = {"group": WORLD}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        if not x.shape:
            raise ValueError("For 'AllGather', the 'input_x' must have at least one dimension, but got a scalar.")
        n = world.group_size(self.group)
        first = x.shape[0] * n if x.shape[0] >= 0 else -1
        return AbstractTensor((first,) + tuple(x.shape[1:]), x.dtype)

    def bprop(self, x, out, dout):
        return (prim("ReduceScatter", op="sum", group=self.group)(dout),)

    def exchange(self, x):
        return world.all_gather(x, self.group)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)))
        yield Sample(rand_float(rng, (4,)))


@register
class ReduceScatter(_Collective):
    """ReduceScatter(op='sum', group='hccl_world_group')(x): reduce x over the group, then member k keeps block
    k of axis 0 (axis 0 must divide by the group size)."""
    attr_defaults = {"op": "sum", "group": WORLD}
    input_names = ("input_x",)

    def check_attrs(self):
        super().check_attrs()
        if self.op != "sum":  # the transpose of AllGather, which is all the bprop and sharding need
            raise ValueError(f"For 'ReduceScatter', the 'op' must be 'sum' in openspore, but got {self.op!r}.")

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        n = world.group_size(self.group)
        if not x.shape or (x.shape[0] >= 0 and x.shape[0] % n):
            raise ValueError(f"For 'ReduceScatter', the first dimension of 'input_x' (shape {list(x.shape)}) must "
                             f"divide by the group size {n}.")
        first = x.shape[0] // n if x.shape[0] >= 0 else -1
        return AbstractTensor((first,) + tuple(x.shape[1:]), x.dtype)

    def bprop(self, x, out, dout):
        return (prim("AllGather", group=self.group)(dout),)

    def exchange(self, x):
        return world.reduce_scatter(x, self.op, self.group)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (4, 3)))


@register
class Broadcast(_Collective):
    """Broadcast(root_rank, group='hccl_world_group')(input_x): every member gets the root's tensors
    (`input_x` is a tuple of tensors; the result is a tuple of the same shapes)."""
    attr_defaults = {"root_rank": 0, "group": WORLD}
    input_names = ("input_x",)

    def check_attrs(self):
        super().check_attrs()
        _check_int(self.name, "root_rank", self.root_rank, 0)

    def infer(self, xs):
        if not isinstance(xs, (tuple, list)) or not xs:
            raise TypeError(f"For 'Broadcast', the 'input_x' must be a non-empty tuple of Tensors, but got "
                            f"{type(xs).__name__}.")
        for i, x in enumerate(xs):
            check_tensor(self.name, f"input_x[{i}]", x)
        if self.root_rank not in world.group_ranks(self.group):
            raise ValueError(f"For 'Broadcast', the 'root_rank' {self.root_rank} is not in the group "
                             f"'{self.group}' (ranks {world.group_ranks(self.group)}).")
        return tuple(same_as(x) for x in xs)

    def bprop(self, xs, out, dout):
        # d out_r / d x_root = I on every member r: the root's gradient is the sum of all cotangents
        summed = [prim("AllReduce", op="sum", group=self.group)(d) for d in dout]
        if world.state()["rank"] != self.root_rank:
            summed = [prim("ZerosLike")(x) for x in xs]
        return (tuple(summed),)

    def exchange(self, xs):
        return tuple(world.broadcast(x, self.root_rank, self.group) for x in xs)

    @classmethod
    def samples(cls, rng):
        yield Sample((rand_float(rng, (2, 3)), rand_float(rng, (4,))))


@register
class AlltoAll(_Collective):
    """AlltoAll(split_count, split_dim, concat_dim, group='hccl_world_group')(x): split x into `split_count`
    blocks along `split_dim`, send block k to member k, join what arrives along `concat_dim`."""
    attr_defaults = {"split_count": 1, "split_dim": 0, "concat_dim": 0, "group": WORLD}
    input_names = ("input_x",)

    def check_attrs(self):
        super().check_attrs()
        _check_int(self.name, "split_count", self.split_count, 1)
        _check_int(self.name, "split_dim", self.split_dim)
        _check_int(self.name, "concat_dim", self.concat_dim)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        n = world.group_size(self.group)
        if self.split_count != n:
            raise ValueError(f"For 'AlltoAll', the 'split_count' ({self.split_count}) must equal the size of group "
                             f"'{self.group}' ({n}).")
        shape = list(x.shape)
        sd = normalize_axis(self.name, self.split_dim, len(shape), "split_dim")
        cd = normalize_axis(self.name, self.concat_dim, len(shape), "concat_dim")
        if shape[sd] % n:
            raise ValueError(f"For 'AlltoAll', dimension {sd} of 'input_x' (shape {shape}) must divide by "
                             f"split_count {n}.")
        shape[sd] //= n
        shape[cd] *= n
        return AbstractTensor(shape, x.dtype)

    def bprop(self, x, out, dout):
        return (prim("AlltoAll", split_count=self.split_count, split_dim=self.concat_dim,
                     concat_dim=self.split_dim, group=self.group)(dout),)

    def exchange(self, x):
        sd = normalize_axis(self.name, self.split_dim, x.ndim, "split_dim")
        cd = normalize_axis(self.name, self.concat_dim, x.ndim, "concat_dim")
        return world.all_to_all(x, self.split_count, sd, cd, self.group)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 4)), attrs={"split_dim": 1, "concat_dim": 0})


_P2P_REASON = ("point-to-point transfer: pipeline stages send activations forward and gradients back with "
               "their own Send/Receive pairs in the schedule, so autodiff does not pass through them")


@register
class Send(Primitive):
    """Send(sr_tag, dest_rank, group='hccl_world_group', group_back=...)(x): send x to `dest_rank` (a rank in
    `group`); returns x, so a graph can order later work after the send with Depend."""
    attr_defaults = {"sr_tag": 0, "dest_rank": 0, "group": WORLD, "group_back": WORLD}
    input_names = ("input_x",)
    side_effect = True  # the transfer is the point: never dropped, reordered or folded
    differentiable = False
    nondiff_reason = _P2P_REASON

    def check_attrs(self):
        _check_int(self.name, "sr_tag", self.sr_tag, 0)
        _check_int(self.name, "dest_rank", self.dest_rank, 0)
        _check_group(self.name, self.group)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        if self.dest_rank >= world.group_size(self.group):
            raise ValueError(f"For 'Send', the 'dest_rank' {self.dest_rank} is outside group '{self.group}' of "
                             f"size {world.group_size(self.group)}.")
        return same_as(x)

    def numpy(self, np, x):
        world.send(np.array(x, copy=True), self.dest_rank, self.sr_tag, self.group)
        return x

    def torch(self, torch, x):
        world.send(x, self.dest_rank, self.sr_tag, self.group)
        return x

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), attrs={"sr_tag": 7})


@register
class Receive(Primitive):
    """Receive(sr_tag, src_rank, shape, dtype, group='hccl_world_group', group_back=...)(): the tensor that
    `src_rank` sent with the same `sr_tag`."""
    attr_defaults = {"sr_tag": 0, "src_rank": 0, "shape": (), "dtype": mstype.float32, "group": WORLD,
                     "group_back": WORLD}
    input_names = ()
    side_effect = True  # each call consumes one message: never folded, merged or dropped
    differentiable = False
    nondiff_reason = _P2P_REASON

    def check_attrs(self):
        _check_int(self.name, "sr_tag", self.sr_tag, 0)
        _check_int(self.name, "src_rank", self.src_rank, 0)
        _check_group(self.name, self.group)
        if not isinstance(self.shape, (tuple, list)) or any(isinstance(d, bool) or not isinstance(d, int) or d < 0
                                                            for d in self.shape):
            raise TypeError(f"For 'Receive', the 'shape' must be a list of non-negative ints, but got {self.shape!r}.")
        if not isinstance(self.dtype, mstype.Type):
            raise TypeError(f"For 'Receive', the 'dtype' must be a mindspore dtype, but got {self.dtype!r}.")

    def infer(self):
        if self.src_rank >= world.group_size(self.group):
            raise ValueError(f"For 'Receive', the 'src_rank' {self.src_rank} is outside group '{self.group}' of "
                             f"size {world.group_size(self.group)}.")
        return AbstractTensor(tuple(self.shape), self.dtype)

    def _check(self, got):
        if tuple(got.shape) != tuple(self.shape):
            raise RuntimeError(f"For 'Receive' (sr_tag={self.sr_tag}), the tensor sent has shape "
                               f"{list(got.shape)}, but this Receive declares shape {list(self.shape)}.")
        return got

    def numpy(self, np, *unused):
        npdtype = mstype.dtype_to_nptype(self.dtype)
        got = world.receive(np.empty(tuple(self.shape), npdtype), self.src_rank, self.sr_tag, self.group)
        return self._check(np.asarray(_host(got)).astype(npdtype, copy=False))

    def torch(self, torch, *unused):
        from ...backends.torch_backend import torch_dtype
        empty = torch.empty(tuple(self.shape), dtype=torch_dtype(self.dtype))
        got = world.receive(empty, self.src_rank, self.sr_tag, self.group)
        if not isinstance(got, torch.Tensor):  # a loopback message stored by the numpy backend
            got = torch.from_numpy(np.array(got)).to(empty.dtype)
        return self._check(got)

    @classmethod
    def samples(cls, rng):
        # A one-process world receives what it sent itself: post the message the sample will read.
        if world.group_size(WORLD) == 1:
            world.send(rand_float(rng, (2, 3)), 0, 11, WORLD)
        yield Sample(attrs={"sr_tag": 11, "src_rank": 0, "shape": (2, 3), "dtype": mstype.float32})


def _host(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


# ---- redistribution for operator-level sharding (openspore.parallel) -------------------------------------
# Operator sharding keeps tensors replicated between sharded ops: an input enters its op through MirrorOperator
# (so the partial gradients of the slices are summed back), and the op's local result leaves through
# ForwardAllReduce (contraction was split: partial sums) or ForwardAllGather (an output axis was split). The
# values downstream are identical on every member, so their cotangents are too: these two pass the cotangent
# straight back (identity / this member's block) instead of summing it over the group as AllReduce does.
@register
class MirrorOperator(_Collective):
    """MirrorOperator(group)(x): x unchanged; backward all-reduces (sums) the cotangent over the group."""
    attr_defaults = {"group": WORLD}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        return same_as(x)

    def bprop(self, x, out, dout):
        return (prim("AllReduce", op="sum", group=self.group)(dout),)

    def exchange(self, x):
        return x

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (3, 2)))


@register
class ForwardAllReduce(_Collective):
    """ForwardAllReduce(group)(x): the sum of x over the group; backward passes the (replicated) cotangent
    through unchanged."""
    attr_defaults = {"group": WORLD}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        return same_as(x)

    def bprop(self, x, out, dout):
        return (dout,)

    def exchange(self, x):
        return world.all_reduce(x, "sum", self.group)

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)))


@register
class ForwardAllGather(_Collective):
    """ForwardAllGather(axis, group)(x): the members' blocks joined along `axis` in rank order; backward keeps
    this member's block of the (replicated) cotangent."""
    attr_defaults = {"axis": 0, "group": WORLD}
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        shape = list(x.shape)
        shape[axis] *= world.group_size(self.group)
        return AbstractTensor(shape, x.dtype)

    def bprop(self, x, out, dout):
        n = world.group_size(self.group)
        if n == 1:
            return (dout,)
        axis = normalize_axis(self.name, self.axis, len(x.shape))
        return (prim("Split", axis=axis, output_num=n)(dout)[world.group_rank(self.group)],)

    def numpy(self, np, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        gathered = world.all_gather(np.moveaxis(x, axis, 0), self.group)
        return np.ascontiguousarray(np.moveaxis(gathered, 0, axis))

    def torch(self, torch, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        gathered = world.all_gather(torch.movedim(x, axis, 0), self.group)
        return torch.movedim(gathered, 0, axis).contiguous()

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), attrs={"axis": 1})


# ---- a compiled data-parallel step's gradient AllReduce, split in two so that it overlaps the backward ------
# The train cell, while tracing, emits AllReduceStart for a bucket as soon as the backward has finished its
# gradients, and AllReduceWait just before the optimizer; the executor runs nodes in program order, so the
# transfer runs while the rest of the backward computes. Both are side effects (kept in order, never merged).
_PENDING = {}  # token -> wait() of the AllReduce in flight


class _Split(_Collective):
    side_effect = True
    differentiable = False
    nondiff_reason = "the gradient reduction of a data-parallel step, applied to gradients"

    def check_attrs(self):
        super().check_attrs()
        if not isinstance(self.token, str) or not self.token:
            raise ValueError(f"For '{self.name}', the 'token' must be a non-empty str naming the bucket, but got "
                             f"{self.token!r}.")

    def infer(self, x):
        check_tensor(self.name, "input_x", x)
        return same_as(x)


@register
class AllReduceStart(_Split):
    """AllReduceStart(token, op='sum', group='hccl_world_group')(x): launch the AllReduce of (a copy of) x and
    return x; `AllReduceWait(token)` gives the result."""
    attr_defaults = {"token": "bucket", "op": "sum", "group": WORLD}
    input_names = ("input_x",)

    def numpy(self, np, x):
        if world.group_size(self.group) > 1:  # a group of one: AllReduceWait gives x back
            _PENDING[self.token] = world.all_reduce_start(np.array(x, copy=True), self.op, self.group)
        return x

    def torch(self, torch, x):
        if world.group_size(self.group) > 1:
            _PENDING[self.token] = world.all_reduce_start(x.clone(), self.op, self.group)
        return x

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), attrs={"token": "sample"})


@register
class AllReduceWait(_Split):
    """AllReduceWait(token, group='hccl_world_group')(x): wait for AllReduceStart(token) and return its result
    (x, the started tensor, orders the two)."""
    attr_defaults = {"token": "bucket", "group": WORLD}
    input_names = ("input_x",)

    def exchange(self, x):
        if world.group_size(self.group) == 1:
            return x
        wait = _PENDING.pop(self.token, None)
        if wait is not None:
            return wait()
        raise RuntimeError(f"AllReduceWait('{self.token}'): no AllReduceStart of that bucket is in flight.")

    @classmethod
    def samples(cls, rng):
        yield Sample(rand_float(rng, (2, 3)), attrs={"token": "sample"})


# ---- export marks (see _export.py): what is not written to MindIR / ONNX, and why ---------------
not_exportable(COLLECTIVE, AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll, Send, Receive, MirrorOperator,
               ForwardAllReduce, ForwardAllGather, AllReduceStart, AllReduceWait)
