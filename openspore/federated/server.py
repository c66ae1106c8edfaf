"""FLServer: the job (job.py) behind a real HTTP server, with checkpoints, metrics and restart.

Why Starlette + uvicorn: they are already openspore's web stack (serving's REST front), ASGI runs every handler
on one event loop, so the job's state machine needs no locks — each request's handling is a synchronous step
between awaits — and a timer task closes rounds whose time windows end while no request comes.

Persistence (`checkpoint_dir`): after each iteration the server writes `<fl_name>_iteration_<k>.npz` (global weights,
the next iteration number, server optimiser state) through a temporary file and a rename, and
`metrics.json` (one record per iteration) the same way. A server started on a directory that holds a checkpoint
resumes the job from it: a crashed process restarted with the same settings loses at most the iteration that
was running (its clients get OutOfTime/RequestError and start the next one).

    python -m openspore.federated.server --config fl.yaml --model lenet_train.ms      (or set_fl_context keys)

>>> from openspore.federated import FLServer, FLContext
>>> import numpy as np
>>> srv = FLServer(FLContext(fl_server_port=0, fl_name="demo"), {"w": np.zeros(2, np.float32)}).start()
>>> srv.url.startswith("http://127.0.0.1:")
True
>>> srv.stop()
"""
import asyncio
import contextlib
import glob
import io
import json
import os
import re
import time

import numpy as np

from ..common.files import write_atomic
from ..common.http_body import BodyTooLarge as _TooLarge, read_limited_body
from .http_service import HTTPService
from .job import FLJob
from .wire import REQUEST_ERROR, RETCODE_NAMES, SUCCEED, SYSTEM_ERROR, WireError, dumps, loads

MSG_TYPES = ("startFLJob", "updateModel", "getModel", "exchangeKeys", "getKeys", "shareSecrets", "getSecrets",
             "getClientList", "reconstructSecrets")
TICK_S = 0.05
KEEP_CHECKPOINTS = 3


