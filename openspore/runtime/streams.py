"""Streams and events (`mindspore.runtime.Stream`, `Event`, `current_stream`, ... also at the top level) and the
executor controls `launch_blocking`, `dispatch_threads_num`, `set_cpu_affinity`.

openspore launches every kernel synchronously, in program order, on the host thread — as MindSpore does on its
CPU target — so a stream is an ordering label: work "on" any stream is already finished when the call returns.
`Stream.synchronize`, `Event.synchronize` and `wait_*` therefore return at once (under the torch backend on a
CUDA device they synchronize the device), `query()` is True, and `Event.elapsed_time` measures host time
between two recorded events, in milliseconds.

>>> import openspore as ms
>>> s = ms.Stream()
>>> with ms.StreamCtx(s):
...     ms.current_stream() == s
True
>>> ms.current_stream() == ms.default_stream()
True
>>> start, end = ms.Event(enable_timing=True), ms.Event(enable_timing=True)
>>> start.record(); end.record(); start.elapsed_time(end) >= 0.0
True
"""
import itertools
import os
import time

__all__ = ["Stream", "Event", "StreamCtx", "current_stream", "default_stream", "communication_stream",
           "set_cur_stream", "launch_blocking", "dispatch_threads_num", "set_cpu_affinity", "synchronize"]

_ids = itertools.count()


def _device_sync():
    """Wait for the accelerator when the torch backend runs on one (its kernels may be queued there)."""
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def synchronize():
    """Wait for all launched work on every stream (only a CUDA device under the torch backend can have any)."""
    _device_sync()


class Stream:
    """`Stream(priority=0, **kwargs)`: a label for an ordered sequence of kernel launches; see the module text."""

    def __init__(self, priority=0, **kwargs):
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"For 'Stream', the 'priority' must be an int, but got {type(priority).__name__}.")
        unknown = sorted(set(kwargs) - {"stream"})
        if unknown:
            raise TypeError(f"For 'Stream', got unexpected keyword arguments {unknown}.")
        self.priority = priority
        self.id = kwargs["stream"].id if isinstance(kwargs.get("stream"), Stream) else next(_ids)

    def synchronize(self):
        """Wait for the work launched on this stream (already done: launches are synchronous)."""
        _device_sync()

    def query(self):
        """True: all work launched on this stream has finished."""
        return True

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event):
        """Make later work on this stream wait for `event` (it has happened once recorded)."""
        if not isinstance(event, Event):
            raise TypeError(f"For 'Stream.wait_event', the 'event' must be an Event, but got {type(event).__name__}.")

    def wait_stream(self, stream):
        if not isinstance(stream, Stream):
            raise TypeError(f"For 'Stream.wait_stream', the 'stream' must be a Stream, but got "
                            f"{type(stream).__name__}.")

    def __eq__(self, other):
        return isinstance(other, Stream) and other.id == self.id

    def __hash__(self):
        return hash(("Stream", self.id))

    def __repr__(self):
        return f"Stream(id={self.id}, priority={self.priority})"


_DEFAULT = Stream()
_COMMUNICATION = Stream()
_current = [_DEFAULT]


def current_stream():
    """The stream new work is launched on (the default stream unless set_cur_stream / StreamCtx changed it)."""
    return _current[0]


def default_stream():
    return _DEFAULT


def communication_stream():
    """The stream collectives use."""
    return _COMMUNICATION


def set_cur_stream(stream):
    if not isinstance(stream, Stream):
        raise TypeError(f"For 'set_cur_stream', the 'stream' must be a Stream, but got {type(stream).__name__}.")
    _current[0] = stream


class StreamCtx:
    """`with StreamCtx(stream):` make `stream` current for the block (None leaves the current one)."""

    def __init__(self, ctx_stream):
        if ctx_stream is not None and not isinstance(ctx_stream, Stream):
            raise TypeError(f"For 'StreamCtx', the 'ctx_stream' must be a Stream or None, but got "
                            f"{type(ctx_stream).__name__}.")
        self.stream = ctx_stream
        self._previous = None

    def __enter__(self):
        self._previous = _current[0]
        if self.stream is not None:
            _current[0] = self.stream
        return self.stream

    def __exit__(self, *exc):
        _current[0] = self._previous
        return False


