"""The summary writer process: packs a training run's step values into records and appends them to one event file.

Packing a collection (histograms, the PNG of the input images, protobuf, CRCs) is a few ms of Python. On a thread of
the training process it holds the GIL the training loop needs; here, in a process at the lowest CPU priority, it
uses what training leaves idle. `EventWriter(..., backend="process")` starts it (see `_event_file._BOOTSTRAP`).

Messages on stdin, each `uint32 length (LE) | pickle` (a private pipe from the parent, never a network):
    ("event", step, wall_time, [(plugin, tag, ndarray), ...])   pack one Event and append it
    ("raw", payload)                                            append bytes the parent built (graph, version)
    ("flush", n)                                                answer "done n" once everything before is written
    ("close", n)                                                close the file (read-only), answer "done n", exit
Errors go to stdout as "error <message>" lines. End of stdin (the parent died) closes the file and exits.
"""
import os
import pickle
import struct
import sys


def _lower_priority():
    # nice 19 rather than SCHED_IDLE: the writer still gets a small share of a saturated machine, so a flush
    # (the end of an epoch) never waits on other jobs' idle time
    try:
        os.nice(19)
    except (AttributeError, OSError):
        pass


def _read_exact(stream, n):
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def main(path, max_file_size):
    from ._event_file import RecordFile
    from ._pack import event_bytes
    _lower_priority()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    records = None
    try:
        while True:
            header = _read_exact(stdin, 4)
            if header is None:
                return
            message = pickle.loads(_read_exact(stdin, struct.unpack("<I", header)[0]))
            kind = message[0]
            try:
                if kind in ("event", "raw"):
                    if records is None:
                        records = RecordFile(path, None if max_file_size == "None" else int(max_file_size))
                    records.append(event_bytes(message[1], message[3], message[2]) if kind == "event" else message[1])
                elif kind == "flush":
                    stdout.write(f"done {message[1]}\n".encode())
                    stdout.flush()
                elif kind == "close":
                    if records is not None:
                        records.close()
                        records = None
                    stdout.write(f"done {message[1]}\n".encode())
                    stdout.flush()
                    return
            except Exception as exc:  # one bad record must not stop the file
                stdout.write(f"error {type(exc).__name__}: {exc}".replace("\n", " ").encode() + b"\n")
                stdout.flush()
    finally:
        if records is not None:
            records.close()
