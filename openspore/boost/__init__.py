"""`mindspore.boost`: training accelerations — gradient freezing, gradient accumulation, LessBN (feature-normalized
head), grad-centralization groups, AdaSum — configured by `AutoBoost` and applied by `BoostTrainOneStepCell`.

Not implemented: `DimReduce` (dimension-reduction second-order training) and `GroupLossScaleManager` (per-layer
loss scales, an Ascend feature); asking for them raises an AttributeError/ImportError that says so.

>>> from openspore import boost
>>> boost.ParameterProcess.generate_group_params([], [])
[{'params': []}]
"""
from .adasum import AdaSum
from .base import OptimizerProcess, ParameterProcess
from .boost import AutoBoost
from .boost_cell_wrapper import BoostTrainOneStepCell, BoostTrainOneStepWithLossScaleCell
from .grad_accumulation import GradientAccumulation
from .grad_freeze import FreezeOpt, GradientFreeze, freeze_cell
from .less_batch_normalization import LessBN

__all__ = ["AutoBoost", "OptimizerProcess", "ParameterProcess", "BoostTrainOneStepCell",
           "BoostTrainOneStepWithLossScaleCell", "GradientFreeze", "FreezeOpt", "freeze_cell", "GradientAccumulation",
           "LessBN", "AdaSum"]

_NOT_IMPLEMENTED = {
    "DimReduce": "dimension-reduction second-order training (PCA-projected quasi-Newton line search)",
    "GroupLossScaleManager": "per-layer-group loss scales (an Ascend feature of MindSpore)",
}


def __getattr__(name):
    if name in _NOT_IMPLEMENTED:
        raise AttributeError(f"mindspore.boost.{name} ({_NOT_IMPLEMENTED[name]}) is not implemented in openspore.")
    raise AttributeError(f"module 'openspore.boost' has no attribute {name!r}")
