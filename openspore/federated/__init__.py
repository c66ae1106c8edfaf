"""openspore.federated — horizontal federated learning (MindSpore Federated, device–cloud).

* `set_fl_context(...)` / `get_fl_context(key)`: MindSpore's keys (context.py), or `load_fl_config(yaml)`;
* `FLServer`: the HTTP server for a job (server.py; rounds in job.py); with server_num ≥ 1 a job is shared by
  `FLScheduler` (MS_SCHED, scheduler.py) and stateless `ClusterServer`s (MS_SERVER); `role_service()` picks by ms_role;
* `FLClient`, `SyncFLJob`: the device side on `openspore.lite` (client.py; imports no torch);
* `simulate(...)`: fleets of clients against a real server (simulator.py).
Protocol, security and figures: docs/federated.md.
"""
from .context import (FLContext, fl_context, get_fl_context, load_fl_config, reset_fl_context,  # noqa: F401
                      set_fl_context)


def __getattr__(name):
    # the server pulls starlette/uvicorn/prometheus; a device importing the client should not pay for them
    if name in ("FLServer", "role_service"):
        from . import server
        return getattr(server, name)
    if name == "FLScheduler":
        from .scheduler import FLScheduler
        return FLScheduler
    if name == "ClusterServer":
        from .cluster_server import ClusterServer
        return ClusterServer
    if name in ("FLClient", "SyncFLJob", "FLJobFailed"):
        from . import client
        return getattr(client, name)
    if name in ("simulate", "Fleet", "dirichlet_split"):
        from . import simulator
        return getattr(simulator, name)
    raise AttributeError(f"module 'openspore.federated' has no attribute {name!r}")
