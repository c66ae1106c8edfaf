"""An asynchronous event-file writer (`EventWriter`): records reach the file in order without a training step
waiting for them, packed and written by the writer process (`_writer_process.py`) or a thread. The record framing
is `_records.py`.
"""
import _thread
import atexit
import logging
import os
import queue
import threading
import time

from . import _ring, _writer_client
from ._records import RecordFile
from ._ring import RingSlot

def _event_message(step, wall_time, data, small_only=True):
    """The writer process's "event" message. Values are RingSlots (already in its shared memory: only where they
    lie is sent) or ndarrays (pickled along); with `small_only`, None when an ndarray is not small."""
    end = 0
    values = []
    for plugin, tag, value in data:
        if type(value) is RingSlot:
            end = max(end, value.end)
            value = value.message()
        elif small_only and getattr(value, "nbytes", 0) > 1024:
            return None
        values.append((plugin, tag, value))
    return ("event", step, wall_time, values, end)


def writer_backend():
    """'process' (the default) or 'thread', from OPENSPORE_SUMMARY_WRITER."""
    backend = os.environ.get("OPENSPORE_SUMMARY_WRITER", "process")
    if backend not in ("process", "thread"):
        raise ValueError(f"OPENSPORE_SUMMARY_WRITER should be 'process' or 'thread', got {backend!r}")
    return backend


def close_waits():
    """True (the default) unless OPENSPORE_SUMMARY_CLOSE=background: then `SummaryRecord.close()` returns at once
    and the writer finishes its file meanwhile (interpreter exit waits for it, up to BACKGROUND_CLOSE_WAIT s)."""
    mode = os.environ.get("OPENSPORE_SUMMARY_CLOSE", "wait")
    if mode not in ("wait", "background"):
        raise ValueError(f"OPENSPORE_SUMMARY_CLOSE should be 'wait' or 'background', got {mode!r}")
    return mode == "wait"


