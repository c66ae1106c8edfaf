"""Primitive instances that MindSpore's `ops.functional` (and so `ops`) exposes under lower-case names:
`shape_`, `reshape_`, `tensor_slice` (Shape, Reshape and Slice instances) and `stop_gradient_`.

>>> import openspore as ms
>>> from openspore.ops import functional as F
>>> F.shape_(ms.Tensor([[1.0, 2.0, 3.0]]))
(1, 3)
>>> F.reshape_(ms.Tensor([1.0, 2.0]), (2, 1)).shape
(2, 1)
"""
from . import operations as P
from .function import stop_gradient

__all__ = ["shape_", "reshape_", "tensor_slice", "stop_gradient_"]

shape_ = P.Shape()
reshape_ = P.Reshape()
tensor_slice = P.Slice()


def stop_gradient_(x):
    """`stop_gradient_(x)`: x, with no gradient flowing back through it (the functional `stop_gradient`)."""
    return stop_gradient(x)
