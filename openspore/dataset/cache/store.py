"""The server's bookkeeping: sessions, cache instances, where each cached row lives, and statistics.

A cache instance is identified by (session id, pipeline fingerprint): two processes running the same
pipeline with one session share it. Rows live in the shared-memory arena while the memory cap allows,
then in the session's spill file when the client asked for spilling and the server has a spill
directory; otherwise they are simply not cached (the pipeline computes them again next time).
"""
import os
import random
import threading

from .wire import TAG_BYTES, clear_tag, write_tag

MEM, DISK = "m", "d"
SESSION_NOT_FOUND = "A cache creation has been requested but the session was not found!"
NO_SPILL = ("Server is not set up with spill support: the cache asks for spilling=True but the cache server was "
            "started without a spilling directory (dataset-cache --start -s <dir>).")


class CacheError(Exception):
    """A request the server refuses; its message goes back to the client as is."""


class CacheInstance:
    def __init__(self, cache_id, session_id, crc, size_mb, spilling):
        self.cache_id, self.session_id, self.crc = cache_id, session_id, crc
        self.limit = size_mb * 1024 * 1024  # 0: only the server's cap applies
        self.spilling = spilling
        self.rows = {}  # key -> (MEM, offset, nbytes, meta) | (DISK, offset, nbytes, meta)
        self.reserved = {}  # offset -> nbytes, written by a local client but not committed yet
        self.mem_bytes = 0
        self.num_mem = self.num_disk = self.num_dropped = 0
        self.row_bytes = 0
        self.hits = self.misses = 0
        self.spill_fd = None
        self.spill_size = 0

    def stat(self):
        cached = self.num_mem + self.num_disk
        return {"cache_id": self.cache_id, "num_mem_cached": self.num_mem, "num_disk_cached": self.num_disk,
                "avg_cache_sz": self.row_bytes // cached if cached else 0, "num_not_cached": self.num_dropped,
                "hits": self.hits, "misses": self.misses}


