"""Graph-mode runtime: the executor (generated Python over backend arrays), the compile cache and the `jit`
entry points. `install_cell_runner` wires GRAPH_MODE into `nn.Cell` (done by `import openspore`)."""
from .executor import compile_graph, CompiledGraph  # noqa: F401
from .signature import mutable  # noqa: F401
from .memory import set_memory, get_memory  # noqa: F401
from .device_memory import (empty_cache, max_memory_allocated, max_memory_reserved, memory_allocated,  # noqa: F401
                            memory_reserved, memory_stats, memory_summary, reset_max_memory_allocated,
                            reset_max_memory_reserved, reset_peak_memory_stats)
from .streams import (Stream, Event, StreamCtx, current_stream, default_stream, communication_stream,  # noqa: F401
                      set_cur_stream, launch_blocking, dispatch_threads_num, set_cpu_affinity, synchronize)
from .core_limits import (set_device_limit, get_device_limit, set_stream_limit, get_stream_limit,  # noqa: F401
                          reset_stream_limit, StreamLimitCtx)
from .launch_settings import set_kernel_launch_capture, set_kernel_launch_group, get_kernel_launch_settings  # noqa: F401,E501
from .mem_pool import PluggableAllocator, MemPool, use_mem_pool, memory_replay  # noqa: F401
from .flops import flops_collection, set_cell_runner  # noqa: F401
from .jit import jit, JitConfig, jit_class, lazy_inline, no_inline, make_cell_runner  # noqa: F401
from .inference import inference_report  # noqa: F401


def install_cell_runner(set_graph_runner, slow_call):
    """Install the GRAPH_MODE runner into `nn.Cell` (`set_graph_runner` from nn.cell, `slow_call` the PyNative
    path for cells with hooks). The runtime sits below nn, so nn hands these over instead of being imported."""
    runner = make_cell_runner(slow_call)
    set_graph_runner(runner)
    set_cell_runner(runner)   # the flops counter reads the compiled graphs from the runner's caches
    return runner
