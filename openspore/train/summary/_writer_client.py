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
import _thread
import atexit
import collections
import os
import pickle
import struct
import subprocess
import sys
import threading
import time

from . import _pull, _ring
from ._ring import SharedRing

IDLE_SECONDS = 60.0
SEND_NOW_LIMIT = 16384  # bytes: a collection whose arrays are in the ring is a few hundred

# The child imports only the summary modules: bare `openspore`, `openspore.train`, `openspore.train.summary` package
# modules (paths, no __init__ code) keep torch and the rest of openspore out of it. It lowers itself to nice 19
# (`START_NICE`) before its imports: at the training process's priority those ~0.2-0.3 s of CPU took a core from the
# first steps of a run on a busy machine. On such a machine a short run may then close before the writer is ready:
# its held records are packed by this process's writer thread at close (`EventWriter._wait_for_start`), and a writer
# not ready after `START_PATIENCE` gets this process's priority where the OS allows. It starts without `site` (-S: a sixth of its start's CPU, .pth files and all) and takes this process's module
# path instead, so it finds the same numpy and protobuf.
_BOOTSTRAP = """
import os, sys, types
if sys.argv[5] != "-":
    try:
        os.setpriority(os.PRIO_PROCESS, 0, max(int(sys.argv[5]), os.getpriority(os.PRIO_PROCESS, 0)))
    except OSError:
        pass
sys.path[:] = sys.argv[4].split(os.pathsep)
root = sys.argv[1]
for name, sub in (("openspore", ""), ("openspore.train", "/train"), ("openspore.train.summary", "/train/summary")):
    module = types.ModuleType(name)
    module.__path__ = [root + sub]
    sys.modules[name] = module
from openspore.train.summary._writer_process import main
main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[6])
"""
_LOWEST = 19
START_NICE = _LOWEST  # the nice value the writer imports at (None: this process's; the bench compares them)


