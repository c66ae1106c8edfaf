"""The master's side of generation servables: pick a worker, start the request on the worker's multiplexed
`MSWorker.GenerateMux` stream (generation_mux.py), relay the replies, turn the worker's gRPC statuses into
ServingErrors with HTTP statuses, and keep the generation metrics. `GenerationCall` over one per-request
`MSWorker.Generate` stream is the base class of the multiplexed `MuxCall`.

Requests are not queued in the master: the worker's scheduler owns the queue (bounded; a full one answers 429).
The worker with the fewest open streams gets the next request. A worker that dies fails the streams it was running
with an error saying so (tokens may already have been sent, so generation is not retried); the worker manager
restarts it and new requests go to it once it has registered again.
"""
import asyncio
import logging
import threading
import time

import grpc

from ...common.status import NotFoundError, ServingError, StatusCode
from ...proto import ms_worker_pb2 as wpb
from . import context

logger = logging.getLogger("openspore.serving")
_END = object()

_STATUS = {  # the worker's gRPC status → (StatusCode, HTTP status)
    grpc.StatusCode.INVALID_ARGUMENT: (StatusCode.INVALID_INPUTS, 400),
    grpc.StatusCode.NOT_FOUND: (StatusCode.INVALID_INPUTS, 404),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (StatusCode.SERVABLE_UNAVAILABLE, 429),
}


