"""`DistributedGradReducer`: sums (or averages) gradients across the data-parallel group.

In a single process the group has one member, so the reducer returns the gradients unchanged (averaging over
one device divides by one). Over more processes (after `communication.init()`) each gradient is all-reduced;
with `all_reduce_fusion_config=[i, j, ...]` in the auto-parallel context the gradients are fused into buckets
split at those parameter indices, each bucket flattened into one buffer and reduced by one AllReduce.
"""
from ... import context
from ...core.parameter import Parameter
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

    def construct(self, grads):
        grads = tuple(grads)
        if self._allreduce is None:  # one device: the sum over the group is the gradient itself
            return grads
        reduced = self._fused(grads) if self.buckets else tuple(self._allreduce(g) for g in grads)
        if self.mean:
            reduced = tuple(g * self._scale for g in reduced)
        return reduced
