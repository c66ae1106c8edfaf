"""Dumping in PyNative mode (MindSpore dumps graphs only): every primitive call made through `Primitive.__call__`
is written in the same layout, as graph `pynative_graph_id` of the dump.

Enabled by `enable_dump` (dump_writer.py) in PYNATIVE_MODE (`MINDSPORE_DUMP_CONFIG` dumps graphs, as in
MindSpore), which swaps the primitive call entry for `DumpingBind` and swaps it
back on `disable_dump()`: with no dump the call path is untouched. Calls made while a graph is traced are not
PyNative calls and pass straight through.

Kernels are named as pynative_calls.py says (`Default/{PrimName}-op{n}`, backward calls
`Gradients/Default/Grad_{ForwardPrim}/{PrimName}-op{n}` with their forward call's code stack), iterations end
after the optimizer's updates.
"""
import os

from .dump_writer import _write_text
from .graph_describe import stack_frames
from .graph_text import write_graph_text
from .pynative_calls import KernelCalls


class DumpingBind:
    """The `Primitive.__call__` entry while a PyNative dump is on."""

    def __init__(self, observer, original):
        from ... import context
        from ...core import dispatch
        self.observer, self.original, self.dispatch, self.context = observer, original, dispatch, context
        self.graph_id = None
        self.calls = KernelCalls()
        self.active = False
        self.first_iteration = []  # (full name, op type, stack) of iteration 0, for the graph file

    @property
    def iteration(self):
        return self.calls.iteration

    def __call__(self, prim, *args):
        if self.dispatch.current_tracer() is not None or self.context.get_context("mode") != 1:
            return self.original(prim, *args)  # tracing, or eager code around GRAPH_MODE graphs: not dumped
        if self.graph_id is None:
            self.graph_id = next(self.observer._graph_ids)
            self._begin()
        if self.calls.starts_iteration(prim):
            self._end(self.calls.iteration - 1)
            self._begin()
        first = self.calls.iteration == 0
        name, stack = self.calls.name(prim, with_stack=first)
        config = self.observer.config
        selected = self.active and config.selects(name, prim.name, prim.__dict__.get("dump_flag", False))
        if selected and config.input_output in (0, 1):
            for slot, a in enumerate(args):
                self._write(prim.name, name, "input", slot, a)
        result = self.original(prim, *args)
        if selected and config.input_output in (0, 2):
            outs = result if isinstance(result, tuple) else (result,)
            for slot, o in enumerate(outs):
                self._write(prim.name, name, "output", slot, o)
        if first:
            self.first_iteration.append((name, prim.name, stack_frames(stack)))
        self.calls.called(prim, name, stack, result)
        return result

    def _begin(self):
        self.active = self.observer.config.iterations(self.iteration)
        self.dir = os.path.join(self.observer.root, self.observer.config.net_name, str(self.graph_id),
                                str(self.iteration))
        self.writer = _Writer(self)
        if self.active:
            os.makedirs(self.dir, exist_ok=True)

    def _end(self, iteration):
        if self.active and self.observer.config.statistics and self.writer.stat_rows:
            self.writer._write_statistics()
        if iteration == 0:
            self.finish_graph()

    def close(self):
        """End the dump: the iteration under way is complete, the graph file written."""
        if self.graph_id is not None:
            self._end(self.calls.iteration)

    def finish_graph(self):
        """Write the graph file and execution order of what iteration 0 ran."""
        if self.graph_id is None or not self.first_iteration:
            return
        nodes = [(k, op_type, [], name, stack, "") for k, (name, op_type, stack) in enumerate(self.first_iteration)]
        root = self.observer.root
        _write_text(os.path.join(root, "graphs", f"ms_output_trace_code_graph_{self.graph_id}.ir"),
                    write_graph_text(self.graph_id, [], nodes))
        _write_text(os.path.join(root, "execution_order", f"ms_execution_order_graph_{self.graph_id}.csv"),
                    "\n".join(["NodeExecutionOrder-FullNameWithScope"] + [n[0] for n in self.first_iteration])
                    + "\n")
        self.first_iteration = []

    def _write(self, op_type, name, io_kind, slot, value):
        from ...core.tensor import Tensor
        if isinstance(value, Tensor):
            value = value.data_ref()
        elif not hasattr(value, "shape"):
            return
        self.writer._write(op_type, name, io_kind, slot, value)


class _Writer:
    """Borrows GraphDump's tensor writer (file naming, dtype names, statistics) for one write."""

    def __init__(self, owner):
        from ...backends import current
        self.observer, self.config, self.dir = owner.observer, owner.observer.config, owner.dir
        self.backend = current()
        self.stat_rows = []

    from .dump_writer import GraphDump as _G
    _write = _G._write
    _host = _G._host
    _write_statistics = _G._write_statistics
    del _G
