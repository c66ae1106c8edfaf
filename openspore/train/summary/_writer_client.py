"""The training process's side of the summary writer process (`_writer_process.py`): start it, talk to it, keep
it for the next `SummaryRecord`, and make sure it ends.

Starting the writer (a Python interpreter importing numpy, protobuf and OpenCV) costs about 0.3 s of CPU. A training
script that trains several times (or a notebook) would pay that per `SummaryRecord`, so a closed record hands its
writer back here and the next one takes it (`acquire` / `release`); an idle writer is stopped after
`IDLE_SECONDS`, and at interpreter exit. The writer reads its stdin until end of file, so it also ends when this
process dies, whatever the cause.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "events_MS")
    >>> writer = acquire()
    >>> writer.send(("open", path, None)) and writer.send(("raw", b"abc")) and writer.request("close")
    True
    >>> release(writer)          # kept for the next record
    >>> os.path.getsize(path)    # 8 length + 4 CRC + 3 payload + 4 CRC
    19
"""
import atexit
import os
import pickle
import struct
import subprocess
import sys
import threading

IDLE_SECONDS = 60.0

# The child imports only the summary modules: bare `openspore`, `openspore.train`, `openspore.train.summary` package
# modules (paths, no __init__ code) keep torch and the rest of openspore out of it. It lowers its priority first,
# so that even its start (the imports) only uses CPU that training leaves idle.
_BOOTSTRAP = """
import os, sys, types
try:
    os.nice(19)
except (AttributeError, OSError):
    pass
root = sys.argv[1]
for name, sub in (("openspore", ""), ("openspore.train", "/train"), ("openspore.train.summary", "/train/summary")):
    module = types.ModuleType(name)
    module.__path__ = [root + sub]
    sys.modules[name] = module
from openspore.train.summary._writer_process import main
main()
"""
_LOWEST = 19


class WriterProcess:
    """One writer process: `send` a message, `request` a flush or close and wait for its answer. Errors it
    reports go to `on_error` (set by the writer using it)."""

    def __init__(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.popen = subprocess.Popen([sys.executable, "-c", _BOOTSTRAP, root], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, close_fds=True)
        _widen_pipe(self.popen.stdin)
        self.on_error = None
        self._acks = {}
        self._lock = threading.Lock()
        self._count = 0
        threading.Thread(target=self._read_answers, name="summary-writer-answers", daemon=True).start()

    @property
    def pid(self):
        return self.popen.pid

    def alive(self):
        return self.popen.poll() is None

    def send(self, message):
        """Pass a message; False when the process is gone."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.popen.stdin.write(struct.pack("<I", len(data)))
            self.popen.stdin.write(data)  # not joined to the header: that would copy the arrays once more
            self.popen.stdin.flush()  # readers (the dashboard) see a record as soon as the writer has written it
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def request(self, what):
        """Send a 'flush' or 'close' and wait until the writer has done everything before it; False if it died."""
        done = threading.Event()
        with self._lock:
            self._count += 1
            n = self._count
            self._acks[n] = done
        if not self.send((what, n)):
            return False
        while not done.wait(0.2):
            if not self.alive():
                return False
        return True

    def set_priority(self, nice):
        """Set the writer's nice value; raising its priority needs the OS's leave (root, CAP_SYS_NICE, RLIMIT_NICE)
        and is skipped without it."""
        try:
            os.setpriority(os.PRIO_PROCESS, self.popen.pid, nice)
        except (AttributeError, OSError):
            pass

    def stop(self, wait=None):
        """End of input: the writer closes whatever it has open and exits. Waits up to `wait` seconds (None: not
        at all; the exit is collected on a daemon thread) and kills it after that."""
        try:
            self.popen.stdin.close()
        except OSError:
            pass
        if wait is None:
            threading.Thread(target=self.popen.wait, name="summary-writer-reaper", daemon=True).start()
            return
        try:
            self.popen.wait(wait)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()

    def kill(self):
        if self.alive():
            self.popen.kill()
        self.popen.wait()

    def _read_answers(self):
        for line in self.popen.stdout:
            word, _, rest = line.decode("utf-8", "replace").rstrip("\n").partition(" ")
            if word == "done":
                with self._lock:
                    event = self._acks.pop(int(rest), None)
                if event is not None:
                    event.set()
            elif word == "error" and self.on_error is not None:
                self.on_error(RuntimeError(rest))


def _widen_pipe(stream, size=1 << 20):
    """Let the pipe to the writer hold a whole collection (Linux's default is 64 KiB): the writer thread then hands
    it over in one write instead of waking up once per 64 KiB the low-priority writer has read."""
    try:
        import fcntl
        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (ImportError, OSError):  # not Linux, or above /proc/sys/fs/pipe-max-size: the default pipe works too
        pass


_idle = {"writer": None, "timer": None}
_idle_lock = threading.Lock()


def acquire():
    """A writer process for a new file: the idle one left by the last closed record, or a new one."""
    with _idle_lock:
        writer, timer = _idle["writer"], _idle["timer"]
        _idle["writer"] = _idle["timer"] = None
    if timer is not None:
        timer.cancel()
    if writer is not None and writer.alive():
        return writer
    if writer is not None:
        writer.kill()
    return WriterProcess()


def release(writer):
    """Take back a writer whose file is closed: back to the lowest priority, kept `IDLE_SECONDS` for the next
    record, then stopped."""
    writer.on_error = None
    writer.set_priority(_LOWEST)
    with _idle_lock:
        keep = _idle["writer"] is None and writer.alive()
        if keep:
            timer = threading.Timer(IDLE_SECONDS, _expire, args=(writer,))
            timer.daemon = True
            _idle["writer"], _idle["timer"] = writer, timer
    if keep:
        timer.start()
    else:
        writer.stop()


def _expire(writer):
    with _idle_lock:
        if _idle["writer"] is not writer:
            return
        _idle["writer"] = _idle["timer"] = None
    writer.stop()


@atexit.register
def _stop_idle():
    with _idle_lock:
        writer, timer = _idle["writer"], _idle["timer"]
        _idle["writer"] = _idle["timer"] = None
    if timer is not None:
        timer.cancel()
    if writer is not None:
        writer.stop(wait=5.0)
