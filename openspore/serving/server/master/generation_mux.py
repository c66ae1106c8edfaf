"""The master's relay of generation replies: one `MSWorker.GenerateMux` stream per worker carries every request
sent to it, and the worker answers in batches (worker/generate_mux.py).

Per request the old path had a gRPC stream, a thread reading it and one hop into the event loop per reply; here
one thread per worker reads the batches and hands each batch's replies to their requests with one hop per event
loop, so a decode step's tokens for 16 streaming clients cost one message and one wake-up, not 16 of each.
`MuxCall` is a `GenerationCall` (the same iteration, `replies()`, `cancel()` and error mapping), so the REST,
OpenAI and gRPC front ends are unchanged.
"""
import asyncio
import itertools
import logging
import queue
import threading

import grpc

from ...proto import ms_worker_pb2 as wpb
from .generation import GenerationCall

logger = logging.getLogger("openspore.serving")
_STOP = object()


class StreamError(grpc.RpcError):
    """A request's error as the worker reported it (a grpc.StatusCode and details, as a failed call has them)."""

    def __init__(self, code, details):
        super().__init__(details)
        self._code, self._details = code, details

    def code(self):
        return self._code

    def details(self):
        return self._details


_CODES = {c.value[0]: c for c in grpc.StatusCode}


class _Sink:
    __slots__ = ("loop", "queue")

    def __init__(self, loop):
        self.loop = loop
        self.queue = asyncio.Queue() if loop is not None else queue.Queue()


def _put_all(pairs):
    for sink_queue, item in pairs:
        sink_queue.put_nowait(item)


class MuxConnection:
    """The master's end of one worker's GenerateMux stream: `start(request, sink)` → stream id, `cancel(id)`.
    When the stream fails (the worker died), every request on it gets the error; `dead` is then set and the
    router opens a new connection for the next request."""

    def __init__(self, stub):
        self.stub = stub
        self.lock = threading.Lock()
        self.sinks = {}
        self.ids = itertools.count(1)
        self.outbox = queue.Queue()
        self.dead = None
        self.call = stub.GenerateMux(iter(self.outbox.get, _STOP))
        threading.Thread(target=self._read, name="serving-generate-mux", daemon=True).start()

    def start(self, request, sink):
        with self.lock:
            if self.dead is not None:
                raise self.dead
            stream_id = next(self.ids)
            self.sinks[stream_id] = sink
        self.outbox.put(wpb.GenerateMuxRequest(stream_id=stream_id, request=request))
        return stream_id

    def cancel(self, stream_id):
        """Stop a request (a no-op once it ended): the worker cancels it and frees its blocks."""
        with self.lock:
            running = self.sinks.pop(stream_id, None) is not None and self.dead is None
        if running:
            self.outbox.put(wpb.GenerateMuxRequest(stream_id=stream_id, cancel=True))

    def _read(self):
        try:
            for batch in self.call:
                self._dispatch(batch.items)
            error = StreamError(grpc.StatusCode.UNAVAILABLE, "the worker ended the generation stream")
        except grpc.RpcError as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - every waiting request must still end
            logger.exception("generation relay: reading the worker's stream failed")
            error = StreamError(grpc.StatusCode.INTERNAL, f"the generation relay failed: {exc}")
        self._fail(error)

    def close(self, error):
        """End the stream from the master's side (the server is stopping): every request still on it gets `error`
        at once, so no reader thread waits for a reply that will not come."""
        self._fail(error)
        self.call.cancel()

    def _fail(self, error):
        with self.lock:
            if self.dead is None:
                self.dead = error
            sinks, self.sinks = list(self.sinks.values()), {}
        self.outbox.put(_STOP)
        by_loop = {}
        for sink in sinks:
            if sink.loop is None:
                sink.queue.put(error)
            else:
                by_loop.setdefault(sink.loop, []).append((sink.queue, error))
        self._deliver(by_loop)

    def _dispatch(self, items):
        """Hand each item to its request: sync readers at once, each event loop's readers in one hop."""
        by_loop = {}
        with self.lock:
            for item in items:
                sink = self.sinks.get(item.stream_id)
                if sink is None:
                    continue   # cancelled meanwhile
                if item.error_code or item.reply.finish_reason:
                    del self.sinks[item.stream_id]
                if sink.loop is None:
                    sink.queue.put(item)
                else:
                    by_loop.setdefault(sink.loop, []).append((sink.queue, item))
        self._deliver(by_loop)

    @staticmethod
    def _deliver(by_loop):
        for loop, pairs in by_loop.items():
            try:
                loop.call_soon_threadsafe(_put_all, pairs)
            except RuntimeError:   # the loop is closed: nobody reads these any more
                pass


class MuxCall(GenerationCall):
    """One request on a worker's MuxConnection; read it with `for reply in call` from a thread, or with
    `async for reply in call.replies()` on the `loop` given to the router's `open`."""

    def __init__(self, router, info, worker, connection, request, loop):
        super().__init__(router, info, worker, None)
        self.connection, self.sink = connection, _Sink(loop)
        try:
            self.stream_id = connection.start(request, self.sink)
        except grpc.RpcError as exc:
            raise self._error(exc) from None

    def _reply(self, item):
        """An item from the sink → its reply (counted in the metrics); raises ServingError for an error."""
        if isinstance(item, grpc.RpcError):
            raise self._error(item)
        if item.error_code:
            raise self._error(StreamError(_CODES.get(item.error_code, grpc.StatusCode.UNKNOWN), item.error_msg))
        return self._observe(item.reply)

    def __iter__(self):
        try:
            while True:
                reply = self._reply(self.sink.queue.get())
                yield reply
                if reply.finish_reason:
                    return
        finally:
            self.cancel()

    async def replies(self):
        try:
            while True:
                reply = self._reply(await self.sink.queue.get())
                yield reply
                if reply.finish_reason:
                    return
        finally:
            self.cancel()

    def cancel(self):
        if not self._closed:
            self._closed = True
            self.connection.cancel(self.stream_id)
        self._close()
