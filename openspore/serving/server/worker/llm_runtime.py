"""The worker side of a generation servable: the engine, the tokenizer and the continuous-batching scheduler,
and the conversion between `GenerateRequest`/`GenerateReply` messages and scheduler requests."""
import os
import time

from ...proto import ms_generate_pb2 as gpb

# SamplingOptions fields → SamplingParams fields (proto3 `optional`: unset = the servable's default)
_OPTIONAL_FIELDS = ("max_tokens", "temperature", "top_k", "top_p", "repetition_penalty", "seed")


def _find_file(name, version_dir, servable_dir, what):
    """A declared file: absolute, or in the version folder, or in the servable folder."""
    if os.path.isabs(name):
        candidates = [name]
    else:
        candidates = [os.path.join(version_dir, name), os.path.join(servable_dir, name)]
    for path in candidates:
        if os.path.exists(path):
            return path
    hint = ""
    for script in (os.path.join(os.path.dirname(servable_dir), "prepare.py"), os.path.join(servable_dir, "prepare.py")):
        if os.path.isfile(script):
            hint = f" This servable directory has {script}: run `python {script}` first to write the model files."
            break
    raise RuntimeError(f"declare_llm_servable: the {what} '{name}' was not found; looked at {candidates}.{hint}")


class TextStream:
    """Token ids in, text deltas out: holds back a trailing half UTF-8 character, and text that may be the start
    of a stop string; `push` reports when a stop string appeared (the text ends before it).

    Incremental: a push decodes only the tokens after the last settled point plus a few before it (`CONTEXT`, so a
    tokenizer that drops a word's leading space at the start of a decode sees the word's left neighbour), not the
    whole output again; a tokenizer whose window decodes disagree with that falls back to decoding everything.

    >>> from openspore.llm.tokenizer import ByteTokenizer
    >>> stream = TextStream(ByteTokenizer(), stops=("!",))
    >>> stream.push([104, 0xC3]), stream.push([0xA9, 32]), stream.push(list(b"x!y"))   # 0xC3 0xA9: é
    (('h', False), ('é ', False), ('x', True))
    """

    CONTEXT = 4

    def __init__(self, tokenizer, stops=()):
        self.tokenizer, self.stops = tokenizer, tuple(s for s in stops if s)
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.ids, self.sent = [], 0
        self.text = ""          # the text of ids[:base], settled (ends on a whole character)
        self.base = 0
        self.window = 0         # decodes start here: base - CONTEXT
        self.window_text = ""   # the decode of ids[window:base]

    def _full(self, final):
        """The text of all ids so far (settled unless `final`)."""
        from openspore.llm.tokenizer import settled, settled_text
        tail = self.tokenizer.decode(self.ids[self.window:])
        if not tail.startswith(self.window_text):   # the window's decode depends on what precedes it
            return settled_text(self.tokenizer, self.ids, final)
        whole = self.text + tail[len(self.window_text):]
        full = whole if final else settled(whole)
        if len(full) == len(whole):   # nothing held back: the next push decodes from here
            self.text, self.base = full, len(self.ids)
            self.window = max(0, self.base - self.CONTEXT)
            self.window_text = self.tokenizer.decode(self.ids[self.window:self.base])
        return full

    def push(self, ids, final=False):
        """→ (delta, stopped)."""
        self.ids.extend(ids)
        full = self._full(final)
        hits = [i for i in (full.find(s, max(0, self.sent - len(s) + 1)) for s in self.stops) if i >= 0]
        if hits:
            end, stopped = min(hits), True
        else:
            end, stopped = (len(full) if final else max(self.sent, len(full) - self.hold)), False
        delta = full[self.sent:end] if end > self.sent else ""
        self.sent = max(self.sent, end)
        return delta, stopped


