"""`device_context.gpu.op_precision`: whether float32 MatMul / convolution may use TF32 tensor cores.

On a GPU these set torch's `allow_tf32` switches (cuBLAS for MatMul, cuDNN for convolutions).

>>> from openspore.device_context.gpu import op_precision
>>> try:
...     op_precision.matmul_allow_tf32(1)
... except TypeError as exc:
...     print(exc)
The parameter 'value' must be <class 'bool'>, but got <class 'int'>
"""
from .. import _settings
from .device import is_available

# Setter name -> whether it has been set in this process (MindSpore's `function_status`).
function_status = _settings.function_status(
    "gpu.op_precision", ("matmul_allow_tf32", "conv_allow_tf32"))


def matmul_allow_tf32(value):
    """Let float32 MatMul run in TF32 on the GPU (bool; MindSpore's default False), once per process."""
    _settings.check_type("value", value, bool)
    if _settings.record("gpu.op_precision.matmul_allow_tf32", value, is_available()):
        import torch
        torch.backends.cuda.matmul.allow_tf32 = value


def conv_allow_tf32(value):
    """Let float32 convolutions run in TF32 on the GPU (bool; MindSpore's default True), once per process."""
    _settings.check_type("value", value, bool)
    if _settings.record("gpu.op_precision.conv_allow_tf32", value, is_available()):
        import torch
        torch.backends.cudnn.allow_tf32 = value
