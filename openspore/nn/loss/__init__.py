"""Loss Cells (`mindspore.nn.loss`)."""
from .loss import (LossBase, L1Loss, MSELoss, RMSELoss, MAELoss, SmoothL1Loss, HuberLoss, SoftMarginLoss,  # noqa: F401
                   SoftmaxCrossEntropyWithLogits, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss,
                   MarginRankingLoss, CosineEmbeddingLoss)
from .dice import DiceLoss, MultiClassDiceLoss  # noqa: F401
from .extra import (MultiLabelSoftMarginLoss, MultiMarginLoss, HingeEmbeddingLoss, GaussianNLLLoss,  # noqa: F401
                    TripletMarginLoss, PoissonNLLLoss)
from .more import FocalLoss, TripletMarginWithDistanceLoss  # noqa: F401
from .seq import CTCLoss, MultilabelMarginLoss, L1LossExt  # noqa: F401
from .sampled import SampledSoftmaxLoss  # noqa: F401

__all__ = ["LossBase", "L1Loss", "MSELoss", "RMSELoss", "MAELoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss",
           "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "MarginRankingLoss", "CosineEmbeddingLoss", "DiceLoss", "MultiClassDiceLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "HingeEmbeddingLoss", "GaussianNLLLoss", "TripletMarginLoss", "PoissonNLLLoss",
           "FocalLoss", "TripletMarginWithDistanceLoss", "CTCLoss", "MultilabelMarginLoss", "L1LossExt"]
__all__ += ["SampledSoftmaxLoss"]
