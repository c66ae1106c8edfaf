"""Ordered worker pools that run the pipeline's Python work (map operations, generator reads, per_batch_map).

Rows travel in chunks (one task = a run of consecutive rows), so that cheap rows do not each pay a round trip
through the queues: `_Chunker` sizes each chunk from the per-row cost and size the workers report, aiming at a few
milliseconds of work per task. Tasks go round-robin to the workers, so task k always runs on worker k % n: results
come back in input order. With a seed set, a worker process seeds the random transforms' stream afresh for each
row from (seed, pipeline node, pass, row number), so a row's draws depend neither on timing nor on which worker
or chunk carries it.
At most `window` tasks are in flight. Worker failures become one clear exception in the consumer;
a worker that dies is noticed by polling, so the consumer never waits forever.

Processes are forked where the platform allows (operations need not be picklable then); their results
come back through an anonymous shared mapping made before the fork, one slot per in-flight task,
or pickled when a row does not fit its slot.

Workers never outlive the process that started them: each watches its parent from a thread (and, on Linux,
asks the kernel for SIGKILL when the parent dies), so a worker stuck inside a map function still ends when
the training script is killed.
"""
import collections
import concurrent.futures
import itertools
import mmap
import multiprocessing as mp
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback
import warnings
import weakref

import numpy as np

from .. import config

_POLL_S = 0.2
TASK_TARGET_S = 0.004  # work per task the chunker aims at: well above a queue round trip (~0.1-0.5 ms)
MAX_CHUNK = 64
_DEFAULT_ROW_MB = 16
_ROW_STREAM = 0x50F  # tags the per-row transform streams of seeded workers


