"""Registration API of a `servable_config.py` (MindSpore Serving's `mindspore_serving.server.register`)."""
from .model import (declare_model, Model, Context, CPUDeviceInfo, GPUDeviceInfo, AscendDeviceInfo,  # noqa: F401
                    AclOptions, GpuOptions, declare_servable)
from .method import register_method, add_stage  # noqa: F401
from .llm import declare_llm_servable  # noqa: F401

__all__ = ["declare_model", "Model", "AscendDeviceInfo", "CPUDeviceInfo", "GPUDeviceInfo", "Context",
           "register_method", "add_stage"]
