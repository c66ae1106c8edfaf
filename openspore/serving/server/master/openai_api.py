"""OpenAI-compatible routes for generation servables: `POST /v1/completions`, `POST /v1/chat/completions`,
`GET /v1/models[/{model}]`. Request and response bodies follow OpenAI's shapes (`usage`, `finish_reason` "stop" or
"length"); `"stream": true` answers server-sent events, one `data: {...}` chunk per group of tokens, ending with
`data: [DONE]`. Errors are OpenAI's `{"error": {"message", "type", "param", "code"}}` with a 4xx/5xx status;
`param` names the offending field. Extensions beyond OpenAI's fields: `top_k`, `repetition_penalty`, `ignore_eos`,
and `prompt` as a list of token ids.

>>> parse_completion({"model": "gpt", "prompt": "hi", "max_tokens": 4}).sampling.max_tokens
4
>>> parse_completion({"model": "gpt", "prompt": "hi", "temperature": "hot"})
Traceback (most recent call last):
...
openspore.serving.server.master.openai_api.FieldError: temperature: expected a number in [0, 2], but got 'hot'
"""
import json
import time
import uuid

from ...common.status import ServingError, StatusCode
from ...proto import ms_generate_pb2 as gpb

_ROLES = ("system", "user", "assistant")
# OpenAI fields accepted only at their no-op value (anything else is refused rather than silently ignored)
_NOOP_FIELDS = {"n": 1, "best_of": 1, "echo": False, "logprobs": None, "top_logprobs": None, "suffix": None,
                "presence_penalty": 0, "frequency_penalty": 0, "logit_bias": None, "tools": None, "tool_choice": None,
                "response_format": None}
_IGNORED_FIELDS = {"user", "stream_options", "metadata", "store", "parallel_tool_calls", "service_tier"}


class FieldError(ServingError):
    """A bad request field: the message starts with the field name; `param` is it."""

    def __init__(self, param, message, http_status=400):
        super().__init__(f"{param}: {message}", StatusCode.INVALID_INPUTS, http_status=http_status)
        self.param = param


class Parsed:
    """A checked request: `model`, `stream`, `include_usage` and the GenerateRequest fields."""

    def __init__(self, model, stream, include_usage, sampling):
        self.model, self.stream, self.include_usage, self.sampling = model, stream, include_usage, sampling
        self.prompt, self.prompt_token_ids, self.messages = "", [], []

    def request(self):
        return gpb.GenerateRequest(prompt=self.prompt, prompt_token_ids=self.prompt_token_ids,
                                   messages=[gpb.ChatMessage(role=r, content=c) for r, c in self.messages],
                                   sampling=self.sampling)


def _number(body, name, low, high, integer=False, low_open=False):
    value = body.get(name)
    if value is None:
        return None
    ok = not isinstance(value, bool) and isinstance(value, int if integer else (int, float))
    if ok:
        ok = (value > low if low_open else value >= low) and (high is None or value <= high)
    if not ok:
        kind = "an integer" if integer else "a number"
        bound = f"in {'(' if low_open else '['}{low}, {high}]" if high is not None else f">= {low}"
        raise FieldError(name, f"expected {kind} {bound}, but got {value!r}")
    return value


