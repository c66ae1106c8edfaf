"""openspore: the MindSpore 2.x API in Python — `import openspore as ms`."""
import sys as _sys

from .version import __version__  # noqa: F401
from . import _missing_modules  # noqa: F401  (MindSpore modules not here yet raise a clear ImportError)
from . import context  # noqa: F401
from .context import (GRAPH_MODE, PYNATIVE_MODE, STRICT, COMPATIBLE, LAX, set_context, get_context,  # noqa: F401
                      set_device, get_current_device, set_seed, set_recursion_limit, get_seed, ParallelMode,
                      set_auto_parallel_context, get_auto_parallel_context, reset_auto_parallel_context)
from .common import dtype  # noqa: F401
from .common.dtype import *  # noqa: F401,F403
from .common.dtype import dtype_to_nptype, dtype_to_pytype, pytype_to_dtype, get_py_obj_dtype  # noqa: F401
from .core import Tensor, tensor, from_numpy, Parameter, ParameterTuple  # noqa: F401
from .core import grad, value_and_grad, vjp, jvp  # noqa: F401
from . import ops  # noqa: F401
from .ops.function.vmap_func import vmap  # noqa: F401
from .ops.function.jacobian_func import jacrev, jacfwd  # noqa: F401  (MindSpore 2.10 has them at the top too)
from .common.dtype import int, float, bool  # noqa: F401,A004  (MindSpore exports these names)
from .train.serialization import save_checkpoint, load_checkpoint, load_param_into_net  # noqa: F401
from .serialization import load, load_mindir  # noqa: F401
from . import amp, train  # noqa: F401
from .train import *  # noqa: F401,F403  (mindspore re-exports Model, callbacks, metrics, loss-scale managers)
from .serialization import export, save_mindir  # noqa: F401
from .runtime import jit, jit_class, mutable, JitConfig, lazy_inline, no_inline  # noqa: F401
from .runtime.dump_marks import set_dump  # noqa: F401
from .misc import (manual_seed, seed, initial_seed, get_rng_state, set_rng_state, is_tensor, frombuffer,  # noqa: F401
                   synchronize, set_deterministic, run_check)
from .generator import Generator, default_generator  # noqa: F401
from .runtime.device_memory import (empty_cache, max_memory_allocated, max_memory_reserved,  # noqa: F401
                                    memory_allocated, memory_reserved, memory_stats, memory_summary,
                                    reset_max_memory_allocated, reset_max_memory_reserved, reset_peak_memory_stats)
from .log import get_level, get_log_config  # noqa: F401
from .common.tensor import swap_tensors  # noqa: F401
from .ops.sparse_tensor import COOTensor, CSRTensor, RowTensor, SparseTensor  # noqa: F401
from .runtime.streams import (Stream, Event, StreamCtx, current_stream, default_stream,  # noqa: F401
                              communication_stream, set_cur_stream, launch_blocking, dispatch_threads_num,
                              set_cpu_affinity)
from .profiler import Profiler  # noqa: F401
from .runtime import (set_memory, set_device_limit, get_device_limit, set_stream_limit, get_stream_limit,  # noqa: F401
                      reset_stream_limit, StreamLimitCtx, set_kernel_launch_capture, set_kernel_launch_group,
                      PluggableAllocator, MemPool, use_mem_pool, memory_replay)
from .runtime.mem_pool import ms_memory_recycle  # noqa: F401
from .runtime.flops import flops_collection  # noqa: F401
from .common.ps_context import set_ps_context, get_ps_context  # noqa: F401
from .common.device_ctx import DeviceCtx  # noqa: F401
from .common.file_system import mindio_preload, set_mindio_server_info  # noqa: F401
from .rewrite import SymbolTree, Node, NodeType, ScopedValue  # noqa: F401  (MindSpore 2.10 exports them at the top)
from .core.symbol import Symbol, enable_dynamic  # noqa: F401
from .core.no_grad import _no_grad  # noqa: F401
from .core.saved_tensors import saved_tensors_hooks, register_saved_tensors_hooks, recompute  # noqa: F401
from .runtime import install_cell_runner as _install_cell_runner
from .nn import cell as _cell, _cell_call
_install_cell_runner(_cell.set_graph_runner, _cell_call.complex_call)
from .parallel import Layout, shard  # noqa: F401,E402  (operator-level sharding; makes Cell.shard act)
from .parallel import (build_searched_strategy, merge_pipeline_strategys, load_distributed_checkpoint,  # noqa: F401,E402
                       transform_checkpoints, transform_checkpoint_by_rank, rank_list_for_transform,
                       convert_checkpoints, convert_checkpoint_by_rank, rank_list_for_convert,
                       get_ckpt_path_with_strategy, load_segmented_checkpoints, parameter_broadcast,
                       sync_pipeline_shared_parameters, restore_group_info_list, set_algo_parameters,
                       get_algo_parameters, reset_algo_parameters)


def __getattr__(name):
    """Subpackages a script may reach as `ms.dataset` etc. without importing them first (PEP 562).

    Only modules that exist are offered, so probes answer instead of raising: `hasattr(ms, "communication")` is
    False while openspore has no such module, and True once it has one.

    >>> import openspore as ms
    >>> hasattr(ms, "dataset"), hasattr(ms, "no_such_module")
    (True, False)
    """
    import importlib
    import importlib.util
    from .common.errors import missing_attribute
    if name.isidentifier() and not name.startswith("_"):
        full = f"{__name__}.{name}"
        try:
            found = importlib.util.find_spec(full) is not None
        except ImportError:  # e.g. the finder of MindSpore modules openspore lacks (_missing_modules)
            found = False
        if found:
            try:
                return importlib.import_module(full)
            except ImportError as exc:  # hasattr must not see an ImportError: say why, as an AttributeError
                raise AttributeError(f"{missing_attribute(_sys.modules[__name__], name)} ({full} failed to import: "
                                     f"{exc})", name=name) from exc
    raise missing_attribute(_sys.modules[__name__], name)
