"""How a worker finds its job: the environment a launcher left, turned into a torch.distributed process group.

Three launch styles are understood, tried in this order:

* MindSpore's dynamic cluster, as `msrun` sets it (or a user by hand): MS_SCHED_HOST / MS_SCHED_PORT name the
  rendezvous store, MS_WORKER_NUM the job size, RANK_ID or an integer MS_NODE_ID the rank (without one, ranks
  are handed out in arrival order by the store). The store is hosted by `msrun` on the master node, or by a
  process started with MS_ROLE=MS_SCHED (which only hosts: see `serve_as_scheduler`).
* torchrun's: MASTER_ADDR / MASTER_PORT / WORLD_SIZE / RANK (rank 0 hosts the store).
* Nothing set: a job of one process on a private store.
"""
import atexit
import os
import sys
from datetime import timedelta

_PREFIX = "openspore/"
_DEFAULT_TIMEOUT_S = 1800  # MindSpore's MS_TOPO_TIMEOUT default: 30 minutes


def _int_env(name, default=None, env=None):
    env = os.environ if env is None else env
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        return default


def _checked_int_env(name, env):
    raw = env.get(name)
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise RuntimeError(f"communication.init(): the environment variable {name} must be an integer, but it is "
                           f"{raw!r}.") from None


def describe(env=None):
    """The launch the environment describes: dict(style, host, port, size, rank or None, local_rank, local_size,
    timeout_s, role)."""
    env = os.environ if env is None else env
    timeout = _int_env("MS_TOPO_TIMEOUT", _DEFAULT_TIMEOUT_S, env)
    if timeout is None or timeout <= 0:
        timeout = 10 ** 7  # a negative cluster_time_out means: wait forever
    if "MS_SCHED_HOST" in env or "MS_WORKER_NUM" in env:
        for name in ("MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM"):
            if not env.get(name):
                raise RuntimeError(f"communication.init(): MindSpore's dynamic-cluster launch needs {name} in the "
                                   f"environment (with MS_SCHED_HOST, MS_SCHED_PORT and MS_WORKER_NUM); it is "
                                   f"missing. Start the script with msrun, or set all three.")
        size = _checked_int_env("MS_WORKER_NUM", env)
        rank = _int_env("RANK_ID", None, env)
        if rank is None:
            rank = _int_env("MS_NODE_ID", None, env)
        local = _int_env("DEVICE_ID", None, env)
        return {"style": "ms", "host": env["MS_SCHED_HOST"], "port": _checked_int_env("MS_SCHED_PORT", env),
                "size": size, "rank": rank, "local_rank": local if local is not None else (rank or 0),
                "local_size": _int_env("MS_LOCAL_WORKER_NUM", size, env), "timeout_s": timeout,
                "role": env.get("MS_ROLE", "MS_WORKER")}
    if "MASTER_ADDR" in env and "WORLD_SIZE" in env:
        rank = _checked_int_env("RANK", env)
        size = _checked_int_env("WORLD_SIZE", env)
        return {"style": "torchrun", "host": env["MASTER_ADDR"], "port": _checked_int_env("MASTER_PORT", env),
                "size": size, "rank": rank, "local_rank": _int_env("LOCAL_RANK", rank, env),
                "local_size": _int_env("LOCAL_WORLD_SIZE", size, env), "timeout_s": timeout, "role": "MS_WORKER"}
    return {"style": "single", "host": "127.0.0.1", "port": 0, "size": 1, "rank": 0, "local_rank": 0,
            "local_size": 1, "timeout_s": timeout, "role": "MS_WORKER"}


def connect_store(host, port, is_master, timeout_s, world_size=None):
    import torch.distributed as dist
    return dist.TCPStore(host, port, world_size, is_master, timedelta(seconds=timeout_s),
                         wait_for_workers=False)


def join(backend, launch):
    """Joins the job `launch` describes; returns (rank, size). Blocks until every worker has joined (or the
    timeout, with an error naming the store and how many had arrived)."""
    import torch.distributed as dist
    size, timeout = launch["size"], launch["timeout_s"]
    if launch["style"] == "single":
        store = dist.HashStore()
        rank = 0
    else:
        rank = launch["rank"]
        hosts = launch["style"] == "torchrun" and rank == 0  # msrun / the scheduler hosts MindSpore-style stores
        try:
            store = connect_store(launch["host"], launch["port"], hosts, timeout)
        except Exception as exc:  # noqa: BLE001 - torch raises RuntimeError/DistNetworkError/TimeoutError here
            raise RuntimeError(f"communication.init(): could not reach the rendezvous store at "
                               f"{launch['host']}:{launch['port']} within {timeout} s ({exc}). Is msrun (or the "
                               f"MS_SCHED process / torchrun's rank 0) running there?") from exc
        if rank is None:  # dynamic cluster without fixed ranks: first come, first ranked
            rank = int(store.add(_PREFIX + "next_rank", 1)) - 1
        if not 0 <= rank < size:
            raise RuntimeError(f"communication.init(): this worker's rank {rank} is outside the job of {size} "
                               f"workers (MS_WORKER_NUM / WORLD_SIZE).")
        store = dist.PrefixStore(_PREFIX + "pg", store)
        if launch["style"] == "ms":
            _announce_exit(store)
    dist.init_process_group(backend, store=store, rank=rank, world_size=size, timeout=timedelta(seconds=timeout))
    return rank, size


def _announce_exit(store):
    """A worker counts itself out when it ends, so a MS_SCHED process knows when the job is over."""
    def done():
        try:
            store.add("finished", 1)
        except Exception:  # noqa: BLE001 - the store may already be gone at interpreter exit
            pass
    atexit.register(done)


def serve_as_scheduler(launch):
    """MS_ROLE=MS_SCHED: host the rendezvous store until every worker has finished, then exit the process (the
    scheduler never trains, as in MindSpore)."""
    import torch.distributed as dist
    store = connect_store(launch["host"], launch["port"], True, launch["timeout_s"])
    counted = dist.PrefixStore(_PREFIX + "pg", store)
    import time
    while int(counted.add("finished", 0)) < launch["size"]:
        time.sleep(0.2)
    sys.exit(0)
