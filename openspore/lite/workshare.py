"""Work sharing: how a model built with `Context.cpu.thread_num = n >= 2` runs its convolutions on n threads.

numpy's BLAS can split one matrix product over its own threads, but those threads wait for each other: when the
machine is busy and one of them is not scheduled, the product waits for it (measured here, 2 threads on a loaded
2-core machine: ResNet20 batch 1 from 1.6 ms to a 44 ms median). Instead, during a model's predict the BLAS runs
one thread and a convolution is cut into row chunks (kernels/nhwc.py) that the calling thread and n - 1 helper
threads take from a shared list: the caller never waits for a chunk nobody has started, so a helper that is not
scheduled costs nothing but the chunks it does not take. numpy releases the GIL inside its GEMMs and copies,
so the chunks overlap.

Python threads pay for this with the GIL: a helper the OS deschedules while it holds the GIL stalls the caller
too, and on an oversubscribed machine that costs more than the second thread gains (measured here at load 13 on
2 cores: ResNet20 1.4× slower shared than serial). So a model does not trust any one way: `Chooser` times its
calls each way — serial, shared, and BLAS threads inside the GEMMs of large images only (kernels/nhwc.py,
`gemm_threads()`), where OpenBLAS splits the product well on a quiet machine — runs the fastest and tries the
others again now and then, each probe costing at most 1/`probe` of the time (a way a hundred times slower, as
OpenBLAS's threads are on a busy machine, is tried a hundred times less often).

`WorkShare.of(n)` is the process's pool of n threads (helpers start on first use, daemon threads that sleep
while idle); `scope(share)` makes it the calling thread's `current()` pool for the duration of a call. A pool
runs one task list at a time: a second caller meanwhile (ModelParallelRunner's workers) runs its own tasks
itself.

>>> share = WorkShare.of(2)
>>> out = [0] * 4
>>> share.run([lambda k=k: out.__setitem__(k, k * k) for k in range(4)])
>>> out
[0, 1, 4, 9]
>>> with scope(share):
...     current() is share
True
>>> current() is None
True
>>> chooser = Chooser(probe=4)
>>> for seconds in (2.0, 1.0, 2.0, 1.0):
...     chooser.record(chooser.pick(), seconds)
>>> chooser.pick()      # sharing (1) measured faster than serial (0)
1
"""
import os
import threading
from collections import deque

_NO_GEMM = (0, 0)


class _Local(threading.local):
    # class-level defaults: every convolution call reads both, and `getattr(local, name, default)` on a
    # thread-local that lacks the attribute raises and catches an AttributeError inside (~3 µs each here,
    # ~130 µs per ResNet20 call), where a class attribute is a plain lookup
    share = None
    gemm = _NO_GEMM


_LOCAL = _Local()


def current():
    """The WorkShare of the call this thread is running, or None (run serially)."""
    return _LOCAL.share


def threaded():
    """Whether the call this thread is running may share work or thread BLAS (`current()` or `gemm_threads()`
    set): one call where a convolution's per-call path asked both."""
    local = _LOCAL
    return local.share is not None or local.gemm[0] != 0


def gemm_threads():
    """(BLAS threads, least output pixels): a convolution GEMM of at least that many pixels may use that many BLAS
    threads in the call this thread is running ((0, 0): all stay at one)."""
    return _LOCAL.gemm


class scope:  # noqa: N801 (used like a function: `with scope(share):`)
    """Run the block with `share` as `current()` and `gemm` (threads, least pixels) as `gemm_threads()` (the way a
    call was picked)."""

    __slots__ = ("share", "gemm", "saved")

    def __init__(self, share, gemm=_NO_GEMM):
        self.share, self.gemm = share, gemm

    def __enter__(self):
        local = _LOCAL
        self.saved = (local.share, local.gemm)
        local.share, local.gemm = self.share, self.gemm
        return self.share

    def __exit__(self, *exc):
        _LOCAL.share, _LOCAL.gemm = self.saved
        return False


