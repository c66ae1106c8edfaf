"""`mindspore.common.api._cell_graph_executor`: compile a Cell's graph without running it.

MindSpore's own tests (and some user code) call `_cell_graph_executor.compile(net, *inputs)` to check that a
network compiles, expecting graph-mode errors (unsupported syntax, `raise` in construct, type errors) to surface
at that call. Here it compiles the cell through the same per-signature graph cache that calling the cell in
GRAPH_MODE uses, so a later call runs the compiled graph.

>>> import openspore as ms
>>> from openspore.common.api import _cell_graph_executor
>>> class Twice(ms.nn.Cell):
...     def construct(self, x):
...         return x * 2
>>> net = Twice()
>>> _cell_graph_executor.compile(net, ms.Tensor([1.0, 2.0])).startswith("predict.")
True
"""
import itertools

from . import flops

_phase_ids = itertools.count()


class _CellGraphExecutor:
    """Compiles cells; `compile` returns the phase key MindSpore uses to name the compiled graph."""

    def __init__(self):
        self._compiled = set()

    def compile(self, obj, *args, phase="predict", do_convert=True, jit_config_dict=None, **kwargs):
        if not callable(getattr(obj, "construct", None)):
            raise TypeError(f"_cell_graph_executor.compile expects a Cell (an object with a 'construct' method), "
                            f"but got {type(obj).__name__}.")
        runner = flops._runner[0]
        if runner is None:  # nn was never imported, so there is no Cell to compile
            raise RuntimeError("The graph-mode cell runner is not installed (import openspore.nn first).")
        if do_convert:
            runner.compile(obj, args, kwargs)
        key = f"{phase}.{next(_phase_ids)}"
        self._compiled.add(key)
        obj.__dict__["phase"] = phase
        return key

    def has_compiled(self, phase="predict"):
        return phase in self._compiled or any(k.startswith(phase + ".") for k in self._compiled)

    def __call__(self, obj, *args, phase="predict"):
        return obj(*args)


_cell_graph_executor = _CellGraphExecutor()