class FLServer(HTTPService):
    def __init__(self, ctx=None, weights=None, clock=time.time):
        from .context import fl_context
        self.ctx = (ctx if ctx is not None else fl_context()).copy()   # default: what set_fl_context set
        if self.ctx.encrypt_type == "PW_ENCRYPT" and self.ctx.upload_compress_type != "NO_COMPRESS":
            raise ValueError("FLServer: PW_ENCRYPT masks whole uploads; upload_compress_type must be NO_COMPRESS.")
        restored = self._restore() if self.ctx.checkpoint_dir else None
        if restored is None and weights is None:
            raise ValueError("FLServer: give the initial weights (a dict name → array), or a checkpoint_dir that "
                             "holds a checkpoint to resume from.")
        if restored is not None:
            weights, iteration, agg_state, history = restored
        else:
            iteration, agg_state, history = 1, None, []
        self.job = FLJob(self.ctx, weights, iteration, agg_state, clock=clock)
        self.job.finished_iterations.extend(history)
        self.job.listeners.append(self._on_iteration_end)
        self.resumed_from = iteration if restored is not None else None
        self._metrics_init()
        self.server = self.thread = self._sock = None

    # ---- persistence -------------------------------------------------------------------------------------
    def _ckpt_name(self, k):
        return os.path.join(self.ctx.checkpoint_dir, f"{self.ctx.fl_name or 'fl'}_iteration_{k}.npz")

    def _restore(self):
        pattern = re.compile(re.escape(self.ctx.fl_name or "fl") + r"_iteration_(\d+)\.npz$")
        found = sorted((int(m.group(1)), p) for p in glob.glob(os.path.join(self.ctx.checkpoint_dir, "*.npz"))
                       if (m := pattern.search(os.path.basename(p))))
        if not found:
            return None
        with np.load(found[-1][1]) as z:
            weights = {k[2:]: z[k] for k in z.files if k.startswith("w/")}
            agg = {k[2:]: z[k] for k in z.files if k.startswith("a/")}
            nxt = int(z["next_iteration"])
        history = []
        metrics = os.path.join(self.ctx.checkpoint_dir, self.ctx.metrics_file)
        if os.path.exists(metrics):
            with open(metrics, encoding="utf-8") as f:
                history = json.load(f)
        return weights, nxt, agg, history

    def _on_iteration_end(self, record):
        self._m_iter.set(record["iteration"])
        self._m_status.labels(record["status"]).inc()
        self._m_duration.observe(record["duration_s"])
        if not self.ctx.checkpoint_dir:
            return
        os.makedirs(self.ctx.checkpoint_dir, exist_ok=True)
        if record["status"] == "succeeded":
            buf = io.BytesIO()
            arrays = {f"w/{k}": v for k, v in self.job.weights.items()}
            arrays.update({f"a/{k}": v for k, v in self.job.aggregator.state().items()})
            np.savez(buf, next_iteration=np.int64(record["iteration"] + 1), **arrays)
            write_atomic(self._ckpt_name(record["iteration"]), [buf.getvalue()], read_only=False)
            old = sorted(glob.glob(self._ckpt_name("*")), key=lambda p: int(re.findall(r"_(\d+)\.npz$", p)[0]))
            for p in old[:-KEEP_CHECKPOINTS]:
                os.remove(p)
        path = os.path.join(self.ctx.checkpoint_dir, self.ctx.metrics_file)
        write_atomic(path, [json.dumps(self.job.finished_iterations, indent=1).encode()], read_only=False)

    # ---- metrics -----------------------------------------------------------------------------------------
    def _metrics_init(self):
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
        self.registry = CollectorRegistry()
        self._m_requests = Counter("fl_requests", "Requests by message type and retcode", ["msg_type", "retcode"],
                                   registry=self.registry)
        self._m_iter = Gauge("fl_last_iteration", "The last iteration that ended", registry=self.registry)
        self._m_status = Counter("fl_iterations", "Iterations ended, by status", ["status"], registry=self.registry)
        self._m_duration = Histogram("fl_iteration_seconds", "Duration of an iteration", registry=self.registry,
                                     buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600))

    # ---- HTTP ----------------------------------------------------------------------------------------------
    def app(self):
        from starlette.applications import Starlette
        return Starlette(routes=self._routes(), exception_handlers={404: self._no_route, 405: self._no_route},
                         lifespan=self._lifespan)

    def _routes(self):
        from starlette.routing import Route
        prefix = self.ctx.http_url_prefix
        routes = [Route(f"{prefix}/{name}", self._endpoint(name), methods=["POST"]) for name in MSG_TYPES]
        return routes + [Route("/metrics", self._prometheus, methods=["GET"]),
                         Route(f"{prefix}/state", self._state, methods=["GET"])]

    def _endpoint(self, msg_type):
        async def handle(request):
            return await self._handle(request, msg_type, loads)
        return handle

    async def _handle(self, request, msg_type, decode, model_by_ref=False):
        """One request: decode (JSON from a device, or a cluster server's packed message), run it through the job,
        reply. `model_by_ref`: a reply carrying the global model names its version instead (scheduler.py)."""
        try:
            body = await self._read_body(request)
            msg = decode(body, msg_type)
            retcode, reply = self.job.handle(msg_type, msg)
        except _TooLarge:
            retcode, reply = REQUEST_ERROR, {"reason": f"{msg_type}: the request is larger than "
                                             f"{self.ctx.max_request_bytes} bytes"}
            return self._reply(msg_type, retcode, reply, status=413)
        except WireError as e:
            retcode, reply = REQUEST_ERROR, {"reason": str(e)}
        except Exception as e:  # the service keeps running; the client learns what failed
            retcode, reply = SYSTEM_ERROR, {"reason": f"{msg_type}: {type(e).__name__}: {e}"}
        if model_by_ref and ("feature_map" in reply or "compress_feature_map" in reply):
            quant = "compress_feature_map" in reply
            for key in ("feature_map", "compress_feature_map", "download_compress_type"):
                reply.pop(key, None)
            reply["model_ref"] = {"iteration": self.job.model_iteration, "quant": quant}
        return self._reply(msg_type, retcode, reply)

    def _reply(self, msg_type, retcode, reply, status=None):
        from starlette.responses import Response
        self._m_requests.labels(msg_type, RETCODE_NAMES.get(retcode, str(retcode))).inc()
        reply = {"retcode": retcode, **reply}
        if status is None:
            status = 400 if retcode == REQUEST_ERROR else 500 if retcode == SYSTEM_ERROR else 200
        return Response(dumps(reply), status_code=status, media_type="application/json")

    async def _read_body(self, request):
        return await read_limited_body(request, self.ctx.max_request_bytes)

    async def _prometheus(self, request):
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
        from starlette.responses import Response
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)

    async def _state(self, request):
        from starlette.responses import JSONResponse
        it = self.job.it
        return JSONResponse({"retcode": SUCCEED, "fl_name": self.ctx.fl_name, "finished": self.job.finished,
                             "iteration": None if it is None else it.number,
                             "phase": None if it is None else it.phase,
                             "model_iteration": self.job.model_iteration,
                             "iterations": self.job.finished_iterations[-5:]})

    async def _no_route(self, request, exc):
        from starlette.responses import JSONResponse
        return JSONResponse({"retcode": REQUEST_ERROR, "reason": f"no such endpoint: {request.method} "
                             f"{request.url.path}; POST {self.ctx.http_url_prefix}/<msgType> with msgType in "
                             f"{', '.join(MSG_TYPES)}"}, status_code=exc.status_code)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app):
        async def ticker():
            while True:
                await asyncio.sleep(TICK_S)
                try:
                    self.job.tick()
                except Exception as e:  # a failing tick must not stop the rounds
                    print(f"[fl server] tick failed: {type(e).__name__}: {e}", flush=True)
        task = asyncio.get_running_loop().create_task(ticker())
        try:
            yield
        finally:
            task.cancel()

    def _started_note(self):
        return f", resumed at iteration {self.resumed_from}" if self.resumed_from else ""


