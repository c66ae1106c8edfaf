"""The master's dispatcher: requests are split into instances, queued per (servable, version, method), merged
into batches and sent to workers; the replies are put back together per request, in order.

Batching: a queue sends a batch when it holds `max_batch_size` instances (default: the servable's model batch
size, as reported by its workers), or when its oldest instance has waited `max_queue_delay` seconds (default 0:
send at once, MindSpore Serving's behaviour; instances still merge while every worker is busy). Each worker takes
at most `SLOTS_PER_WORKER` batches at a time; the one with the most free slots gets the next batch.

Failures: an instance in flight on a worker that dies is queued again once (another worker, or the restarted one,
runs it); if that worker dies too, the instance fails with an error saying so. Nothing is dropped silently.
"""
import collections
import itertools
import logging
import threading
import time

import grpc

from ...common.status import NotFoundError, ServingError, StatusCode, servable_repr
from ...proto import ms_service_pb2 as pb
from . import context

logger = logging.getLogger("openspore.serving")
# Batches a worker holds at once: one running and one ready to start. More (MindSpore Serving uses 3) splits
# concurrent instances into small batches waiting inside the worker instead of merging them in the master.
SLOTS_PER_WORKER = 2


class PendingRequest:
    """The instances of one request: each result is an `Instance` message or a `(code, message)` error."""

    def __init__(self, count, servable, method, version):
        self.results = [None] * count
        self.remaining = count
        self.servable, self.method, self.version = servable, method, version
        self.method_info = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._callbacks = []

    def set(self, index, value):
        with self._lock:
            if self.results[index] is not None:
                return
            self.results[index] = value
            self.remaining -= 1
            finished = self.remaining == 0
            callbacks = self._callbacks if finished else ()
        if finished:
            self._done.set()
            for callback in callbacks:
                callback(self)

    def add_done_callback(self, callback):
        with self._lock:
            if self.remaining:
                self._callbacks.append(callback)
                return
        callback(self)

    def wait(self, timeout=None):
        return self._done.wait(timeout)

    @property
    def done(self):
        return self._done.is_set()


class _Task:
    __slots__ = ("request", "index", "instance", "retries", "since")

    def __init__(self, request, index, instance):
        self.request, self.index, self.instance = request, index, instance
        self.retries = 0
        self.since = time.monotonic()


class MethodInfo:
    """What the master knows of a method (from the workers' registration)."""

    def __init__(self, spec):
        self.name = spec.name
        self.input_names = tuple(spec.input_names)
        self.output_names = tuple(spec.output_names)
        self.inputs = [(list(t.dims), t.dtype) if t.known else None for t in spec.inputs]
        self.outputs = [(list(t.dims), t.dtype) if t.known else None for t in spec.outputs]


class ServableInfo:
    def __init__(self, spec):
        self.name, self.version, self.batch_size = spec.name, spec.version_number, max(1, spec.batch_size)
        self.methods = {m.name: MethodInfo(m) for m in spec.methods}
        self.llm = spec.llm if spec.llm.enabled else None    # a generation servable's LLMSpec
        self.workers = []


class _Queue:
    def __init__(self, key, max_batch_size, max_queue_delay):
        self.key = key
        self.tasks = collections.deque()
        self.max_batch_size, self.max_queue_delay = max_batch_size, max_queue_delay