class _Chunker:
    """How many rows the next task carries.

    From the per-row seconds and bytes the finished tasks report: the chunk that takes about TASK_TARGET_S and
    holds no more bytes than one maximal row (so rows in flight take no more memory than unchunked), growing at
    most twofold per task (the first rows come back quickly).

    >>> c = _Chunker()
    >>> c.next_size(), c.observe(1, 1e-5, 100), c.next_size(), c.next_size()
    (1, None, 2, 4)
    """

    def __init__(self, row_limit=_DEFAULT_ROW_MB << 20):
        self.row_limit = row_limit
        self.size = 1
        self.tasks = 0
        self.seconds_per_row = None
        self.bytes_per_row = 0

    def next_size(self):
        self.tasks += 1
        if self.seconds_per_row is None:  # nothing measured yet: one row at a time
            return 1
        want = int(TASK_TARGET_S / max(self.seconds_per_row, 1e-7))
        if self.bytes_per_row:
            want = min(want, self.row_limit // self.bytes_per_row)
        self.size = max(1, min(want, MAX_CHUNK, 2 * self.size))
        return self.size

    def observe(self, rows, seconds, nbytes):
        if rows:
            self.seconds_per_row = seconds / rows
            self.bytes_per_row = max(self.bytes_per_row, nbytes // rows + 64)


def _dumps(obj):
    # pickled here, not in the queue's feeder thread, where a failure would be printed and the item lost
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


class TaskError(Exception):
    """Raised inside a task to name the operation that failed (its name travels back to the consumer)."""

    def __init__(self, op_name, exc):
        super().__init__(op_name, f"{type(exc).__name__}: {exc}")
        self.op_name = op_name
        self.summary = f"{type(exc).__name__}: {exc}"
        self.tb = "".join(traceback.format_exception(exc))


def describe_failure(exc):
    """(op_name or None, 'Type: message', traceback text) for an exception raised by a task."""
    if isinstance(exc, TaskError):
        return exc.op_name, exc.summary, exc.tb
    return None, f"{type(exc).__name__}: {exc}", "".join(traceback.format_exception(exc))


def _fits_slot(result, slot_size):
    if not isinstance(result, tuple) or not all(isinstance(a, np.ndarray) and a.dtype.kind in "biufcSUV"
                                                for a in result):
        return False
    return sum(a.nbytes + 64 for a in result) <= slot_size


def _pack(result, shm, slot, slot_size, base=None):
    """Put a row into its shared slot (or at byte `base` of the mapping) when it fits; else pickle it."""
    if base is not None or (shm is not None and slot >= 0 and _fits_slot(result, slot_size)):
        base = slot * slot_size if base is None else base
        offset = 0
        layout = []
        for a in result:
            a = a if a.flags.c_contiguous else a.copy(order="C")  # ascontiguousarray would make 0-d 1-d
            dst = np.frombuffer(shm, dtype=np.uint8, count=a.nbytes, offset=base + offset)
            dst[...] = a.reshape(-1).view(np.uint8)
            del dst
            layout.append((a.dtype.str, a.shape, base + offset))
            offset += (a.nbytes + 63) // 64 * 64
        return ("shm", layout)
    return ("obj", result)


def _pack_rows(results, shm, slot, row_limit):
    """The rows of one task: each into the task's shared slot of `row_limit` bytes while it fits, else pickled
    with the message."""
    if shm is None or slot < 0:
        return [("obj", result) for result in results]
    base, left = slot * row_limit, row_limit
    packed = []
    for result in results:
        size = sum(a.nbytes + 64 for a in result) if _fits_slot(result, left) else -1
        if size >= 0:
            packed.append(_pack(result, shm, 0, 0, base))
            used = sum((a.nbytes + 63) // 64 * 64 for a in result)
            base += used
            left -= max(used, size)
        else:
            packed.append(("obj", result))
    return packed


def _row_bytes(results):
    return sum(a.nbytes for r in results if isinstance(r, tuple) for a in r if isinstance(a, np.ndarray))


def _unpack(shm, layout):
    out = []
    for dtype, shape, offset in layout:
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        view = np.frombuffer(shm, dtype=dtype, count=count, offset=offset)
        out.append(view.reshape(shape).copy())
        del view
    return tuple(out)


def _die_with_parent(parent_pid, kernel_signal):
    """End this worker when its parent is gone, even while the task itself hangs."""
    if kernel_signal and sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the request above took effect
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent_pid:
                os._exit(1)
    threading.Thread(target=watch, name="openspore-dataset-parent-watch", daemon=True).start()


def _worker_main(wid, fn, in_q, out_q, shm, slot_size, parent_pid, seed_keys, current, kernel_signal=False):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the consumer's to handle; it then stops us
    _die_with_parent(parent_pid, kernel_signal)
    config._reseed_ops(*seed_keys, wid)
    per_row_streams = config._state["seed_set"]
    while True:
        try:
            task = in_q.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent_pid:  # orphaned: the consumer died without stopping us
                return
            continue
        if task is None:
            return
        first_row, payloads, slot = pickle.loads(task)
        results, failure = [], None
        start = time.perf_counter()
        for k, payload in enumerate(payloads):
            current[wid] = first_row + k  # read by the consumer if this process dies mid-row
            if per_row_streams:
                config._reseed_ops_for_row(*seed_keys, _ROW_STREAM, first_row + k)
            try:
                results.append(fn(payload))
            except Exception as exc:  # noqa: BLE001 - every failure must reach the consumer
                failure = (k, describe_failure(exc))
                break
        elapsed = time.perf_counter() - start
        try:
            data = _dumps((first_row, _pack_rows(results, shm, slot, slot_size), failure, elapsed,
                           _row_bytes(results)))
        except Exception:  # noqa: BLE001 - a row that cannot be pickled: send the rows before it, name it
            data = _dumps(_send_what_pickles(first_row, results, failure, elapsed))
        out_q.put(data)


def _send_what_pickles(first_row, results, failure, elapsed):
    for k, result in enumerate(results):
        try:
            pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001
            return first_row, [("obj", r) for r in results[:k]], (k, describe_failure(exc)), elapsed, 0
    return first_row, [("obj", r) for r in results], failure, elapsed, 0


def _shutdown(procs, queues, shm_holder):
    for q in queues[0]:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    deadline = time.monotonic() + 0.5
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join(1.0)
    for qs in queues:
        for q in qs:
            q.cancel_join_thread()
            q.close()
    if shm_holder:
        try:
            shm_holder[0].close()
        except BufferError:  # a view is still alive somewhere; the mapping goes with the process
            pass
        shm_holder.clear()


def _start_method():
    return "fork" if "fork" in mp.get_all_start_methods() else "spawn"


class ProcessPool:
    """`num_workers` processes running `fn(payload)`; `imap` yields results in payload order."""

    def __init__(self, fn, num_workers, on_error, seed_keys=(), max_rowsize=None):
        self.num_workers = num_workers
        self.window = max(config.get_prefetch_size(), 2 * num_workers)
        self._on_error = on_error
        method = _start_method()
        ctx = mp.get_context(method)
        self._shm = None
        self._slot_size = 0
        if method == "fork" and config.get_enable_shared_mem():
            mb = _DEFAULT_ROW_MB if max_rowsize is None or max_rowsize < 0 else max_rowsize
            if mb > 0:
                self._slot_size = int(mb * 1024 * 1024)
                try:  # shared, anonymous, pages on demand; inherited by the forked workers
                    self._shm = mmap.mmap(-1, self._slot_size * self.window)
                except (OSError, ValueError, OverflowError):  # too large for this machine: rows go pickled
                    self._shm, self._slot_size = None, 0
        self._chunker = _Chunker(self._slot_size or (_DEFAULT_ROW_MB << 20))
        self._in = [ctx.Queue() for _ in range(num_workers)]
        self._out = [ctx.Queue() for _ in range(num_workers)]
        self._procs = []
        self._current = ctx.RawArray("q", num_workers)  # task each worker is running, shared memory
        for wid in range(num_workers):
            self._current[wid] = -1
        shm_holder = [self._shm] if self._shm is not None else []
        # PR_SET_PDEATHSIG fires when the *thread* that started the worker ends: only safe from the main thread
        kernel_signal = threading.current_thread() is threading.main_thread()
        for wid in range(num_workers):
            p = ctx.Process(target=_worker_main, daemon=True,
                            args=(wid, fn, self._in[wid], self._out[wid], self._shm, self._slot_size,
                                  os.getpid(), tuple(seed_keys), self._current, kernel_signal))
            p.start()
            self._procs.append(p)
        self._finalizer = weakref.finalize(self, _shutdown, self._procs, (self._in, self._out), shm_holder)

    def close(self):
        self._finalizer()

    def _receive(self, wid, task_no):
        proc = self._procs[wid]
        interval = config.get_multiprocessing_timeout_interval()
        started = last_warn = time.monotonic()
        while True:
            try:
                return pickle.loads(self._out[wid].get(timeout=_POLL_S))
            except queue.Empty:
                pass
            if not proc.is_alive():
                try:  # it may have sent the result just before exiting
                    return pickle.loads(self._out[wid].get(timeout=_POLL_S))
                except queue.Empty:
                    running = self._current[wid]
                    raise self._on_error(running if running >= task_no else task_no, None,
                                         f"worker process {proc.pid} exited unexpectedly (exit code {proc.exitcode})",
                                         "") from None
            now = time.monotonic()
            if now - last_warn >= interval and config.get_enable_watchdog():
                last_warn = now
                running = max(task_no, self._current[wid])  # the row of its chunk it is inside now
                warnings.warn(f"Dataset worker process {proc.pid} (worker {wid}) has not returned row {running} of "
                              f"its input after {now - started:.0f} s; it may be stuck in the operation. The "
                              "watchdog warns again every ds.config.get_multiprocessing_timeout_interval() seconds "
                              f"({interval} s).", RuntimeWarning, stacklevel=2)

    def imap(self, payloads):
        try:
            yield from _in_order(payloads, self.window, self._chunker, self._send, self._collect, self._on_error)
        finally:
            self.close()

    def _send(self, task_no, first_row, chunk):
        wid = task_no % self.num_workers
        slot = task_no % self.window if self._shm is not None else -1
        try:
            data = _dumps((first_row, chunk, slot))
        except Exception as exc:  # noqa: BLE001
            bad = _first_unpicklable(chunk)
            raise self._on_error(first_row + bad, None, f"its input could not be sent to a worker "
                                 f"({type(exc).__name__}: {exc})", "") from exc
        self._in[wid].put(data)
        return wid

    def _collect(self, first_row, wid):
        _, packed, failure, elapsed, nbytes = self._receive(wid, first_row)
        self._chunker.observe(len(packed), elapsed, nbytes)
        rows = [_unpack(self._shm, p[1]) if p[0] == "shm" else p[1] for p in packed]
        return rows, failure


class ThreadPool:
    """Same contract as ProcessPool, with threads (python_multiprocessing=False)."""

    def __init__(self, fn, num_workers, on_error):
        self.window = max(config.get_prefetch_size(), 2 * num_workers)
        self._fn = fn
        self._on_error = on_error
        self._chunker = _Chunker()
        self._executor = concurrent.futures.ThreadPoolExecutor(num_workers, thread_name_prefix="openspore-dataset")

    def close(self):
        self._executor.shutdown(wait=False, cancel_futures=True)

    def imap(self, payloads):
        try:
            yield from _in_order(payloads, self.window, self._chunker, self._submit, self._collect, self._on_error)
        finally:
            self.close()

    def _run(self, chunk):
        results, failure = [], None
        start = time.perf_counter()
        for k, payload in enumerate(chunk):
            try:
                results.append(self._fn(payload))
            except Exception as exc:  # noqa: BLE001 - reaches the consumer through _collect
                failure = (k, describe_failure(exc))
                break
        return results, failure, time.perf_counter() - start

    def _submit(self, task_no, first_row, chunk):
        return self._executor.submit(self._run, chunk)

    def _collect(self, first_row, future):
        results, failure, elapsed = future.result()
        self._chunker.observe(len(results), elapsed, 0)
        return results, failure


def _first_unpicklable(items):
    for k, item in enumerate(items):
        try:
            pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001
            return k
    return 0


def _in_order(payloads, window, chunker, send, collect, on_error):
    """Results of `payloads` in input order, keeping up to `window` tasks (chunks of rows) in flight:
    `send(task_no, first_row, chunk)` starts one and returns a handle, `collect(first_row, handle)` waits for
    (its rows, None or (index in the chunk, failure)). Rows before a failure are yielded, then its error raised."""
    it = iter(payloads)
    pending = collections.deque()
    task_no = first_row = 0
    exhausted = False
    while True:
        while not exhausted and len(pending) < window:
            size = chunker.next_size()
            chunk = list(itertools.islice(it, size))
            if len(chunk) < size:
                exhausted = True
            if not chunk:
                break
            pending.append((first_row, send(task_no, first_row, chunk)))
            task_no += 1
            first_row += len(chunk)
        if not pending:
            return
        done_row, handle = pending.popleft()
        rows, failure = collect(done_row, handle)
        yield from rows
        if failure is not None:
            k, (op_name, summary, tb) = failure
            raise on_error(done_row + k, op_name, summary, tb)


def make_pool(fn, num_workers, use_processes, on_error, seed_keys=(), max_rowsize=None):
    """A pool for `num_workers` > 1, or None when the work should run inline (debug mode, one worker).

    With processes asked for and no count given, the count is config.get_num_parallel_workers(); without
    processes and no count, Python work runs inline (threads would only contend for the GIL).
    """
    if num_workers is None and use_processes:
        num_workers = config.get_num_parallel_workers()
    if num_workers is None or num_workers <= 1 or config.get_debug_mode():
        return None
    if use_processes:
        return ProcessPool(fn, num_workers, on_error, seed_keys, max_rowsize)
    return ThreadPool(fn, num_workers, on_error)