def _common(body, max_tokens_names=("max_tokens",)):
    if not isinstance(body, dict):
        raise FieldError("body", f"expected a JSON object, but got {type(body).__name__}")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise FieldError("model", f"required: the id of a served model (GET /v1/models), but got {model!r}")
    stream = body.get("stream", False)
    if stream is None:
        stream = False
    if not isinstance(stream, bool):
        raise FieldError("stream", f"expected true or false, but got {stream!r}")
    options = body.get("stream_options")
    if options is not None and (not isinstance(options, dict) or not isinstance(options.get("include_usage", False),
                                                                                  bool)):
        raise FieldError("stream_options", f"expected {{\"include_usage\": true|false}}, but got {options!r}")
    include_usage = bool(options and options.get("include_usage"))
    for name, noop in _NOOP_FIELDS.items():
        value = body.get(name)
        if value is not None and value != noop and not (noop is None and value in ({}, [], False, 0)):
            raise FieldError(name, f"is not supported by this server (only {json.dumps(noop)}), but got {value!r}")
    sampling = gpb.SamplingOptions()
    for name in max_tokens_names:
        value = _number(body, name, 1, None, integer=True)
        if value is not None:
            sampling.max_tokens = value
    for name, low, high, integer, low_open in (("temperature", 0, 2, False, False), ("top_p", 0, 1, False, True),
                                               ("top_k", 0, None, True, False),
                                               ("repetition_penalty", 0, None, False, True),
                                               ("seed", 0, 2 ** 63 - 1, True, False)):
        value = _number(body, name, low, high, integer, low_open)
        if value is not None:
            setattr(sampling, name, value)
    stop = body.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    if stop is not None and (not isinstance(stop, list) or len(stop) > 4
                             or not all(isinstance(s, str) and s for s in stop)):
        raise FieldError("stop", f"expected a non-empty string or a list of up to 4 of them, but got {stop!r}")
    sampling.stop.extend(stop or [])
    ignore_eos = body.get("ignore_eos", False)
    if not isinstance(ignore_eos, bool):
        raise FieldError("ignore_eos", f"expected true or false, but got {ignore_eos!r}")
    sampling.ignore_eos = ignore_eos
    return Parsed(model, stream, include_usage, sampling)


def parse_completion(body):
    """A /v1/completions body → Parsed; FieldError naming a bad field."""
    parsed = _common(body)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]              # OpenAI's batch form with one prompt
    if isinstance(prompt, str) and prompt:
        parsed.prompt = prompt
    elif isinstance(prompt, list) and prompt and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
        parsed.prompt_token_ids = prompt
    else:
        raise FieldError("prompt", "expected a non-empty string or a non-empty list of token ids (one prompt per "
                                   f"request), but got {json.dumps(prompt)[:80]}")
    return parsed


def parse_chat(body):
    """A /v1/chat/completions body → Parsed; FieldError naming a bad field."""
    parsed = _common(body, ("max_tokens", "max_completion_tokens"))
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise FieldError("messages", f"expected a non-empty list of {{role, content}} objects, but got "
                                     f"{json.dumps(messages)[:80]}")
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise FieldError(where, f"expected an object with role and content, but got {message!r}")
        role, content = message.get("role"), message.get("content")
        if role == "developer":
            role = "system"
        if role not in _ROLES:
            raise FieldError(f"{where}.role", f"expected one of {list(_ROLES)}, but got {role!r}")
        if isinstance(content, list):       # content parts: text only
            if not all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
                       for p in content):
                raise FieldError(f"{where}.content", "only text parts ({\"type\": \"text\", \"text\": ...}) are "
                                                     "supported")
            content = "".join(p["text"] for p in content)
        if not isinstance(content, str):
            raise FieldError(f"{where}.content", f"expected a string, but got {content!r}")
        parsed.messages.append((role, content))
    return parsed


def error_body(exc):
    kind = {400: "invalid_request_error", 404: "invalid_request_error", 429: "rate_limit_error"}.get(
        exc.http_status, "server_error")
    return {"error": {"message": exc.message, "type": kind, "param": getattr(exc, "param", None), "code": None}}


class Shaper:
    """OpenAI's response objects for one request (`chat` or text completions)."""

    def __init__(self, chat, model):
        self.chat, self.model = chat, model
        self.id = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex[:24]
        self.created = int(time.time())

    def _head(self, stream):
        kind = ("chat.completion.chunk" if stream else "chat.completion") if self.chat else "text_completion"
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model}

    @staticmethod
    def usage(prompt_tokens, completion_tokens):
        return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens}

    def response(self, text, finish_reason, prompt_tokens, completion_tokens):
        body = self._head(False)
        if self.chat:
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                      "finish_reason": finish_reason}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish_reason}
        body["choices"] = [choice]
        body["usage"] = self.usage(prompt_tokens, completion_tokens)
        return body

    def chunk(self, text=None, finish_reason=None, role=False):
        body = self._head(True)
        if self.chat:
            delta = {"role": "assistant", "content": ""} if role else ({"content": text} if text is not None else {})
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        else:
            choice = {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish_reason}
        body["choices"] = [choice]
        return body

    def usage_chunk(self, prompt_tokens, completion_tokens):
        body = self._head(True)
        body["choices"] = []
        body["usage"] = self.usage(prompt_tokens, completion_tokens)
        return body


def sse(obj):
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()