class EventWriter:
    """Appends framed records to one file without making a training step wait for them.

    `submit_event(step, data)` queues a step's values ((plugin, tag, ndarray or `RingSlot`) tuples: a slot is an
    array the caller already copied into the writer process's shared ring, see `ring()`); `submit(fn)` queues a function
    returning payload bytes (or None) — the graph and lineage records, built from in-process objects. A writer
    thread takes the queue in order. With `backend="thread"` it packs and writes itself; with `backend="process"`
    (what SummaryRecord uses for its data file) it hands step values to a writer process at low CPU priority
    (`_writer_process.py`), which does the packing (histograms, PNG, protobuf, CRCs) and the writing: on a thread
    that Python work holds the GIL the training loop needs, in the process it only uses CPU training leaves idle.
    The process is taken (started, or reused from the last closed writer: `_writer_client`) by the writer thread,
    never by the caller. Should it die, the thread writes the rest itself (one error reported). Nothing waits for
    the writer but `flush()` and `close()`; `close()` returns once everything is in the file and the file is closed.
    """

    def __init__(self, path, max_file_size=None, on_error=None, first_payload=None, backend="thread"):
        self.path = path
        self.max_file_size = max_file_size
        self.on_error = on_error
        self._first = first_payload
        self._file = None      # RecordFile, thread backend (or after the process died)
        self._proc = None      # the WriterProcess (process backend), taken by the writer thread ...
        self._child = None     # ... and once it has started and was told of this file
        self._first_pending = True
        self._slots_ring = None  # the ring this file's slots are in, released here when packed here
        self._held = [] if backend == "process" else None  # queued items while the writer process starts
        self._backend = backend
        self._started = threading.Event()
        self._boost = threading.Event()  # set when interpreter exit waits for a background close
        self._queue = queue.SimpleQueue()  # C put/get
        # items queued and not yet done by the writer thread; while there are none (and the first record, the
        # version event, is out) a step's event may skip the thread and go straight into the pipe (`_direct`)
        self._order = threading.Lock()
        self._queued = 0
        self._direct = False
        # queued events holding copies (not ring slots) that the writer thread is to move into the ring: while
        # there are any, `ring()` says None, so that slots are reserved in the order their messages are sent
        # (the writer process releases the ring up to a message's last slot)
        self._unringed = 0
        self.moved = 0  # events whose arrays the writer thread moved into the ring (the ring was full)
        self.collections = 0  # collections posted the layout way (`post_collection`)
        self._done = threading.Event()  # the file is closed (or the thread ended otherwise)
        self._close_queued = False
        self._handback = None  # a writer process that never started on this file, for `_writer_client`
        # not `threading.Thread.start()`, which waits until the new thread runs: on a busy machine that wait (a
        # scheduling delay, up to tens of ms) was most of what opening a SummaryRecord cost the training thread
        _thread.start_new_thread(self._main, ())

    def _put(self, kind, item):
        with self._order:
            self._queued += 1
            held = self._held
            if held is not None:  # the writer process is starting (`_wait_for_start`)
                held.append((kind, item))
        if held is None:
            self._queue.put((kind, item))
        elif kind == "close":
            self._wake()

    def submit(self, make_payload):
        self._put("write", make_payload)

    def submit_event(self, step, data):
        """Queue a step's values; or, when its arrays are all in the writer process's ring and nothing queued
        before it is still waiting, post its small message in the ring's message slots (no system call: the writer
        polls), else write it into the pipe now where that cannot block: waking the writer thread would cost the
        training thread GIL hand-overs worth more than that write."""
        wall_time = time.time()
        child = self._child
        if self._direct and child is not None:
            message = _event_message(step, wall_time, data)
            if message is not None:
                with self._order:
                    if not self._queued and self._child is child and (child.post(message) or
                                                                      child.send_now(message)):
                        return
        if self._proc is not None and any(type(v) is not RingSlot and getattr(v, "nbytes", 0) > 1024
                                          for _, _, v in data):
            with self._order:
                self._unringed += 1
            data = (data, True)  # to be moved into the ring by the writer thread
        self._put("event", (step, wall_time, data))

    def post_collection(self, step, layout, scalars, arrays, copies=None):
        """A collection's fast way (SummaryCollector): when the writer process is running and nothing queued waits
        for it, copy `arrays` (as `layout` has them, `_ring.RingLayout`) into its ring with one call and post a
        "collection" message naming only the step, the scalars' values and the reservation (the layout itself is
        sent once per writer process), written into a message slot as 8-byte words (`SharedRing.post_collected`).
        No per-array objects, no per-array message entries, nothing pickled. False, with nothing done, where that
        cannot be (the caller takes `submit_event`). `copies` ((place, address, bytes), `SharedRing.copy_in`),
        where given, are memmoved into the room reserved for the arrays (`SharedRing.reserve_layout`) instead of
        `SharedRing.put_layout`'s numpy copy of `arrays` (the caller checked them against the layout)."""
        child = self._child
        if not self._direct or child is None or self._unringed or self._queued:
            return False
        ring = child.ring
        if ring is None:
            return False
        if layout.sent_to is not child and not self._send_layout(child, layout):
            return False
        if ring.over_mark():
            child.press()
        if copies is None:
            place = ring.put_layout(layout, arrays)
        else:
            place = ring.reserve_layout(layout)
            if place is not None:
                ring.copy_in(place[0], copies)
        if place is None:
            return False
        wall_time = time.time()
        # `child.post_collection`, inline, and no message tuple unless it goes the pipe's way: right after a
        # training step each call level and tuple cost the training thread microseconds
        with self._order:
            if not self._queued and self._child is child:
                lock = child._write_lock
                posted = False
                if not child._stopped and lock.acquire(False):
                    try:
                        posted = ring.post_collected(layout.key, step, wall_time, scalars, place[0], place[1],
                                                     child._written)
                    finally:
                        lock.release()
                if posted or child.send_now(layout.collected(step, wall_time, scalars, *place)):
                    self.collections += 1
                    return True
        message = layout.collected(step, wall_time, scalars, *place)
        # copied, but the message cannot go now: through the writer thread, as the event it stands for
        _, step, wall_time, values, _ = _ring.expand(_ring.layout_of, message)
        data = [(p, t, ring.slot(v, place[1]) if type(v) is tuple else v) for p, t, v in values]
        self._put("event", (step, wall_time, data))
        return True

    def _send_layout(self, child, layout):
        """Send `layout` to the writer process `child` (once: `sent_to`); False where it cannot go now."""
        with self._order:
            if self._queued or self._child is not child or not (child.post(layout.message) or
                                                                child.send_now(layout.message)):
                return False
        layout.sent_to = child
        return True

    def post_straight(self, step, layout, scalars, copies, pulled=None):
        """`post_collection` for `SummaryCollector`'s straight pass, once the writer process has `layout`: the
        checks, the reservation, the copies ((place, address, bytes): `SharedRing.collect`) and the message slot
        in one pass under the locks. `pulled`, where the collector may let the writer process read the layout's
        first array (the input batch) from this process (`_pull`): (the layout saying so, its copies, the array's
        address, the object keeping its memory valid); taken when that writer process can (`pulls`). Where none
        of that can be, `post_collection` decides (the pipe, the writer thread), copying the same way."""
        child = self._child
        if child is not None and layout.sent_to is child and self._direct and not self._unringed:
            ring = child.ring
            lock = child._write_lock
            use, use_copies, address, keep = layout, copies, 0, None
            if pulled is not None and child.pulls and (pulled[0].sent_to is child or
                                                       self._send_layout(child, pulled[0])):
                use, use_copies, address, keep = pulled
            with self._order:
                posted = not self._queued and not child._stopped and lock.acquire(False)
                if posted:
                    try:
                        posted = ring.collect(use, use_copies, step, time.time(), scalars, child._written, address,
                                              keep)
                    finally:
                        lock.release()
            if posted:
                self.collections += 1
                if ring.over_mark():
                    child.press()
                return True
        return self.post_collection(step, layout, scalars, None, copies)

    def flush(self, timeout=None):
        """Block until everything queued so far is written to the file (each record reaches the file as soon as
        the writer has written it: a flush is only needed to wait for that)."""
        done = threading.Event()
        self._put("flush", done)
        done.wait(timeout)

    def writer_process(self):
        """The writer process (a `subprocess.Popen`), or None (thread backend, or it died); waits for its start."""
        self._started.wait()
        proc = self._proc
        return None if proc is None else proc.popen

    def close(self, wait=True):
        """Drain the queue and close the file: everything submitted is in the file (closed, read-only) when this
        returns. The writer process is kept for the next file (`_writer_client.release`). With `wait=False` it
        returns at once and the writer finishes meanwhile, at its low priority; interpreter exit waits for it
        (`_finish_background_closes`)."""
        self.begin_close(wait)
        if wait:
            self.wait_closed()

    def begin_close(self, wait=True):
        """Queue the close (once) without waiting for it: `wait_closed()` then waits. Several writers closed
        this way finish side by side (SummaryRecord's data and lineage files). `wait=False`: nothing will wait
        for it but interpreter exit."""
        with self._order:
            if self._close_queued or self._done.is_set():
                return
            self._close_queued = True
        if not wait:
            with _closing_lock:
                _closing.append(self)
        self._put("close", wait)

    def wait_closed(self, timeout=None):
        """Block until the file is closed; False when `timeout` (seconds) passed first."""
        return self._done.wait(timeout)

    # ---- the writer thread ------------------------------------------------------------------------
    def _main(self):
        try:
            self._run()
        finally:
            self._done.set()

    def _run(self):
        # the writer process is taken (or started: fork and exec) here, not on the caller's thread: it costs the
        # training thread nothing, and the first records simply wait in the queue meanwhile
        if self._backend == "process":
            try:
                self._proc = _writer_client.acquire()
                self._slots_ring = self._proc.ring
            except OSError as exc:  # no process: this thread writes the file itself
                if self.on_error is not None:
                    self.on_error(RuntimeError(f"the summary writer process could not start ({exc}); "
                                               "the file is written by a thread"))
        self._started.set()
        held = self._wait_for_start()
        for kind, item in held:
            if self._do(kind, item):
                return
        while True:
            if self._do(*self._queue.get()):
                return

    def _wait_for_start(self):
        """While a new writer process imports its modules (~0.3 s of CPU, at nice 19: `_writer_client.START_NICE`),
        `_put` holds what comes in `_held` (no wake-up of this thread per record); once the process is ready,
        name the file to it and return what was held, for it. A close that comes first (a short run) is not made
        to wait for that start: the held records are packed here (a collection is ~1 ms), and the process, never
        told of this file, goes to `_writer_client`'s idle slot for the next record. (A flush is held with the
        records before it: it waits for the start.)"""
        proc = self._proc
        if proc is not None:
            proc.on_ready = self._wake
        patience = None if proc is None else proc.created + START_PATIENCE  # its whole start, over records
        while proc is not None and not proc.ready.is_set() and proc.alive():
            with self._order:
                closing = bool(self._held) and self._held[-1][0] == "close"
            if patience is not None and time.monotonic() > patience:
                # one handed back before it was ready (`release` lowers it to nice 19) gets next to no CPU on a
                # busy machine: records must not pile up here all run long; it lowers itself again once started
                patience = None
                proc.set_priority(os.getpriority(os.PRIO_PROCESS, 0))
            if closing:
                proc.on_ready = None
                with self._order:
                    self._proc, held, self._held = None, self._held, None
                for kind, item in held[:-1]:
                    self._do(kind, item)
                self._handback = proc  # once the file is closed
                return held[-1:]
            try:  # woken by the process's "ready" (or its end) and by a close; the timeout is a safety net
                self._queue.get(timeout=1.0)
            except queue.Empty:
                pass
        if proc is not None:
            proc.on_ready = None
            if proc.ready.is_set():
                self._child = proc
                proc.on_error = self.on_error
                self._send(("open", self.path, self.max_file_size))
            else:  # it died while starting: everything is written here
                self._proc = None
                proc.kill()
                if self.on_error is not None:
                    self.on_error(RuntimeError(f"the summary writer process for {self.path} stopped while "
                                               "starting; this process writes the file itself"))
        with self._order:
            held, self._held = self._held, None
        return held or []

    def _wake(self):
        self._queue.put(("wake", None))

    def _do(self, kind, item):
        """Handle one queued item; True once the file is closed (the thread ends)."""
        if kind == "wake":  # a late wake-up from `_wait_for_start`'s wait: nothing to do
            return False
        try:
            if self._first_pending and kind in ("write", "event"):
                self._first_pending = False
                if self._first is not None:
                    self._write(self._first())
            if kind == "write":
                self._write(item())
            elif kind == "event":
                self._event(*item)
            elif kind == "flush":
                # written records are flushed to the OS (readers see them); no fsync: it cost several ms per
                # file at each epoch end, and MindSpore's flush does not promise durability either
                self._wait_child("flush")
                item.set()
            else:
                child = self._handback
                if self._child is not None:
                    child = self._wait_child("close", boost=item or self._boost.is_set())
                if self._file is not None:
                    self._file.close()
                with _closing_lock:  # a background close is done: nothing left for interpreter exit
                    if self in _closing:
                        _closing.remove(self)
                if child is not None:  # handed back before close() returns: the next record finds it
                    if child.ring is not None:  # the writer took everything: the batches it read are let go
                        child.ring.let_go()
                    _writer_client.release(child)
                self._done.set()
                return True
        except Exception as exc:  # a failed record must not kill the writer (or the training)
            if kind == "flush":
                item.set()
            if self.on_error is not None:
                self.on_error(exc)
        finally:
            with self._order:
                self._queued -= 1
            self._direct = not self._first_pending and self._child is not None
        return False

    def _event(self, step, wall_time, data):
        if type(data) is tuple:  # copies taken while the ring was full: into the ring now, then the message
            data = data[0]
            try:
                data = self._into_ring(data)
            finally:
                with self._order:
                    self._unringed -= 1
        message = _event_message(step, wall_time, data, small_only=False)
        if self._send(message):
            return
        from ._event_bytes import event_bytes  # no writer process (or it died): pack here, from the ring's pages too
        local = [(p, t, v.view if type(v) is RingSlot else v) for p, t, v in data]
        self._local().append(event_bytes(step, local, wall_time))
        end = max((v.end for _, _, v in data if type(v) is RingSlot), default=0)
        if end:  # no process reads these slots (it never started, or died): they may be reused
            self._slots_ring.release(end)

    def _into_ring(self, data):
        """`data` with its arrays copied into the writer process's ring, waiting for room (the writer, given this
        process's priority meanwhile, releases it as it packs): copies that waited in the queue are not pickled
        into the pipe, which cost the training process two more copies of each array and the GIL for one. Arrays
        the ring cannot hold (too big, exotic dtype) stay as they are; so does everything once the process is
        gone (this thread then packs them itself)."""
        proc = self._child or self._proc
        ring = None if proc is None else proc.ring
        if ring is None:
            return data
        moved = []
        for plugin, tag, value in data:
            if type(value) is not RingSlot and getattr(value, "nbytes", 0) > 1024:
                slot = ring.put(value)
                while slot is None and ring.fits(value) and proc.alive():
                    proc.press()
                    time.sleep(0.002)
                    slot = ring.put(value)
                value = value if slot is None else slot
            moved.append((plugin, tag, value))
        self.moved += 1
        return moved

    def ring(self):
        """The writer process's shared ring (`_ring.SharedRing`) to copy step values into, or None (thread
        backend, the process not started yet, or gone, or copies taken while it was full still wait to be moved
        into it): then values are copied. A ring three quarters full gives the writer this process's priority."""
        proc = self._proc  # while it starts too: the slots wait for it (or are packed here at close)
        if proc is None or self._unringed:
            return None
        ring = proc.ring
        if ring is not None and ring.over_mark():
            proc.press()
        return ring

    def _local(self):
        if self._file is None:
            self._file = RecordFile(self.path, self.max_file_size)
        return self._file

    def _write(self, payload):
        if payload is not None and not self._send(("raw", payload)):
            self._local().append(payload)

    def _send(self, message):
        """Pass a message to the writer process; False when there is none (thread backend, or it died)."""
        if self._child is None:
            return False
        if self._child.send(message):
            return True
        self._child_died()
        return False

    def _write_unwritten(self, ring, message):
        """Write here one message a dead writer process never wrote (`_unwritten`)."""
        from ._event_bytes import event_bytes
        kind = message[0]
        if kind == "raw":
            self._local().append(message[1])
            return
        if kind == "collection":
            try:
                message = _ring.expand(_ring.layout_of, message)
            except KeyError:  # its collector is gone (and its layout with it): nothing to pack it by
                return
        elif kind != "event":  # "open" (this file), "layout" (this process has it), "flush", "close"
            return
        _, step, wall_time, values, _ = message
        values = [(p, t, ring.view(v) if type(v) is tuple else v) for p, t, v in values]
        self._local().append(event_bytes(step, values, wall_time))

    def _wait_child(self, what, boost=False):
        """Send a flush (or close) to the writer process and wait until it has done everything before it. A close
        returns the process (its file closed) for the caller to hand back (`_writer_client.release`), or None."""
        child = self._child
        if child is None:
            return
        if boost:  # the caller waits on the writer now: it need not yield to training any more
            child.set_priority(os.getpriority(os.PRIO_PROCESS, 0))
        if not child.request(what):
            self._child_died()
            return
        if what == "close":  # the file is closed (the writer answers after closing it)
            self._child = self._proc = None
            return child
        return None

    def _child_died(self):
        with self._order:  # no message is posted to the dead process from now on
            child, self._child, self._proc = self._child, None, None
        if child is None:
            return
        child.kill()
        if child.ring is not None:  # sent before the queued items: written first, by this thread
            for message in _unwritten(child):
                self._write_unwritten(child.ring, message)
        if self.on_error is not None:
            self.on_error(RuntimeError(f"the summary writer process for {self.path} stopped (exit code "
                                       f"{child.popen.returncode}); this process writes the rest of the file "
                                       "itself"))


