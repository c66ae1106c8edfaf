"""`device_context.ascend.op_precision`: mixed-precision mode, per-operator precision file, HF32 switches.

>>> from openspore.device_context.ascend import op_precision
>>> try:
...     op_precision.precision_mode("fp8")
... except ValueError as exc:
...     print(str(exc).split(",")[0])
For 'mindspore.device_context.ascend.op_precision.precision_mode'
"""
from .. import _settings
from .device import is_available

# Setter name -> whether it has been set in this process (MindSpore's `function_status`).
function_status = _settings.function_status(
    "ascend.op_precision", ("precision_mode", "op_precision_mode", "matmul_allow_hf32", "conv_allow_hf32"))

PRECISION_MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype",
                   "force_fp32", "allow_fp32_to_bf16", "allow_mix_precision_fp16", "allow_mix_precision_bf16")


def precision_mode(mode):
    """The mixed-precision mode of Ascend operators (one of PRECISION_MODES), once per process."""
    _settings.check_type("mode", mode, str)
    _settings.check_choice("ascend.op_precision.precision_mode", mode, PRECISION_MODES)
    _settings.record("ascend.op_precision.precision_mode", mode, is_available())


def op_precision_mode(path):
    """Path of the .ini file giving single operators' precision modes, once per process."""
    _settings.check_type("path", path, str)
    _settings.record("ascend.op_precision.op_precision_mode", path, is_available())


def matmul_allow_hf32(value):
    """Let float32 MatMul run in HF32 on Ascend (bool), once per process."""
    _settings.check_type("value", value, bool)
    _settings.record("ascend.op_precision.matmul_allow_hf32", value, is_available())


def conv_allow_hf32(value):
    """Let float32 convolutions run in HF32 on Ascend (bool), once per process."""
    _settings.check_type("value", value, bool)
    _settings.record("ascend.op_precision.conv_allow_hf32", value, is_available())
