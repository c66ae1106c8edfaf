"""Training wrappers (`mindspore.nn.wrap`): loss/eval/grad cells, one-step trainers, loss scaling, grad reducer."""
from .cell_wrapper import (WithLossCell, WithEvalCell, WithGradCell, ForwardValueAndGrad,  # noqa: F401
                           TrainOneStepCell)
from .loss_scale import (TrainOneStepWithLossScaleCell, DynamicLossScaleUpdateCell,  # noqa: F401
                         FixedLossScaleUpdateCell)
from .grad_reducer import DistributedGradReducer  # noqa: F401
from .pipeline_cell import PipelineCell  # noqa: F401

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "ForwardValueAndGrad", "TrainOneStepCell",
           "TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "DistributedGradReducer", "PipelineCell"]
from .parallel_wrappers import (VirtualDatasetCellTriple, AdaSumByGradWrapCell,  # noqa: F401,E402
                                AdaSumByDeltaWeightWrapCell)

__all__ += ["VirtualDatasetCellTriple", "AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell"]
