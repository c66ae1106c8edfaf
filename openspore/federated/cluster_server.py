"""ClusterServer (ms_role MS_SERVER with server_num ≥ 1): a stateless HTTP front end of a job that a scheduler
(scheduler.py, which says why this shape) owns. Devices speak to it exactly as to the standalone server.

Per request it reads and checks the device's JSON, decodes every array (base64 → bytes: the costly part), forwards
the message packed (wire.pack_message) to the scheduler and relays the reply. A reply that carries the global
model names its version (`model_ref`); the server fetches each version once from the scheduler and splices the
encoded model into the replies itself, so the scheduler never serialises a model per device. It keeps nothing
else: killed at any moment it loses nothing the scheduler has accepted, and started again it registers (every
second, as a heartbeat) and serves. Listens on fl_server_port + node_id (any free port when fl_server_port is 0).

>>> ClusterServer.banner
'fl server'
"""
import asyncio
import contextlib
import http.client
import json
import os
import secrets
import threading
import time

from ..common.http_body import BodyTooLarge, read_limited_body
from .http_service import HTTPService
from .server import MSG_TYPES
from .wire import REQUEST_ERROR, SYSTEM_ERROR, WireError, dumps, loads, pack_message

HEARTBEAT_S = 1.0
KEEP_MODELS = 4
RETRY_MS = 1000


class SchedulerUnreachable(OSError):
    pass


