"""The master of one serving process: dispatcher, worker manager, the internal MSMaster service and the front
ends. `openspore.serving.server` drives one Master per process (MindSpore Serving's module-level API)."""
import logging
import os
import threading
import time
from concurrent import futures

import grpc

from ...proto import ms_worker_pb2 as wpb
from ...proto import ms_worker_pb2_grpc as wgrpc
from . import context
from .dispatcher import Dispatcher
from .generation import GenerationRouter
from .metrics import Metrics
from .workers import WorkerManager

logger = logging.getLogger("openspore.serving")


class _MasterService(wgrpc.MSMasterServicer):
    def __init__(self, master):
        self.master = master

    def Register(self, request, context_):  # noqa: N802 - gRPC method name
        return wpb.RegisterReply(error_msg=self.master.workers.on_register(request))

    def NotifyFailed(self, request, context_):  # noqa: N802 - gRPC method name
        self.master.workers.on_failed(request)
        return wpb.NotifyFailedReply()


class Master:
    def __init__(self):
        self.cv = threading.Condition(threading.RLock())
        self.metrics = Metrics()
        self.dispatcher = Dispatcher(self.cv, self.metrics)
        self._internal = grpc.server(futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="serving-internal"),
                                     options=[("grpc.so_reuseport", 0)])
        wgrpc.add_MSMasterServicer_to_server(_MasterService(self), self._internal)
        port = self._internal.add_insecure_port("127.0.0.1:0")
        self._internal.start()
        self.workers = WorkerManager(self.cv, self.dispatcher, self.metrics, f"127.0.0.1:{port}")
        self.generation = GenerationRouter(self)
        self.directories = {}          # servable name → directory
        self.grpc_server = None
        self.rest_server = None
        self.stopped = False

    def start_servables(self, configs):
        """Start one worker per device id holding every (servable, version) configured on it; wait until all are
        ready. `configs`: merged ServableStartConfig objects."""
        by_device = {}
        for config in configs:
            known = self.directories.get(config.servable_name)
            if known is not None and known != config.servable_directory:
                raise RuntimeError(f"The servable '{config.servable_name}' is already served from '{known}', it "
                                   f"cannot also be served from '{config.servable_directory}'.")
            self.directories[config.servable_name] = config.servable_directory
            self.dispatcher.set_knobs(config.servable_name, config.max_batch_size, config.max_queue_delay)
            entry = {"directory": config.servable_directory, "name": config.servable_name,
                     "version": config.resolved_version, "max_batch_size": config.max_batch_size}
            for device_id in (config.device_ids or (0,)):
                device = by_device.setdefault(device_id, {"type": config.device_type, "servables": []})
                if entry not in device["servables"]:
                    device["servables"].append(entry)
        existing = {w.device_id for w in self.workers.workers}
        taken = sorted(existing & set(by_device))
        if taken:
            raise RuntimeError(f"Device ids {taken} already have workers in this server; start all servables of a "
                               "device in one start_servables call.")
        handles = [self.workers.add(device_id, spec["type"], spec["servables"])
                   for device_id, spec in sorted(by_device.items())]
        started = time.monotonic()
        self.workers.wait_ready(handles)
        self.workers.restarting = True
        logger.info("serving: %d worker(s) ready in %.1f s", len(handles), time.monotonic() - started)

    def stop(self):
        """Refuse new requests, drain the queued and in-flight ones, stop the front ends and the workers."""
        if self.stopped:
            return
        self.stopped = True
        deadline = time.monotonic() + context.get("drain_timeout")
        drained = self.dispatcher.drain(context.get("drain_timeout"))
        drained = self.generation.drain(deadline) and drained
        if not drained:
            logger.warning("serving: stop() timed out draining in-flight requests; the rest fail with "
                           "'Servable stopped'")
        self.generation.close()
        if self.grpc_server is not None:
            self.grpc_server.stop()
        if self.rest_server is not None:
            self.rest_server.stop()
        self.dispatcher.stop()
        self.workers.stop()
        self._internal.stop(grace=0.5).wait()


def servable_directory_check(directory, name):
    """MindSpore Serving's startup checks of `<directory>/<name>/servable_config.py`."""
    path = os.path.join(directory, name)
    if not os.path.isdir(path):
        raise RuntimeError(f"Check servable config failed, directory '{path}' not exist, servable directory: "
                           f"'{directory}', servable name: '{name}'")
    config = os.path.join(path, "servable_config.py")
    if not os.path.isfile(config):
        raise RuntimeError(f"Check servable config failed, file '{config}' not exist, servable directory: "
                           f"'{directory}', servable name: '{name}'")


def newest_version(directory, name):
    """The largest all-digit subdirectory name of `<directory>/<name>`, or 0 when there is none."""
    path = os.path.join(directory, name)
    numbers = [int(d) for d in os.listdir(path) if d.isdigit() and os.path.isdir(os.path.join(path, d))]
    return max(numbers, default=0)
