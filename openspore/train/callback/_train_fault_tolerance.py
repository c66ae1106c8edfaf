"""`TrainFaultTolerance(ckpt_save_path=None, **kwargs)`: MindIO's training fault tolerance (saving the state of a
failing step, rebuilding a device, resuming) — Huawei's MindIO TTP/UCE/ARF services on Ascend devices.

openspore runs on the CPU (and CUDA through torch) and has no MindIO, so the callback cannot be built: after the
argument check MindSpore makes (`ckpt_save_path` or `ckpt_save_fn` is required) it raises the ValueError
MindSpore's CPU build raises — that the MindIO switches (`MS_ENABLE_TFT`, e.g. '{TTP:1}') are not set, or, when
they are, that MindIO works only on Ascend devices.
"""
from ... import context
from ._callback import Callback

__all__ = ["TrainFaultTolerance"]

_SWITCHES = ["TTP:1", "UCE:1", "ARF:1", "TSP:1", "HCCE:1"]


class TrainFaultTolerance(Callback):
    """See the module text."""

    def __init__(self, ckpt_save_path=None, **kwargs):
        super().__init__()
        if ckpt_save_path is None and kwargs.get("ckpt_save_fn") is None:
            raise ValueError("TrainFaultTolerance construct need to set ckpt_save_fn or ckpt_save_path!")
        switches = context.train_callback_env()["enable_tft"]
        if not any(s in switches for s in _SWITCHES):
            raise ValueError(f"MindIO TFT register need custom switch on one of:{_SWITCHES}")
        raise ValueError(f"MindIO adapter only support on Ascend device but got device "
                         f"{context.get_context('device_target')}!")
