"""The shared ring's memory format and its consumer's side (`AttachedRing`, in the summary writer process); the
producer's side, in the training process, and the reasons for this shape are in `_ring.py`.

The memfd holds, in order: `_HEADER` bytes of int64 counters — [0] ring bytes consumed (released), [1] pipe bytes
the writer has handled, [2] messages posted, [3] messages the writer has taken — then the data area, then
`MESSAGE_SLOTS` message slots of `MESSAGE_SIZE` bytes.

    >>> from openspore.train.summary._ring import SharedRing
    >>> ring = SharedRing.create(1 << 16)
    >>> consumer = AttachedRing(ring.fd, ring.size)
    >>> ring.post(b"\\x80hello", 0), [bytes(m) for m in consumer.messages()]
    (True, [b'\\x80hello'])
"""
import mmap
import pickle
import struct

import numpy as np

from . import _pull

_HEADER = 64
# as many slots as the ring holds LeNet collections: a writer lagging behind (nice 19 on a busy machine) then
# still takes every collection's message from a slot. Once they were all full, each message went through the pipe:
# a system call on the training thread, and a wake-up of the writer
MESSAGE_SLOTS = 512
MESSAGE_SIZE = 2048  # a LeNet collection's message is ~600 bytes; a bigger one goes through the pipe
_MESSAGE_AREA = MESSAGE_SLOTS * MESSAGE_SIZE
# backed and mapped at once: a page first touched by a collecting step would cost it a page fault (~30 per 128 KiB)
_FLAGS = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)

# A message slot: its payload's length and the pipe count (`post`'s `piped`) as two int64 words, then the payload.
# A "collection" posted in a slot is not pickled but written as 8-byte words straight into the slot: "C" (67), layout
# key, step, wall time (a double), offset, end, the pulled array's address (0: none), then the scalars as doubles
# (`_write_collection`). After a training
# step (caches cold) pickling that small tuple cost the training thread ~20 us, and one `struct.pack_into` of it ~11
# us; word stores through two typed views of the slots take the same few lines of C each time, ~half of that.
_SLOT_HEAD = 16
_SLOT_WORDS = MESSAGE_SIZE // 8
_COLLECTION_HEAD = struct.Struct("<qqqdqqq")  # "C", key, step, wall time, offset, end, pulled address
_COLLECTION_C = ord("C")  # the payload's first byte (little-endian), never a pickle's (0x80)
MAX_SCALARS = _SLOT_WORDS - 2 - 7


def message_of(data):
    """A message slot's payload as the message tuple: a "collection" (`SharedRing.collect`) or a pickled message
    (`SharedRing.post`)."""
    if data[:1] != b"C":
        return pickle.loads(data)
    _, key, step, wall_time, offset, end, pulled = _COLLECTION_HEAD.unpack_from(data)
    n = (len(data) - _COLLECTION_HEAD.size) // 8
    scalars = list(struct.unpack_from(f"<{n}d", data, _COLLECTION_HEAD.size))
    return ("collection", key, step, wall_time, scalars, offset, end, pulled)


def expand(layouts, message):
    """A "collection" message as the "event" message it stands for, its layout looked up with `layouts(key)`
    (which returns an object with `entries` and `scalar_tags`). A pulled array (`at` -1) is named by its address in
    the training process: ("pulled", address, dtype, shape)."""
    _, key, step, wall_time, scalars, offset, end, pulled = message
    layout = layouts(key)
    values = [("scalar", tag, value) for tag, value in zip(layout.scalar_tags, scalars)]
    values += [(plugin, tag, ("ring", offset + at, dtype, shape) if at >= 0 else ("pulled", pulled, dtype, shape))
               for plugin, tag, dtype, shape, at in layout.entries]
    return ("event", step, wall_time, values, end)


class AttachedRing:
    """The consumer's side, in the writer process: resolve slot messages, release what was packed."""

    def __init__(self, fd, size):
        self._map = mmap.mmap(fd, size, flags=_FLAGS)
        self._counters = memoryview(self._map)[:32].cast("q")
        self._slots = size - _MESSAGE_AREA
        self.pull_pid = None

    def messages(self, upto=None):
        """Yield the posted messages (bytes) not taken yet, in order: up to count `upto`, or (None) all those
        posted now whose pipe messages sent before them were read; each is marked taken once the caller asks for
        the next."""
        for seq, data in self.unread(upto):
            yield data
            self.taken(seq)

    def unread(self, upto=None):
        """`messages` as a list of (count to mark `taken` once it is written, bytes), none marked: the writer
        process marks each once its record is in the file, so that one killed while packing leaves what it had
        not written yet to the training process (`SharedRing.take_unread`) instead of losing it."""
        end = self._counters[2] if upto is None else min(upto, self._counters[2])
        seq, found = self._counters[3], []
        while seq < end:
            if upto is None and _slot_piped(self._map, self._slots, seq) > self._counters[1]:
                break  # a pipe message sent before it is still unread: that one first
            found.append((seq + 1, _slot_bytes(self._map, self._slots, seq)))
            seq += 1
        return found

    def taken(self, count):
        """The messages below `count` are handled: their slots may be reused, and a dead writer's are not."""
        if count > self._counters[3]:
            self._counters[3] = count

    def array(self, message):
        """The array a `RingSlot.message()` names (a view of the shared pages: valid until released), or a pulled
        one read from the training process (`pull_pid`, set once `_pull.check` succeeded)."""
        if message[0] == "pulled":
            if self.pull_pid is None:
                raise OSError("a pulled array, but this writer process cannot read the training process")
            return _pull.pull(self.pull_pid, *message[1:])
        _, offset, dtype, shape = message
        return np.ndarray(shape, np.dtype(dtype), self._map, _HEADER + offset)

    def release(self, end):
        """Everything reserved up to `end` has been packed: the producer may reuse it."""
        if end > self._counters[0]:
            self._counters[0] = end

    def note_read(self, nbytes):
        """The writer handled `nbytes` more of the pipe (its message is written): the training process keeps each
        pipe message until then, to write it itself should this process die (`WriterProcess.unhandled`)."""
        self._counters[1] += nbytes


def _slot_bytes(shared_map, base, seq):
    at = base + (seq % MESSAGE_SLOTS) * MESSAGE_SIZE
    length = int.from_bytes(shared_map[at:at + 8], "little")
    return shared_map[at + _SLOT_HEAD:at + _SLOT_HEAD + length]


def _slot_piped(shared_map, base, seq):
    at = base + (seq % MESSAGE_SLOTS) * MESSAGE_SIZE + 8
    return int.from_bytes(shared_map[at:at + 8], "little")
