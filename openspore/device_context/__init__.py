"""`mindspore.device_context`: per-backend device queries and settings (MindSpore 2.10's public module).

`device_context.cpu`, `.gpu` and `.ascend` each answer `is_available()` and `device_count()`, and group their
settings in submodules: `cpu.op_tuning.threads_num`; `gpu.op_precision` (TF32 switches) and `gpu.op_tuning`
(cuDNN convolution algorithms); `ascend.op_precision`, `ascend.op_tuning` and `ascend.op_debug`. Every setter
checks its argument as MindSpore does and may be called once per process. openspore runs on the CPU (and on a
CUDA GPU through torch); Ascend is never available, so its setters check their argument, log, and do nothing.

>>> import openspore as ms
>>> ms.device_context.cpu.is_available(), ms.device_context.cpu.device_count()
(True, 1)
>>> ms.device_context.ascend.is_available()
False
"""
from . import cpu, gpu, ascend  # noqa: F401
