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
import socket
import threading
import time

import numpy as np

from ..common.files import write_atomic
from ..common.http_body import BodyTooLarge as _TooLarge, read_limited_body
from .job import FLJob
from .wire import REQUEST_ERROR, RETCODE_NAMES, SUCCEED, SYSTEM_ERROR, WireError, dumps, loads

MSG_TYPES = ("startFLJob", "updateModel", "getModel", "exchangeKeys", "getKeys", "shareSecrets", "getSecrets",
             "getClientList", "reconstructSecrets")
TICK_S = 0.05
KEEP_CHECKPOINTS = 3


class FLServer:
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
        from starlette.routing import Route
        prefix = self.ctx.http_url_prefix
        routes = [Route(f"{prefix}/{name}", self._endpoint(name), methods=["POST"]) for name in MSG_TYPES]
        routes += [Route("/metrics", self._prometheus, methods=["GET"]),
                   Route(f"{prefix}/state", self._state, methods=["GET"])]
        return Starlette(routes=routes, exception_handlers={404: self._no_route, 405: self._no_route},
                         lifespan=self._lifespan)

    def _endpoint(self, msg_type):
        async def handle(request):
            try:
                body = await self._read_body(request)
                msg = loads(body, msg_type)
                retcode, reply = self.job.handle(msg_type, msg)
            except _TooLarge:
                retcode, reply = REQUEST_ERROR, {"reason": f"{msg_type}: the request is larger than "
                                                 f"{self.ctx.max_request_bytes} bytes"}
                return self._reply(msg_type, retcode, reply, status=413)
            except WireError as e:
                retcode, reply = REQUEST_ERROR, {"reason": str(e)}
            except Exception as e:  # the service keeps running; the client learns what failed
                retcode, reply = SYSTEM_ERROR, {"reason": f"{msg_type}: {type(e).__name__}: {e}"}
            return self._reply(msg_type, retcode, reply)
        return handle

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

    # ---- life --------------------------------------------------------------------------------------------
    def _ssl_options(self):
        if not self.ctx.enable_ssl:
            return {}
        if not (self.ctx.server_cert_path and self.ctx.server_key_path):
            raise ValueError("FLServer: enable_ssl=True needs server_cert_path and server_key_path.")
        opts = {"ssl_certfile": self.ctx.server_cert_path, "ssl_keyfile": self.ctx.server_key_path}
        if self.ctx.server_password:
            opts["ssl_keyfile_password"] = self.ctx.server_password
        return opts

    @property
    def url(self):
        scheme = "https" if self.ctx.enable_ssl else "http"
        host, port = self._sock.getsockname()[:2]
        return f"{scheme}://{host}:{port}{self.ctx.http_url_prefix}"

    def _bind(self):
        host, port = self.ctx.fl_server_ip, self.ctx.fl_server_port
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise RuntimeError(f"FLServer: cannot listen on {host}:{port}: {exc.strerror}") from None
        sock.listen(1024)
        return sock

    def _uvicorn(self):
        import uvicorn
        config = uvicorn.Config(self.app(), log_level="warning", access_log=False, timeout_keep_alive=60,
                                timeout_graceful_shutdown=3, lifespan="on", **self._ssl_options())
        return uvicorn.Server(config)

    def start(self):
        """Serve from a background thread (tests, simulations); returns self once the port is open."""
        self._sock = self._bind()
        self.server = self._uvicorn()
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._sock]},
                                       name="fl-server", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"FLServer: the HTTP server did not start on {self.url}")
            time.sleep(0.01)
        return self

    def serve_forever(self, ready_file=None):
        """Serve in this thread until the job finishes its iterations (or the process is stopped)."""
        self._sock = self._bind()
        self.server = self._uvicorn()
        print(f"[fl server] {self.ctx.fl_name or 'fl'} listening on {self.url}"
              + (f", resumed at iteration {self.resumed_from}" if self.resumed_from else ""), flush=True)
        if ready_file:
            write_atomic(ready_file, [self.url.encode()], read_only=False)
        self.server.run(sockets=[self._sock])

    def stop(self):
        if self.server is not None:
            self.server.should_exit = True
            if self.thread is not None:
                self.thread.join(timeout=10)
            self._sock.close()
            self.server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv=None):
    """`python -m openspore.federated.server --config fl.yaml [--model m.ms | --weights w.npz] [--set key=value…]`"""
    import argparse
    from .context import FLContext, load_fl_config
    ap = argparse.ArgumentParser(description="openspore federated-learning server")
    ap.add_argument("--config", help="YAML file of set_fl_context keys")
    ap.add_argument("--model", help="a .ms training model whose weights start the job")
    ap.add_argument("--weights", help="an .npz of the initial weights")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override one key (YAML value)")
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
        weights = None
        if args.model:
            from .export import initial_weights
            weights = initial_weights(args.model)
        elif args.weights:
            with np.load(args.weights) as z:
                weights = {k: z[k] for k in z.files}
    except (OSError, ValueError, TypeError, yaml.YAMLError) as exc:  # a missing or bad file or key: one clear line
        ap.exit(2, f"openspore federated server: {exc}\n")
    FLServer(ctx, weights).serve_forever(args.ready_file)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
