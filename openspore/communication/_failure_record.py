"""A worker's uncaught exception, written where msrun looks for it, so msrun names the worker that failed first.

When one worker crashes, its peers fail in their next collective moments later ("Connection closed by peer"),
and under load a peer can even finish exiting before the worker that caused it. The order the processes end
in is therefore not the order they failed in. The moment a worker's exception reaches the top, before the
interpreter starts to shut down and so before its connections close, is: no peer can fail because of a worker
before that worker's record is written. `communication.init()` installs the hook when msrun named a file in
OPENSPORE_ERROR_FILE; msrun reads the records of the workers that failed.

>>> import json, os, sys, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "worker_0.error.json")
>>> report = sys.excepthook
>>> install(0, path)
>>> sys.excepthook(ValueError, ValueError("broke on purpose"), None)  # as Python does; the report goes to stderr
>>> sys.excepthook = report
>>> record = read(path)
>>> record["rank"], record["type"], record["message"]
(0, 'ValueError', 'broke on purpose')
"""
import json
import os
import sys
import time

from ..common.files import write_atomic

ERROR_FILE_ENV = "OPENSPORE_ERROR_FILE"


def install(rank, path=None):
    """Makes this process's uncaught exceptions be written to `path` (default: $OPENSPORE_ERROR_FILE) with the
    moment they happened, then reported as before. Without a path it does nothing; installing twice is a no-op."""
    path = path or os.environ.get(ERROR_FILE_ENV)
    if not path or getattr(sys.excepthook, "_openspore_error_file", None) == path:
        return
    report = sys.excepthook

    def record_then_report(exc_type, exc, tb):
        try:
            record = {"time": time.time(), "rank": rank, "pid": os.getpid(), "type": exc_type.__name__,
                      "message": str(exc)}
            write_atomic(path, [json.dumps(record).encode()], read_only=False)  # msrun never reads half of one
        except Exception:  # noqa: BLE001 - never hide the exception itself behind a failure to record it
            pass
        report(exc_type, exc, tb)

    record_then_report._openspore_error_file = path
    sys.excepthook = record_then_report


def read(path):
    """The record at `path` (dict with time, rank, pid, type, message), or None when there is none (or it is not
    one of ours)."""
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("time"), (int, float)):
        return None
    return record