class Event:
    """`Event(enable_timing=False, blocking=False)`: a point in a stream's work; with enable_timing, the host
    time at `record()` (elapsed_time between two events in milliseconds)."""

    def __init__(self, enable_timing=False, blocking=False):
        self.enable_timing, self.blocking = bool(enable_timing), bool(blocking)
        self._time = None
        self.stream = None

    def record(self, stream=None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"For 'Event.record', the 'stream' must be a Stream, but got {type(stream).__name__}.")
        self.stream = stream or current_stream()
        _device_sync()
        self._time = time.perf_counter()

    def query(self):
        return True

    def synchronize(self):
        _device_sync()

    def wait(self, stream=None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"For 'Event.wait', the 'stream' must be a Stream, but got {type(stream).__name__}.")

    def elapsed_time(self, end_event):
        """Milliseconds from this event's record() to `end_event`'s (both created with enable_timing=True)."""
        if not isinstance(end_event, Event):
            raise TypeError(f"For 'Event.elapsed_time', the 'end_event' must be an Event, but got "
                            f"{type(end_event).__name__}.")
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("For 'Event.elapsed_time', both events must be created with enable_timing=True.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("For 'Event.elapsed_time', both events must be recorded first.")
        return (end_event._time - self._time) * 1000.0


_executor = {"launch_blocking": False, "dispatch_threads_num": 1, "cpu_affinity": None}


def launch_blocking():
    """Launch kernels synchronously (for debugging): openspore always does, so this records the request only."""
    _executor["launch_blocking"] = True


def dispatch_threads_num(threads_num):
    """The number of threads dispatching PyNative kernels. openspore dispatches on the calling thread, so only
    the validated value is kept (`runtime_settings()` shows it)."""
    if isinstance(threads_num, bool) or not isinstance(threads_num, int) or threads_num < 1:
        raise ValueError(f"For 'dispatch_threads_num', the 'threads_num' must be a positive int, but got "
                         f"{threads_num!r}.")
    _executor["dispatch_threads_num"] = threads_num


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None, bind_file=None):
    """Bind this process to CPU cores (Linux): `affinity_cpu_list` e.g. ["0-3", "8"] (all cores when None);
    enable_affinity=False restores the cores the process had before. module_to_cpu_dict / bind_file (per-thread
    bindings of MindSpore's runtime modules) are not supported: openspore has no such threads."""
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"For 'set_cpu_affinity', the 'enable_affinity' must be a bool, but got "
                        f"{type(enable_affinity).__name__}.")
    if module_to_cpu_dict is not None or bind_file is not None:
        raise ValueError("For 'set_cpu_affinity', 'module_to_cpu_dict' and 'bind_file' bind MindSpore's runtime "
                         "threads, which openspore does not have; pass affinity_cpu_list only.")
    if not hasattr(os, "sched_setaffinity"):
        raise RuntimeError("For 'set_cpu_affinity', this platform cannot bind a process to CPU cores.")
    if not enable_affinity:
        if _executor["cpu_affinity"] is not None:
            os.sched_setaffinity(0, _executor["cpu_affinity"])
            _executor["cpu_affinity"] = None
        return
    cpus = set(range(os.cpu_count() or 1)) if affinity_cpu_list is None else _parse_cpus(affinity_cpu_list)
    if _executor["cpu_affinity"] is None:
        _executor["cpu_affinity"] = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)


def _parse_cpus(items):
    if not isinstance(items, (list, tuple)) or not items:
        raise TypeError(f"For 'set_cpu_affinity', the 'affinity_cpu_list' must be a non-empty list of strings like "
                        f"'0-3' or '5', but got {items!r}.")
    cpus = set()
    for item in items:
        text = str(item)
        low, _, high = text.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise ValueError(f"For 'set_cpu_affinity', {text!r} is not a core number or range like '0-3'.")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def runtime_settings():
    """The executor settings requested through this module (a copy)."""
    return dict(_executor)