class LLMRuntime:
    """One loaded generation servable version in a worker."""

    def __init__(self, decl, directory, name, version, max_running=None):
        from openspore.llm.engine import LLMEngine
        from openspore.llm.scheduler import ContinuousBatchingScheduler
        servable_dir = os.path.join(directory, name)
        version_dir = os.path.join(servable_dir, str(version))
        factory = getattr(decl, "engine_factory", None)  # distributed: the engine runs in agent processes
        if factory is None:
            checkpoint = _find_file(decl.checkpoint, version_dir, servable_dir, "checkpoint")
            config = _find_file(decl.config, version_dir, servable_dir, "config")
        if isinstance(decl.tokenizer, str):
            from openspore.llm.tokenizer import load_tokenizer
            self.tokenizer = load_tokenizer(_find_file(decl.tokenizer, version_dir, servable_dir, "tokenizer"))
        else:
            self.tokenizer = decl.tokenizer
        if factory is None:
            self.engine = LLMEngine.from_checkpoint(checkpoint, config, **decl.engine_kw)
        else:
            self.engine = factory(servable_dir, version_dir, name)
        running = max_running or decl.max_running or self.engine.max_batch_size
        self.max_running = min(running, self.engine.max_batch_size)
        self.decl, self.name, self.version = decl, name, version
        self.stream_interval = getattr(decl, "stream_interval_ms", 0) / 1000.0
        self.model_name = decl.model_name
        self.scheduler = ContinuousBatchingScheduler(self.engine, max_queue=decl.max_queue,
                                                     max_running=self.max_running,
                                                     eos_token_id=getattr(self.tokenizer, "eos_token_id", None))
        self._warm_up()

    def _warm_up(self):
        """Compile the prefill and decode graphs (every shape bucket) now, so no client waits for them."""
        from openspore.llm.sampling import SamplingParams
        warm_up = getattr(self.engine, "warm_up", None)   # a RemoteEngine's agents compile on first use
        if warm_up is not None:
            warm_up()
        self.scheduler.submit([0], SamplingParams(max_tokens=2, temperature=0.0), ignore_eos=True).result()

    # -- requests ------------------------------------------------------------------------------------------------
    def params(self, options):
        """SamplingOptions (or None) → (SamplingParams, ignore_eos); ValueError naming a bad field."""
        from openspore.llm.sampling import SamplingParams
        values = dict(self.decl.defaults)
        stop, stop_ids, ignore_eos = (), (), False
        if options is not None:
            for field in _OPTIONAL_FIELDS:
                if options.HasField(field):
                    values[field] = getattr(options, field)
            stop, stop_ids, ignore_eos = tuple(options.stop), tuple(options.stop_token_ids), options.ignore_eos
        if values.get("temperature") is not None:
            values["temperature"] = round(float(values["temperature"]), 6)   # float32 on the wire: 0.7 → 0.7
        for key in ("top_p", "repetition_penalty"):
            values[key] = round(float(values[key]), 6)
        vocab = self.engine.config.vocab_size
        bad = next((t for t in stop_ids if not 0 <= t < vocab), None)
        if bad is not None:
            raise ValueError(f"stop_token_ids: token id {bad} is outside the vocabulary [0, {vocab})")
        params = SamplingParams(stop_token_ids=tuple(int(t) for t in stop_ids), stop=stop, **values)
        params.validate()
        return params, ignore_eos

    def prompt_ids(self, request):
        given = [bool(request.prompt), bool(request.prompt_token_ids), bool(request.messages)]
        if sum(given) != 1:
            raise ValueError("prompt: give exactly one of a text prompt, prompt token ids or chat messages")
        if request.prompt_token_ids:
            return list(request.prompt_token_ids)
        if request.messages:
            messages = [{"role": m.role, "content": m.content} for m in request.messages]
            return self.tokenizer.encode(self.tokenizer.apply_chat_template(messages))
        return self.tokenizer.encode(request.prompt)

    def start(self, request):
        """GenerateRequest → (handle, TextStream). ValueError for bad fields; QueueFull when the queue is full."""
        params, ignore_eos = self.params(request.sampling if request.HasField("sampling") else None)
        handle = self.scheduler.submit(self.prompt_ids(request), params, ignore_eos=ignore_eos)
        return handle, TextStream(self.tokenizer, params.stop)

    def replies(self, handle, text, interval=None):
        """GenerateReply messages for a started request, one per group of new tokens; the last carries the
        finish reason and the token counts. Raises GenerationError if the request failed. After the first
        reply, replies are at least `stream_interval_ms` apart: the tokens of the steps in between travel together;
        the last one goes as soon as the request ends (a client that sends its next request after the end of this
        one, and the batch that request would join, wait for nothing)."""
        interval = self.stream_interval if interval is None else interval
        sent_at = None
        while True:
            if sent_at is not None and interval:
                wait = sent_at + interval - time.perf_counter()
                if wait > 0:
                    handle.wait_end(wait)   # the scheduler keeps queueing this request's tokens meanwhile
            reply, finished = self.reply(handle, text, *handle.next_tokens())
            if finished:
                yield reply
                return
            if reply.token_ids:
                yield reply
                sent_at = time.perf_counter()

    @staticmethod
    def reply(handle, text, tokens, finished):
        """The GenerateReply of a request's new tokens → (reply, whether it is the last): the text delta, and on
        the last the finish reason and the token counts (a stop string ends the request here)."""
        delta, stopped = text.push(tokens, final=finished)
        if stopped:
            handle.cancel()
            finished, reason = True, "stop"
        else:
            reason = handle.finish_reason if finished else ""
        reply = gpb.GenerateReply(token_ids=tokens, text=delta, finish_reason=reason or "")
        if finished:
            reply.prompt_tokens, reply.completion_tokens = handle.prompt_tokens, handle.completion_tokens
        return reply, finished

    # -- the MindSpore-style `generate(prompt) -> text` method ------------------------------------------------------
    def submit_text(self, prompt):
        if not isinstance(prompt, str):
            raise ValueError(f"prompt: expected a str, but got {type(prompt).__name__}")
        handle, text = self.start(gpb.GenerateRequest(prompt=prompt))
        return handle, text

    def collect_text(self, started):
        handle, text = started
        return "".join(r.text for r in self.replies(handle, text, interval=0))

    def stats(self):
        values = self.scheduler.stats()
        values["max_running"] = self.max_running
        values["max_queue"] = self.decl.max_queue
        return values

    def close(self):
        self.scheduler.stop()
