"""A Python client of the `MSGenerate/Generate` gRPC stream of generation servables (openspore's addition).

>>> from openspore.serving.client import GenerateClient
>>> client = GenerateClient("127.0.0.1:5500", "gpt")                                       # doctest: +SKIP
>>> for text in client.stream("Once upon", max_tokens=32, temperature=0):                 # doctest: +SKIP
...     print(text, end="", flush=True)
>>> client.generate("Once upon", max_tokens=8)["finish_reason"]                           # doctest: +SKIP
'length'
"""
import grpc

from ..proto import ms_generate_pb2 as gpb
from ..proto import ms_generate_pb2_grpc as ggrpc

_SAMPLING = ("max_tokens", "temperature", "top_k", "top_p", "repetition_penalty", "seed", "stop", "stop_token_ids",
             "ignore_eos")


class GenerateClient:
    """GenerateClient(address, model, version_number=0): `stream(...)` yields text pieces as they are generated
    (`replies(...)` the GenerateReply messages); `generate(...)` returns the whole result. Give a text prompt, or
    `prompt_token_ids=`, or `messages=[{"role": ..., "content": ...}]`, and sampling options as keywords
    (max_tokens, temperature, top_k, top_p, repetition_penalty, seed, stop, stop_token_ids, ignore_eos). Errors
    raise grpc.RpcError with the server's status and message."""

    def __init__(self, address, model, version_number=0):
        if not isinstance(address, str) or not address or not isinstance(model, str) or not model:
            raise ValueError(f"GenerateClient: address and model should be non-empty str, but got {address!r}, "
                             f"{model!r}")
        self.model, self.version_number = model, version_number
        self._channel = grpc.insecure_channel(address)
        self._stub = ggrpc.MSGenerateStub(self._channel)

    def _request(self, prompt, prompt_token_ids, messages, sampling):
        unknown = sorted(set(sampling) - set(_SAMPLING))
        if unknown:
            raise ValueError(f"GenerateClient: unknown sampling option(s) {unknown}; expected {list(_SAMPLING)}")
        options = gpb.SamplingOptions()
        for key, value in sampling.items():
            if key in ("stop", "stop_token_ids"):
                getattr(options, key).extend([value] if isinstance(value, str) else value)
            elif value is not None:
                setattr(options, key, value)
        return gpb.GenerateRequest(servable_name=self.model, version_number=self.version_number, prompt=prompt or "",
                                   prompt_token_ids=prompt_token_ids or [], sampling=options,
                                   messages=[gpb.ChatMessage(role=m["role"], content=m["content"])
                                             for m in messages or []])

    def replies(self, prompt=None, *, prompt_token_ids=None, messages=None, timeout=None, **sampling):
        """The GenerateReply messages of one request; leaving the loop early cancels the generation."""
        call = self._stub.Generate(self._request(prompt, prompt_token_ids, messages, sampling), timeout=timeout)
        try:
            yield from call
        finally:
            call.cancel()

    def stream(self, prompt=None, **kw):
        """The generated text, piece by piece."""
        for reply in self.replies(prompt, **kw):
            if reply.text:
                yield reply.text

    def generate(self, prompt=None, **kw):
        """→ {"text", "token_ids", "finish_reason", "prompt_tokens", "completion_tokens"}."""
        text, ids, last = [], [], None
        for reply in self.replies(prompt, **kw):
            text.append(reply.text)
            ids.extend(reply.token_ids)
            last = reply
        return {"text": "".join(text), "token_ids": ids, "finish_reason": last.finish_reason,
                "prompt_tokens": last.prompt_tokens, "completion_tokens": last.completion_tokens}

    def close(self):
        self._channel.close()
