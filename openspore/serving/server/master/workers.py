"""Worker processes: start one per device id, watch them, restart the ones that die, stop them at the end.

A worker is `python -m openspore.serving.server.worker`; it loads its servables, serves MSWorker on an ephemeral
127.0.0.1 port and registers with the master's internal MSMaster service. Its stdout and stderr go to
`<worker_log_dir>/log_worker_device<id>.log` (overwritten at the first start, appended on restarts).
"""
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import grpc

from ...proto import ms_worker_pb2 as wpb
from ...proto import ms_worker_pb2_grpc as wgrpc
from . import context
from .dispatcher import SLOTS_PER_WORKER

logger = logging.getLogger("openspore.serving")
GRPC_OPTIONS = [("grpc.max_send_message_length", 512 << 20), ("grpc.max_receive_message_length", 512 << 20)]
RESTART_DELAY = 0.5        # seconds a dead worker stays down before it is started again
MAX_FAILED_STARTS = 3      # starts in a row that die before registering: the worker is given up
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))


_WORKER_BOOT = (f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); sys.argv[0] = 'openspore-serving-worker'; "
                "from openspore.serving.server.worker._worker import run; sys.exit(run())")


class WorkerHandle:
    """One worker slot (a device id) and the process currently filling it."""

    def __init__(self, device_id, device_type, servables, log_path):
        self.device_id, self.device_type, self.servables = device_id, device_type, servables
        self.log_path = log_path
        # Restarts reuse the environment of the first start, whatever the master's environment is by then.
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = _PACKAGE_ROOT + (os.pathsep + self.env["PYTHONPATH"] if self.env.get("PYTHONPATH")
                                                  else "")
        self.proc = None
        self.pid = None
        self.state = "starting"     # starting → ready → dead → starting ...; failed; stopped
        self.address = self.channel = self.stub = None
        self.free_slots = SLOTS_PER_WORKER
        self.inflight = {}
        self.served = 0
        self.starts = 0
        self.failed_starts = 0
        self.error = None
        self.died_at = None
        self.registered = False

    def __repr__(self):
        return f"Worker(pid={self.pid}, device={self.device_id}, state={self.state})"

    @property
    def ready(self):
        return self.state == "ready"

    @property
    def may_serve(self):
        return self.state in ("starting", "ready", "dead")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def mark_unreachable(self, detail):
        """The worker cannot be reached: stop sending to it and kill it; the monitor restarts it."""
        if self.state == "ready":
            logger.warning("serving: worker %s is unreachable (%s), killing it", self, detail)
            self.state = "starting"
        if self.alive():
            try:
                self.proc.kill()
            except OSError:
                pass

    def log_tail(self, lines=15):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


