"""The server's row memory: one anonymous shared-memory file (memfd) that local clients map too.

The file has no name in /dev/shm: it lives as long as some process holds it, so a server that is
killed leaves no segment behind. Local clients get its descriptor over an abstract unix socket
(SCM_RIGHTS; abstract names leave no file either), checked to come from the same user, and then
read cached rows straight from memory and write new rows into space the server reserved for them.

>>> arena = Arena(1 << 20)
>>> a, b = arena.alloc(100), arena.alloc(100)
>>> (a, b, arena.used)
(0, 128, 256)
>>> arena.free(a, 100); arena.alloc(64)
0
>>> arena.close()
"""
import bisect
import mmap
import os
import socket
import struct
import threading

_ALIGN = 64


def _round(n):
    return max(_ALIGN, (n + _ALIGN - 1) // _ALIGN * _ALIGN)


class Arena:
    """`size` bytes of shared memory with a first-fit allocator (offsets are 64-byte aligned)."""

    def __init__(self, size, name="openspore-dataset-cache"):
        self.size = int(size)
        self.fd = os.memfd_create(name, os.MFD_CLOEXEC)
        os.ftruncate(self.fd, self.size)  # sparse: pages are taken only when rows are written
        self.map = mmap.mmap(self.fd, self.size)
        self._starts = [0]  # free extents, sorted by start, never adjacent (merged on free)
        self._lengths = [self.size]
        self.used = 0
        self._lock = threading.Lock()

    def alloc(self, nbytes):
        """Offset of a fresh block of at least `nbytes`, or None when no free extent is large enough."""
        need = _round(nbytes)
        with self._lock:
            for i, length in enumerate(self._lengths):
                if length >= need:
                    start = self._starts[i]
                    if length == need:
                        del self._starts[i], self._lengths[i]
                    else:
                        self._starts[i] += need
                        self._lengths[i] -= need
                    self.used += need
                    return start
        return None

    def free(self, offset, nbytes):
        size = _round(nbytes)
        with self._lock:
            self.used -= size
            i = bisect.bisect_left(self._starts, offset)
            self._starts.insert(i, offset)
            self._lengths.insert(i, size)
            if i + 1 < len(self._starts) and offset + size == self._starts[i + 1]:  # merge with the next extent
                self._lengths[i] += self._lengths.pop(i + 1)
                self._starts.pop(i + 1)
            if i > 0 and self._starts[i - 1] + self._lengths[i - 1] == offset:  # and with the previous one
                self._lengths[i - 1] += self._lengths.pop(i)
                self._starts.pop(i)
            # give the pages back to the system; the file stays its full (sparse) size
            page = mmap.PAGESIZE
            lo, hi = (offset + page - 1) // page * page, (offset + size) // page * page
            if hi > lo:
                try:
                    self.map.madvise(mmap.MADV_REMOVE, lo, hi - lo)
                except (AttributeError, OSError, ValueError):
                    pass

    def close(self):
        try:
            self.map.close()
        except BufferError:  # a view is still alive; the mapping goes with the process
            pass
        os.close(self.fd)


def socket_name(port):
    """The abstract unix socket where the server on `port` hands out its arena."""
    return f"\0openspore-dataset-cache-p{int(port)}"


class FdServer:
    """Accepts local connections and sends each the arena's descriptor and size (same user only)."""

    def __init__(self, port, fd, size, log):
        self._fd, self._size, self._log = fd, size, log
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(socket_name(port))
        self.sock.listen(64)
        self._thread = threading.Thread(target=self._serve, name="cache-shm-handout", daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the server is stopping
                return
            with conn:
                creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
                _, uid, _ = struct.unpack("3i", creds)
                if uid != os.getuid():
                    self._log.warning("refused shared memory to a client of user id %d", uid)
                    continue
                try:
                    socket.send_fds(conn, [struct.pack("<Q", self._size)], [self._fd])
                except OSError as exc:
                    self._log.warning("could not hand shared memory to a client: %s", exc)

    def close(self):
        self.sock.close()


def attach(port):
    """(mmap of the arena, size) of the local server on `port`, or None when there is none to attach to."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5.0)
            sock.connect(socket_name(port))
            data, fds, _, _ = socket.recv_fds(sock, 8, 1)
    except OSError:
        return None
    if not fds or len(data) != 8:
        return None
    (size,) = struct.unpack("<Q", data)
    try:
        return mmap.mmap(fds[0], size), size
    finally:
        os.close(fds[0])
