"""openspore.common: dtypes, errors, initializers; re-exports Tensor and Parameter like mindspore.common."""
from . import dtype  # noqa: F401
from .dtype import *  # noqa: F401,F403

# `mindspore.common.Tensor`, `.Parameter`, `.mutable`, ...: the names live in higher layers (core, runtime, the
# top-level package), so they are looked up on first use (PEP 562) instead of imported here.
_LAZY = {"Tensor": "openspore.core.tensor", "tensor": "openspore.core.tensor", "from_numpy": "openspore.core.tensor",
         "Parameter": "openspore.core.parameter", "ParameterTuple": "openspore.core.parameter",
         "mutable": "openspore.runtime", "jit": "openspore.runtime", "jit_class": "openspore.runtime",
         "JitConfig": "openspore.runtime", "lazy_inline": "openspore.runtime", "no_inline": "openspore.runtime",
         "set_seed": "openspore.context", "get_seed": "openspore.context",
         "load_mindir": "openspore.serialization", "save_mindir": "openspore.serialization",
         "COOTensor": "openspore.ops.sparse_tensor", "CSRTensor": "openspore.ops.sparse_tensor",
         "RowTensor": "openspore.ops.sparse_tensor", "SparseTensor": "openspore.ops.sparse_tensor",
         "Generator": "openspore.generator", "default_generator": "openspore.generator",
         "Symbol": "openspore.core.symbol", "enable_dynamic": "openspore.core.symbol",
         "recompute": "openspore.core.saved_tensors", "saved_tensors_hooks": "openspore.core.saved_tensors",
         "register_saved_tensors_hooks": "openspore.core.saved_tensors",
         "manual_seed": "openspore.misc", "seed": "openspore.misc", "initial_seed": "openspore.misc",
         "get_rng_state": "openspore.misc", "set_rng_state": "openspore.misc", "is_tensor": "openspore.misc",
         "set_dump": "openspore.runtime.dump_marks", "swap_tensors": "openspore.common.tensor",
         "ms_memory_recycle": "openspore.runtime.mem_pool",
         "DeviceCtx": "openspore.common.device_ctx", "set_recursion_limit": "openspore.context",
         "mindio_preload": "openspore.common.file_system", "set_mindio_server_info": "openspore.common.file_system"}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'openspore.common' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)