def role_service(ctx=None, weights=None, node_id=None):
    """The service this process runs for the job, chosen by `ms_role` and `server_num` (default: what
    set_fl_context set): server_num 0 → `FLServer` (one process owns the job); MS_SCHED → `FLScheduler`
    (scheduler.py); MS_SERVER with server_num ≥ 1 → `ClusterServer` number `node_id` (default: env MS_NODE_ID).
    Not started: call `.start()` (a thread) or `.serve_forever()`.

    >>> from openspore.federated import FLContext
    >>> type(role_service(FLContext(ms_role="MS_SERVER", server_num=2), node_id=1)).__name__
    'ClusterServer'
    """
    from .context import fl_context
    ctx = ctx if ctx is not None else fl_context()
    if ctx.ms_role == "MS_WORKER":
        raise ValueError("ms_role MS_WORKER (HYBRID_TRAINING's cloud-side trainer) is not supported; run "
                         "MS_SCHED and MS_SERVER processes")
    if ctx.ms_role == "MS_SCHED":
        if ctx.server_num < 1:
            raise ValueError("ms_role MS_SCHED needs server_num >= 1 (the servers it coordinates)")
        from .scheduler import FLScheduler
        return FLScheduler(ctx, weights)
    if ctx.server_num >= 1:
        if weights is not None:
            raise ValueError("a cluster server holds no model: give the weights to the scheduler (MS_SCHED)")
        from .cluster_server import ClusterServer
        return ClusterServer(ctx, node_id)
    return FLServer(ctx, weights)


def main(argv=None, role=None):
    """`python -m openspore.federated.server --config fl.yaml [--model m.ms | --weights w.npz] [--set key=value…]`

    What runs follows ms_role and server_num: server_num 0 → one standalone server owning the job; server_num ≥ 1
    → MS_SCHED runs the scheduler (scheduler.py: it owns the job, so it takes --model/--weights) and MS_SERVER a
    stateless HTTP server of the cluster (cluster_server.py; --node-id or the env MS_NODE_ID picks its rank)."""
    import argparse
    from .context import FLContext, load_fl_config
    ap = argparse.ArgumentParser(description="openspore federated-learning " + ("scheduler" if role else "server"))
    ap.add_argument("--config", help="YAML file of set_fl_context keys")
    ap.add_argument("--model", help="a .ms training model whose weights start the job")
    ap.add_argument("--weights", help="an .npz of the initial weights")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override one key (YAML value)")
    ap.add_argument("--node-id", type=int, help="this server's rank in a cluster (default: env MS_NODE_ID, or 0)")
    ap.add_argument("--ready-file", help="write the server URL here once it listens")
    args = ap.parse_args(argv)
    import yaml
    try:
        ctx = load_fl_config(args.config) if args.config else FLContext()
        for item in args.set:
            key, sep, value = item.partition("=")
            if not sep:
                ap.error(f"--set {item!r}: expected KEY=VALUE")
            ctx.update(**{key: yaml.safe_load(value)})
        if role:
            ctx.update(ms_role=role)
        clustered_server = ctx.ms_role == "MS_SERVER" and ctx.server_num >= 1
        if clustered_server and (args.model or args.weights):
            raise ValueError("a cluster server holds no model: give --model/--weights to the scheduler (MS_SCHED)")
        weights = None
        if args.model:
            from .export import initial_weights
            weights = initial_weights(args.model)
        elif args.weights:
            with np.load(args.weights) as z:
                weights = {k: z[k] for k in z.files}
        service = role_service(ctx, weights, args.node_id)
    except (OSError, ValueError, TypeError, yaml.YAMLError) as exc:  # a missing or bad file or key: one clear line
        ap.exit(2, f"openspore federated {'scheduler' if role else 'server'}: {exc}\n")
    service.serve_forever(args.ready_file)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