class WorkShare:
    """The caller plus `n - 1` helper threads running lists of zero-argument callables."""

    _pools = {}
    _pools_lock = threading.Lock()

    @classmethod
    def of(cls, n):
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise ValueError(f"WorkShare needs an int n >= 2 threads, but got {n!r}.")
        with cls._pools_lock:
            pool = cls._pools.get(n)
            if pool is None:
                pool = cls._pools[n] = cls(n)
            return pool

    def __init__(self, n):
        self.n = n
        self._reset()

    def _reset(self):
        """Fresh locks and no helpers (also in a forked child, where the parent's helper threads do not exist and
        its locks may have been held at the fork)."""
        self._busy = threading.Lock()  # held by the caller whose task list is being run
        self._cv = threading.Condition()
        self._tasks = ()
        self._next = 0  # index of the next unclaimed task
        self._left = 0  # tasks not yet finished
        self._errors = []
        self._round = 0
        self._helpers = []

    def run(self, tasks):
        """Run every task once (on any of the threads); returns when all have finished, re-raising the first
        error a task raised."""
        if len(tasks) < 2 or not self._busy.acquire(blocking=False):
            for task in tasks:
                task()
            return
        try:
            if not self._helpers:
                self._start()
            with self._cv:
                self._tasks, self._next, self._left, self._errors = tasks, 0, len(tasks), []
                self._round += 1
                self._cv.notify_all()
            self._drain()
            with self._cv:
                while self._left:
                    self._cv.wait()
                self._tasks = ()
                errors = self._errors
            if errors:
                raise errors[0]
        finally:
            self._busy.release()

    def _start(self):
        for k in range(self.n - 1):
            t = threading.Thread(target=self._serve, name=f"lite-workshare-{self.n}-{k}", daemon=True)
            t.start()
            self._helpers.append(t)

    def _drain(self):
        cv = self._cv
        while True:
            with cv:
                k = self._next
                if k >= len(self._tasks):
                    return
                self._next = k + 1
                task = self._tasks[k]
            try:
                task()
            except BaseException as exc:  # handed to the caller, which re-raises it
                self._errors.append(exc)
            with cv:
                self._left -= 1
                if not self._left:
                    cv.notify_all()

    def _serve(self):
        seen = 0
        while True:
            with self._cv:
                while self._round == seen:
                    self._cv.wait()
                seen = self._round
            self._drain()


class Chooser:
    """One of `ways` ways to run a call (model.py: serial, shared, BLAS-threaded GEMMs of large or of all
    images): `pick()` the way with the
    lowest median of its last `window` recorded call times (each way is tried first). The others are tried again
    now and then, so a change of load is noticed, but each only after `probe` times its own median has been spent
    on the best way since it last ran: a probe costs at most about 1/probe of the time, even for a way a hundred
    times slower (OpenBLAS's threads on a busy machine)."""

    __slots__ = ("times", "calls", "probe", "last", "spent")

    def __init__(self, probe=16, window=8, ways=2):
        self.times = tuple(deque(maxlen=window) for _ in range(ways))
        self.calls = 0
        self.probe = probe
        self.last = [0] * ways  # the call count when each way last ran
        self.spent = 0.0  # seconds spent since the last probe

    def pick(self):
        self.calls += 1
        times = self.times
        fewest = min(range(len(times)), key=lambda k: len(times[k]))
        if len(times[fewest]) < 2:
            return fewest
        medians = [_median(t) for t in times]
        best = medians.index(min(medians))
        stale = min((k for k in range(len(times)) if k != best), key=lambda k: self.last[k])
        if self.spent >= self.probe * medians[stale]:
            self.spent = 0.0
            return stale
        return best

    def record(self, way, seconds):
        self.times[way].append(seconds)
        self.last[way] = self.calls
        self.spent += seconds


def _after_fork_in_child():
    for pool in WorkShare._pools.values():
        pool._reset()
    WorkShare._pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
