"""`mindspore.common.api`: the 1.x path of `jit` and its companions (re-exported from the runtime)."""
from ..runtime.jit import jit, JitConfig, jit_class  # noqa: F401
from ..runtime.signature import mutable  # noqa: F401
from ..runtime.cell_executor import _cell_graph_executor, _CellGraphExecutor  # noqa: F401
