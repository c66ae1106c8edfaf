"""Continuous batching: one thread owns an `LLMEngine` and interleaves many generation requests on it.

Every step the scheduler thread (1) drops cancelled requests and frees their blocks, (2) admits waiting requests
while the running set has room (`max_running`) and the KV pool has the blocks for their prompts, prefilling them
together, and (3) runs one decode step over every running sequence. A sequence that finishes (a stop token,
`max_tokens`, the model's length limit) leaves at once and its blocks go back to the pool, so the next waiting
request joins at the following step instead of waiting for the whole batch. When a decode step needs more blocks
than are free, the most recently admitted sequence is preempted by recompute: its blocks are freed and it waits
at the head of the queue; when re-admitted, its prompt plus the tokens generated so far are prefilled again and
generation continues where it stopped (its sampler, and so its random stream, is kept).

`max_running=1` serves one request at a time (the baseline continuous batching is measured against). The queue
of waiting requests is bounded: `submit` raises `QueueFull` when `max_queue` requests already wait.

>>> from openspore.llm.scheduler import QueueFull
>>> issubclass(QueueFull, RuntimeError)
True
"""
import collections
import itertools
import logging
import queue
import threading
import time

logger = logging.getLogger("openspore.llm")

_END = object()   # closes a handle's event stream


class QueueFull(RuntimeError):
    """The scheduler's waiting queue is full; the caller should retry later (HTTP 429 upstream)."""


class GenerationError(RuntimeError):
    """A request failed inside the scheduler (the engine raised, or the scheduler stopped)."""


class RequestHandle:
    """The caller's side of one request: iterate it for the generated token ids as they come.

    After the iteration ends, `finish_reason` is "stop" (a stop token), "length" (`max_tokens` or the model's
    length limit) or "cancelled"; a failed request raises `GenerationError` from the iteration instead.
    `time_to_first_token` is the seconds from `submit` to the first token; `cancel()` stops the request and frees
    its blocks at the scheduler's next step (safe from any thread, also after the end).
    """

    def __init__(self, request_id, prompt_tokens):
        self.request_id = request_id
        self.prompt_tokens = prompt_tokens
        self.finish_reason = None
        self.error = None
        self.completion_tokens = 0
        self.submitted_at = time.perf_counter()
        self.first_token_at = None
        self.cancelled = False
        self._events = queue.Queue()
        self._ended = threading.Event()   # set with the end: a stream pacing its replies stops waiting then

    @property
    def time_to_first_token(self):
        return None if self.first_token_at is None else self.first_token_at - self.submitted_at

    def cancel(self):
        self.cancelled = True

    def __iter__(self):
        return self

    def __next__(self):
        item = self._events.get()
        if item is _END:
            self._events.put(_END)     # iterating again stays at the end
            if self.error is not None:
                raise GenerationError(self.error)
            raise StopIteration
        return item

    def next_tokens(self, timeout=None):
        """Every token available now (blocking until at least one, or the end) → (tokens, finished)."""
        tokens = []
        try:
            item = self._events.get(timeout=timeout)
        except queue.Empty:
            return tokens, False
        while True:
            if item is _END:
                self._events.put(_END)
                if self.error is not None:
                    raise GenerationError(self.error)
                return tokens, True
            tokens.append(item)
            try:
                item = self._events.get_nowait()
            except queue.Empty:
                return tokens, False

    def has_tokens(self):
        """Whether tokens (or the end) wait to be taken."""
        return not self._events.empty()

    def wait_end(self, timeout):
        """Block until the request ends or `timeout` seconds pass → whether it ended."""
        return self._ended.wait(timeout)

    def result(self):
        """Block until the request ends → the list of generated token ids."""
        return list(self)

    # -- the scheduler's side -----------------------------------------------------------------------------------
    def _token(self, token):
        if self.first_token_at is None:
            self.first_token_at = time.perf_counter()
        self.completion_tokens += 1
        self._events.put(token)

    def _finish(self, reason, error=None):
        self.finish_reason, self.error = reason, error
        self._events.put(_END)
        self._ended.set()


