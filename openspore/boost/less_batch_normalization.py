"""`mindspore.boost.LessBN` and its head `CommonHeadLastFN` (feature normalization in place of the last FC).

`CommonHeadLastFN` computes `multiplier * (normalize(x) @ normalize(W).T)`: inputs and each row of the weight
are scaled to unit L2 norm, so the logits are cosines times one learned scale. `LessBN(network, fn_flag=True)`
swaps the network's last `nn.Dense` for such a head (keeping its weight); `LessBN` then runs the network.

>>> import numpy as np
>>> import openspore as ms
>>> from openspore.boost.less_batch_normalization import CommonHeadLastFN
>>> head = CommonHeadLastFN(2, 1, weight_init=ms.Tensor(np.array([[3.0, 4.0]], np.float32)))
>>> head(ms.Tensor(np.array([[4.0, 3.0]], np.float32))).asnumpy().round(4)   # cos = 24 / 25
array([[0.96]], dtype=float32)
"""
import numpy as np

from ..common import dtype as mstype
from ..common.initializer import initializer
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn import Dense
from ..nn.cell import Cell
from ..ops import operations as P

__all__ = ["CommonHeadLastFN", "LessBN"]


class CommonHeadLastFN(Cell):
    """`CommonHeadLastFN(in_channels, out_channels, weight_init='normal', bias_init='zeros', has_bias=True)`:
    the last fully-normalized layer; `multiplier` (a Parameter, initial value 1) scales the cosine logits."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True):
        super().__init__()
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"For 'CommonHeadLastFN', the '{name}' must be a positive int, but got {value!r}.")
        self.in_channels, self.out_channels, self.has_bias = in_channels, out_channels, bool(has_bias)
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], mstype.float32), name="weight")
        self.bias = (Parameter(initializer(bias_init, [out_channels], mstype.float32), name="bias")
                     if self.has_bias else None)
        self.multiplier = Parameter(Tensor(np.ones(1, np.float32)), name="multiplier")
        self.x_norm = P.L2Normalize(axis=1)
        self.w_norm = P.L2Normalize(axis=1)
        self.matmul = P.MatMul(transpose_b=True)
        self.bias_add = P.BiasAdd()

    def construct(self, x):
        out = self.matmul(self.x_norm(x), self.w_norm(self.weight))
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        return self.multiplier * out


def _replace_last_dense(network):
    """Swap the last `nn.Dense` found under `network` (in registration order) for a CommonHeadLastFN that keeps
    its weight; returns True when one was swapped."""
    last = None
    for _, cell in network.cells_and_names():
        for child_name, child in cell.name_cells().items():
            if isinstance(child, Dense):
                last = (cell, child_name, child)
    if last is None:
        return False
    parent, child_name, dense = last
    head = CommonHeadLastFN(dense.in_channels, dense.out_channels, weight_init=Tensor(dense.weight.asnumpy()),
                            has_bias=False)
    keys = list(parent.name_cells())
    if hasattr(parent, "cell_list"):     # SequentialCell / CellList run their own list: replace it by position
        parent[keys.index(child_name)] = head
    else:
        setattr(parent, child_name, head)
    return True


class LessBN(Cell):
    """`LessBN(network, fn_flag=False)`: with `fn_flag`, the network's last Dense becomes a `CommonHeadLastFN`
    (feature normalization, which lets the network train with fewer BatchNorm layers); `construct(*inputs)` runs
    the network. The BatchNorm layers themselves are left as they are, as MindSpore 2.10 leaves them."""

    def __init__(self, network, fn_flag=False):
        super().__init__()
        if not isinstance(network, Cell):
            raise TypeError(f"For 'LessBN', the 'network' must be a Cell, but got {type(network).__name__}.")
        if not isinstance(fn_flag, bool):
            raise TypeError(f"For 'LessBN', the 'fn_flag' must be a bool, but got {type(fn_flag).__name__}.")
        self.network = network
        self.fn_flag = fn_flag
        if fn_flag and not any(isinstance(c, CommonHeadLastFN) for _, c in network.cells_and_names()):
            _replace_last_dense(network)

    def construct(self, *inputs):
        return self.network(*inputs)
