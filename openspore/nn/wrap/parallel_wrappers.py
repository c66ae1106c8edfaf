"""Cells of MindSpore's parallel training that have a standalone meaning: `VirtualDatasetCellTriple` and the AdaSum
optimizer wrappers.

`VirtualDatasetCellTriple(backbone)` is the three-input form of the virtual-dataset cell: in semi-auto parallel
MindSpore marks the inputs as the dataset's slices there; the value is `backbone(a, b, c)`.

`AdaSumByGradWrapCell(optimizer)` / `AdaSumByDeltaWeightWrapCell(optimizer)` combine the data-parallel replicas'
gradients (or weight deltas) with AdaSum. MindSpore accepts them only in a data-parallel job of at least 16
devices, a power of two; standalone they raise RuntimeError (as MindSpore), and in such a job openspore says it
has no AdaSum wrapper cell (`mindspore.boost.AdaSum` runs in `boost.BoostTrainOneStepCell`).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> class Mix(nn.Cell):
...     def construct(self, a, b, c):
...         return a + b * c
>>> x = ms.Tensor(np.ones((1, 2), np.float32))
>>> nn.VirtualDatasetCellTriple(Mix())(x, x * 2, x * 3).asnumpy().tolist()
[[7.0, 7.0]]
"""
from ... import context
from ..cell import Cell

__all__ = ["VirtualDatasetCellTriple", "AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell"]


class VirtualDatasetCellTriple(Cell):
    """`VirtualDatasetCellTriple(backbone)(a, b, c)` = `backbone(a, b, c)`."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, a, b, c):
        return self._backbone(a, b, c)


def _check_adasum_job():
    mode = context.get_auto_parallel_context("parallel_mode")
    if mode in (None, "stand_alone"):
        raise RuntimeError("Stand alone mode is not supported to apply adasum.")
    devices = context.get_auto_parallel_context("device_num") or 1
    if devices < 16 or devices & (devices - 1):
        raise RuntimeError("The device_num must be at least 16 and must be the power of 2 when applying adasum.")
    raise NotImplementedError("nn.AdaSumByGradWrapCell / nn.AdaSumByDeltaWeightWrapCell are not implemented in "
                              "openspore; use boost.BoostTrainOneStepCell with AutoBoost's 'adasum'.")


class AdaSumByGradWrapCell(Cell):
    """`AdaSumByGradWrapCell(optimizer)`: AdaSum over the replicas' gradients (see the module note)."""

    def __init__(self, optimizer):
        super().__init__()
        _check_adasum_job()


class AdaSumByDeltaWeightWrapCell(Cell):
    """`AdaSumByDeltaWeightWrapCell(optimizer)`: AdaSum over the replicas' weight deltas (see the module note)."""

    def __init__(self, optimizer):
        super().__init__()
        _check_adasum_job()
