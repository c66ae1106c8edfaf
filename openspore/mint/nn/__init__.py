"""`mindspore.mint.nn`: PyTorch-style layers; the activations and losses are openspore.nn's, and `Linear` is a
Dense with PyTorch's argument names.

>>> import openspore as ms
>>> from openspore.mint import nn
>>> nn.Linear(3, 2)(ms.ops.ones((4, 3))).shape
(4, 2)
"""
from ... import nn as _nn
from . import functional  # noqa: F401
from ._batch_norm import *  # noqa: F401,F403
from ._torch_layers import *  # noqa: F401,F403

_SHARED = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "ELU", "SELU", "Mish", "LogSigmoid", "Hardsigmoid",
           "Hardswish", "Hardtanh", "PReLU", "Softmax", "LogSoftmax", "Identity", "Flatten", "MSELoss", "L1Loss",
           "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
           "GroupNorm", "PixelShuffle", "Unfold", "Upsample", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "Threshold", "Hardshrink",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "AdaptiveAvgPool3d", "MaxUnpool2d"]
globals().update({name: getattr(_nn, name) for name in _SHARED if hasattr(_nn, name)})
# MindSpore's mint.nn.<X> is nn.<X>Ext for these (PyTorch-style signatures: stride defaults to the kernel, dim, p)
_EXT = ["AvgPool1d", "AvgPool2d", "AvgPool3d", "Dropout", "Dropout2d", "Embedding", "L1Loss", "LayerNorm",
        "LogSoftmax", "MaxPool2d", "PReLU"]
globals().update({name: getattr(_nn, name + "Ext") for name in _EXT})
# PyTorch's spellings of layers nn has under MindSpore's names (the same functions)
Hardshrink, Hardsigmoid, Hardswish, SELU = _nn.HShrink, _nn.HSigmoid, _nn.HSwish, _nn.SeLU


class ZeroPad1d(_nn.ConstantPad1d):
    """`ZeroPad1d(padding)`: the last axis padded with zeros (an int: both sides; a pair: left, right)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(_nn.ConstantPad3d):
    """`ZeroPad3d(padding)`: the last three axes padded with zeros (an int, or six widths from the last axis)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class UpsamplingNearest2d(_nn.Upsample):
    """`UpsamplingNearest2d(size=None, scale_factor=None)`: nearest-neighbour 2-D upsampling."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(_nn.Upsample):
    """`UpsamplingBilinear2d(size=None, scale_factor=None)`: bilinear 2-D upsampling with aligned corners (as
    PyTorch's layer)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


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
