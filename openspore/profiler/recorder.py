"""What the profiler measures: the host time of every kernel call, in PyNative (the dispatcher) and in compiled
graphs (the executor), installed only while a profiler runs.

PyNative: `Primitive.__call__` is wrapped for the duration (the same seam the debugger's dump uses), so a run
without a profiler pays nothing. A call made inside another call's backward rule or composite is charged to the
inner primitive only (self time), so the totals add up. Graph mode: a graph observer (runtime/events.py) makes the
executor generate timing hooks around each kernel of graphs compiled while profiling; graphs compiled before
are recompiled (the compile cache keys on the observer generation).
"""
import os
import time

from ..core import dispatch
from ..core.primitive import Primitive
from ..runtime import events


class Event:
    __slots__ = ("op_type", "op_name", "start_ns", "dur_ns", "mode", "shapes")

    def __init__(self, op_type, op_name, start_ns, dur_ns, mode, shapes):
        self.op_type, self.op_name, self.start_ns, self.dur_ns, self.mode, self.shapes = \
            op_type, op_name, start_ns, dur_ns, mode, shapes


def _shapes(args):
    return tuple(tuple(a.shape) if hasattr(a, "shape") else None for a in args)


class Recorder:
    """Collects `Event`s between `start()` and `stop()`; `steps` counts `step()` calls and graph runs."""

    def __init__(self, record_shapes=True):
        self.events = []
        self.record_shapes = record_shapes
        self.steps = 0
        self.pid = os.getpid()
        self._original_call = None
        self._previous_observer = None
        self._child_ns = []

    # ---- PyNative --------------------------------------------------------------------------------------
    def _timed_call(self):
        original = Primitive.__call__
        recorder = self

        def profiled_call(prim, *args):
            if dispatch._tracers:  # graph capture records IR: nothing runs here
                return original(prim, *args)
            children = recorder._child_ns
            children.append(0)
            start = time.perf_counter_ns()
            try:
                return original(prim, *args)
            finally:
                total = time.perf_counter_ns() - start
                own = total - children.pop()
                if children:
                    children[-1] += total
                recorder.events.append(Event(prim.name, prim.name, start, own, "PyNative",
                                             _shapes(args) if recorder.record_shapes else ()))
        profiled_call.original = original
        return profiled_call

    # ---- graph mode --------------------------------------------------------------------------------------
    def for_graph(self, graph, backend):
        return _GraphTiming(self)

    def start(self):
        if self._original_call is not None:
            return
        wrapper = self._timed_call()
        self._original_call = wrapper.original
        Primitive.__call__ = wrapper
        self._previous_observer = events.graph_observer()
        observer = self
        if self._previous_observer is not None:
            from ..insight.debugger.hooks import MultiObserver
            observer = MultiObserver([self._previous_observer, self])
        events.set_graph_observer(observer)

    def stop(self):
        if self._original_call is None:
            return
        Primitive.__call__ = self._original_call
        self._original_call = None
        events.set_graph_observer(self._previous_observer)
        self._previous_observer = None

    @property
    def running(self):
        return self._original_call is not None


class _GraphTiming:
    """The executor hook of one compiled graph: kernel times by node."""

    def __init__(self, recorder):
        self.recorder = recorder
        self.names = {}
        self.shapes = {}
        self._start = 0

    def wants(self, node):
        op = node.op
        op_type = getattr(op, "name", str(op))
        self.names[node.id] = (op_type, node.scope or f"Default/{op_type}-op{node.id}")
        return True, True

    def begin(self, inputs=()):
        self.recorder.steps += 1

    def inputs(self, node_id, arrays):
        if self.recorder.record_shapes:
            self.shapes[node_id] = _shapes(arrays)
        self._start = time.perf_counter_ns()

    def output(self, node_id, value):
        now = time.perf_counter_ns()
        op_type, full = self.names[node_id]
        self.recorder.events.append(Event(op_type, full, self._start, now - self._start, "Graph",
                                          self.shapes.get(node_id, ())))

    def end(self):
        pass