class Store:
    """All sessions of one server; every method is safe to call from the gRPC worker threads."""

    def __init__(self, arena, memory_cap, spill_root, log):
        self.arena, self.memory_cap, self.spill_root, self.log = arena, memory_cap, spill_root, log
        self.sessions = {}  # session id -> {crc: CacheInstance}
        self.caches = {}  # cache id -> CacheInstance
        self._lock = threading.RLock()
        self._rng = random.SystemRandom()

    def _new_id(self, taken):
        while True:
            value = self._rng.randint(1, 2 ** 32 - 1)
            if value not in taken:
                return value

    # --- sessions -----------------------------------------------------------------------------------------------
    def new_session(self):
        with self._lock:
            sid = self._new_id(self.sessions)
            self.sessions[sid] = {}
        self.log.info("session %d created", sid)
        return sid

    def drop_session(self, sid):
        with self._lock:
            caches = self.sessions.pop(sid, None)
            if caches is None:
                return False
            for cache in caches.values():
                self._release(cache)
        self.log.info("session %d destroyed", sid)
        return True

    def _release(self, cache):
        self.caches.pop(cache.cache_id, None)
        for kind, offset, nbytes, _ in cache.rows.values():
            if kind == MEM:
                self._free_row(offset, nbytes)
        for offset, nbytes in cache.reserved.items():
            self._free_row(offset, nbytes)
        cache.rows, cache.reserved = {}, {}
        if cache.spill_fd is not None:
            os.close(cache.spill_fd)
            cache.spill_fd = None
            try:
                os.unlink(self._spill_path(cache))
            except OSError:
                pass

    def close(self):
        with self._lock:
            for sid in list(self.sessions):
                self.drop_session(sid)

    # --- cache instances ----------------------------------------------------------------------------------------
    def create_cache(self, sid, crc, size_mb, spilling):
        with self._lock:
            caches = self.sessions.get(sid)
            if caches is None:
                raise CacheError(SESSION_NOT_FOUND + f" (session id {sid})")
            if spilling and self.spill_root is None:
                raise CacheError(NO_SPILL)
            cache = caches.get(crc)
            if cache is not None:
                self.log.info("Duplicate request for session %d to create cache service %d: sharing cache %d", sid,
                              crc, cache.cache_id)
                return cache
            cache = CacheInstance(self._new_id(self.caches), sid, crc, size_mb, spilling)
            caches[crc] = cache
            self.caches[cache.cache_id] = cache
        self.log.info("session %d: cache %d created for pipeline %d (size %d MB, spilling %s)", sid, cache.cache_id,
                      crc, size_mb, spilling)
        return cache

    def get(self, cache_id):
        cache = self.caches.get(cache_id)
        if cache is None:
            raise CacheError(f"Cache {cache_id} does not exist on the server any more: its session was destroyed "
                             f"(dataset-cache -d) or the server restarted.")
        return cache

    # --- placing rows -------------------------------------------------------------------------------------------
    def _fits_memory(self, cache, nbytes):
        if cache.limit and cache.mem_bytes + nbytes > cache.limit:
            return False
        return self.arena.used + nbytes <= self.memory_cap

    def _mem_block(self, cache, nbytes):
        """The arena offset of a row of this cache (after its tag), or None when the cache or server is at its cap."""
        if not self._fits_memory(cache, nbytes + TAG_BYTES):
            return None
        block = self.arena.alloc(nbytes + TAG_BYTES)
        if block is None:
            return None
        cache.mem_bytes += nbytes + TAG_BYTES
        return block + TAG_BYTES

    def _free_row(self, offset, nbytes):
        clear_tag(self.arena.map, offset)  # first: a reader still copying this row will see it was dropped
        self.arena.free(offset - TAG_BYTES, nbytes + TAG_BYTES)

    def reserve(self, cache_id, sizes):
        """Per row size: an arena offset for the client to fill, 'spill' (send the bytes), or 'full' (keep it)."""
        out = []
        with self._lock:
            cache = self.get(cache_id)
            for nbytes in sizes:
                offset = self._mem_block(cache, nbytes)
                if offset is not None:
                    cache.reserved[offset] = nbytes
                    out.append(offset)
                elif cache.spilling:
                    out.append("spill")
                else:
                    cache.num_dropped += 1
                    out.append("full")
        return out

    def commit(self, cache_id, entries):
        """Record rows a local client wrote into reserved blocks: [key, offset, nbytes, meta] each."""
        with self._lock:
            cache = self.get(cache_id)
            for key, offset, nbytes, meta in entries:
                if cache.reserved.pop(offset, None) != nbytes:
                    raise CacheError(f"commit of row {key} names block {offset} that was not reserved for it")
                if key in cache.rows:  # another client cached it first
                    self._free_row(offset, nbytes)
                    cache.mem_bytes -= nbytes + TAG_BYTES
                    continue
                write_tag(self.arena.map, offset, cache.cache_id, key)
                cache.rows[key] = (MEM, offset, nbytes, meta)
                cache.num_mem += 1
                cache.row_bytes += nbytes

    def write(self, cache_id, entries, blobs):
        """Store rows sent as bytes (remote clients and spilled rows): [key, meta] per blob."""
        with self._lock:
            cache = self.get(cache_id)
            for (key, meta), blob in zip(entries, blobs):
                if key in cache.rows:
                    continue
                nbytes = len(blob)
                offset = self._mem_block(cache, nbytes)
                if offset is not None:
                    self.arena.map[offset:offset + nbytes] = blob
                    write_tag(self.arena.map, offset, cache.cache_id, key)
                    cache.rows[key] = (MEM, offset, nbytes, meta)
                    cache.num_mem += 1
                elif cache.spilling and self._spill(cache, key, meta, blob):
                    cache.num_disk += 1
                else:
                    cache.num_dropped += 1
                    continue
                cache.row_bytes += nbytes

    def _spill_path(self, cache):
        return os.path.join(self.spill_root, f"cache_{cache.cache_id}.spill")

    def _spill(self, cache, key, meta, blob):
        try:
            if cache.spill_fd is None:
                cache.spill_fd = os.open(self._spill_path(cache), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
            os.pwrite(cache.spill_fd, blob, cache.spill_size)
        except OSError as exc:
            self.log.warning("cache %d: spilling row %s failed (%s); the row stays uncached", cache.cache_id, key, exc)
            return False
        cache.rows[key] = (DISK, cache.spill_size, len(blob), meta)
        cache.spill_size += len(blob)
        return True

    # --- reading rows -------------------------------------------------------------------------------------------
    def lookup(self, cache_id, keys, local):
        """Per key: [0] miss, [1, offset, nbytes, meta] in shared memory (local clients), [2] fetch it."""
        out = []
        with self._lock:
            cache = self.get(cache_id)
            for key in keys:
                where = cache.rows.get(key)
                if where is None:
                    cache.misses += 1
                    out.append([0])
                    continue
                cache.hits += 1
                if where[0] == MEM and local:
                    out.append([1, where[1], where[2], where[3]])
                else:
                    out.append([2])
        return out

    def fetch(self, cache_id, keys):
        """(metas, blobs) of cached rows; a key no longer cached gets meta None and an empty blob."""
        metas, blobs = [], []
        with self._lock:
            cache = self.get(cache_id)
            for key in keys:
                where = cache.rows.get(key)
                if where is None:
                    metas.append(None)
                    blobs.append(b"")
                    continue
                kind, offset, nbytes, meta = where
                if kind == MEM:
                    blobs.append(bytes(self.arena.map[offset:offset + nbytes]))
                else:
                    blobs.append(os.pread(cache.spill_fd, nbytes, offset))
                metas.append(meta)
        return metas, blobs
