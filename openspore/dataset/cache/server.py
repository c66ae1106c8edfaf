"""The cache server daemon: `python -m openspore.dataset.cache.server` (started by `dataset-cache --start`).

It serves one gRPC method on host:port (every request is a framed message, see wire.py) and hands
its shared-memory arena to local clients (arena.py). Started by the admin tool, it prints one line on
stdout, `OK <pid>` or `ERR <message>`, then detaches its output and runs until `--stop`, SIGTERM or SIGINT.
"""
import argparse
import getpass
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
from concurrent import futures

import grpc

from . import wire
from .admin import pid_alive
from .arena import Arena, FdServer
from .store import CacheError, Store

_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR, 4: logging.CRITICAL}
GRPC_OPTIONS = [("grpc.max_send_message_length", 1 << 30), ("grpc.max_receive_message_length", 1 << 30),
                ("grpc.so_reuseport", 0)]


def common_dir():
    """Per-user folder for the server's logs (MindSpore keeps its own under /tmp too)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return os.path.join(tempfile.gettempdir(), f"openspore_cache_{user}")


def _make_spill_root(spill_dir):
    """A fresh sub-folder of the spilling directory for this server; stale ones of dead servers are removed."""
    if not os.path.exists(spill_dir):
        raise CacheError(f"Spilling directory {spill_dir} does not exist (Errno = 2); create it first.")
    if not os.path.isdir(spill_dir):
        raise CacheError(f"Spilling directory {spill_dir} is not a directory.")
    if not os.access(spill_dir, os.W_OK | os.X_OK):
        raise CacheError(f"Spilling directory {spill_dir} is not writable.")
    for name in os.listdir(spill_dir):
        parts = name.split("_")
        if len(parts) == 3 and parts[0] == "openspore-cache" and parts[1].isdigit() and not pid_alive(int(parts[1])):
            shutil.rmtree(os.path.join(spill_dir, name), ignore_errors=True)
    root = None
    try:  # a folder can pass access() and still refuse files (read-only mount, quota, sysfs)
        root = tempfile.mkdtemp(prefix=f"openspore-cache_{os.getpid()}_", dir=spill_dir)
        probe = os.path.join(root, ".probe")
        with open(probe, "wb") as f:
            f.write(b"0")
        os.unlink(probe)
    except OSError as exc:
        if root:
            shutil.rmtree(root, ignore_errors=True)
        raise CacheError(f"Spilling directory {spill_dir} is not writable: {exc}") from exc
    return root


class CacheServer:
    def __init__(self, host, port, workers, spill_dir, log_level, shm_gb, memory_cap_ratio):
        self.host, self.port, self.workers = host, port, workers
        self.spill_dir, self.log_level = spill_dir, log_level
        self.shm_gb, self.memory_cap_ratio = shm_gb, memory_cap_ratio
        self.stopped = threading.Event()
        log_dir = os.path.join(common_dir(), "log")
        os.makedirs(log_dir, exist_ok=True)
        self.log_path = os.path.join(log_dir, f"cache_server.{socket.gethostname()}.p{port}.log.{os.getpid()}")
        self.log = logging.getLogger(f"openspore.dataset.cache.server.{port}")
        handler = logging.FileHandler(self.log_path)
        handler.setFormatter(logging.Formatter("[%(levelname)s] %(asctime)s %(process)d %(message)s"))
        self.log.addHandler(handler)
        self.log.setLevel(_LEVELS[log_level])
        self.log.propagate = False
        self.spill_root = _make_spill_root(spill_dir) if spill_dir else None
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        self.arena = Arena(int(shm_gb * (1 << 30)), name=f"openspore-dataset-cache-p{port}")
        memory_cap = min(self.arena.size, int(memory_cap_ratio * physical))
        self.store = Store(self.arena, memory_cap, self.spill_root, self.log)
        self.log.info("shared memory of %d bytes created; memory cap %d bytes (%.2f of %d bytes of RAM, at most "
                      "the shared memory)", self.arena.size, memory_cap, memory_cap_ratio, physical)
        self.fd_server = FdServer(port, self.arena.fd, self.arena.size, self.log)
        self.grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=max(2, workers) + 1,
                                                           thread_name_prefix="cache-server"), options=GRPC_OPTIONS)
        handler = grpc.unary_unary_rpc_method_handler(self._call)
        self.grpc.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
            wire.SERVICE_METHOD.split("/")[1], {"Call": handler}),))
        try:
            bound = self.grpc.add_insecure_port(f"{host}:{port}")
        except RuntimeError:
            bound = 0
        if bound != port:
            self.close()
            raise CacheError(f"Cache server could not listen on {host}:{port}: the address is in use or not local.")

    # --- requests -----------------------------------------------------------------------------------------------
    def _call(self, request, context):
        try:
            header, blobs = wire.unpack(request)
            op = header.get("op")
            method = getattr(self, f"_op_{op}", None)
            if method is None:
                raise CacheError(f"unknown cache server request {op!r}")
            reply, out = method(header, blobs)
        except CacheError as exc:
            reply, out = {"error": str(exc)}, ()
        except Exception as exc:  # noqa: BLE001 - a bad request must not take the service down
            self.log.exception("request failed")
            reply, out = {"error": f"cache server internal error: {type(exc).__name__}: {exc}"}, ()
        return wire.pack(reply, out)

    def _op_ping(self, h, b):
        return {"pid": os.getpid(), "port": self.port}, ()

    def _op_info(self, h, b):
        return {"pid": os.getpid(), "hostname": self.host, "port": self.port, "workers": self.workers,
                "log_level": self.log_level, "spill_dir": self.spill_dir, "shm_gb": self.shm_gb,
                "memory_cap_ratio": self.memory_cap_ratio, "log": self.log_path,
                "sessions": sorted(self.store.sessions)}, ()

    def _op_new_session(self, h, b):
        return {"session_id": self.store.new_session()}, ()

    def _op_drop_session(self, h, b):
        return {"found": self.store.drop_session(int(h["session_id"]))}, ()

    def _op_list(self, h, b):
        rows = []
        for sid in sorted(self.store.sessions):
            caches = self.store.sessions.get(sid, {})
            rows.append({"session_id": sid, "caches": [c.stat() for c in list(caches.values())]})
        return {"sessions": rows}, ()

    def _op_stop(self, h, b):
        self.log.info("stop requested")
        threading.Timer(0.1, self.stopped.set).start()  # reply first, then stop
        return {"stopping": True}, ()

    def _op_create(self, h, b):
        cache = self.store.create_cache(int(h["session_id"]), int(h["crc"]), int(h["size"]), bool(h["spilling"]))
        return {"cache_id": cache.cache_id}, ()

    def _op_lookup(self, h, b):
        return {"rows": self.store.lookup(h["cache_id"], h["keys"], bool(h["local"]))}, ()

    def _op_fetch(self, h, b):
        metas, blobs = self.store.fetch(h["cache_id"], h["keys"])
        return {"metas": metas}, blobs

    def _op_reserve(self, h, b):
        return {"blocks": self.store.reserve(h["cache_id"], h["sizes"])}, ()

    def _op_commit(self, h, b):
        self.store.commit(h["cache_id"], h["entries"])
        return {}, ()

    def _op_write(self, h, b):
        self.store.write(h["cache_id"], h["entries"], b)
        return {}, ()

    def _op_stat(self, h, b):
        return self.store.get(h["cache_id"]).stat(), ()

    # --- life cycle ---------------------------------------------------------------------------------------------
    def close(self):
        self.grpc.stop(grace=0.5).wait(2.0)
        self.fd_server.close()
        self.store.close()
        self.arena.close()
        if self.spill_root:
            shutil.rmtree(self.spill_root, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="openspore-cache-server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--spilldir", default="")
    parser.add_argument("--loglevel", type=int, default=1)
    parser.add_argument("--shm-gb", type=float, default=4.0)
    parser.add_argument("--memory-cap-ratio", type=float, default=0.8)
    args = parser.parse_args(argv)
    try:
        server = CacheServer(args.host, args.port, args.workers, args.spilldir or None, args.loglevel, args.shm_gb,
                             args.memory_cap_ratio)
    except (CacheError, OSError) as exc:
        print(f"ERR {exc}", flush=True)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: server.stopped.set())
    signal.signal(signal.SIGINT, lambda *_: server.stopped.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a daemon outlives the terminal that started it
    server.grpc.start()
    print(f"OK {os.getpid()} {server.log_path}", flush=True)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    server.log.info("Cache server started on %s:%d (pid %d, %d workers, spill dir %s)", args.host, args.port,
                    os.getpid(), args.workers, args.spilldir or None)
    while not server.stopped.wait(0.5):  # short waits: signal handlers run between them
        pass
    server.close()
    server.log.info("Cache server on port %d stopped", args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