class GenerationCall:
    """One open generation stream: iterate for GenerateReply messages; `cancel()` stops it (and frees its blocks
    in the worker). Iteration raises ServingError when the request fails."""

    def __init__(self, router, info, worker, call):
        self.router, self.info, self.worker, self.call = router, info, worker, call
        self.started = time.perf_counter()
        self.first_token_at = None
        self._closed = False

    def __iter__(self):
        try:
            for reply in self.call:
                yield self._observe(reply)
        except grpc.RpcError as exc:
            raise self._error(exc) from None
        finally:
            self._close()

    def _observe(self, reply):
        """Count a reply in the generation metrics → the reply."""
        if reply.token_ids and self.first_token_at is None:
            self.first_token_at = time.perf_counter()
            self.router.metrics.ttft.labels(self.info.name).observe(self.first_token_at - self.started)
        self.router.metrics.generated.labels(self.info.name).inc(len(reply.token_ids))
        if reply.finish_reason:
            self.router.metrics.finished.labels(self.info.name, reply.finish_reason).inc()
        return reply

    def _error(self, exc):
        code = exc.code()
        if code in _STATUS:
            status, http = _STATUS[code]
            return ServingError(exc.details(), status, http_status=http)
        if code == grpc.StatusCode.CANCELLED and self._closed:
            return ServingError("the request was cancelled", StatusCode.FAILED, http_status=499)
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) or not self.worker.alive():
            self.worker.mark_unreachable(f"{code.name}: {exc.details()}")
            self.router.metrics.finished.labels(self.info.name, "worker_lost").inc()
            return ServingError(f"servable({self.info.name}): the worker process (pid {self.worker.pid}, device "
                                f"{self.worker.device_id}) running this generation exited; the request failed "
                                "(it is not retried: tokens may already have been sent). The worker is being "
                                "restarted; send the request again.", StatusCode.WORKER_UNAVAILABLE, http_status=503)
        return ServingError(f"servable({self.info.name}): generation failed: {exc.details()}", StatusCode.FAILED,
                            http_status=500)

    def cancel(self):
        if not self._closed:
            self._closed = True
            self.call.cancel()
        self._close()

    def _close(self):
        with self.router.cv:
            if self in self.router.open_calls:
                self.router.open_calls.remove(self)
                self.router.metrics.streams.labels(self.info.name).dec()
                self.router.cv.notify_all()

    async def replies(self):
        """The same replies for asyncio code: a thread reads the stream; leaving early cancels it."""
        loop = asyncio.get_running_loop()
        items = asyncio.Queue()

        def pump():
            try:
                for reply in self:
                    loop.call_soon_threadsafe(items.put_nowait, reply)
            except ServingError as exc:
                loop.call_soon_threadsafe(items.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(items.put_nowait, _END)
        threading.Thread(target=pump, name="serving-generate", daemon=True).start()
        try:
            while True:
                item = await items.get()
                if item is _END:
                    return
                if isinstance(item, ServingError):
                    raise item
                yield item
        finally:
            self.cancel()


class GenerationRouter:
    def __init__(self, master):
        self.master = master
        self.cv = master.cv
        self.metrics = master.metrics
        self.open_calls = []
        self.connections = {}   # worker -> its MuxConnection (generation_mux.py); a restarted worker gets a new one

    def servables(self):
        """The generation servables served now: (model name, newest ServableInfo) pairs, sorted by name."""
        with self.cv:
            found = {}
            for versions in self.master.dispatcher.servables.values():
                for version in sorted(versions):
                    info = versions[version]
                    if info.llm is not None:
                        found[info.llm.model_name] = info
            return sorted(found.items())

    def resolve(self, model, version=0, field="model"):
        """A model id (or servable name) → ServableInfo; NotFoundError naming the field and the models served."""
        with self.cv:
            for name, versions in self.master.dispatcher.servables.items():
                for v in sorted(versions, reverse=True):
                    info = versions[v]
                    if info.llm is not None and model in (info.llm.model_name, name) and version in (0, v):
                        return info
        known = [m for m, _ in self.servables()]
        raise NotFoundError(f"{field}: the model '{model}'{f' version {version}' if version else ''} does not exist; "
                            f"the generation models served are {known}")

    def _pick_worker(self, info):
        deadline = time.monotonic() + context.get("worker_wait_timeout")
        with self.cv:
            while True:
                if not self.master.dispatcher.accepting:
                    raise ServingError("Serving server is stopping, the request is not accepted",
                                       StatusCode.SERVABLE_UNAVAILABLE)
                ready = [w for w in info.workers if w.ready]
                if ready:
                    load = {w: 0 for w in ready}
                    for call in self.open_calls:
                        if call.worker in load:
                            load[call.worker] += 1
                    return min(ready, key=lambda w: load[w])
                if not any(w.may_serve for w in info.workers):
                    raise ServingError(f"servable({info.name}) is not available: its workers failed and cannot be "
                                       "restarted", StatusCode.SERVABLE_UNAVAILABLE)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ServingError(f"servable({info.name}) is not available: no worker became ready within "
                                       f"{context.get('worker_wait_timeout'):g} s", StatusCode.SERVABLE_UNAVAILABLE)
                self.cv.wait(min(left, 0.2))

    def open(self, info, request, loop=None):
        """Start generating `request` (a GenerateRequest) on a worker of `info` → a GenerationCall, its replies
        relayed on the worker's one multiplexed stream (generation_mux.py). `loop`: the asyncio loop that will
        read the call's `replies()` (None: iterate it from a thread)."""
        return self._start(info, self._pick_worker(info), request, loop)

    def open_nowait(self, info, request, loop=None):
        """`open` when a worker is ready now (no waiting, so an event loop may call it), else None."""
        with self.cv:
            if not self.master.dispatcher.accepting or not any(w.ready for w in info.workers):
                return None
        return self.open(info, request, loop)

    def _start(self, info, worker, request, loop):
        from .generation_mux import MuxCall
        request.servable_name, request.version_number = info.name, info.version
        stub = worker.stub
        if stub is None:
            raise ServingError(f"servable({info.name}) is not available: its worker is restarting",
                               StatusCode.SERVABLE_UNAVAILABLE)
        with self.cv:
            connection = self.connections.get(worker)
            if connection is None or connection.stub is not stub or connection.dead is not None:
                from .generation_mux import MuxConnection
                connection = self.connections[worker] = MuxConnection(stub)
        call = MuxCall(self, info, worker, connection, request, loop)
        with self.cv:
            self.open_calls.append(call)
            self.metrics.streams.labels(info.name).inc()
        return call

    def drain(self, deadline):
        """Wait until the open generations end (new ones are refused once the dispatcher stops accepting)."""
        with self.cv:
            while self.open_calls:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cv.wait(min(left, 0.2))
        return True

    def close(self):
        """Fail what is still generating (after `drain` gave up) and end every worker's relay stream."""
        from .generation_mux import StreamError
        with self.cv:
            connections, self.connections = list(self.connections.values()), {}
        for connection in connections:
            connection.close(StreamError(grpc.StatusCode.UNAVAILABLE, "Servable stopped"))

    def refresh_stats(self):
        """Copy each generation worker's scheduler stats into the metrics (called before /metrics renders)."""
        with self.cv:
            workers = {w for _, info in self.servables() for w in info.workers if w.ready and w.stub is not None}
        totals = {}
        for worker in workers:
            try:
                reply = worker.stub.LLMStats(wpb.LLMStatsRequest(), timeout=2)
            except grpc.RpcError:
                continue
            for entry in reply.servables:
                values = totals.setdefault(entry.servable_name, {})
                for key, value in entry.values.items():
                    values[key] = values.get(key, 0.0) + value
        for name, values in totals.items():
            for key, value in values.items():
                self.metrics.scheduler.labels(name, key).set(value)
