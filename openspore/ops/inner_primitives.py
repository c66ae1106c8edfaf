"""Primitive classes of MindSpore's private `ops.operations._inner_ops` that its own test helpers use.

`ConvertToDynamic(is_dynamic_rank=False)` marks a value's shape as unknown to MindSpore's compiler so that the
dynamic-shape kernels run; openspore's kernels take any shape at run time, so the value passes through unchanged
(gradients included).

>>> import openspore as ms
>>> from openspore.ops.operations import _inner_ops
>>> _inner_ops.ConvertToDynamic(is_dynamic_rank=True)(ms.Tensor([1.0, 2.0])).asnumpy().tolist()
[1.0, 2.0]
"""
from .composite_primitives import _primitive

__all__ = ["ConvertToDynamic"]

ConvertToDynamic = _primitive(
    "ConvertToDynamic", lambda self, input_x: input_x, attrs=[("is_dynamic_rank", False)],
    doc="ConvertToDynamic(is_dynamic_rank=False)(input_x): input_x, its shape to be treated as unknown.")