class ClusterServer(HTTPService):
    banner = "fl server"

    def __init__(self, ctx=None, node_id=None):
        from .context import fl_context
        self.ctx = (ctx if ctx is not None else fl_context()).copy()
        if self.ctx.server_num < 1:
            raise ValueError("ClusterServer: server_num must be >= 1 (a job shared by server processes); with "
                             "server_num 0 run the standalone FLServer.")
        self.node_id = int(os.environ.get("MS_NODE_ID", "0")) if node_id is None else int(node_id)
        if not 0 <= self.node_id < self.ctx.server_num:
            raise ValueError(f"ClusterServer: node_id {self.node_id} must be in 0..{self.ctx.server_num - 1} "
                             f"(server_num is {self.ctx.server_num}).")
        self.scheduler = (self.ctx.scheduler_ip, self.ctx.scheduler_port)
        self.boot = secrets.token_hex(8)          # tells the scheduler this is a new process (a restart)
        self._local = threading.local()
        self._models = {}                          # (model iteration, quant) → the encoded reply fragment
        self._model_lock = asyncio.Lock()
        self.registered = False

    def _address(self):
        port = self.ctx.fl_server_port
        return self.ctx.fl_server_ip, port + self.node_id if port else 0

    # ---- the hop to the scheduler (blocking; run in worker threads) ------------------------------------------
    def _scheduler_call(self, method, path, body=None):
        """(status, reply bytes). A kept-alive connection the scheduler closed is reopened once."""
        for attempt in (0, 1):
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self._local.conn = http.client.HTTPConnection(*self.scheduler, timeout=120)
            try:
                conn.request(method, path, body, {"X-FL-Node": str(self.node_id)})
                r = conn.getresponse()
                return r.status, r.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                conn.close()
                self._local.conn = None
                if attempt:
                    raise SchedulerUnreachable(f"the scheduler at {self.scheduler[0]}:{self.scheduler[1]}: {e}") from None
            except OSError as e:
                conn.close()
                self._local.conn = None
                raise SchedulerUnreachable(f"the scheduler at {self.scheduler[0]}:{self.scheduler[1]}: {e}") from None

    def _register(self):
        status, body = self._scheduler_call("POST", "/_cluster/register", json.dumps(
            {"node_id": self.node_id, "url": self.url, "boot": self.boot}).encode())
        if status != 200:
            raise ValueError(json.loads(body).get("reason", f"HTTP {status}"))
        self.registered = True

    # ---- HTTP ------------------------------------------------------------------------------------------------
    def app(self):
        from starlette.applications import Starlette
        from starlette.routing import Route
        prefix = self.ctx.http_url_prefix
        routes = [Route(f"{prefix}/{name}", self._endpoint(name), methods=["POST"]) for name in MSG_TYPES]
        routes.append(Route(f"{prefix}/state", self._state, methods=["GET"]))
        return Starlette(routes=routes, lifespan=self._lifespan)

    def _response(self, body, status=200):
        from starlette.responses import Response
        return Response(body, status_code=status, media_type="application/json")

    def _refuse(self, retcode, reason, status, **extra):
        return self._response(dumps({"retcode": retcode, "reason": reason, **extra}), status)

    def _endpoint(self, msg_type):
        async def handle(request):
            try:
                body = await read_limited_body(request, self.ctx.max_request_bytes)
                packed = pack_message(loads(body, msg_type), msg_type)
            except BodyTooLarge:
                return self._refuse(REQUEST_ERROR, f"{msg_type}: the request is larger than "
                                    f"{self.ctx.max_request_bytes} bytes", 413)
            except WireError as e:
                return self._refuse(REQUEST_ERROR, str(e), 400)
            try:
                status, raw = await asyncio.to_thread(self._scheduler_call, "POST", f"/_cluster/msg/{msg_type}",
                                                      packed)
                reply = json.loads(raw)
                ref = reply.pop("model_ref", None)
                if ref is None:
                    return self._response(raw, status)
                fragment = await self._model_fragment(ref["iteration"], bool(ref["quant"]))
                return self._response(dumps(reply)[:-1] + b"," + fragment + b"}", status)
            except (SchedulerUnreachable, ValueError, KeyError) as e:   # the device tries again later
                return self._refuse(SYSTEM_ERROR, f"{msg_type}: {e}", 500,
                                    next_req_time=int(time.time() * 1000) + RETRY_MS)
        return handle

    async def _model_fragment(self, iteration, quant):
        """The global model of version `iteration` as `"download_compress_type":…,"feature_map":[…]`."""
        key = (iteration, quant)
        if key not in self._models:
            async with self._model_lock:      # one fetch per version, however many devices ask at once
                if key not in self._models:
                    status, raw = await asyncio.to_thread(self._scheduler_call, "GET", f"/_cluster/model?iteration="
                                                          f"{iteration}&quant={int(quant)}")
                    if status != 200:
                        raise ValueError(f"model {iteration}: {json.loads(raw).get('reason')}")
                    self._models[key] = raw[1:-1]
                    for old in sorted(self._models)[:-KEEP_MODELS]:
                        del self._models[old]
        return self._models[key]

    async def _state(self, request):
        try:
            status, raw = await asyncio.to_thread(self._scheduler_call, "GET", f"{self.ctx.http_url_prefix}/state")
        except SchedulerUnreachable as e:
            return self._refuse(SYSTEM_ERROR, str(e), 500)
        state = json.loads(raw)
        state.update(node_id=self.node_id, scheduler=f"{self.scheduler[0]}:{self.scheduler[1]}")
        return self._response(dumps(state), status)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app):
        async def heartbeat():
            told = False
            while True:
                try:
                    await asyncio.to_thread(self._register)
                    told = False
                except SchedulerUnreachable as e:      # the scheduler may be restarting: keep trying
                    if not told:
                        print(f"[{self.banner} {self.node_id}] {e}; retrying", flush=True)
                        told = True
                except ValueError as e:                # refused (a node id out of range): stop this server
                    print(f"[{self.banner} {self.node_id}] the scheduler refused this server: {e}", flush=True)
                    self.server.should_exit = True
                    return
                await asyncio.sleep(HEARTBEAT_S)
        task = asyncio.get_running_loop().create_task(heartbeat())
        try:
            yield
        finally:
            task.cancel()

    def _started_note(self):
        return f" (node {self.node_id} of {self.ctx.server_num}, scheduler {self.scheduler[0]}:{self.scheduler[1]})"
