"""The summary writer process: packs a training run's step values into records and appends them to one event file.

Packing a collection (histograms, the PNG of the input images, protobuf, CRCs) is a few ms of Python. On a thread of
the training process it holds the GIL the training loop needs; here, in a process at the lowest CPU priority (nice 19
rather than SCHED_IDLE: it still gets a small share of a saturated machine), it uses what training leaves idle.
`EventWriter(..., backend="process")` starts it from its writer thread (see `_event_file._BOOTSTRAP`, which lowers
the priority before any import); `close()` gives it the parent's priority back where the OS allows, since the
parent then waits for it.

One writer process serves one file at a time and is reused for the next `SummaryRecord` of the same training
process (`_writer_client.py`). Messages on stdin, each `uint32 length (LE) | pickle` (a private pipe from the
parent, never a network):
    ("open", path, max_file_size)                               the file the next records go to (created lazily)
    ("event", step, wall_time, [(plugin, tag, value), ...], end) pack one Event and append it; a value is an
                                                                ndarray or a `RingSlot.message()` naming an array
                                                                in the shared ring, released up to `end` once
                                                                packed (`_ring.py`)
    ("raw", payload)                                            append bytes the parent built (graph, version)
    ("flush", n)                                                answer "done n" once everything before is written
    ("close", n)                                                close the file (read-only), answer "done n"
Errors go to stdout as "error <message>" lines. End of stdin (the parent is done with it, or died) closes the
file and exits.
"""
import os
import pickle
import struct
import sys


def _read_exact(stream, n):
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def main(ring_fd=-1, ring_size=0):
    from ._event_file import RecordFile
    from ._pack import event_bytes
    from ._ring import AttachedRing
    ring = AttachedRing(ring_fd, ring_size) if ring_fd >= 0 else None
    if ring_fd >= 0:
        os.close(ring_fd)  # mapped
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    records, path, max_file_size = None, None, None
    try:
        while True:
            header = _read_exact(stdin, 4)
            if header is None:
                return
            length = struct.unpack("<I", header)[0]
            message = pickle.loads(_read_exact(stdin, length))
            if ring is not None:
                ring.note_read(4 + length)
            kind = message[0]
            try:
                if kind == "open":
                    if records is not None:
                        records.close()
                    records, path, max_file_size = None, message[1], message[2]
                elif kind in ("event", "raw"):
                    if kind == "raw":
                        payload = message[1]
                    else:
                        _, step, wall_time, data, end = message
                        try:
                            if end:
                                data = [(p, t, ring.array(v) if type(v) is tuple else v) for p, t, v in data]
                            payload = event_bytes(step, data, wall_time)
                        finally:
                            if end:  # packed (or failed): the shared pages may be reused
                                ring.release(end)
                    if records is None:
                        if path is None:
                            raise ValueError("a record came before the file was named ('open')")
                        records = RecordFile(path, max_file_size)
                    records.append(payload)
                elif kind in ("flush", "close"):
                    if kind == "close":
                        if records is not None:
                            records.close()
                        records, path = None, None
                    stdout.write(f"done {message[1]}\n".encode())
                    stdout.flush()
            except Exception as exc:  # one bad record must not stop the file
                stdout.write(f"error {type(exc).__name__}: {exc}".replace("\n", " ").encode() + b"\n")
                stdout.flush()
    finally:
        if records is not None:
            records.close()
