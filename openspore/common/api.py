"""`mindspore.common.api`: the 1.x path of `jit` and its companions (re-exported from the runtime)."""
from ..runtime.jit import jit, JitConfig, jit_class  # noqa: F401
from ..runtime.signature import mutable  # noqa: F401
from ..runtime.cell_executor import _cell_graph_executor, _CellGraphExecutor  # noqa: F401


class _PyNativeExecutor:
    """The eager executor's handle MindSpore tests reach for (`_pynative_executor.sync()` before timing): kernels
    launch synchronously here, so syncing only waits for a CUDA device the torch backend may have queued work on."""

    def sync(self):
        from ..runtime.streams import synchronize
        synchronize()


_pynative_executor = _PyNativeExecutor()
