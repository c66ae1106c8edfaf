"""The summary writer process: packs a training run's step values into records and appends them to one event file.

Packing a collection (histograms, the PNG of the input images, protobuf, CRCs) is a few ms of Python. On a thread of
the training process it holds the GIL the training loop needs; here, in a process at the lowest CPU priority (nice 19
rather than SCHED_IDLE: it still gets a small share of a saturated machine), it uses what training leaves idle.
`EventWriter(..., backend="process")` starts it from its writer thread (see `_writer_client._BOOTSTRAP`: it lowers
itself to nice 19 before its imports, `START_NICE`); `close()`, and a shared ring three quarters full, give it the
parent's priority back where the OS allows (the parent waits for it, or soon would); it lowers itself again once it
has caught up.

One writer process serves one file at a time and is reused for the next `SummaryRecord` of the same training
process (`_writer_client.py`). Messages on stdin, each `uint32 length | uint64 posted | pickle` (little-endian; a
private pipe from the parent, never a network), `posted` being how many messages the parent had posted in the
shared ring's message slots (`SharedRing.post`: "event" messages) when it sent this one: those are handled first.
While a file is open the writer also polls the ring every `POLL_SECONDS` for posted messages; the consecutive
"collection" messages one look finds are packed together (`_Writer.handle_all`) and appended with one write.
    ("open", path, max_file_size)                               the file the next records go to (created lazily)
    ("event", step, wall_time, [(plugin, tag, value), ...], end) pack one Event and append it; a value is an
                                                                ndarray or a `RingSlot.message()` naming an array
                                                                in the shared ring, released up to `end` once
                                                                packed (`_ring.py`)
    ("layout", key, entries, scalar_tags)                       how a collection's arrays lie (`_ring.RingLayout`)
    ("collection", key, step, wall_time, scalars, offset, end, pulled)
                                                                an "event" told by its layout: the scalars' values,
                                                                where its arrays were copied (`_ring.expand`) and
                                                                the address of the one it reads from the training
                                                                process (`_pull`)
    ("raw", payload)                                            append bytes the parent built (graph, version)
    ("flush", n)                                                answer "done n" once everything before is written
    ("close", n)                                                close the file (read-only), answer "done n"
It writes "ready" to stdout once its modules are imported (the parent holds a new file's records until then),
"ready pull" where it could read the training process's memory (`_pull.check` of the token on its command line),
errors as "error <message>" lines. End of stdin (the parent is done with it, or died) closes the
file and exits.
"""
import os
import pickle
import select
import struct
import sys

from ._event_bytes import events_bytes
from ._records import RecordFile
from . import _pull
from ._ring_consumer import AttachedRing, expand, message_of

POLL_SECONDS = 0.02  # how soon posted collections are packed while nothing else comes. At collect_freq=1 a wake-up
# finds several (a LeNet step is ~4 ms), packed together: their histograms' numpy calls once, caches warm from the
# one before. close() then finds a few left to pack (~1 ms each); a wake-up costs the nice-19 writer microseconds.


def _read_exact(stream, n):
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def main(ring_fd=-1, ring_size=0, pull_token="-"):
    # the packing modules are imported (above) before "ready": the parent holds records until then, and packs them
    # itself if it closes first
    ring = AttachedRing(ring_fd, ring_size) if ring_fd >= 0 else None
    if ring_fd >= 0:
        os.close(ring_fd)  # mapped
    # unbuffered: `select` then tells the truth about what is left to read
    stdin, stdout = sys.stdin.buffer.raw, sys.stdout.buffer
    writer = _Writer(ring, stdout)
    if ring is not None:
        ring.pull_pid = _pull.check(pull_token)
    _lowest()  # (where it was started at the parent's priority) from now on only CPU that training leaves idle
    stdout.write(b"ready pull\n" if ring is not None and ring.pull_pid else b"ready\n")
    stdout.flush()
    keep_freed_memory()  # (after "ready": the parent's first records need not wait for it)
    try:
        while True:
            if ring is not None and writer.path is not None:
                if not select.select([stdin], [], [], POLL_SECONDS)[0]:
                    if not writer.handle_all(ring.unread()):
                        _lowest()
                    continue
            header = _read_exact(stdin, 12)
            if header is None:  # the parent is done with this writer (or died): what it posted still goes in
                if ring is not None and writer.path is not None:
                    writer.handle_all(ring.unread())
                return
            length, posted = struct.unpack("<IQ", header)
            message = pickle.loads(_read_exact(stdin, length))
            if ring is not None:
                writer.handle_all(ring.unread(posted))  # those posted before this one was sent
                if message[0] in ("flush", "close"):  # counted before the answer: the parent may hand the ring
                    ring.note_read(12 + length)  # on (`SharedRing.reusable`) as soon as it has it
                    writer.handle(message)
                    continue
            writer.handle(message)
            if ring is not None:
                ring.note_read(12 + length)  # handled (written): the training process may let it go
    finally:
        writer.close()


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
HEAP_UP_TO = 32 << 20  # bytes: allocations up to this come from the heap (glibc's largest mmap threshold)
KEEP_FREED = 64 << 20  # bytes: freed memory at the heap's top kept mapped up to this