class WriterProcess:
    """One writer process: `send` a message, `request` a flush or close and wait for its answer. Errors it
    reports go to `on_error` (set by the writer using it). `ring` is the shared memory it reads a collection's
    arrays from (`_ring.py`; None where there is none: then they are pickled into the pipe)."""

    def __init__(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        ring = _take_ring()
        fds = (ring.fd,) if ring is not None else ()
        try:
            self.popen = subprocess.Popen([sys.executable, "-S", "-c", _BOOTSTRAP, root,
                                           str(ring.fd if ring else -1), str(ring.size if ring else 0),
                                           os.pathsep.join(p for p in sys.path if p),
                                           "-" if START_NICE is None else str(START_NICE),
                                           _pull.probe() if ring is not None else "-"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True,
                                          pass_fds=fds)
        except BaseException:
            _give_back_ring(ring)
            raise
        if ring is not None:
            _pull.allow(self.popen.pid)  # (before its `_pull.check`, which comes after its imports)
        self.ring = ring
        self.pulls = False  # it reads pulled arrays from this process (`_pull`): known once it is ready
        self._ring_returned = False
        self._boosted = False
        self._fd = self.popen.stdin.fileno()
        self._pipe_size = _widen_pipe(self.popen.stdin)
        self._written = 0  # bytes written to the pipe; the writer counts those it handled in the ring's header
        # the pipe messages written and not yet handled by the writer (end in the pipe, ring messages posted before
        # it, pickled message): should it die, this process writes them (`unhandled`) instead of losing them
        self._unhandled = collections.deque()
        self._write_lock = threading.Lock()
        self._stopped = False
        self.on_error = None
        self.ready = threading.Event()  # its imports are done: it handles messages at once from now on
        self.created = time.monotonic()
        self.on_ready = None  # called when it is ready, or gone before that
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
        """Pass a message (waiting while the pipe is full); False when the process is gone."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with self._write_lock:
            return self._write(data)

    def post(self, message):
        """Pass an "event" message through the ring's message slots (`SharedRing.post`): no system call, the
        writer takes it at its next poll, after the pipe messages sent before it. False, with nothing posted, when
        no slot is free or another write is under way, or without a ring."""
        ring = self.ring
        if ring is None or self._stopped:
            return False
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if not self._write_lock.acquire(blocking=False):
            return False
        try:
            return ring.post(data, self._written)
        finally:
            self._write_lock.release()

    def post_collection(self, message):
        """`post` of a "collection" message (`_ring.RingLayout.collected`), packed into its slot unpickled."""
        ring = self.ring
        if ring is None or self._stopped or not self._write_lock.acquire(blocking=False):
            return False
        try:
            return ring.post_collection(message, self._written)
        finally:
            self._write_lock.release()

    def send_now(self, message):
        """Pass a small message only if that cannot wait: the pipe has room for it (what the writer has not read
        yet is known from the ring's header) and no other write is under way. False, with nothing written,
        otherwise (or without a ring): the caller queues it for `send` on its writer thread instead."""
        if self.ring is None:
            return False
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > SEND_NOW_LIMIT or not self._write_lock.acquire(blocking=False):
            return False
        try:
            if self._written - self.ring.piped() + 12 + len(data) > self._pipe_size:
                return False
            return self._write(data)
        finally:
            self._write_lock.release()

    def _write(self, data):
        # one writev: the header is not joined to the data (that would copy the arrays once more); each message
        # goes out at once (no buffering), so readers (the dashboard) see a record as soon as it is written. The
        # header carries how many messages were posted in the ring before this one (the writer handles those first)
        if self._stopped:
            return False
        posted = self.ring.posted() if self.ring is not None else 0
        header = struct.pack("<IQ", len(data), posted)
        try:
            done = os.writev(self._fd, [header, data])
            if done < 12 + len(data):  # interrupted part way (a signal; rare): write the rest
                rest = memoryview(header + data)[done:]
                while rest:
                    rest = rest[os.write(self._fd, rest):]
        except (OSError, ValueError):
            return False
        self._written += 12 + len(data)
        if self.ring is not None:
            unhandled, handled = self._unhandled, self.ring.piped()
            while unhandled and unhandled[0][0] <= handled:
                unhandled.popleft()
            unhandled.append((self._written, posted, data))
        return True

    def unhandled(self):
        """The pipe messages this writer process never handled (it died), in order: (how many ring messages were
        posted before it, the message). Empty without a ring (nothing tells what it handled)."""
        if self.ring is None:
            return []
        handled = self.ring.piped()
        with self._write_lock:
            return [(posted, pickle.loads(data)) for end, posted, data in self._unhandled if end > handled]

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

    def press(self):
        """The ring is filling up (`SharedRing.over_mark`): give the writer this process's priority until it has
        caught up (it lowers itself again once the ring is drained). Once per lag: its own lowering is seen in
        `os.getpriority` at the next call."""
        try:
            mine = os.getpriority(os.PRIO_PROCESS, 0)
            if os.getpriority(os.PRIO_PROCESS, self.popen.pid) > mine:
                self.set_priority(mine)
        except (AttributeError, OSError):
            pass

    def stop(self, wait=None):
        """End of input: the writer closes whatever it has open and exits. Waits up to `wait` seconds (None: not
        at all; the exit is collected on a daemon thread) and kills it after that."""
        with self._write_lock:  # no write can reach the descriptor once it is closed (and its number reused)
            self._stopped = True
            try:
                self.popen.stdin.close()
            except OSError:
                pass
        if wait is None:
            threading.Thread(target=self._reap, name="summary-writer-reaper", daemon=True).start()
            return
        try:
            self.popen.wait(wait)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        self._return_ring()

    def kill(self):
        if self.alive():
            self.popen.kill()
        self.popen.wait()
        self._return_ring()

    def _reap(self):
        self.popen.wait()
        self._return_ring()

    def _return_ring(self):
        """The process has exited: its ring may serve the next writer process."""
        if not self._ring_returned:
            self._ring_returned = True
            _give_back_ring(self.ring)

    def _read_answers(self):
        for line in self.popen.stdout:
            word, _, rest = line.decode("utf-8", "replace").rstrip("\n").partition(" ")
            if word == "ready":
                self.pulls = rest == "pull"
                self.ready.set()
                _call(self.on_ready)
            elif word == "done":
                with self._lock:
                    event = self._acks.pop(int(rest), None)
                if event is not None:
                    event.set()
            elif word == "error" and self.on_error is not None:
                self.on_error(RuntimeError(rest))
        if not self.ready.is_set():  # it ended before it was ready: whoever waits for that learns it now
            self.popen.wait()
            _call(self.on_ready)


def _call(callback):
    if callback is not None:
        callback()


def _widen_pipe(stream, size=1 << 20):
    """Let the pipe to the writer hold a whole collection (Linux's default is 64 KiB): the writer thread then hands
    it over in one write instead of waking up once per 64 KiB the low-priority writer has read. Returns the
    pipe's size as far as it is known (`send_now` never fills it beyond that)."""
    try:
        import fcntl
    except ImportError:
        return 512  # POSIX's smallest PIPE_BUF
    try:
        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except OSError:  # not Linux, or above /proc/sys/fs/pipe-max-size: the default pipe works too
        pass
    try:
        return fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_GETPIPE_SZ", 1032))
    except OSError:
        return 512


_spare = {"ring": None}  # the ring of the last writer process that exited, for the next one
_spare_lock = threading.Lock()


def _take_ring():
    """The spare ring when its last writer finished its work, else a new one (None where there is no memfd)."""
    with _spare_lock:
        ring, _spare["ring"] = _spare["ring"], None
    if ring is not None and ring.size == _ring.DEFAULT_SIZE + _ring.MESSAGE_SLOTS * _ring.MESSAGE_SIZE \
            and ring.reusable():
        return ring
    if ring is not None:
        ring.close_fd()
    return SharedRing.create()


def _give_back_ring(ring):
    if ring is None:
        return
    with _spare_lock:
        old, _spare["ring"] = _spare["ring"], ring
    if old is not None:
        old.close_fd()


_idle = {"writer": None, "timer": None}
_idle_lock = threading.Lock()


def acquire():
    """A writer process for a new file: the idle one left by the last closed record, or a new one."""
    with _idle_lock:
        writer, timer = _idle["writer"], _idle["timer"]
        _idle["writer"] = _idle["timer"] = None
    if timer is not None:
        timer.set()
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
            cancel = threading.Event()  # set when the writer is taken again (or stopped) before its time is up
            _idle["writer"], _idle["timer"] = writer, cancel
    if keep:  # (not a threading.Timer: its start waits for the new thread to run, and the caller waits on this)
        _thread.start_new_thread(_expire_after, (writer, cancel, IDLE_SECONDS))
    else:
        writer.stop()


def _expire_after(writer, cancel, seconds):
    if cancel.wait(seconds):
        return
    with _idle_lock:
        if _idle["timer"] is not cancel:
            return
        _idle["writer"] = _idle["timer"] = None
    writer.stop()


@atexit.register
def _stop_idle():
    with _idle_lock:
        writer, timer = _idle["writer"], _idle["timer"]
        _idle["writer"] = _idle["timer"] = None
    if timer is not None:
        timer.set()
    if writer is not None:  # one still starting has nothing to write: not waited for
        writer.stop(wait=5.0 if writer.ready.is_set() else 0)
