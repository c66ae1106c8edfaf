"""The worker's side of `MSWorker.GenerateMux`: many generation requests on one gRPC stream from the master.

With one `Generate` stream per request, every reply of every request is a gRPC message of its own, sent by a
thread of its own: under 16 streaming clients that is hundreds of messages a second, each one a thread switch
and a trip through gRPC's event loop in the worker, and again in the master, competing with the scheduler thread
for the GIL. Here one session serves all the requests the master sends on the stream: a thread reads the
master's starts and cancels, and the response generator wakes after each scheduler step (a step listener) and
sends the new replies of every request that has one due in a single `GenerateMuxReply`. Pacing: a request's
first tokens go at once, its last reply as soon as it ends, and the replies between on ticks of
`stream_interval_ms` shared by all the requests (at least half an interval apart, one interval on average), so
each tick's replies travel together instead of each request's falling due at a step of its own. Errors are per request (`error_code`, a grpc.StatusCode number, and `error_msg`); the stream
itself ends when the master closes it, and then every request still running on it is cancelled.
"""
import logging
import math
import threading
import time

import grpc

from ...proto import ms_worker_pb2 as wpb

logger = logging.getLogger("openspore.serving")


class _Stream:
    __slots__ = ("runtime", "handle", "text", "next_at")

    def __init__(self, runtime, handle, text):
        self.runtime, self.handle, self.text, self.next_at = runtime, handle, text, None

    def eager(self):
        """Whether it has a reply to send now without waiting for a tick: its first, its last, or any without
        pacing. (A request still waiting in the scheduler's queue has none.)"""
        return self.handle.has_tokens() and (self.next_at is None or not self.runtime.stream_interval or
                                             self.handle.wait_end(0))


def _next_tick(now, interval):
    """The tick (a multiple of `interval` seconds) at least half an interval after `now`: a request's replies
    land on ticks shared by every request with that interval, so one message carries them all."""
    return math.ceil((now + interval / 2) / interval) * interval


class MuxSession:
    """One GenerateMux call. `find(request)` → the LLMRuntime serving a GenerateRequest, or raises LookupError
    with the message to return (NOT_FOUND)."""

    def __init__(self, find, request_iterator):
        self.find = find
        self.streams = {}        # stream id -> _Stream
        self.items = []          # items ready to send (failed starts)
        self.cv = threading.Condition()
        self.woken = False
        self.closed = False
        self.tick = math.inf     # the earliest tick a paced request waits for
        self.schedulers = set()  # the schedulers whose steps wake the sender
        threading.Thread(target=self._read, args=(request_iterator,), name="generate-mux-read", daemon=True).start()

    # -- the master's requests ---------------------------------------------------------------------------------
    def _read(self, request_iterator):
        try:
            for message in request_iterator:
                if message.cancel:
                    with self.cv:
                        stream = self.streams.pop(message.stream_id, None)
                    if stream is not None:
                        stream.handle.cancel()
                else:
                    self._start(message.stream_id, message.request)
        except Exception as exc:  # noqa: BLE001 - the master went away (a cancelled call raises here)
            logger.debug("generate mux: the request stream ended: %s", exc)
        finally:
            with self.cv:
                self.closed = True
                self.cv.notify_all()

    def _start(self, stream_id, request):
        from openspore.llm.scheduler import GenerationError, QueueFull
        try:
            runtime = self.find(request)
            handle, text = runtime.start(request)
        except LookupError as exc:
            return self._fail(stream_id, grpc.StatusCode.NOT_FOUND, str(exc.args[0]))
        except ValueError as exc:
            return self._fail(stream_id, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except QueueFull as exc:
            return self._fail(stream_id, grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except GenerationError as exc:
            return self._fail(stream_id, grpc.StatusCode.UNAVAILABLE, str(exc))
        scheduler = runtime.scheduler
        with self.cv:
            if scheduler not in self.schedulers:
                self.schedulers.add(scheduler)
                scheduler.add_step_listener(self._wake)
            self.streams[stream_id] = _Stream(runtime, handle, text)
            self.woken = True
            self.cv.notify_all()

    def _fail(self, stream_id, code, message):
        with self.cv:
            self.items.append(wpb.GenerateMuxItem(stream_id=stream_id, error_code=code.value[0], error_msg=message))
            self.cv.notify_all()

    def _wake(self):
        """After a scheduler step: wake the sender when a reply may be due (not at every step: paced replies
        wait for their tick)."""
        with self.cv:
            if self.tick <= time.perf_counter() or any(s.eager() for s in self.streams.values()):
                self.woken = True
                self.cv.notify_all()

    # -- the replies ------------------------------------------------------------------------------------------
    def replies(self):
        """The response stream: GenerateMuxReply batches until the master closes its side."""
        try:
            while True:
                with self.cv:
                    if not (self.woken or self.items or self.closed):
                        self.cv.wait(self._next_due())   # a step, a start or a paced reply falling due
                    if self.closed:
                        return
                    self.woken = False
                    items, self.items = self.items, []
                    streams = list(self.streams.items())
                items += self._due_items(streams)
                if items:
                    yield wpb.GenerateMuxReply(items=items)
        finally:
            self._close()

    def _next_due(self):
        """Seconds until the earliest tick of a paced stream holding unsent tokens (None: none does; new tokens
        come with a step, and a step wakes the sender)."""
        due = [s.next_at for s in self.streams.values() if s.next_at is not None and s.handle.has_tokens()]
        return max(0.0, min(due) - time.perf_counter()) if due else None

    def _due_items(self, streams):
        from openspore.llm.scheduler import GenerationError
        items, now = [], time.perf_counter()
        for stream_id, s in streams:
            if not s.handle.has_tokens():
                continue   # nothing new (or still queued in the scheduler)
            interval = s.runtime.stream_interval
            if s.next_at is not None and interval and now < s.next_at and not s.handle.wait_end(0):
                continue   # paced: its tokens wait for its tick
            try:
                tokens, finished = s.handle.next_tokens(timeout=0)
                reply, finished = s.runtime.reply(s.handle, s.text, tokens, finished)
            except GenerationError as exc:
                items.append(wpb.GenerateMuxItem(stream_id=stream_id, error_code=grpc.StatusCode.INTERNAL.value[0],
                                                 error_msg=str(exc)))
                finished = True
            else:
                items.append(wpb.GenerateMuxItem(stream_id=stream_id, reply=reply))
                s.next_at = _next_tick(now, interval) if interval else now
            if finished:
                with self.cv:
                    self.streams.pop(stream_id, None)
        with self.cv:
            self.tick = min((s.next_at for s in self.streams.values() if s.next_at is not None and
                             s.runtime.stream_interval), default=math.inf)
        return items

    def _close(self):
        with self.cv:
            self.closed = True
            streams, self.streams = list(self.streams.values()), {}
            schedulers, self.schedulers = list(self.schedulers), set()
        for s in streams:
            s.handle.cancel()      # frees the blocks of the requests the master abandoned with the stream
        for scheduler in schedulers:
            scheduler.remove_step_listener(self._wake)
