"""`mindspore.boost.AdaSum`: adaptive summation of the weight updates of data-parallel replicas.

Two updates `a` and `b` combine as `(1 - a.b / (2|a|^2)) a + (1 - a.b / (2|b|^2)) b`: orthogonal updates add,
parallel ones average, so a large effective batch does not overshoot. The updates of all replicas combine
pairwise in a binary tree (rank order), per parameter; every replica computes the same result from the gathered
updates. With one replica the update passes unchanged.

>>> import numpy as np
>>> import openspore as ms
>>> from openspore.boost.adasum import adasum_pair
>>> a = ms.Tensor(np.array([1.0, 0.0], np.float32))
>>> adasum_pair(a, a).asnumpy()                     # parallel: the mean
array([1., 0.], dtype=float32)
>>> adasum_pair(a, ms.Tensor(np.array([0.0, 2.0], np.float32))).asnumpy()   # orthogonal: the sum
array([1., 2.], dtype=float32)
"""
from ..core.parameter import Parameter
from ..core.registry import prim
from ..nn.cell import Cell
from ..ops import operations as P

__all__ = ["AdaSum"]

_TINY = 1e-30  # a zero update has a zero dot product too: its coefficient must come out 1, not 0/0


def adasum_pair(a, b):
    """The AdaSum combination of two updates of one parameter (Tensors of the same shape)."""
    mul, reduce_sum, maximum = P.Mul(), P.ReduceSum(), P.Maximum()
    dot = reduce_sum(mul(a, b))
    na, nb = reduce_sum(mul(a, a)), reduce_sum(mul(b, b))
    ca = 1.0 - dot / (2.0 * maximum(na, _TINY))
    cb = 1.0 - dot / (2.0 * maximum(nb, _TINY))
    return mul(a, ca) + mul(b, cb)


def adasum_tree(updates):
    """Combine a list of updates pairwise, level by level (0+1, 2+3, ..., then the results), as AdaSum's
    recursive halving does."""
    level = list(updates)
    if not level:
        raise ValueError("AdaSum needs at least one update.")
    while len(level) > 1:
        nxt = [adasum_pair(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


class AdaSum(Cell):
    """`AdaSum(rank, device_number, group_number, parameter_tuple)`; `construct(delta_weights, parameters,
    old_parameters)` returns `old + AdaSum(every replica's delta)` per parameter. `group_number` (the
    hierarchical split MindSpore uses across servers) does not change the result and is only checked."""

    def __init__(self, rank, device_number, group_number, parameter_tuple):
        super().__init__(auto_prefix=False)
        for name, value, low in (("rank", rank, 0), ("device_number", device_number, 1),
                                 ("group_number", group_number, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"For 'AdaSum', the '{name}' must be an int >= {low}, but got {value!r}.")
        if rank >= device_number:
            raise ValueError(f"For 'AdaSum', the 'rank' ({rank}) must be smaller than 'device_number' ({device_number}).")
        params = tuple(parameter_tuple)
        if not all(isinstance(p, Parameter) for p in params):
            raise TypeError("For 'AdaSum', the 'parameter_tuple' must hold Parameters.")
        self.rank, self.device_number, self.group_number = rank, device_number, group_number
        self.parameter_tuple = params

    def construct(self, delta_weights, parameters, old_parameters):
        if not len(delta_weights) == len(parameters) == len(old_parameters):
            raise ValueError(f"For 'AdaSum', got {len(delta_weights)} updates, {len(parameters)} parameters and "
                             f"{len(old_parameters)} old parameters; they must match.")
        out = []
        for delta, old in zip(delta_weights, old_parameters):
            if self.device_number == 1:
                combined = delta
            else:
                shape = tuple(delta.shape)
                gathered = prim("AllGather")(P.Reshape()(delta, (1, -1)))   # one row per replica, rank order
                rows = [P.Reshape()(gathered[i], shape) for i in range(self.device_number)]
                combined = adasum_tree(rows)
            out.append(old + combined)
        return tuple(out)