def _unwritten(child):
    """What the dead writer process `child` never wrote, in the order it was sent: the ring's messages it had not
    taken and the pipe's it had not handled, merged by the count of ring messages each pipe message came after."""
    posted = child.ring.take_unread()
    at = 0
    for before, message in child.unhandled():
        while at < len(posted) and posted[at][0] < before:
            yield _ring.message_of(posted[at][1])
            at += 1
        yield message
    for _, data in posted[at:]:
        yield _ring.message_of(data)


_closing = []
_closing_lock = threading.Lock()
START_PATIENCE = 5.0  # seconds a writer process may take to start before its priority is raised
BACKGROUND_CLOSE_WAIT = 60.0


@atexit.register
def _finish_background_closes():
    """Interpreter exit waits (up to BACKGROUND_CLOSE_WAIT seconds in all) for writers closed with `wait=False`,
    giving their writer processes this process's priority where the OS allows: their files are then complete."""
    deadline = time.monotonic() + BACKGROUND_CLOSE_WAIT
    with _closing_lock:
        writers = list(_closing)
        _closing.clear()
    for writer in writers:  # all of them first: they then finish side by side
        writer._boost.set()
        child = writer._child
        if child is not None:
            child.set_priority(os.getpriority(os.PRIO_PROCESS, 0))
    for writer in writers:
        if not writer.wait_closed(max(0.0, deadline - time.monotonic())):
            logging.getLogger("openspore.summary").error(
                "summary file %s: the writer did not finish within %.0f s of interpreter exit; its last records "
                "are missing", writer.path, BACKGROUND_CLOSE_WAIT)
