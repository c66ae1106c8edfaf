"""A shared-memory ring through which a collection's arrays reach the summary writer process without pickling.

A collecting step has to snapshot weights the next step updates in place. Copying them into a fresh numpy array,
then pickling that (holding the GIL the training loop needs) into a pipe, which the writer process reads and
unpickles, costs the training process three copies and ~0.1 ms of Python per collection. Instead the training
thread copies each array once into this ring, a `memfd` the writer process maps too, and the message through the
pipe names only where the array lies (`RingSlot.message`: offset, dtype, shape). The writer packs straight from
the shared pages and then releases them by storing, in the ring's first 8 bytes, how far it has consumed.

One producer (the training process, `SharedRing.put`) and one consumer (the writer process, `AttachedRing`):
offsets only grow (`end` counts every byte ever reserved), so "free space" is `capacity - (reserved - consumed)`.
A slot never wraps: one that would reach past the end starts again at 0 and the tail is skipped; so does one reserved
when everything before it was released (the pages at the start are then the cached ones). When the ring is
full (the writer at nice 19 lags behind on a busy machine) `put` returns None: the caller then copies the array
and the summary writer thread moves it into the ring once there is room (`EventWriter._event`), so a step never
waits for the writer and nothing is pickled. An array too big for the ring or of an exotic dtype is pickled.
Linux only (`os.memfd_create`); elsewhere `SharedRing.create()` returns None and everything is pickled.

The ring is 64 MiB, backed and mapped at once (a page first touched by a collecting step costs it a fault: 400 us
for a LeNet collection's 375 KB against 50 us for the copy), and made once per training process: a new writer
process takes over the ring of the one before it (`SharedRing.reusable`), so no later `SummaryRecord` pays the
~60 ms of mapping again. Its size lets a writer that lags behind a training loop collecting every step catch up
without the loop waiting (a hundred LeNet collections); past three quarters full the writer is given the training
process's priority (`over_mark`) until it has caught up.

A layout's first array may instead be "pulled" (`RingLayout(pull_first=True)`, `_pull.py`): not copied at all, the
collection's message carries its address in the training process, which holds the array (`collect`'s `keep`, at
most `HOLD_BYTES`) until the writer has released the collection; the writer process reads it from there.

After the data, `MESSAGE_SLOTS` slots of `MESSAGE_SIZE` bytes carry a collection's small message itself
(`post`: a pickled "event" naming its slots), so that a collecting step makes no system call: a pipe write wakes
the writer process at once, which cost the training thread more than the whole message. The writer polls the
posted count while it has a file open (`AttachedRing.messages`); pipe messages carry the count at their sending, so
the writer handles the ring's messages and the pipe's in the order they were sent.

    >>> import numpy as np
    >>> ring = SharedRing.create(1 << 16)
    >>> slot = ring.put(np.arange(6, dtype=np.float32).reshape(2, 3))
    >>> consumer = AttachedRing(ring.fd, ring.size)
    >>> consumer.array(slot.message()).tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    >>> consumer.release(slot.end); ring.in_use()
    0
"""
import collections
import ctypes
import itertools
import mmap
import os
import threading
import weakref

import numpy as np

from . import _pull
# the memory format is shared with the consumer's side; `AttachedRing`, `expand` and `message_of` are named here too,
# as the other modules and the tests know them
from ._ring_consumer import (_COLLECTION_C, _COLLECTION_HEAD, _FLAGS, _HEADER, _MESSAGE_AREA, _SLOT_HEAD, _SLOT_WORDS,
                             MAX_SCALARS, MESSAGE_SIZE, MESSAGE_SLOTS, _slot_bytes)
from ._ring_consumer import AttachedRing, expand, message_of  # noqa: F401

_ALIGN = 64
_KINDS = "biuf"  # numpy bool, ints and floats: their dtype string round-trips through the message
DEFAULT_SIZE = 64 << 20  # ~170 LeNet collections; arrays above a quarter of it are pickled
_memmove = ctypes.memmove


class RingSlot:
    """Where one array lies in the ring (`offset` from the data start, dtype string, shape; `end` is the release
    mark of its reservation). `view` is the training process's own view of it, made when asked for: the thread
    writer's fallback packs from it if the writer process dies, and the npy export reads it."""

    __slots__ = ("offset", "dtype", "shape", "end", "_map")

    def __init__(self, offset, dtype, shape, end, shared_map):
        self.offset, self.dtype, self.shape, self.end, self._map = offset, dtype, shape, end, shared_map

    @property
    def view(self):
        return np.ndarray(self.shape, np.dtype(self.dtype), self._map, _HEADER + self.offset)

    def message(self):
        """The picklable reference the writer process resolves with `AttachedRing.array`."""
        return ("ring", self.offset, self.dtype, self.shape)


