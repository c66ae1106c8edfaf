"""`device_context.gpu.op_tuning`: which cuDNN algorithm convolutions use, forward and for both gradients.

The documented modes are checked and recorded. torch picks cuDNN's algorithms itself: "performance" (trial
search) maps onto `torch.backends.cudnn.benchmark = True`; the other modes are recorded only.

>>> from openspore.device_context.gpu import op_tuning
>>> try:
...     op_tuning.conv_fprop_algo("fastest")
... except ValueError as exc:
...     print(str(exc).split(",")[0])
For 'mindspore.device_context.gpu.op_tuning.conv_fprop_algo'
"""
from .. import _settings
from .device import is_available

# Setter name -> whether it has been set in this process (MindSpore's `function_status`).
function_status = _settings.function_status(
    "gpu.op_tuning", ("conv_fprop_algo", "conv_wgrad_algo", "conv_dgrad_algo"))

FPROP_ALGOS = ("normal", "performance", "implicit_gemm", "precomp_gemm", "gemm", "direct", "fft", "fft_tiling",
               "winograd", "winograd_nonfused")
DGRAD_ALGOS = ("normal", "performance", "algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused")
WGRAD_ALGOS = ("normal", "performance", "algo_0", "algo_1", "fft", "algo_3", "fft_tiling", "winograd_nonfused")


def _set(name, mode, choices):
    where = f"gpu.op_tuning.{name}"
    _settings.check_choice(where, mode, choices)
    if _settings.record(where, mode, is_available()) and mode == "performance":
        import torch
        torch.backends.cudnn.benchmark = True


def conv_fprop_algo(mode):
    """The convolution forward algorithm (one of FPROP_ALGOS; default "normal"), once per process."""
    _set("conv_fprop_algo", mode, FPROP_ALGOS)


def conv_dgrad_algo(mode):
    """The convolution data-gradient algorithm (one of DGRAD_ALGOS; default "normal"), once per process."""
    _set("conv_dgrad_algo", mode, DGRAD_ALGOS)


def conv_wgrad_algo(mode):
    """The convolution filter-gradient algorithm (one of WGRAD_ALGOS; default "normal"), once per process."""
    _set("conv_wgrad_algo", mode, WGRAD_ALGOS)
