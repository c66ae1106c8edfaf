"""`DistributedGradReducer`: sums (or averages) gradients across the data-parallel group.

In a single process the group has one member, so the reducer returns the gradients unchanged (averaging over
one device divides by one). Over more processes (after `communication.init()`) each gradient is all-reduced;
with `all_reduce_fusion_config=[i, j, ...]` in the auto-parallel context the gradients are fused into buckets
split at those parameter indices, each bucket flattened into one buffer and reduced by one AllReduce.
"""
import numpy as np

from ... import context
from ...core import autograd
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...core.primitive import PRIMITIVES
from ...ops.defs import _comm_world
from ..cell import Cell


def parallel_reduce_settings():
    """(reducer needed, gradients_mean, device_num) from the auto-parallel context (MindSpore's rule:
    data-parallel and hybrid-parallel training reduce gradients in the train cell)."""
    mode = context.get_auto_parallel_context("parallel_mode")
    needed = mode in (context.ParallelMode.DATA_PARALLEL, "hybrid_parallel")
    mean = bool(context.get_auto_parallel_context("gradients_mean"))
    degree = int(context.get_auto_parallel_context("device_num") or 1)
    if degree == 1:  # MindSpore leaves device_num at 1 under msrun: the group decides
        degree = _comm_world.group_size(_comm_world.state()["world"])
    return needed, mean, degree


def broadcast_parameters(parameters, root_rank=0):
    """`parameter_broadcast`: overwrite every parameter with rank `root_rank`'s value, so all replicas start
    equal."""
    if _comm_world.group_size(_comm_world.state()["world"]) == 1:
        return
    bcast = PRIMITIVES["Broadcast"](root_rank=root_rank)
    for p in parameters:
        p.set_data(bcast((p,))[0])


def mirror_shard_grads(weights, grads):
    """Sum the gradients of parameters used inside a `Cell.shard` region (each rank ran it on its block of the
    batch, openspore.parallel marks them with the group that split it) over that group; others pass."""
    if not any(p.__dict__.get("_grad_mirror_group") for p in weights):
        return grads
    out = list(grads)
    for i, p in enumerate(weights):
        group = p.__dict__.get("_grad_mirror_group")
        if group is not None:
            out[i] = PRIMITIVES["AllReduce"](op="sum", group=group)(out[i])
    return tuple(out)


def _buckets(count, split_points):
    """Index ranges [start, stop) of the gradient buckets that `all_reduce_fusion_config` describes."""
    edges = [0] + [i for i in split_points if 0 < i < count] + [count]
    return [(a, b) for a, b in zip(edges, edges[1:]) if b > a]


