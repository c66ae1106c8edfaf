"""`mindspore.mint.nn`: PyTorch-style layers; the activations and losses are openspore.nn's, and `Linear` is a
Dense with PyTorch's argument names.

>>> import openspore as ms
>>> from openspore.mint import nn
>>> nn.Linear(3, 2)(ms.ops.ones((4, 3))).shape
(4, 2)
"""
from ... import nn as _nn
from . import functional  # noqa: F401

_SHARED = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "ELU", "SELU", "Mish", "LogSigmoid", "Hardsigmoid",
           "Hardswish", "Hardtanh", "PReLU", "Softmax", "LogSoftmax", "Identity", "Flatten", "MSELoss", "L1Loss",
           "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
           "GroupNorm", "PixelShuffle", "Fold", "Unfold", "Upsample", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "Threshold", "Hardshrink",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d"]
globals().update({name: getattr(_nn, name) for name in _SHARED if hasattr(_nn, name)})
# MindSpore's mint.nn.<X> is nn.<X>Ext for these (PyTorch-style signatures: stride defaults to the kernel, dim, p)
_EXT = ["AvgPool1d", "AvgPool2d", "AvgPool3d", "Dropout", "Dropout2d", "Embedding", "L1Loss", "LayerNorm",
        "LogSoftmax", "MaxPool2d", "PReLU"]
globals().update({name: getattr(_nn, name + "Ext") for name in _EXT})


class Linear(_nn.Dense):
    """`Linear(in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None)`."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        kwargs = {"has_bias": bias}
        if weight_init is not None:
            kwargs["weight_init"] = weight_init
        if bias_init is not None:
            kwargs["bias_init"] = bias_init
        if dtype is not None:
            kwargs["dtype"] = dtype
        super().__init__(in_features, out_features, **kwargs)
