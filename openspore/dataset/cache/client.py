"""`DatasetCache`: a pipeline's handle on a cache server session, and the connection it talks through.

Local clients (server on a loopback address) map the server's shared memory: cached rows are read
straight out of it and new rows are written into blocks the server reserves. Remote clients move the
row bytes inside the gRPC messages.

>>> import openspore.dataset as ds
>>> cache = ds.DatasetCache(session_id=1456416665, size=0, spilling=False)
>>> cache.session_id, cache.size, cache.hostname, cache.port
(1456416665, 0, None, None)
"""
import os
import queue
import threading
import warnings

from . import wire
from .arena import attach

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 50052
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_GRPC_OPTIONS = [("grpc.max_send_message_length", 1 << 30), ("grpc.max_receive_message_length", 1 << 30)]
CALL_TIMEOUT_S = 30.0


def default_address(hostname=None, port=None):
    """(host, port): the arguments, else MS_CACHE_HOST / MS_CACHE_PORT (MindSpore's variables), else the defaults."""
    host = hostname or os.environ.get("MS_CACHE_HOST") or DEFAULT_HOST
    if port is None:
        env = os.environ.get("MS_CACHE_PORT")
        if env:
            try:
                port = int(env)
            except ValueError:
                raise ValueError(f"MS_CACHE_PORT must be a port number, but got {env!r}.") from None
        else:
            port = DEFAULT_PORT
    return host, int(port)


def unreachable(port, detail=""):
    return (f"Network error. Cache server with port {port} is unreachable. Make sure the server is running or "
            f"started under the same user as the client. GRPC Code 14{detail}")


class ServerLost(RuntimeError):
    """The cache server did not answer (not started, stopped, or killed)."""


class Connection:
    """A gRPC channel to one server, plus its shared memory when the server is on this machine."""

    def __init__(self, host, port, attach_shm=True):
        import grpc  # late: the dataset package loads without the gRPC runtime until a cache is used
        self._grpc = grpc
        self.host, self.port = host, port
        self._channel = grpc.insecure_channel(f"{host}:{port}", options=_GRPC_OPTIONS)
        self._rpc = self._channel.unary_unary(wire.SERVICE_METHOD)
        try:
            self.pid = self.call("ping", timeout=5.0)[0]["pid"]
        except BaseException:
            self._channel.close()
            raise
        self.shm = None
        if attach_shm and host in _LOOPBACK:
            attached = attach(port)
            if attached is not None:
                self.shm = attached[0]

    def call(self, op, blobs=(), timeout=CALL_TIMEOUT_S, **fields):
        """(header, blobs) of the server's reply; RuntimeError with the server's message when it refused."""
        try:
            data = self._rpc(wire.pack(dict(fields, op=op), blobs), timeout=timeout)
        except self._grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            detail = "" if code == self._grpc.StatusCode.UNAVAILABLE else f" ({code}: {exc.details()})"
            raise ServerLost(unreachable(self.port, detail)) from None
        header, out = wire.unpack(data)
        if "error" in header:
            raise RuntimeError(header["error"])
        return header, out

    def close(self):
        self._channel.close()
        if self.shm is not None:
            try:
                self.shm.close()
            except BufferError:
                pass
            self.shm = None


def _check_int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'int'>], but got "
                        f"{type(value)}.")
    if not low <= value <= high:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, {high}].")


class CacheStat:
    """What `DatasetCache.get_stat()` returns: rows cached in memory and on disk, and their average size."""

    def __init__(self, stat):
        self.num_mem_cached = stat.get("num_mem_cached", 0)
        self.num_disk_cached = stat.get("num_disk_cached", 0)
        self.avg_cache_sz = stat.get("avg_cache_sz", 0)
        self.num_not_cached = stat.get("num_not_cached", 0)
        self.hits, self.misses = stat.get("hits", 0), stat.get("misses", 0)

    def __repr__(self):
        return (f"CacheStat(avg_cache_sz={self.avg_cache_sz}, num_mem_cached={self.num_mem_cached}, "
                f"num_disk_cached={self.num_disk_cached})")


