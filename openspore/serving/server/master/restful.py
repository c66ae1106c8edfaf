"""The REST server (Starlette on uvicorn, in a thread of the master):

* MindSpore Serving's `POST /model/<servable>[/version/<N>]:<method>` with `{"instances": [...]}`. Errors keep
  MindSpore Serving's body (`{"error_msg": ...}`) but come with a 4xx status; per-instance errors stay in place.
* KServe v2: `GET /v2`, `/v2/health/live`, `/v2/health/ready`, `/v2/models/{name}[/versions/{v}]`, `.../ready`,
  `POST .../infer`, with HTTP status codes for errors.
* `GET /metrics`: Prometheus metrics.
* Generation servables: OpenAI's `POST /v1/completions`, `POST /v1/chat/completions`, `GET /v1/models`
  (openai_routes.py).
"""
import asyncio
import json
import logging
import os
import socket
import time

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ....common.http_body import BodyTooLarge as _TooLarge, read_limited_body as _read_body
from ....common.uvicorn_thread import serve_in_thread
from ...common.status import ServingError, StatusCode
from ...version_info import SERVER_NAME, server_version
from . import kserve, rest_codec
from .replies import outcome

logger = logging.getLogger("openspore.serving")


def loads_json(raw, what):
    """json.loads with every failure as a ServingError (400): malformed text, bad UTF-8, and nesting deeper than
    the parser's recursion limit, which Python reports as RecursionError."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServingError(f"{what}{exc}") from None
    except RecursionError:
        raise ServingError(f"{what}the JSON is nested too deeply") from None


async def read_json_body(request, limit):
    """The request body parsed as JSON: ServingError 413 over `limit` bytes, 400 for text that is not JSON;
    ClientDisconnect propagates (nobody is left to answer)."""
    try:
        raw = await _read_body(request, limit)
    except _TooLarge:
        raise ServingError(f"the request body is larger than the limit of {limit} bytes",
                           StatusCode.INVALID_INPUTS, http_status=413) from None
    return loads_json(raw, "the request body is not valid JSON: ")


async def _wait(pending):
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def wake(_):
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(None))
    pending.add_done_callback(wake)
    await future


def parse_model_url(path):
    """MindSpore Serving's URL rules → (servable, version, method); ServingError with its texts."""
    if "model/" not in path:
        raise ServingError("please check url, the keyword:[model] must contain.")
    rest = path.split("model/", 1)[1]
    end = min([i for i in (rest.find("/"), rest.find(":")) if i >= 0], default=len(rest))
    name = rest[:end]
    if not name:
        raise ServingError("please check url, the keyword:[model] must contain.")
    version = 0
    if "version/" in rest:
        text = rest.split("version/", 1)[1].split(":", 1)[0]
        if not text.isdigit():
            raise ServingError(f"please check url, the keyword:[version] value invalid: {text!r}")
        version = int(text)
        if version >= 2 ** 32 - 1:
            raise ServingError("please check url, the keyword:[version] version number range failed")
    if ":" not in rest or not rest.split(":", 1)[1]:
        raise ServingError("please check url, the keyword:[service method] must contain.")
    return name, version, rest.split(":", 1)[1]



