"""MindSpore's summary record framing: CRC-32C, one record's bytes, reading records back, appending them to a file.

A record is `uint64 length (LE) | masked CRC-32C of those 8 bytes | payload | masked CRC-32C of the payload`,
with the TFRecord mask `((crc >> 15) | (crc << 17)) + 0xA282EAD8` (fact sheet §3.2). There is no file header.

    >>> frame(b"abc")[:8] == (3).to_bytes(8, "little")
    True
    >>> [r for r in read_records(frame(b"abc") + frame(b"de"))]
    [b'abc', b'de']
    >>> hex(crc32c(b"123456789"))   # the standard CRC-32C check value
    '0xe3069283'
"""
import logging
import os
import struct

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected


def _table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _table()


def crc32c_python(data):
    """CRC-32C of `data` (bytes): table-driven, one byte per lookup (the fallback where google-crc32c is missing).

    >>> hex(crc32c_python(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


try:  # a C (SSE4.2) CRC-32C: the pure-Python loop was most of the writer thread's CPU and held the GIL
    from google_crc32c import value as crc32c
except ImportError:  # pragma: no cover - google-crc32c is a base dependency; a bare install still writes files
    crc32c = crc32c_python


def masked_crc(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload):
    """One record: length, its masked CRC, payload, its masked CRC."""
    header = struct.pack("<Q", len(payload))
    return b"".join((header, struct.pack("<I", masked_crc(header)), payload, struct.pack("<I", masked_crc(payload))))


class CorruptRecord(ValueError):
    """A record whose CRC does not match its bytes."""


def read_records(data, offset=0, check_crc=True, stop_at=None, on_corrupt=None):
    """Yield the payloads of the complete records in `data` from `offset`; a trailing partial record (a file
    still being written) is left for later. With `stop_at` (a list), its first element becomes the offset
    just past the last complete record.

    A record whose CRC does not match raises `CorruptRecord`, unless `on_corrupt(offset, reason)` is given: then
    a damaged payload is skipped (its length is sound), and after a damaged length the reading goes on at the
    next offset where a whole record with both CRCs sound begins — so one bad byte costs one record, not the run.
    With no such offset yet (a file still being written), the reading stops at the damage for a later call.
    """
    end = len(data)
    while offset + 12 <= end:
        # the length is checked before it is trusted: a damaged one must not pass for a record still being written
        if check_crc and not _length_sound(data, offset):
            _damaged(offset, "the length's CRC does not match", on_corrupt)
            found = _next_sound_record(data, offset + 1)
            if found is None:  # nothing sound after the damage yet: stop at it for a later call
                break
            offset = found
            continue
        (length,) = struct.unpack_from("<Q", data, offset)
        if offset + 12 + length + 4 > end:
            break
        record_at, offset = offset, offset + 16 + length
        payload = data[record_at + 12:record_at + 12 + length]
        if stop_at is not None:
            stop_at[:] = [offset]
        if not check_crc or _stored_crc(data, offset - 4) == masked_crc(payload):
            yield payload
        else:
            _damaged(record_at, "the payload's CRC does not match", on_corrupt)
    if stop_at is not None and not stop_at:
        stop_at[:] = [offset]


def _damaged(offset, reason, on_corrupt):
    if on_corrupt is None:
        raise CorruptRecord(f"summary record at byte {offset}: {reason}")
    on_corrupt(offset, reason)


def _stored_crc(data, at):
    return struct.unpack_from("<I", data, at)[0]


def _length_sound(data, offset):
    return _stored_crc(data, offset + 8) == masked_crc(data[offset:offset + 8])


def _next_sound_record(data, offset):
    """The first offset from `offset` where a whole record starts whose length and payload CRCs both match."""
    end = len(data)
    while offset + 16 <= end:
        if _length_sound(data, offset):
            (length,) = struct.unpack_from("<Q", data, offset)
            if offset + 16 + length <= end and \
                    _stored_crc(data, offset + 12 + length) == masked_crc(data[offset + 12:offset + 12 + length]):
                return offset
        offset += 1
    return None


class RecordFile:
    """One event file being appended to: each record framed, written with one `write` and flushed, so a reader
    tailing the file sees whole records or a partial last one it waits for. `max_file_size` drops records (with a
    warning) once the next one would not fit, counting 16 framing bytes per record. `close()` leaves the file
    read-only (0400), as MindSpore does."""

    def __init__(self, path, max_file_size=None):
        self.path = path
        self.max_file_size = max_file_size
        self._file = open(path, "ab")
        self._size = self._file.tell()
        self._full = False

    def append(self, payload):
        self.append_all((payload,))

    def append_all(self, payloads):
        """Append the records of `payloads` (None ones skipped) with one write."""
        records = []
        for payload in payloads:
            if payload is not None and self._fits(payload):
                records.append(frame(payload))
                self._size += len(payload) + 16
        if records:
            self._file.write(records[0] if len(records) == 1 else b"".join(records))
            self._file.flush()

    def _fits(self, payload):
        if self.max_file_size is not None and self._size + len(payload) + 16 > self.max_file_size:
            if not self._full:
                self._full = True
                logging.getLogger("openspore.summary").warning(
                    "summary file %s reached max_file_size=%d bytes: later records are dropped",
                    self.path, self.max_file_size)
            return False
        return True

    def close(self):
        if not self._file.closed:
            self._file.close()
            os.chmod(self.path, 0o400)