class DatasetCache:
    """`DatasetCache(session_id, size=0, spilling=False, hostname=None, port=None, num_connections=None,
    prefetch_size=None)`: cache the rows of the dataset or map it is passed to (`cache=`) in the cache
    server's session `session_id` (from `dataset-cache -g`).

    `size` is the memory (MB) this cache may use, 0 for no limit of its own (the server's cap still
    applies); `spilling=True` puts rows beyond it on the server's disk. openspore adds `fallback`
    (keyword only): when True, a server lost mid-epoch makes the pipeline read uncached instead of failing.
    """

    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None, num_connections=None,
                 prefetch_size=None, *, fallback=False):
        _check_int(session_id, "session_id", 1, 2 ** 32 - 1)
        _check_int(size, "size", 0, 2 ** 64 - 1)
        if not isinstance(spilling, bool):
            raise TypeError(f"Argument spilling with value {spilling!r} is not of type [<class 'bool'>], but got "
                            f"{type(spilling)}.")
        if hostname is not None and not isinstance(hostname, str):
            raise TypeError(f"Argument hostname with value {hostname!r} is not of type [<class 'str'>], but got "
                            f"{type(hostname)}.")
        if port is not None:
            _check_int(port, "port", 1025, 65535)
        if num_connections is not None:
            _check_int(num_connections, "num_connections", 1, 2 ** 31 - 1)
        if prefetch_size is not None:
            _check_int(prefetch_size, "prefetch_size", 1, 2 ** 31 - 1)
        self.session_id, self.size, self.spilling = session_id, size, spilling
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size
        self.fallback = bool(fallback)
        self._use_shm = True  # False: move rows over TCP even to a local server (how remote clients work)
        self._conn = None
        self._conn_pid = None
        self._cache_ids = {}  # pipeline fingerprint -> cache id on the server
        self._last_cache_id = None
        self._lock = threading.Lock()

    @property
    def rows_per_request(self):
        """Rows looked up or fetched per request (MindSpore's prefetch_size, default 20)."""
        return self.prefetch_size or 20

    def _connection(self):
        with self._lock:
            if self._conn is None or self._conn_pid != os.getpid():  # a forked child needs its own channel
                host, port = default_address(self.hostname, self.port)
                self._conn = Connection(host, port, attach_shm=self._use_shm)
                self._conn_pid = os.getpid()
                self._cache_ids = {}
            return self._conn

    def _attach(self, crc):
        """(connection, cache id) of this session's cache for the pipeline with fingerprint `crc`."""
        conn = self._connection()
        cache_id = self._cache_ids.get(crc)
        if cache_id is None:
            header, _ = conn.call("create", session_id=self.session_id, crc=crc, size=self.size,
                                  spilling=self.spilling)
            cache_id = self._cache_ids[crc] = header["cache_id"]
        self._last_cache_id = cache_id
        return conn, cache_id

    def _forget(self):
        """Drop the connection (after the server was lost) so that the next pipeline run connects again."""
        with self._lock:
            if self._conn is not None and self._conn_pid == os.getpid():
                self._conn.close()
            self._conn, self._cache_ids, self._last_cache_id = None, {}, None

    def get_stat(self):
        """Statistics of the cache this object last served (zeros before any pipeline ran with it)."""
        if self._last_cache_id is None:
            return CacheStat({})
        header, _ = self._connection().call("stat", cache_id=self._last_cache_id)
        return CacheStat(header)

    def __deepcopy__(self, memo):
        return self  # copies of a pipeline share one client, as in MindSpore

    def __getstate__(self):
        state = dict(self.__dict__)
        state.update(_conn=None, _conn_pid=None, _cache_ids={}, _last_cache_id=None, _lock=None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self):
        return (f"DatasetCache(session_id={self.session_id}, size={self.size}, spilling={self.spilling}, "
                f"hostname={self.hostname}, port={self.port})")


class RowWriter:
    """Sends rows missed by a pass to the server from a background thread, in small batches."""

    def __init__(self, conn, cache_id, batch_rows=32):
        self.conn, self.cache_id, self.batch_rows = conn, cache_id, batch_rows
        self.error = None
        self._queue = queue.Queue(maxsize=4 * batch_rows)  # bounded: a slow server slows the pass, not memory
        self._thread = threading.Thread(target=self._run, name="dataset-cache-writer", daemon=True)
        self._thread.start()

    def put(self, key, meta, body):
        if self.error is None:
            self._queue.put((key, meta, body))

    def close(self):
        """Wait until every row put so far reached the server (or failed)."""
        self._queue.put(None)
        self._thread.join()

    def _run(self):
        while True:
            items = [self._queue.get()]
            while items[-1] is not None and len(items) < self.batch_rows:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            done = items[-1] is None
            rows = [item for item in items if item is not None]
            if rows and self.error is None:
                try:
                    self._send(rows)
                except Exception as exc:  # noqa: BLE001 - reported to the pipeline, which decides
                    self.error = exc
            if done:
                return

    def _send(self, rows):
        shm = self.conn.shm
        to_send = rows
        if shm is not None:
            header, _ = self.conn.call("reserve", cache_id=self.cache_id, sizes=[len(body) for _, _, body in rows])
            entries, to_send = [], []
            for (key, meta, body), block in zip(rows, header["blocks"]):
                if isinstance(block, int):
                    shm[block:block + len(body)] = body
                    entries.append([key, block, len(body), meta])
                elif block == "spill":
                    to_send.append((key, meta, body))
            if entries:
                self.conn.call("commit", cache_id=self.cache_id, entries=entries)
        if to_send:
            self.conn.call("write", [body for _, _, body in to_send], cache_id=self.cache_id,
                           entries=[[key, meta] for key, meta, _ in to_send])


def warn_fallback(message):
    warnings.warn(f"{message} The pipeline goes on reading without the cache (fallback=True).", RuntimeWarning,
                  stacklevel=3)