class DistributedGradReducer(Cell):
    """`DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1, group='hccl_world_group')`.

    `construct(grads)` returns the gradients all-reduced over `group` (divided by `degree` when `mean`).
    `mean` and `degree` default to the auto-parallel context's `gradients_mean` and `device_num`.

    >>> import openspore as ms
    >>> from openspore import nn
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> reducer = nn.DistributedGradReducer([w])
    >>> reducer((ms.Tensor([0.5, 0.25]),))[0].asnumpy().tolist()
    [0.5, 0.25]
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group="hccl_world_group"):
        super().__init__(auto_prefix=False)
        parameters = list(parameters)
        for i, p in enumerate(parameters):
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'DistributedGradReducer', the 'parameters' must be Parameters, but element {i} "
                                f"is {type(p).__name__}.")
        _, ctx_mean, ctx_degree = parallel_reduce_settings()
        if mean is None:
            mean = ctx_mean
        if not isinstance(mean, bool):
            raise TypeError(f"For 'DistributedGradReducer', the 'mean' must be a bool, but got {type(mean).__name__}.")
        if degree is None:
            degree = ctx_degree
        if isinstance(degree, bool) or not isinstance(degree, int) or degree <= 0:
            raise ValueError(f"For 'DistributedGradReducer', the 'degree' must be a positive int, but got {degree!r}.")
        if not isinstance(group, str):
            raise TypeError(f"For 'DistributedGradReducer', the 'group' must be a str, but got {type(group).__name__}.")
        self.mean, self.degree, self.group, self.fusion_type = mean, degree, group, fusion_type
        self.param_count = len(parameters)
        self._allreduce, self.buckets = None, None
        members = _comm_world.group_size(group)
        if degree > 1 and members == 1:
            raise RuntimeError(f"For 'DistributedGradReducer', reducing over {degree} devices needs the "
                               f"'AllReduce' collective over a group of {degree} processes, but group '{group}' has "
                               "one: launch the workers with msrun and call openspore.communication.init() before "
                               "building the reducer, or use degree=1 for single-process training.")
        if members > 1:
            self._allreduce = PRIMITIVES["AllReduce"](op="sum", group=group)
            self._scale = 1.0 / degree
            fusion = context.get_auto_parallel_context("all_reduce_fusion_config")
            self.buckets = _buckets(self.param_count, fusion) if fusion else None
            self._reshape, self._concat = PRIMITIVES["Reshape"](), PRIMITIVES["Concat"](0)

    def _fused(self, grads):
        """One AllReduce per bucket: flatten, join, reduce, split back (same-dtype buckets only)."""
        out = []
        for start, stop in self.buckets:
            part = grads[start:stop]
            if len(part) == 1 or len({g.dtype for g in part}) > 1:
                out.extend(self._allreduce(g) for g in part)
                continue
            flat = self._concat(tuple(self._reshape(g, (-1,)) for g in part))
            summed = self._allreduce(flat)
            offset = 0
            for g in part:
                size = 1
                for d in g.shape:
                    size *= d
                out.append(self._reshape(summed[offset:offset + size], tuple(g.shape)))
                offset += size
        return tuple(out)

    def overlap_begin(self, weights):
        """Send each bucket's AllReduce as soon as the backward pass has finished its gradients
        (autograd.GRAD_READY), so communication overlaps the rest of the backward; construct() then waits.
        Concrete gradients (PyNative) are sent at once; symbolic ones (a step being compiled) get an
        AllReduceStart at that point of the backward and an AllReduceWait before the optimizer, and the
        compiled step runs its nodes in that order. Nothing happens over one device."""
        self._overlap = None
        if self._allreduce is None or not OVERLAP[0]:
            return
        self._overlap = _Overlap(self, weights)
        autograd.GRAD_READY[:] = [self._overlap.ready]  # a hook left by a failed step is replaced

    def construct(self, grads):
        grads = tuple(grads)
        if self._allreduce is None:  # one device: the sum over the group is the gradient itself
            return grads
        overlap, self._overlap = self.__dict__.get("_overlap"), None
        if overlap is not None:
            autograd.GRAD_READY[:] = []
            reduced = overlap.finish(grads)
        else:
            reduced = self._fused(grads) if self.buckets else tuple(self._allreduce(g) for g in grads)
        if self.mean:
            reduced = tuple(g * self._scale for g in reduced)
        return reduced


OVERLAP = [True]  # False: reduce after the backward pass (bench/distributed_scaling.py compares both)
OVERLAP_STATS = {"steps": 0, "buckets": 0, "sent_during_backward": 0}  # for tests and benchmarks
# Graph mode, counted when a step is traced: buckets, those started inside the backward pass, and those
# started while gradients of other weights were still to come (all but the one completed by the last gradient)
GRAPH_OVERLAP_STATS = {"traces": 0, "buckets": 0, "started_in_backward": 0, "started_before_last_gradient": 0}


class _Overlap:
    """One step's bucketed AllReduce issued during the backward pass. Gradients arrive in backward order; when
    every gradient of a bucket is in, the bucket is flattened and its AllReduce launched asynchronously
    (concrete arrays) or an AllReduceStart emitted (symbolic gradients of a step being compiled). `finish`
    waits for them (a bucket not launched — a gradient that never came — is reduced there, synchronously, as
    without overlap)."""

    def __init__(self, reducer, weights):
        self.reducer = reducer
        self.index = {id(p): i for i, p in enumerate(weights)}
        buckets = reducer.buckets or [(i, i + 1) for i in range(len(weights))]
        self.buckets = buckets
        self.bucket_of = {i: b for b, (start, stop) in enumerate(buckets) for i in range(start, stop)}
        self.arrived = [dict() for _ in buckets]
        self.waits = {}
        self.seen = 0
        self.symbolic = False

    def ready(self, tensor, grad):
        i = self.index.get(id(tensor))
        if i is None or not isinstance(grad, Tensor):
            return  # not a weight of this step
        array = grad._data
        concrete = isinstance(array, np.ndarray) or type(array).__name__ == "Tensor"
        self.seen += 1
        b = self.bucket_of[i]
        self.arrived[b][i] = array if concrete else grad
        start, stop = self.buckets[b]
        parts = self.arrived[b]
        if len(parts) != stop - start or len({(type(a), a.dtype) for a in parts.values()}) != 1:
            return
        if not concrete:
            self._start_symbolic(b, [parts[k] for k in range(start, stop)])
            return
        flat = [parts[k].reshape(-1) for k in range(start, stop)]
        if isinstance(flat[0], np.ndarray):
            flat = np.concatenate(flat)
        else:
            import torch  # the torch backend's arrays (Gloo/NCCL carry them as they are)
            flat = torch.cat(flat)
        self.waits[b] = _comm_world.all_reduce_start(flat, "sum", self.reducer.group)

    def _token(self, b):
        return f"dp{id(self.reducer)}_{b}"

    def _start_symbolic(self, b, grads):
        self.symbolic = True
        reshape = self.reducer._reshape
        flat = tuple(reshape(g, (-1,)) for g in grads)
        flat = flat[0] if len(flat) == 1 else self.reducer._concat(flat)
        self.waits[b] = PRIMITIVES["AllReduceStart"](token=self._token(b), group=self.reducer.group)(flat)
        GRAPH_OVERLAP_STATS["started_in_backward"] += 1
        if self.seen < len(self.index):
            GRAPH_OVERLAP_STATS["started_before_last_gradient"] += 1

    def _wait(self, b):
        started = self.waits[b]
        if callable(started):
            return started()
        return PRIMITIVES["AllReduceWait"](token=self._token(b), group=self.reducer.group)(started)

    def finish(self, grads):
        stats = GRAPH_OVERLAP_STATS if self.symbolic else OVERLAP_STATS
        stats["traces" if self.symbolic else "steps"] += 1
        stats["buckets"] += len(self.buckets)
        if not self.symbolic:
            stats["sent_during_backward"] += len(self.waits)
        out = list(grads)
        for b, (start, stop) in enumerate(self.buckets):
            if b not in self.waits:
                part = tuple(self.reducer._allreduce(g) for g in grads[start:stop])
                out[start:stop] = part
                continue
            summed, offset = self._wait(b), 0
            for k in range(start, stop):
                shape = tuple(grads[k].shape)
                size = int(np.prod(shape, dtype=np.int64))
                if self.symbolic:
                    out[k] = self.reducer._reshape(summed[offset:offset + size], shape)
                else:
                    out[k] = Tensor._wrap(summed[offset:offset + size].reshape(shape), grads[k].dtype)
                offset += size
        return tuple(out)