class WorkerManager:
    def __init__(self, cv, dispatcher, metrics, master_address):
        self.cv = cv
        self.dispatcher = dispatcher
        self.metrics = metrics
        self.master_address = master_address
        self.workers = []
        self.restarting = False     # restarts begin once start_servables has succeeded
        self._stopping = False
        self._thread = threading.Thread(target=self._monitor, name="serving-worker-monitor", daemon=True)
        self._thread.start()

    def add(self, device_id, device_type, servables):
        log_dir = context.get("worker_log_dir")
        os.makedirs(log_dir, exist_ok=True)
        handle = WorkerHandle(device_id, device_type, servables,
                              os.path.abspath(os.path.join(log_dir, f"log_worker_device{device_id}.log")))
        with self.cv:
            self.workers.append(handle)
            self._spawn(handle)
        return handle

    def _spawn(self, handle):
        # Not `python -m`: that puts the current directory first on sys.path, and a directory holding another
        # openspore checkout would give the worker a different openspore from the server's.
        cmd = [sys.executable, "-c", _WORKER_BOOT, "--master", self.master_address,
               "--device-id", str(handle.device_id), "--device-type", handle.device_type or "cpu",
               "--servables", json.dumps(handle.servables)]
        mode = "a" if handle.starts else "w"
        with open(handle.log_path, mode, encoding="utf-8") as log:
            handle.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                           env=handle.env, start_new_session=True)
        handle.pid = handle.proc.pid
        handle.starts += 1
        handle.state = "starting"
        handle.registered = False
        handle.error = None
        logger.info("serving: started worker pid %d for device %d (%s)", handle.pid, handle.device_id,
                    ", ".join(f"{s['name']} v{s['version']}" for s in handle.servables))
        self._update_metrics()

    def _update_metrics(self):
        counts = {}
        for w in self.workers:
            counts[w.state] = counts.get(w.state, 0) + 1
        self.metrics.worker_states(counts)

    # -- calls from the internal MSMaster service ---------------------------------------------------------------
    def on_register(self, request):
        with self.cv:
            handle = next((w for w in self.workers if w.pid == request.worker_pid), None)
            if handle is None or self._stopping:
                return "unknown worker or the server is stopping"
            old = handle.channel  # closed below, outside the lock (see `_monitor`)
            handle.address = request.address
            handle.channel = grpc.insecure_channel(request.address, options=GRPC_OPTIONS)
            handle.stub = wgrpc.MSWorkerStub(handle.channel)
            handle.free_slots = SLOTS_PER_WORKER
            handle.state = "ready"
            handle.registered = True
            handle.failed_starts = 0
            self.dispatcher.add_worker(handle, request.servables)
            self._update_metrics()
            self.cv.notify_all()
        if old is not None:
            old.close()
        return ""

    def on_failed(self, request):
        with self.cv:
            handle = next((w for w in self.workers if w.pid == request.worker_pid), None)
            if handle is not None:
                handle.error = request.error_msg
            self.cv.notify_all()

    # -- startup -------------------------------------------------------------------------------------------------
    def wait_ready(self, handles):
        """Block until `handles` are all registered; RuntimeError('Fail to start workers: ...') if one fails."""
        with self.cv:
            while True:
                for w in handles:
                    if w.state != "ready" and (w.error is not None or not w.alive()):
                        if w.alive():
                            w.proc.wait(timeout=10)
                        detail = w.error or (f"the worker process (pid {w.pid}, device {w.device_id}) exited with "
                                             f"code {w.proc.poll()} before it was ready; the end of its log "
                                             f"{w.log_path}:\n{w.log_tail()}")
                        raise RuntimeError(f"Fail to start workers: {detail}")
                if all(w.state == "ready" for w in handles):
                    return
                self.cv.wait(0.2)

    # -- monitoring ----------------------------------------------------------------------------------------------
    def _monitor(self):
        while True:
            lost, closing = [], []
            with self.cv:
                if self._stopping:
                    return
                now = time.monotonic()
                for w in self.workers:
                    if w.state in ("starting", "ready") and w.proc is not None and w.proc.poll() is not None:
                        self._on_death(w, now, lost, closing)
                    elif w.state == "dead" and self.restarting and now - w.died_at >= RESTART_DELAY:
                        if w.failed_starts >= MAX_FAILED_STARTS:
                            w.state = "failed"
                            logger.error("serving: worker for device %d failed to start %d times in a row, giving "
                                         "up; see %s", w.device_id, w.failed_starts, w.log_path)
                            self._update_metrics()
                            self.cv.notify_all()
                        else:
                            self.metrics.restarts.inc()
                            self._spawn(w)
            # a dead worker's channel is closed outside the lock: grpc's close waits for the callbacks of the calls
            # still in flight on it, and those (`Dispatcher._on_reply`) take this same lock: closed under it, the
            # monitor and the callbacks waited for each other for good (seen with a worker killed under load)
            for channel in closing:
                channel.close()
            for worker, entries in lost:
                self.dispatcher.requeue_lost(worker, entries)
            time.sleep(0.05)

    def _on_death(self, w, now, lost, closing):
        code = w.proc.returncode
        logger.warning("serving: worker pid %d (device %d) exited with code %s%s", w.pid, w.device_id, code,
                       "" if self.restarting else " during startup")
        if not w.registered:
            w.failed_starts += 1
        entries = self.dispatcher.worker_lost(w)
        if entries:
            lost.append((w, entries))
        w.state = "dead"
        w.died_at = now
        if w.channel is not None:
            closing.append(w.channel)
            w.channel = w.stub = None
        self._update_metrics()
        self.cv.notify_all()

    # -- shutdown ------------------------------------------------------------------------------------------------
    def stop(self, timeout=10.0):
        """Ask every worker to exit, wait up to `timeout` seconds, then kill what is left."""
        with self.cv:
            self._stopping = True
            workers = list(self.workers)
        self._thread.join(timeout=2)
        for w in workers:
            if w.alive() and w.stub is not None:
                try:
                    w.stub.Exit(wpb.ExitRequest(reason="server stop"), timeout=2)
                except grpc.RpcError:
                    pass
            elif w.alive():
                try:
                    w.proc.send_signal(signal.SIGTERM)
                except OSError:
                    pass
        deadline = time.monotonic() + timeout
        for w in workers:
            if w.proc is None:
                continue
            try:
                w.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                logger.warning("serving: worker pid %d did not exit in time, killing it", w.pid)
                w.proc.kill()
                w.proc.wait()
            if w.channel is not None:
                w.channel.close()
            w.state = "stopped"
        self._update_metrics()