class Dispatcher:
    """Owns the queues and the batching thread. `cv` is the master's condition (shared with the worker manager)."""

    def __init__(self, cv, metrics):
        self.cv = cv
        self.metrics = metrics
        self.servables = {}            # name → {version → ServableInfo}
        self.knobs = {}                # name → (max_batch_size or None, max_queue_delay)
        self.queues = {}
        self.outstanding = 0           # instances queued or in flight
        self.accepting = True
        self._draining = False
        self._stopped = False
        self._batch_ids = itertools.count()
        self._rr = itertools.count()
        self._thread = threading.Thread(target=self._loop, name="serving-dispatcher", daemon=True)
        self._thread.start()

    # -- registration (under cv) -------------------------------------------------------------------------------
    def set_knobs(self, name, max_batch_size, max_queue_delay):
        self.knobs[name] = (max_batch_size, max_queue_delay)

    def add_worker(self, worker, specs):
        for spec in specs:
            versions = self.servables.setdefault(spec.name, {})
            info = versions.get(spec.version_number)
            if info is None:
                info = versions[spec.version_number] = ServableInfo(spec)
            if worker not in info.workers:
                info.workers.append(worker)
            for method in spec.methods:
                self.metrics.register(spec.name, method.name)
        self.cv.notify_all()

    # -- requests ----------------------------------------------------------------------------------------------
    def resolve(self, name, version, method_name):
        """(ServableInfo, MethodInfo) for a request, or NotFoundError with MindSpore Serving's texts."""
        versions = self.servables.get(name)
        if not versions:
            raise NotFoundError(f"Request {servable_repr(name, method_name, version)}, servable is not available")
        if version == 0:
            info = versions[max(versions)]
        else:
            info = versions.get(version)
            if info is None:
                raise NotFoundError(f"Request {servable_repr(name, method_name, version)}, servable is not available: "
                                    f"version {version} is not loaded, loaded versions: {sorted(versions)}")
        method = info.methods.get(method_name)
        if method is None:
            raise NotFoundError(f"Request {servable_repr(name, method_name, version)}, method is not available: "
                                f"servable '{name}' has the methods {sorted(info.methods)}")
        return info, method

    def submit(self, name, version, method_name, instances):
        """Queue the `Instance` messages of one request → PendingRequest. Request-level problems raise
        ServingError."""
        if not instances:
            raise ServingError("Instances count of request cannot be 0")
        with self.cv:
            if not self.accepting:
                raise ServingError("Serving server is stopping, the request is not accepted",
                                   StatusCode.SERVABLE_UNAVAILABLE)
            info, method = self.resolve(name, version, method_name)
            for inst in instances:
                for input_name in method.input_names:
                    if input_name not in inst.items:
                        raise ServingError(f"Cannot find input {input_name} in instance input , servable {name}, "
                                           f"method {method_name}: the method's inputs are {list(method.input_names)}")
            limit = context.get("max_enqueued_requests")
            if self.outstanding + len(instances) > limit:
                raise ServingError(f"Serving Error: enqueued requests count exceeds the limit {limit}",
                                   StatusCode.SERVABLE_UNAVAILABLE)
            request = PendingRequest(len(instances), name, method_name, info.version)
            request.method_info = method
            queue = self._queue(info, method_name)
            for i, inst in enumerate(instances):
                queue.tasks.append(_Task(request, i, inst))
            self.outstanding += len(instances)
            self.metrics.queue_depth(name, method_name, len(queue.tasks))
            self.cv.notify_all()
        return request

    def _queue(self, info, method_name):
        key = (info.name, info.version, method_name)
        queue = self.queues.get(key)
        if queue is None:
            max_batch_size, delay = self.knobs.get(info.name, (None, 0.0))
            queue = self.queues[key] = _Queue(key, max_batch_size or info.batch_size, delay)
        return queue

    # -- the batching loop ---------------------------------------------------------------------------------------
    def _loop(self):
        while True:
            finished = []
            with self.cv:
                batch = None
                while batch is None and not self._stopped:
                    batch, wait = self._next_batch(finished)
                    if finished:
                        break
                    if batch is None:
                        self.cv.wait(wait)
                if self._stopped and batch is None and not finished:
                    return
            self._complete(finished)
            if batch is not None:
                self._send(*batch)

    def _next_batch(self, finished):
        now = time.monotonic()
        wait = 1.0
        queues = [q for q in self.queues.values() if q.tasks]
        if not queues:
            return None, wait
        start = next(self._rr) % len(queues)
        for queue in queues[start:] + queues[:start]:
            name, version, method = queue.key
            info = self.servables[name][version]
            if not any(w.may_serve for w in info.workers):
                self._fail_queue(queue, StatusCode.SERVABLE_UNAVAILABLE,
                                 f"Request {servable_repr(name, method, version)}, servable is not available: its "
                                 "workers failed and cannot be restarted", finished)
                continue
            ready = [w for w in info.workers if w.ready and w.free_slots > 0]
            age = now - queue.tasks[0].since
            if not ready:
                limit = context.get("worker_wait_timeout")
                if age >= limit:
                    self._fail_queue(queue, StatusCode.SERVABLE_UNAVAILABLE,
                                     f"Request {servable_repr(name, method, version)}, servable is not available: no "
                                     f"worker became ready within {limit:g} s", finished)
                else:
                    wait = min(wait, limit - age, 0.5)
                continue
            if len(queue.tasks) < queue.max_batch_size and age < queue.max_queue_delay and not self._draining:
                wait = min(wait, queue.max_queue_delay - age)
                continue
            most = max(w.free_slots for w in ready)
            candidates = [w for w in ready if w.free_slots == most]
            worker = candidates[next(self._rr) % len(candidates)]
            tasks = [queue.tasks.popleft() for _ in range(min(queue.max_batch_size, len(queue.tasks)))]
            worker.free_slots -= 1
            batch_id = next(self._batch_ids)
            worker.inflight[batch_id] = (queue, tasks)
            self.metrics.queue_depth(name, method, len(queue.tasks))
            self.metrics.batch(name, method, len(tasks))
            return (worker, queue, tasks, batch_id), None
        return None, max(wait, 0.0)

    def _fail_queue(self, queue, code, message, finished):
        while queue.tasks:
            finished.append((queue.tasks.popleft(), (code, message)))
        self.metrics.queue_depth(queue.key[0], queue.key[2], 0)

    def _complete(self, finished):
        """Deliver results (outside the lock: completing a request runs its callbacks)."""
        if not finished:
            return
        with self.cv:
            self.outstanding -= len(finished)
            self.cv.notify_all()
        for task, value in finished:
            task.request.set(task.index, value)

    def _send(self, worker, queue, tasks, batch_id):
        name, version, method = queue.key
        request = pb.PredictRequest()
        request.servable_spec.name, request.servable_spec.method_name = name, method
        request.servable_spec.version_number = version
        request.instances.extend(t.instance for t in tasks)
        try:
            future = worker.stub.Predict.future(request)
        except Exception as exc:  # noqa: BLE001 - a closed channel: the worker is gone
            self._on_failure(worker, batch_id, f"{type(exc).__name__}: {exc}", lost=True)
            return
        future.add_done_callback(lambda f: self._on_reply(worker, batch_id, f))

    def _on_reply(self, worker, batch_id, future):
        try:
            reply = future.result()
        except grpc.RpcError as exc:
            lost = exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) or not worker.alive()
            self._on_failure(worker, batch_id, f"{exc.code().name}: {exc.details()}", lost=lost)
            return
        with self.cv:
            entry = worker.inflight.pop(batch_id, None)
            if entry is None:
                return
            worker.free_slots += 1
            worker.served += 1
        _, tasks = entry
        finished = []
        for k, task in enumerate(tasks):
            if k >= len(reply.error_msg) or k >= len(reply.instances):
                finished.append((task, (StatusCode.SYSTEM_ERROR, "the worker returned fewer results than instances")))
                continue
            err = reply.error_msg[k]
            if err.error_code == 0:
                finished.append((task, reply.instances[k]))
            else:
                finished.append((task, (err.error_code, err.error_msg.decode("utf-8", "replace"))))
        self._complete(finished)

    def _on_failure(self, worker, batch_id, detail, lost):
        with self.cv:
            entry = worker.inflight.pop(batch_id, None)
            if entry is None:
                return
            worker.free_slots += 1
        queue, tasks = entry
        if lost:
            worker.mark_unreachable(detail)
            self._requeue(worker, queue, tasks)
        else:
            self._complete([(t, (StatusCode.SYSTEM_ERROR, f"Worker {worker.pid} failed the request: {detail}"))
                            for t in tasks])

    def worker_lost(self, worker):
        """The worker process died: queue its in-flight instances again (under cv)."""
        entries = list(worker.inflight.values())
        worker.inflight.clear()
        worker.free_slots = SLOTS_PER_WORKER
        return entries

    def requeue_lost(self, worker, entries):
        for queue, tasks in entries:
            self._requeue(worker, queue, tasks)

    def _requeue(self, worker, queue, tasks):
        finished = []
        with self.cv:
            for task in reversed(tasks):
                task.retries += 1
                if task.retries > 1:
                    name, version, method = queue.key
                    finished.append((task, (StatusCode.WORKER_UNAVAILABLE,
                                            f"Request {servable_repr(name, method, version)}: the worker process (pid "
                                            f"{worker.pid}, device {worker.device_id}) running this instance exited; "
                                            "the instance had already been retried once after another worker exit, "
                                            "so it fails")))
                else:
                    task.since = time.monotonic()
                    queue.tasks.appendleft(task)
            self.metrics.queue_depth(queue.key[0], queue.key[2], len(queue.tasks))
            self.cv.notify_all()
        logger.warning("serving: worker %d lost %d in-flight instance(s) of %s; %d queued again", worker.pid,
                       len(tasks), queue.key, len(tasks) - len(finished))
        self._complete(finished)

    # -- shutdown ----------------------------------------------------------------------------------------------
    def drain(self, timeout):
        """Refuse new requests, send queued instances without delay and wait for all of them (True if drained)."""
        deadline = time.monotonic() + timeout
        with self.cv:
            self.accepting = False
            self._draining = True
            self.cv.notify_all()
            while self.outstanding > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cv.wait(min(left, 0.2))
        return True

    def stop(self):
        finished = []
        with self.cv:
            self.accepting = False
            self._stopped = True
            for queue in self.queues.values():
                self._fail_queue(queue, StatusCode.SERVABLE_UNAVAILABLE, "Servable stopped", finished)
            self.cv.notify_all()
        self._complete(finished)
        self._thread.join(timeout=5)
