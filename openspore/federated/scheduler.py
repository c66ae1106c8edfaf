"""The scheduler (ms_role MS_SCHED) of a job served by several server processes (server_num ≥ 1).

Which shape, and why: the scheduler owns the job — job.py's round state machine (joins, counts, windows, tokens),
the running aggregate Σ n_k·w_k, the checkpoints and metrics.json — and the servers (cluster_server.py) are
stateless HTTP front ends that any device may call. A server decodes and checks what a device sends (JSON,
base64: the CPU-heavy part of a request, which is what limits one process) and forwards the decoded arrays as raw
bytes (wire.pack_message) to the scheduler, which only adds them to the sum. A device's upload is acknowledged only
after the scheduler has added it, so a server killed mid-round loses no accepted upload, and a restarted one
simply registers again; a device whose server vanished carries on through another (its token is valid on all).
Sharded sums (each server summing its own uploads, the scheduler adding the partial sums at round close) would
save the scheduler the additions, but a server that dies would take its accepted uploads with it — exactly what
restarting without losing the job must not do. No external store (Redis) is needed: the state is one iteration's
counters and one sum, owned by one process; the scheduler itself restarts from its checkpoint_dir as the standalone
server does (losing at most the iteration in flight).

The scheduler listens on scheduler_ip:scheduler_port (plain HTTP: the cluster network) and serves:
    POST /_cluster/msg/<msgType>   a message forwarded by a server (packed; replies name the model version)
    GET  /_cluster/model?iteration=k&quant=0|1   the model of version k (the last few are kept), as a reply fragment
    POST /_cluster/register        {node_id, url}: a server joins or rejoins (sent every second as a heartbeat)
    GET  /nodes                    the servers, as MindSpore's scheduler management API lists them
plus everything the standalone server serves (devices may also talk to it directly; /state, /metrics).

    python -m openspore.federated.scheduler --config fl.yaml --weights w0.npz

>>> import numpy as np
>>> from openspore.federated import FLContext
>>> s = FLScheduler(FLContext(server_num=2, scheduler_ip="127.0.0.1", scheduler_port=0), {"w": np.zeros(2)})
>>> s.start().url.startswith("http://127.0.0.1:"); s.stop()
True
"""
import time

from .server import MSG_TYPES, FLServer
from .wire import REQUEST_ERROR, SUCCEED, WireError, dumps, encode_feature_map, field, loads, unpack_message

KEEP_MODELS = 3
NODE_ALIVE_S = 3.0


class FLScheduler(FLServer):
    banner = "fl scheduler"

    def __init__(self, ctx=None, weights=None, clock=time.time):
        super().__init__(ctx, weights, clock)
        self.nodes = {}                    # node_id → {url, first_seen, last_seen, joins}
        self.models = {self.job.model_iteration: self.job.weights}
        self._model_bytes = {}
        self.job.listeners.append(self._keep_model)

    def _address(self):
        return self.ctx.scheduler_ip, self.ctx.scheduler_port

    def _tls(self):
        return False        # the cluster network; devices reach the servers, which speak TLS when configured

    def _keep_model(self, record):
        if record["status"] == "succeeded":
            self.models[self.job.model_iteration] = self.job.weights
            for k in sorted(self.models)[:-KEEP_MODELS]:
                del self.models[k]
                self._model_bytes = {key: v for key, v in self._model_bytes.items() if key[0] != k}

    def _routes(self):
        from starlette.routing import Route
        return super()._routes() + [
            Route("/_cluster/msg/{msg_type}", self._cluster_message, methods=["POST"]),
            Route("/_cluster/model", self._cluster_model, methods=["GET"]),
            Route("/_cluster/register", self._register, methods=["POST"]),
            Route("/nodes", self._nodes, methods=["GET"])]

    def _seen(self, request):
        node = request.headers.get("x-fl-node", "")
        if node.isdigit() and int(node) in self.nodes:
            self.nodes[int(node)]["last_seen"] = time.time()

    async def _cluster_message(self, request):
        msg_type = request.path_params["msg_type"]
        if msg_type not in MSG_TYPES:
            return self._reply(msg_type, REQUEST_ERROR, {"reason": f"unknown message type {msg_type!r}"})
        self._seen(request)
        return await self._handle(request, msg_type, lambda body, where: unpack_message(body), model_by_ref=True)

    async def _cluster_model(self, request):
        from starlette.responses import Response
        from . import compression
        try:
            k = int(request.query_params.get("iteration", ""))
            quant = request.query_params.get("quant", "0") == "1"
        except ValueError:
            return Response(dumps({"retcode": REQUEST_ERROR, "reason": "iteration must be an int"}), 400)
        if k not in self.models:
            return Response(dumps({"retcode": REQUEST_ERROR, "reason": f"model {k} is not kept (kept: "
                                   f"{sorted(self.models)})"}), 404, media_type="application/json")
        if (k, quant) not in self._model_bytes:
            w = self.models[k]
            payload = ({"download_compress_type": "QUANT", "compress_feature_map": compression.quantize_map(w)}
                       if quant else {"download_compress_type": "NO_COMPRESS", "feature_map": encode_feature_map(w)})
            self._model_bytes[(k, quant)] = dumps(payload)
        return Response(self._model_bytes[(k, quant)], media_type="application/json")

    async def _register(self, request):
        from starlette.responses import Response
        try:
            msg = loads(await request.body(), "register")
            node_id, url = field(msg, "node_id", int, "register"), field(msg, "url", str, "register")
            boot = field(msg, "boot", str, "register")
            if not 0 <= node_id < max(self.ctx.server_num, 1):
                raise WireError(f"register: node_id {node_id} is outside 0..{max(self.ctx.server_num, 1) - 1} "
                                f"(server_num is {self.ctx.server_num})")
        except WireError as e:
            return Response(dumps({"retcode": REQUEST_ERROR, "reason": str(e)}), 400, media_type="application/json")
        now = time.time()
        node = self.nodes.get(node_id)
        if node is None or node["boot"] != boot:     # a new server process: the first, or one restarted
            node = self.nodes[node_id] = {"url": url, "boot": boot, "first_seen": now, "last_seen": now,
                                          "joins": (node or {}).get("joins", 0) + 1}
        node["last_seen"] = now
        return Response(dumps({"retcode": SUCCEED, "fl_name": self.ctx.fl_name, "joins": node["joins"]}),
                        media_type="application/json")

    async def _nodes(self, request):
        from starlette.responses import JSONResponse
        now = time.time()
        return JSONResponse({"code": 0, "message": "Get nodes info successful.", "nodeIds": [
            {"alive": str(now - n["last_seen"] <= NODE_ALIVE_S).lower(), "nodeId": str(k), "rankId": str(k),
             "role": "SERVER", "url": n["url"], "joins": n["joins"]} for k, n in sorted(self.nodes.items())]})


def main(argv=None):
    """`python -m openspore.federated.scheduler --config fl.yaml [--weights w.npz | --model m.ms]`"""
    from .server import main as server_main
    return server_main(argv, role="MS_SCHED")


if __name__ == "__main__":
    raise SystemExit(main())
