"""Loss Cells (`mindspore.nn.loss`)."""
from .loss import (LossBase, L1Loss, MSELoss, RMSELoss, MAELoss, SmoothL1Loss, HuberLoss, SoftMarginLoss,  # noqa: F401
                   SoftmaxCrossEntropyWithLogits, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss,
                   MarginRankingLoss, CosineEmbeddingLoss)
from .dice import DiceLoss, MultiClassDiceLoss  # noqa: F401

__all__ = ["LossBase", "L1Loss", "MSELoss", "RMSELoss", "MAELoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss",
           "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "MarginRankingLoss", "CosineEmbeddingLoss", "DiceLoss", "MultiClassDiceLoss"]