def keep_freed_memory():
    """Have glibc's malloc keep the memory this process frees instead of handing it back to the OS at once.

    Packing a collection makes numpy temporaries of a few hundred KB (a float64 copy of the weights, their bins'
    indices). By default each such block came from a fresh mmap, or from a heap top that the last free had trimmed,
    so every collection paid page faults and the kernel zeroing those pages again: half the writer's CPU for
    LeNet's five histograms (1.6-2.3 ms -> 0.8 ms a collection), and memory traffic beside the training step on
    the other core. True where set; elsewhere (not glibc: musl, macOS) nothing changes and it says False."""
    import ctypes
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, HEAP_UP_TO)) and bool(mallopt(_M_TRIM_THRESHOLD, KEEP_FREED))


def _lowest():
    """Back to nice 19: after the start, and when caught up after the parent raised the priority because the
    shared ring was filling up (`WriterProcess.press`)."""
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < 19:
            os.setpriority(os.PRIO_PROCESS, 0, 19)
    except (AttributeError, OSError):
        pass


class _Writer:
    """The file being written and what each message does to it."""

    def __init__(self, ring, stdout):
        self.ring, self.stdout = ring, stdout
        self.records, self.path, self.max_file_size = None, None, None
        self.layouts = {}  # RingLayout key -> its ("layout", ...) message's entries and scalar tags, for good

    def handle_all(self, posted):
        """Handle the ring's `posted` messages ((count, bytes): `AttachedRing.unread`) in order, the collections
        among them packed together (`events_bytes`: their histograms' numpy calls once for all) and their records
        appended with one write; each marked taken once written (`AttachedRing.taken`). How many there were."""
        run, last = [], None
        for count, data in posted:
            message = message_of(data)
            if message[0] == "collection" and self.path is not None:
                run.append(message)
                last = count
                continue
            self._collections(run, last)
            run = []
            self.handle(message)
            self.ring.taken(count)
        self._collections(run, last)
        return len(posted)

    def _collections(self, messages, taken):
        """Pack and append a run of "collection" messages, then mark them taken up to count `taken`."""
        if not messages:
            return
        if len(messages) < 2:
            self.handle(messages[0])
            self.ring.taken(taken)
            return
        ring = self.ring
        try:
            events = [expand(self.layouts.__getitem__, message) for message in messages]
            payloads = events_bytes([(step, [(p, t, ring.array(v) if type(v) is tuple else v) for p, t, v in data],
                                      wall_time) for _, step, wall_time, data, _ in events])
        except Exception:  # noqa: BLE001 - one at a time instead: each failure reported for its own record
            first = taken - len(messages) + 1  # (a run's messages are consecutive in the ring)
            for i, message in enumerate(messages):
                self.handle(message)  # (each releases its own pages)
                ring.taken(first + i)
            return
        try:
            if self.records is None:
                self.records = RecordFile(self.path, self.max_file_size)
            self.records.append_all(payloads)
        except Exception as exc:
            self._report(exc)
        # written (or failed, reported): the shared pages may be reused, and the messages are not the training
        # process's to write should this process die from now on
        ring.release(max(event[4] for event in events))
        ring.taken(taken)

    def _report(self, exc):
        self.stdout.write(f"error {type(exc).__name__}: {exc}".replace("\n", " ").encode() + b"\n")
        self.stdout.flush()

    def handle(self, message):
        kind, ring = message[0], self.ring
        try:
            if kind == "layout":
                self.layouts[message[1]] = _Layout(message[2], message[3])
                return
            if kind == "collection":
                message, kind = expand(self.layouts.__getitem__, message), "event"
            if kind == "open":
                self.close()
                self.path, self.max_file_size = message[1], message[2]
            elif kind in ("event", "raw"):
                end = 0
                try:
                    if kind == "raw":
                        payload = message[1]
                    else:
                        _, step, wall_time, data, end = message
                        if end:
                            data = [(p, t, ring.array(v) if type(v) is tuple else v) for p, t, v in data]
                        payload = events_bytes([(step, data, wall_time)])[0]
                    if self.records is None:
                        if self.path is None:
                            raise ValueError("a record came before the file was named ('open')")
                        self.records = RecordFile(self.path, self.max_file_size)
                    self.records.append(payload)
                finally:
                    if end:  # written (or failed, reported): the shared pages may be reused
                        ring.release(end)
            elif kind in ("flush", "close"):
                if kind == "close":
                    self.close()
                self.stdout.write(f"done {message[1]}\n".encode())
                self.stdout.flush()
        except Exception as exc:  # one bad record must not stop the file
            self._report(exc)

    def close(self):
        if self.records is not None:
            self.records.close()
        self.records, self.path = None, None


class _Layout:
    """A `_ring.RingLayout` as the writer process knows it."""

    __slots__ = ("entries", "scalar_tags")

    def __init__(self, entries, scalar_tags):
        self.entries, self.scalar_tags = entries, scalar_tags
