"""Online debugging of a PyNative run (MindSpore's debugger has no PyNative): with `ENABLE_MS_DEBUGGER=1` in
PYNATIVE_MODE every primitive call is a kernel of one graph the debug server sees, watched by the same rules,
paused on the same hits, stepped and inspected as a GRAPH_MODE run is (online.py's OnlineHook does the work).

The kernels of a PyNative step are known only once it has run, so the run connects after its first iteration:
iteration 0 runs, its calls become the graph (names, code stacks and inputs as pynative_calls.py names them;
the Parameters the calls read become the graph's parameters), the server gets it and the run waits for its first
command; iteration 0's tensors are then checked under the watchpoints set meanwhile, and every later iteration
at its end. The last iteration is checked at interpreter exit.

Installed by runtime/events.py on the first PyNative primitive call when the environment asks for the debugger;
GRAPH_MODE runs are untouched (their compiled graphs report through OnlineHook directly).
"""
import atexit

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from .dump_store import _looks_like_weight
from .graph_describe import GraphDescription, KernelInfo, stack_frames
from .online import OnlineHook
from .pynative_calls import KernelCalls


class PyNativeDebugger:
    """The `Primitive.__call__` entry of a PyNative run under the online debugger."""

    def __init__(self, client, original):
        from ... import context
        from ...backends import current
        from ...core import dispatch
        self.client, self.original, self.context, self.dispatch = client, original, context, dispatch
        self.backend = current()
        self.calls = KernelCalls()
        self.graph_id = client._graphs
        client._graphs += 1
        self.hook = None
        self.first = _FirstIteration()
        atexit.register(self.close)  # registered after the client's finish(): runs before it

    def __call__(self, prim, *args):
        if self.dispatch.current_tracer() is not None or self.context.get_context("mode") != 1:
            return self.original(prim, *args)
        if self.calls.starts_iteration(prim):
            self._end_iteration()
        recording = self.hook is None
        name, stack = self.calls.name(prim, with_stack=recording)
        if recording:
            self.first.call(name, prim.name, stack, args)
        result = self.original(prim, *args)
        self.calls.called(prim, name, stack, result)
        if recording:
            self.first.made(name, result)
        elif name in self.hook.names:
            self.hook.output(name, result)
        return result

    def _end_iteration(self):
        if self.hook is None:
            self.hook = OnlineHook(self.client, self.graph_id, None, self.backend, desc=self.first.description())
            self.hook.values = dict(self.first.values)
            self.hook.started = True
            self.hook._wait()  # the first command: watchpoints for iteration 0, run or step
            self.first = None
        self.hook.end()
        self.hook.values = {}

    def close(self):
        """At exit: check the iteration under way (the run's last)."""
        if self.client.connected and self.calls.started:
            self._end_iteration()


class _FirstIteration:
    """The calls of iteration 0: kernel order, code stacks, input edges, Parameters read, values."""

    def __init__(self):
        self.order, self.values, self.params = [], {}, {}
        self._producer = {}  # id(tensor) -> kernel name (tensors stay alive in `values` all iteration long)

    def call(self, name, op_type, stack, args):
        info = KernelInfo(len(self.order), name, op_type, stack_frames(stack or ()), None)
        for a in _tensors(args):
            if isinstance(a, Parameter):
                self.params.setdefault(a.name, a)
                info.inputs.append(a.name)
            elif id(a) in self._producer:
                info.inputs.append(self._producer[id(a)].index)
        self.order.append(info)

    def made(self, name, result):
        self.values[name] = tuple(v.data_ref() if isinstance(v, Tensor) else v for v in result) \
            if isinstance(result, tuple) else result.data_ref() if isinstance(result, Tensor) else result
        for out in _tensors(result if isinstance(result, tuple) else (result,)):
            self._producer[id(out)] = self.order[-1]

    def description(self):
        return _Description(self.order, self.params)


class _Description:
    """What OnlineHook reads of a GraphDescription, for the kernels of a PyNative iteration."""

    def __init__(self, order, params):
        self.order = order
        self.kernels = {k.full_name: k for k in order}
        self.weights = [(name, p) for name, p in params.items()]
        self.input_names = []
        self.params = [(name, _looks_like_weight(name), tuple(p.shape), str(p.dtype)) for name, p in params.items()]

    records = GraphDescription.records


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif type(v) in (tuple, list):
            yield from _tensors(v)


def install(client):
    """Route PyNative primitive calls through a PyNativeDebugger connected by `client` (a DebuggerClient)."""
    from ...core.primitive import Primitive
    debugger = PyNativeDebugger(client, Primitive.__call__)

    def debugging_call(prim, *args):  # a function, so that it binds as a method
        return debugger(prim, *args)
    debugging_call.hook = debugger
    Primitive.__call__ = debugging_call
    return debugger