class RestServer:
    def __init__(self, master, address, max_msg_mb_size, ssl_config):
        self.master = master
        self.limit = max_msg_mb_size << 20
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise RuntimeError(f"Serving Error: RESTful server address should be 'ip:port', but got {address!r}")
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        # Connections this server closed sit in TIME_WAIT for a minute: without SO_REUSEADDR a restart right
        # after Ctrl-C could not bind the port. (On Windows the same option would let another process steal a
        # port in use, so there the exclusive option is set instead.)
        if os.name == "nt":
            sock.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_EXCLUSIVEADDRUSE", socket.SO_REUSEADDR), 1)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host.strip("[]"), int(port)))
        except OSError as exc:
            sock.close()
            raise RuntimeError(f"Serving Error: RESTful server start failed, bind {address} failed: {exc.strerror}") \
                from None
        sock.listen(256)
        self.address = f"{host}:{sock.getsockname()[1]}"
        routes = [
            Route("/model/{rest:path}", self.mindspore_predict, methods=["POST"]),
            Route("/model/{rest:path}", self.mindspore_wrong_method, methods=["GET", "PUT", "DELETE", "PATCH"]),
            Route("/v2", self.server_metadata, methods=["GET"]),
            Route("/v2/health/live", self.live, methods=["GET"]),
            Route("/v2/health/ready", self.ready, methods=["GET"]),
            Route("/v2/models/{model}", self.model_metadata, methods=["GET"]),
            Route("/v2/models/{model}/versions/{version}", self.model_metadata, methods=["GET"]),
            Route("/v2/models/{model}/ready", self.model_ready, methods=["GET"]),
            Route("/v2/models/{model}/versions/{version}/ready", self.model_ready, methods=["GET"]),
            Route("/v2/models/{model}/infer", self.infer, methods=["POST"]),
            Route("/v2/models/{model}/versions/{version}/infer", self.infer, methods=["POST"]),
            Route("/metrics", self.metrics, methods=["GET"]),
        ]
        from .openai_routes import OpenAIRoutes
        routes.extend(OpenAIRoutes(master, self.limit).routes())
        app = Starlette(routes=routes, exception_handlers={404: self._no_route, 405: self._no_route})
        ssl = {} if ssl_config is None else ssl_config.uvicorn_options()
        config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_keep_alive=100,
                                timeout_graceful_shutdown=5, lifespan="off", **ssl)
        self.server = uvicorn.Server(config)
        self.thread = serve_in_thread(self.server, sock, "serving-rest", 10,
                                      f"Serving Error: RESTful server start failed on {address}")
        self._sock = sock

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self._sock.close()

    @staticmethod
    async def _no_route(request, exc):
        """Unknown paths and methods answer JSON like every other error (KServe's key under /v2)."""
        key = "error" if request.url.path.startswith("/v2") else "error_msg"
        text = "no such endpoint" if exc.status_code == 404 else f"{request.method} is not allowed on this endpoint"
        text = (f"{text}: {request.method} {request.url.path}; endpoints: POST /model/<servable>[/version/<N>]:"
                "<method>, /v2/..., POST /v1/completions, POST /v1/chat/completions, GET /v1/models, GET /metrics")
        if request.url.path.startswith("/v1"):       # OpenAI's error shape
            return JSONResponse({"error": {"message": text, "type": "invalid_request_error", "param": None,
                                           "code": None}}, status_code=exc.status_code)
        return JSONResponse({key: text}, status_code=exc.status_code)

    # -- MindSpore Serving endpoint --------------------------------------------------------------------------------
    @staticmethod
    def _ms_error(message, status=400):
        # MindSpore Serving answers errors with 200 + error_msg; we keep its body (clients read error_msg) but
        # use a 4xx status so HTTP tooling sees the failure (issue 7: bad input gets a 4xx).
        return JSONResponse({"error_msg": message}, status_code=status)

    async def mindspore_wrong_method(self, request):
        return self._ms_error("http message only support POST right now", 405)

    async def mindspore_predict(self, request: Request):
        start = time.perf_counter()
        name, method, count, ok, status = "", "", 0, False, 200
        try:
            name, version, method = parse_model_url(request.url.path)
            try:
                body = await _read_body(request, self.limit)
            except _TooLarge:
                raise ServingError(f"http message is bigger than {self.limit}") from None
            except ClientDisconnect:  # nobody is left to answer; not a server error worth a traceback
                return Response(status_code=400)
            instances = rest_codec.parse_instances(body)
            pending = self.master.dispatcher.submit(name, version, method, instances)
            count = len(instances)
            await _wait(pending)
            kind = outcome(pending)
            if kind[0] == "error":
                payload, status = {"error_msg": kind[2]}, 400
            else:
                ok = kind[0] == "ok"
                payload = {"instances": [{"error_msg": r[1]} if isinstance(r, tuple) else
                                         rest_codec.render_instance(r) for r in kind[1]]}
        except ServingError as exc:
            payload, status = {"error_msg": exc.message}, getattr(exc, "http_status", 400) or 400
        self.master.metrics.request(name, method, "rest", ok, time.perf_counter() - start, count)
        return JSONResponse(payload, status_code=status)

    # -- KServe v2 ---------------------------------------------------------------------------------------------------
    @staticmethod
    def _kserve_error(exc):
        return JSONResponse({"error": exc.message}, status_code=exc.http_status)

    async def server_metadata(self, request):
        return JSONResponse({"name": SERVER_NAME, "version": server_version(), "extensions": []})

    async def live(self, request):
        return JSONResponse({"live": True})

    def _all_ready(self):
        workers = self.master.workers.workers
        return bool(workers) and all(w.ready for w in workers) and self.master.dispatcher.accepting

    async def ready(self, request):
        ready = self._all_ready()
        return JSONResponse({"ready": ready}, status_code=200 if ready else 503)

    def _resolve(self, request, method=None):
        with self.master.cv:     # workers registering meanwhile add servables
            return kserve.resolve_model(self.master.dispatcher, request.path_params["model"],
                                        request.path_params.get("version"), method)

    async def model_metadata(self, request):
        try:
            info, method = self._resolve(request)
        except ServingError as exc:
            return self._kserve_error(exc)
        return JSONResponse(kserve.metadata(info, method))

    async def model_ready(self, request):
        try:
            info, _ = self._resolve(request)
        except ServingError as exc:
            return self._kserve_error(exc)
        ready = any(w.ready for w in info.workers) and self.master.dispatcher.accepting
        return JSONResponse({"name": info.name, "ready": ready}, status_code=200 if ready else 503)

    async def infer(self, request):
        start = time.perf_counter()
        name, method_name, count, ok = request.path_params["model"], "", 0, False
        try:
            try:
                body = await read_json_body(request, self.limit)
            except ClientDisconnect:
                return Response(status_code=400)
            params = body.get("parameters") if isinstance(body, dict) else None
            wanted = params.get("method") if isinstance(params, dict) else None
            info, method = self._resolve(request, wanted)
            name, method_name = info.name, method.name
            instances, outputs, request_id = kserve.parse_request(body, method)
            count = len(instances)
            pending = self.master.dispatcher.submit(info.name, info.version, method.name, instances)
            await _wait(pending)
            response = JSONResponse(kserve.build_response(pending, info, outputs, request_id))
            ok = True
        except ServingError as exc:
            response = self._kserve_error(exc)
        self.master.metrics.request(name, method_name, "kserve", ok, time.perf_counter() - start, count)
        return response

    async def metrics(self, request):
        await asyncio.to_thread(self.master.generation.refresh_stats)
        return Response(self.master.metrics.render(), media_type=self.master.metrics.content_type)