class RingLayout:
    """Where a collection's arrays lie in one reservation, told to the writer process once (`message`, a "layout"
    message) so that each collection then names only its step, scalars and reservation ("collection": `collected`)
    instead of every array's tag, dtype, shape and offset. The arrays are of one dtype, back to back (what
    `SharedRing.put_layout` copies); `scalar_tags` name the scalars each collection carries, in order. `sent_to` is
    the writer process that has it (set by the caller). Layouts are kept by key while in use (`layout_of`), so that
    this process can pack a collection itself when its writer process died.

        >>> layout = RingLayout([("histogram", "w", np.dtype(np.float32), (2, 3))], ["loss"])
        >>> expand(layout_of, layout.collected(5, 1.0, [0.5], 64, 128))[3]
        [('scalar', 'loss', 0.5), ('histogram', 'w', ('ring', 64, '<f4', (2, 3)))]
    """

    def __init__(self, arrays, scalar_tags, pull_first=False):
        dtypes = {dtype for _, _, dtype, _ in arrays[bool(pull_first):]}
        if len(dtypes) > 1:
            raise ValueError(f"RingLayout: the arrays are of several dtypes ({sorted(map(str, dtypes))}); one expected")
        self.key = next(_layout_keys)
        self.dtype = dtypes.pop() if dtypes else np.dtype(np.float32)
        entries, at, self.pulled_nbytes = [], 0, 0
        for plugin, tag, dtype, shape in arrays:
            if pull_first and not entries:  # not in the ring: read from the training process (`_pull`), its
                dtype = np.dtype(dtype)  # address in each collection's message
                entries.append((plugin, tag, dtype.str, tuple(shape), -1))
                self.pulled_nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                continue
            entries.append((plugin, tag, self.dtype.str, tuple(shape), at))
            at += int(np.prod(shape, dtype=np.int64)) * self.dtype.itemsize
        self.nbytes, self.size = at, at // self.dtype.itemsize
        self.entries, self.scalar_tags = entries, tuple(scalar_tags)
        self.message = ("layout", self.key, entries, self.scalar_tags)
        self.sent_to = None
        _layouts[self.key] = self

    def with_first_pulled(self):
        """The same arrays and scalars with the first array pulled (`pull_first`): the others start at 0."""
        return RingLayout([(plugin, tag, np.dtype(dtype), shape) for plugin, tag, dtype, shape, _ in self.entries],
                          self.scalar_tags, pull_first=True)

    def collected(self, step, wall_time, scalars, offset, end, pulled=0):
        """The "collection" message of one collection: its arrays copied at `offset` (`SharedRing.put_layout`),
        its pulled array (if the layout has one) at address `pulled` in the training process."""
        return ("collection", self.key, step, wall_time, scalars, offset, end, pulled)


# what `SharedRing.collect` holds at most for pulled arrays not yet packed (a writer lagging far behind): past it,
# the caller copies the array into the ring instead
HOLD_BYTES = 64 << 20


_layout_keys = itertools.count(1)
_layouts = weakref.WeakValueDictionary()  # key -> RingLayout, while someone uses it


def layout_of(key):
    """The `RingLayout` of `key` in this process (the writer process keeps the entries of those it was sent)."""
    return _layouts[key]


