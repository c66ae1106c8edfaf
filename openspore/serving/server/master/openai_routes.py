"""The Starlette handlers of the OpenAI-compatible routes (shapes and checks in openai_api.py). A client that
disconnects cancels its generation: a streamed one when the next chunk cannot be sent, a plain one at once."""
import asyncio
import time

from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ...common.status import ServingError, StatusCode
from . import openai_api
from .restful import read_json_body


class _Disconnected(Exception):
    pass


class _GenerationStream(StreamingResponse):
    """A streamed generation that is cancelled as soon as its response ends, however it ends. Starlette stops
    iterating the event generator when the client goes away, but the generator itself (whose `finally` would
    cancel) is only closed when it is garbage-collected: under load that came after the whole generation had run."""

    def __init__(self, content, call, **kwargs):
        super().__init__(content, **kwargs)
        self.call = call

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.call.cancel()       # a no-op for a generation that finished


class OpenAIRoutes:
    def __init__(self, master, limit):
        self.master, self.limit = master, limit
        self.router = master.generation
        self.started = int(time.time())

    def routes(self):
        return [Route("/v1/completions", self.completions, methods=["POST"]),
                Route("/v1/chat/completions", self.chat_completions, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
                Route("/v1/models/{model:path}", self.model, methods=["GET"])]

    @staticmethod
    def error(exc):
        return JSONResponse(openai_api.error_body(exc), status_code=exc.http_status)

    def _model_card(self, model_id):
        return {"id": model_id, "object": "model", "created": self.started, "owned_by": "openspore"}

    async def models(self, request):
        return JSONResponse({"object": "list", "data": [self._model_card(m) for m, _ in self.router.servables()]})

    async def model(self, request):
        try:
            info = self.router.resolve(request.path_params["model"])
        except ServingError as exc:
            return self.error(exc)
        return JSONResponse(self._model_card(info.llm.model_name))

    async def completions(self, request):
        return await self._generate(request, chat=False)

    async def chat_completions(self, request):
        return await self._generate(request, chat=True)

    async def _generate(self, request, chat):
        start = time.perf_counter()
        name, ok = "", False
        try:
            try:
                body = await read_json_body(request, self.limit)
            except ClientDisconnect:
                return Response(status_code=400)
            parsed = (openai_api.parse_chat if chat else openai_api.parse_completion)(body)
            info = self.router.resolve(parsed.model)
            name = info.name
            loop = asyncio.get_running_loop()
            call = self.router.open_nowait(info, parsed.request(), loop) or \
                await asyncio.to_thread(self.router.open, info, parsed.request(), loop)
            shaper = openai_api.Shaper(chat, info.llm.model_name)
            replies = call.replies()
            try:
                first = await replies.__anext__()     # errors before the first token get a proper status
            except StopAsyncIteration:
                first = None
            if parsed.stream:
                ok = True
                return _GenerationStream(self._events(shaper, first, replies, parsed.include_usage), call,
                                         media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
            response = await self._collect(request, shaper, first, replies)
            ok = True
            return response
        except ServingError as exc:
            return self.error(exc)
        except _Disconnected:
            return Response(status_code=499)
        finally:
            self.master.metrics.request(name, "generate", "openai", ok, time.perf_counter() - start, 1 if name
                                        else 0)

    async def _collect(self, request, shaper, first, replies):
        """Gather a whole completion, cancelling it when the client goes away meanwhile."""
        async def gather():
            parts, last = [], first
            if first is not None:
                parts.append(first.text)
            async for reply in replies:
                parts.append(reply.text)
                last = reply
            return "".join(parts), last

        async def disconnected():
            while (await request.receive())["type"] != "http.disconnect":
                pass
        work, watch = asyncio.ensure_future(gather()), asyncio.ensure_future(disconnected())
        try:
            done, _ = await asyncio.wait({work, watch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
        if work not in done:
            work.cancel()
            try:
                await work
            except asyncio.CancelledError:
                pass
            await replies.aclose()
            raise _Disconnected()
        text, last = work.result()
        return JSONResponse(shaper.response(text, last.finish_reason, last.prompt_tokens, last.completion_tokens))

    async def _events(self, shaper, first, replies, include_usage):
        try:
            if shaper.chat:
                yield openai_api.sse(shaper.chunk(role=True))
            reply = first
            while reply is not None:
                # one write per reply: its text, and with the last one the finish, usage and [DONE] events
                events = [openai_api.sse(shaper.chunk(text=reply.text))] if reply.text else []
                if reply.finish_reason:
                    events.append(openai_api.sse(shaper.chunk(text=None if shaper.chat else "",
                                                              finish_reason=reply.finish_reason)))
                    if include_usage:
                        events.append(openai_api.sse(shaper.usage_chunk(reply.prompt_tokens,
                                                                        reply.completion_tokens)))
                    events.append(b"data: [DONE]\n\n")
                    yield b"".join(events)
                    return
                if events:
                    yield events[0]
                try:
                    reply = await replies.__anext__()
                except StopAsyncIteration:
                    reply = None
            raise ServingError("the generation ended without a finish reason", StatusCode.FAILED, http_status=500)
        except ServingError as exc:      # the status line is sent already: the error travels as an event
            yield openai_api.sse(openai_api.error_body(exc))
        finally:
            await replies.aclose()
