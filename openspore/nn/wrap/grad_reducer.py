"""`DistributedGradReducer`: sums (or averages) gradients across the data-parallel group.

In a single process the group has one member, so the reducer returns the gradients unchanged (averaging over
one device divides by one); a multi-device group needs the `AllReduce` collective primitive, and the
reducer says so at construction when that is not available.
"""
from ... import context
from ...core.parameter import Parameter
from ...core.primitive import PRIMITIVES
from ..cell import Cell


def parallel_reduce_settings():
    """(reducer needed, gradients_mean, device_num) from the auto-parallel context (MindSpore's rule:
    data-parallel and hybrid-parallel training reduce gradients in the train cell)."""
    mode = context.get_auto_parallel_context("parallel_mode")
    needed = mode in (context.ParallelMode.DATA_PARALLEL, "hybrid_parallel")
    mean = bool(context.get_auto_parallel_context("gradients_mean"))
    degree = int(context.get_auto_parallel_context("device_num") or 1)
    return needed, mean, degree


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
        self._allreduce = None
        if degree > 1:
            if "AllReduce" not in PRIMITIVES:
                raise RuntimeError(f"For 'DistributedGradReducer', reducing over {degree} devices needs the "
                                   "'AllReduce' collective, which is not available in this process: initialise the "
                                   "communication group (openspore.communication.init()) before building the "
                                   "reducer, or use degree=1 for single-process training.")
            self._allreduce = PRIMITIVES["AllReduce"](op="sum", group=group)
            self._scale = 1.0 / degree

    def construct(self, grads):
        grads = tuple(grads)
        if self._allreduce is None:  # one device: the sum over the group is the gradient itself
            return grads
        reduced = tuple(self._allreduce(g) for g in grads)
        if self.mean:
            reduced = tuple(g * self._scale for g in reduced)
        return reduced