class _Sequence:
    __slots__ = ("seq_id", "prompt", "params", "sampler", "generated", "handle", "preemptions", "ignore_eos")

    def __init__(self, seq_id, prompt, params, sampler, handle, ignore_eos):
        self.seq_id, self.prompt, self.params, self.sampler, self.handle = seq_id, prompt, params, sampler, handle
        self.ignore_eos = ignore_eos
        self.generated = []
        self.preemptions = 0


class ContinuousBatchingScheduler:
    """ContinuousBatchingScheduler(engine, max_queue=64, max_running=None, eos_token_id=None, policy="fcfs").

    A thread owning `engine` (an `openspore.llm.LLMEngine`). `submit(prompt_ids, params)` → `RequestHandle`.
    `max_running` (default: the engine's `max_batch_size`) bounds the sequences decoded together; 1 serves one
    request at a time. `eos_token_id` ends a sequence like a stop token unless it is submitted with
    `ignore_eos=True`. `stats()` reports the queue, the running set, the pool and the token counters; `stop()` fails
    what is left and ends the thread.
    """

    def __init__(self, engine, max_queue=64, max_running=None, eos_token_id=None, policy="fcfs"):
        if policy != "fcfs":
            raise ValueError(f"ContinuousBatchingScheduler: policy should be 'fcfs' (first come, first served), "
                             f"but got {policy!r}")
        if isinstance(max_queue, bool) or not isinstance(max_queue, int) or max_queue < 1:
            raise ValueError(f"ContinuousBatchingScheduler: max_queue should be an int >= 1, but got {max_queue!r}")
        limit = engine.max_batch_size
        if max_running is None:
            max_running = limit
        if isinstance(max_running, bool) or not isinstance(max_running, int) or not 1 <= max_running <= limit:
            raise ValueError(f"ContinuousBatchingScheduler: max_running should be an int in [1, {limit}] (the "
                             f"engine's max_batch_size), but got {max_running!r}")
        self.engine = engine
        self.max_queue, self.max_running, self.eos_token_id = max_queue, max_running, eos_token_id
        self._waiting = collections.deque()
        self._running = []
        self._cv = threading.Condition()
        self._ids = itertools.count()
        self._stopped = False
        self.counters = {"prompt_tokens": 0, "generation_tokens": 0, "finished": 0, "cancelled": 0, "failed": 0,
                         "preemptions": 0, "steps": 0, "rejected": 0}
        self._step_listeners = ()   # called after every step (a relay batching many requests' replies)
        self._thread = threading.Thread(target=self._loop, name="llm-scheduler", daemon=True)
        self._thread.start()

    # -- the callers' side ----------------------------------------------------------------------------------------
    def submit(self, prompt_ids, params, ignore_eos=False):
        """Queue one request → RequestHandle (`ignore_eos`: the scheduler's eos_token_id does not end it, only
        the params' stop tokens and lengths do). ValueError for a bad prompt or params (naming the field), QueueFull
        when `max_queue` requests already wait, GenerationError once the scheduler is stopped."""
        from .sampling import Sampler
        prompt = self._check_prompt(prompt_ids)
        params.validate()
        sampler = Sampler(params)
        with self._cv:
            if self._stopped:
                raise GenerationError("the generation scheduler is stopped; the request is not accepted")
            if len(self._waiting) >= self.max_queue:
                self.counters["rejected"] += 1
                raise QueueFull(f"the generation queue is full ({self.max_queue} requests waiting, "
                                f"{len(self._running)} running); retry later")
            seq_id = next(self._ids)
            handle = RequestHandle(seq_id, len(prompt))
            self._waiting.append(_Sequence(seq_id, prompt, params, sampler, handle, ignore_eos))
            self._cv.notify_all()
        return handle

    def _check_prompt(self, prompt_ids):
        try:
            prompt = [int(t) for t in prompt_ids]
        except (TypeError, ValueError):
            raise ValueError(f"prompt: expected a list of token ids (ints), but got {prompt_ids!r:.80}") from None
        vocab = self.engine.config.vocab_size
        if not prompt:
            raise ValueError("prompt: the prompt is empty; give at least one token")
        bad = next((t for t in prompt if not 0 <= t < vocab), None)
        if bad is not None:
            raise ValueError(f"prompt: token id {bad} is outside the vocabulary [0, {vocab})")
        if len(prompt) >= self.engine.max_model_len:
            raise ValueError(f"prompt: {len(prompt)} tokens leave no room to generate within the model's length "
                             f"limit of {self.engine.max_model_len} tokens")
        if self.engine.blocks_needed(len(prompt) + 1) > self.engine.num_blocks:
            raise ValueError(f"prompt: {len(prompt)} tokens need more KV blocks than the whole pool holds "
                             f"({self.engine.num_blocks} blocks of {self.engine.block_size} tokens)")
        return prompt

    def stats(self):
        """A snapshot: waiting, running, free and total KV blocks, and the counters since start."""
        with self._cv:
            out = {"waiting": len(self._waiting), "running": len(self._running)}
            out.update(self.counters)
        out["free_blocks"] = self.engine.num_free_blocks()
        out["num_blocks"] = self.engine.num_blocks
        return out

    def add_step_listener(self, fn):
        """Call `fn()` (no arguments, from the scheduler thread; it must be quick) after every scheduling step
        and when the scheduler stops: tokens may have come, requests may have ended."""
        with self._cv:
            self._step_listeners += (fn,)

    def remove_step_listener(self, fn):
        with self._cv:
            self._step_listeners = tuple(f for f in self._step_listeners if f is not fn)

    def _notify_step(self):
        for fn in self._step_listeners:
            try:
                fn()
            except Exception:  # noqa: BLE001 - a listener's failure must not stop the scheduler
                logger.exception("llm scheduler: a step listener failed")

    def stop(self, timeout=10.0):
        """Fail the waiting and running requests ('the scheduler stopped') and end the thread."""
        with self._cv:
            self._stopped = True
            self._cv.notify_all()
        self._thread.join(timeout)

    # -- the scheduler thread --------------------------------------------------------------------------------------
    def _loop(self):
        while True:
            with self._cv:
                while not self._stopped and not self._waiting and not self._running:
                    self._cv.wait()
                if self._stopped:
                    break
            try:
                self._drop_cancelled()
                self._admit()
                if self._running:
                    self._decode_step()
            except Exception as exc:  # noqa: BLE001 - the engine failed: fail the requests in it, keep serving
                logger.exception("llm scheduler: a step failed")
                self._fail_running(f"the generation step failed: {type(exc).__name__}: {exc}")
            self._notify_step()
        self._fail_running("the generation scheduler stopped")
        with self._cv:
            waiting, self._waiting = list(self._waiting), collections.deque()
        for seq in waiting:
            seq.handle._finish("abort", "the generation scheduler stopped before the request ran")
        self._notify_step()

    def _drop_cancelled(self):
        with self._cv:
            gone = [s for s in self._waiting if s.handle.cancelled]
            for seq in gone:
                self._waiting.remove(seq)
        for seq in gone:
            self._finish(seq, "cancelled", running=False)
        for seq in [s for s in self._running if s.handle.cancelled]:
            self._finish(seq, "cancelled")

    def _admit(self):
        """Move waiting requests into the running set while there is room, and prefill them together."""
        engine = self.engine
        admitted, free = [], engine.num_free_blocks()
        with self._cv:
            while self._waiting and len(self._running) + len(admitted) < self.max_running:
                seq = self._waiting[0]
                need = engine.blocks_needed(len(seq.prompt) + len(seq.generated) + 1)
                if need > free:
                    break
                free -= need
                admitted.append(self._waiting.popleft())
        if not admitted:
            return
        from . import OutOfBlocks
        prompts = [s.prompt + s.generated for s in admitted]
        try:
            logits = engine.prefill([s.seq_id for s in admitted], prompts)
        except OutOfBlocks:     # the engine counts blocks more strictly than blocks_needed: wait for a free one
            with self._cv:
                self._waiting.extendleft(reversed(admitted))
            if not self._running:
                raise
            return
        except Exception as exc:  # the engine failed: these requests end with the reason (none is lost)
            for seq in admitted:
                seq.handle._finish("abort", f"the generation step failed: {type(exc).__name__}: {exc}")
            raise
        self._running.extend(admitted)
        for seq, prompt in zip(admitted, prompts):
            if not seq.generated:
                self.counters["prompt_tokens"] += len(prompt)
        self._sample_all(admitted, logits)

    def _decode_step(self):
        engine = self.engine
        # a sequence whose stored length is a multiple of the block size starts a new block with this token
        need = sum(1 for s in self._running if engine.seq_len(s.seq_id) % engine.block_size == 0)
        while need > engine.num_free_blocks() and len(self._running) > 1:
            victim = self._running[-1]
            need -= engine.seq_len(victim.seq_id) % engine.block_size == 0
            self._preempt(victim)
        if need > engine.num_free_blocks():
            # one sequence alone has filled the pool: its context cannot grow any more, as at max_model_len
            (only,) = self._running
            logger.warning("llm scheduler: request %d filled the KV pool (%d blocks) after %d tokens; it ends "
                           "with finish_reason 'length'", only.seq_id, engine.num_blocks, len(only.generated))
            self._finish(only, "length")
            return
        batch = list(self._running)
        logits = engine.decode([s.seq_id for s in batch], [s.generated[-1] for s in batch])
        self.counters["steps"] += 1
        self._sample_all(batch, logits)

    def _sample_all(self, batch, logits):
        """Sample each sequence's next token from its logits row; the greedy rows (temperature 0, no repetition
        penalty) take one argmax over all of them at once."""
        greedy = [i for i, seq in enumerate(batch) if seq.sampler.greedy]
        picked = dict(zip(greedy, logits[greedy].argmax(-1).tolist())) if greedy else {}
        for i, seq in enumerate(batch):
            self._sample(seq, logits[i], picked.get(i))

    def _preempt(self, seq):
        """Recompute preemption: free the sequence's blocks; it waits at the head of the queue."""
        self.engine.free(seq.seq_id)
        self._running.remove(seq)
        seq.preemptions += 1
        self.counters["preemptions"] += 1
        with self._cv:
            self._waiting.appendleft(seq)
        logger.info("llm scheduler: preempted request %d after %d tokens (out of KV blocks)", seq.seq_id,
                    len(seq.generated))

    def _sample(self, seq, logits_row, token=None):
        """Pick the next token (unless `token` was already picked for it); emit it or end the sequence."""
        params = seq.params
        if token is None:
            history = seq.prompt + seq.generated if params.repetition_penalty != 1.0 else ()
            token = seq.sampler.next_token(logits_row, history)
        if token in params.stop_token_ids or (token == self.eos_token_id and not seq.ignore_eos):
            self._finish(seq, "stop")
            return
        seq.generated.append(token)
        self.counters["generation_tokens"] += 1
        seq.handle._token(token)
        if len(seq.generated) >= params.max_tokens or len(seq.prompt) + len(seq.generated) >= \
                self.engine.max_model_len:
            self._finish(seq, "length")

    def _finish(self, seq, reason, running=True, error=None):
        if running:
            self.engine.free(seq.seq_id)
            self._running.remove(seq)
        self.counters["failed" if error else "cancelled" if reason == "cancelled" else "finished"] += 1
        seq.handle._finish(reason, error)

    def _fail_running(self, message):
        for seq in list(self._running):
            try:
                self._finish(seq, "abort", error=message)
            except Exception:  # noqa: BLE001 - the engine is broken; the handle must still end
                if seq in self._running:
                    self._running.remove(seq)
                seq.handle._finish("abort", message)