class SharedRing:
    """The producer's side: `create(size)` makes the memfd (passed to the writer process as `fd`), `put(array)`
    copies an array in, `put_many(arrays)` several with one reservation and one numpy call. Thread-safe; `fd` may
    be closed once the writer process has it."""

    def __init__(self, fd, size):
        self.fd, self.size = fd, size  # `size`: the whole memfd, message slots included
        self._map = mmap.mmap(fd, size, flags=_FLAGS)
        self._counters = memoryview(self._map)[:32].cast("q")  # plain ints: cheaper than numpy scalars
        self._capacity = size - _HEADER - _MESSAGE_AREA
        self._limit = self._capacity // 4  # bigger arrays would keep the ring full: they are pickled instead
        self._reserved = 0
        self._posted = 0
        self._lock = threading.Lock()
        self._mark = self._capacity * 3 // 4  # `over_mark`
        self._base = self._pinned = None  # `_pin`
        self._held, self._held_bytes = collections.deque(), 0  # `collect`'s pulled arrays: (end, object, bytes)
        self.pulled = 0  # collections posted with a pulled array
        self._bytes = memoryview(self._map)  # `collect`'s copies from memoryviews
        slots = self._bytes[_HEADER + self._capacity:]  # the message slots, as int64 and double words
        self._slot_words, self._slot_reals = slots.cast("q"), slots.cast("d")

    @classmethod
    def create(cls, size=None):
        """A new ring of `size` bytes (`DEFAULT_SIZE`), or None where memfd is unavailable (not Linux, or the
        call fails)."""
        size = size or DEFAULT_SIZE
        if not hasattr(os, "memfd_create") or size <= _HEADER + _ALIGN:
            return None
        fd = None
        try:
            fd = os.memfd_create("openspore-summary-ring")
            os.ftruncate(fd, size + _MESSAGE_AREA)
            return cls(fd, size + _MESSAGE_AREA)
        except OSError:  # no memfd here (a sandbox), or no memory to back it: values are pickled instead
            if fd is not None:
                os.close(fd)
            return None

    def close_fd(self):
        """The writer process has its own descriptor now; the mapping stays."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def reusable(self):
        """Whether a new writer process may take this ring over: everything reserved was released and every
        posted message taken (its last writer finished its work). Resets the pipe count for the new pipe."""
        if self._reserved != self._counters[0] or self._posted != self._counters[3]:
            return False
        self._counters[1] = 0
        return True

    def over_mark(self):
        """Whether more than three quarters of the ring wait for the writer (it is falling behind)."""
        return self._reserved - self._counters[0] > self._mark

    def in_use(self):
        """Bytes reserved and not yet released by the consumer (skipped tails included)."""
        return self._reserved - self._counters[0]

    def piped(self):
        """Bytes of pipe messages the writer process has read so far."""
        return self._counters[1]

    def posted(self):
        """How many messages were posted so far (pipe messages carry it: the writer handles those first)."""
        return self._posted

    def post(self, data, piped):
        """Put one message (bytes) in the next message slot for the writer's next poll, to be handled once the
        writer has read `piped` bytes of the pipe (what was sent before it); False, with nothing posted, when it
        is too big or every slot still waits for the writer."""
        if len(data) > MESSAGE_SIZE - _SLOT_HEAD:
            return False
        with self._lock:
            seq = self._posted
            if seq - self._counters[3] >= MESSAGE_SLOTS:
                return False
            at = _HEADER + self._capacity + (seq % MESSAGE_SLOTS) * MESSAGE_SIZE
            self._map[at:at + _SLOT_HEAD] = len(data).to_bytes(8, "little") + piped.to_bytes(8, "little")
            self._map[at + _SLOT_HEAD:at + _SLOT_HEAD + len(data)] = data
            self._posted = seq + 1
            self._counters[2] = seq + 1  # after the bytes: the writer reads a slot only below this count
        return True

    def post_collection(self, message, piped):
        """`post` of a "collection" message (`RingLayout.collected`), packed into the slot without pickling
        (`message_of` reads it back); False when it has too many scalars or every slot waits for the writer."""
        _, key, step, wall_time, scalars, offset, end = message[:7]
        return self.post_collected(key, step, wall_time, scalars, offset, end, piped)

    def post_collected(self, key, step, wall_time, scalars, offset, end, piped):
        """`post_collection` of the message's fields, without the tuple (`EventWriter.post_collection`)."""
        if len(scalars) > MAX_SCALARS:
            return False
        with self._lock:
            seq = self._posted
            if seq - self._counters[3] >= MESSAGE_SLOTS:
                return False
            self._write_collection(seq, key, step, wall_time, offset, end, scalars, piped)
        return True

    def collect(self, layout, copies, step, wall_time, scalars, piped, pulled=0, keep=None):
        """A whole collection in one locked pass: reserve room for `layout`'s arrays, copy them there and post its
        "collection" message (`post_collected`). `copies` are (place in the collection, source, bytes): memory
        the caller vouches for (`SummaryCollector`'s straight pass checked each array against the layout), the
        source a bytes memoryview over it (copied by slice assignment) or its address (one `memmove`). The first
        ctypes foreign call after a training step cost ~15 us (ctypes' and libffi's code out of every cache),
        a memoryview's slice assignment ~1-5: memoryviews made once serve the memory that stays put. Everything inline: after a training step each call level, tuple and lock cost
        the training thread a microsecond or more (the interpreter's code and data are out of the cache then).
        `pulled`: the address of the layout's pulled array (`_pull`), whose memory `keep` keeps valid: held here
        until the writer has released the collection. False, with nothing done, when it has no arrays or too many
        scalars, or the ring or every message slot is full, or (`keep`) `HOLD_BYTES` are held already."""
        nbytes = layout.nbytes
        if not 0 < nbytes <= self._limit or len(scalars) > MAX_SCALARS:
            return False
        base = self._base or self._pin()
        with self._lock:
            seq = self._posted
            if seq - self._counters[3] >= MESSAGE_SLOTS:
                return False
            if keep is not None:
                held, released = self._held, self._counters[0]
                while held and held[0][0] <= released:
                    self._held_bytes -= held.popleft()[2]
                if self._held_bytes >= HOLD_BYTES:
                    return False
            where = self._place((nbytes + _ALIGN - 1) & -_ALIGN)
            if where is None:
                return False
            for place, source, size in copies:
                if type(source) is int:
                    _memmove(base + where[0] + place, source, size)
                else:
                    start = _HEADER + where[0] + place
                    self._bytes[start:start + size] = source
            self._write_collection(seq, layout.key, step, wall_time, where[0], where[1], scalars, piped, pulled)
            if keep is not None:
                self._held.append((where[1], keep, layout.pulled_nbytes))
                self._held_bytes += layout.pulled_nbytes
                self.pulled += 1
        return True

    def let_go(self):
        """Drop the pulled arrays whose collections the writer has released (`collect` does it as it goes; a
        closing record does it for the last ones, which would otherwise stay held until the next collection)."""
        with self._lock:
            held, released = self._held, self._counters[0]
            while held and held[0][0] <= released:
                self._held_bytes -= held.popleft()[2]

    def held(self):
        """Bytes of pulled arrays held for the writer (`collect`'s `keep`), as of the last collection."""
        return self._held_bytes

    def _write_collection(self, seq, key, step, wall_time, offset, end, scalars, piped, pulled=0):
        """Write a "collection" into message slot `seq` and post it (the lock held, the slot known free)."""
        words, reals = self._slot_words, self._slot_reals
        at = (seq % MESSAGE_SLOTS) * _SLOT_WORDS
        words[at] = _COLLECTION_HEAD.size + 8 * len(scalars)
        words[at + 1] = piped
        words[at + 2] = _COLLECTION_C
        words[at + 3] = key
        words[at + 4] = step
        reals[at + 5] = wall_time
        words[at + 6] = offset
        words[at + 7] = end
        words[at + 8] = pulled
        at += 9
        for value in scalars:
            reals[at] = value
            at += 1
        self._posted = seq + 1
        self._counters[2] = seq + 1  # after the bytes: the writer reads a slot only below this count

    def copy_in(self, offset, copies):
        """`collect`'s copies into room reserved at `offset` (`reserve_layout`)."""
        at = (self._base or self._pin()) + offset
        for place, source, size in copies:
            if type(source) is int:
                _memmove(at + place, source, size)
            else:
                start = _HEADER + offset + place
                self._bytes[start:start + size] = source

    def _pin(self):
        """The address of the ring's data in this process, found once: the ctypes view that gives it also keeps
        the mapping from being closed or moved (it never is: a ring serves every writer process of this one)."""
        self._pinned = ctypes.c_char.from_buffer(self._map)
        self._base = ctypes.addressof(self._pinned) + _HEADER
        return self._base

    def take_unread(self):
        """The posted messages the writer has not taken (its process died), marked taken: the caller writes them
        itself. (count of messages posted before it, bytes) each, for ordering them among the pipe's."""
        with self._lock:
            taken, self._counters[3] = self._counters[3], self._posted
            return [(seq, _slot_bytes(self._map, _HEADER + self._capacity, seq))
                    for seq in range(taken, self._posted)]

    def release(self, end):
        """Slots up to `end` were packed by this process (their writer never started, or died): reuse them."""
        if end > self._counters[0]:
            self._counters[0] = end

    def view(self, message):
        """This process's view of the array a `RingSlot.message()` names (a copy of a pulled one)."""
        if message[0] == "pulled":
            return _pull.local(*message[1:])
        _, offset, dtype, shape = message
        return np.ndarray(shape, np.dtype(dtype), self._map, _HEADER + offset)

    def slot(self, message, end):
        """The `RingSlot` a `RingSlot.message()` names, reserved up to `end`."""
        _, offset, dtype, shape = message
        return RingSlot(offset, dtype, shape, end, self._map)

    def fits(self, array):
        """Whether `put` can ever take `array` (size and dtype), once the writer has released enough."""
        return 0 < array.nbytes <= self._limit and array.dtype.kind in _KINDS

    def put(self, array):
        """Copy `array` into the ring: a `RingSlot`, or None when it does not fit now (the caller copies it)."""
        nbytes = array.nbytes
        if not 0 < nbytes <= self._limit or array.dtype.kind not in _KINDS:
            return None
        place = self._reserve(nbytes)
        if place is None:
            return None
        offset, end = place
        np.copyto(np.ndarray(array.shape, array.dtype, self._map, _HEADER + offset), array, casting="no")
        return RingSlot(offset, array.dtype.str, array.shape, end, self._map)

    def put_many(self, arrays):
        """Copy arrays of one dtype back to back into one reservation with one `np.concatenate`: a list of
        `RingSlot`s, or None (nothing copied) when they are of several dtypes or do not fit now. A collection's
        weights and input batch cost one call instead of one per array."""
        dtype = arrays[0].dtype
        if dtype.kind not in _KINDS or any(a.dtype != dtype for a in arrays):
            return None
        sizes = [a.size for a in arrays]
        total = sum(sizes)
        nbytes = total * dtype.itemsize
        if not 0 < nbytes <= self._limit:
            return None
        place = self._reserve(nbytes)
        if place is None:
            return None
        offset, end = place
        np.concatenate(arrays, axis=None, out=np.ndarray((total,), dtype, self._map, _HEADER + offset))
        slots, code, step = [], dtype.str, dtype.itemsize
        for array, size in zip(arrays, sizes):
            slots.append(RingSlot(offset, code, array.shape, end, self._map))
            offset += size * step
        return slots

    def put_layout(self, layout, arrays):
        """Copy a collection's arrays (of `layout`'s dtype and shapes, in its order: the caller checked) back to
        back with one `np.concatenate` into one reservation, straight from the arrays' own buffers: (offset, end)
        for `layout.collected`, (0, 0) for no arrays, or None (nothing copied) when they do not fit now."""
        place = self.reserve_layout(layout)
        if place is None or not layout.nbytes:
            return place
        offset, end = place
        np.concatenate(arrays, axis=None, out=np.ndarray((layout.size,), layout.dtype, self._map, _HEADER + offset),
                       casting="no")
        return offset, end

    def reserve_layout(self, layout):
        """`put_layout` without the copy: (offset, end) of room for `layout`'s arrays, (0, 0) for none, or None
        when they do not fit now. The caller copies them there (at `_HEADER + offset` in the map) before posting
        the message that names them."""
        if not layout.nbytes:
            return 0, 0
        if layout.nbytes > self._limit:
            return None
        return self._reserve(layout.nbytes)

    def _reserve(self, nbytes):
        """(offset, end) of `nbytes` of free space, or None."""
        with self._lock:
            return self._place((nbytes + _ALIGN - 1) & -_ALIGN)

    def _place(self, need):
        """`_reserve` of `need` bytes (aligned), the lock held."""
        start = self._reserved
        consumed = self._counters[0]
        offset = start % self._capacity
        if start == consumed and offset >= need:
            # drained (the writer keeps up): back to the ring's start. A collection then reuses the pages the
            # last one used, still in the cache, instead of marching through megabytes of cold memory: the
            # copy costs the training thread a third less. (`offset >= need`: the skipped tail plus this
            # slot still fit in the capacity.)
            start += self._capacity - offset
            offset = 0
            # the skipped tail is free as well: consumed up to here. Counted as in use until this slot was
            # released, it left a lagging writer's ring only the `offset` bytes before it (the ring seemed
            # full after a few collections). No race: the writer has released everything reserved so far,
            # and what it releases next ends beyond `start`.
            self._counters[0] = start
        elif offset + need > self._capacity:  # no wrapping inside a slot: skip the tail
            start += self._capacity - offset
            offset = 0
        end = start + need
        if end - self._counters[0] > self._capacity:
            return None
        self._reserved = end
        return offset, end
