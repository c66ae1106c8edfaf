"""Fleets of simulated devices against a real FLServer: in-process (threads) for a few hundred devices, with
availability, drop-outs in the middle of an iteration, and non-IID data splits.

Devices are stateless, so a fleet is a list of (fl_id, x, y) and a pool of `openspore.lite` trainers as large as
the number of devices that train at the same time; a device borrows a trainer for one iteration (the weights come
from the server and the optimiser state is reset, so nothing leaks from one device to the next).

>>> import numpy as np
>>> parts = dirichlet_split(np.repeat(np.arange(3), 20), 4, alpha=0.5, rng=np.random.default_rng(0))
>>> sorted(np.concatenate(parts).tolist()) == list(range(60))
True
"""
import queue
import threading
import time

import numpy as np

from .client import FLClient

DROP_PHASES = ("startFLJob", "exchangeKeys", "shareSecrets", "updateModel")


def dirichlet_split(labels, n_clients, alpha=0.5, rng=None, min_size=1):
    """Non-IID split: each class's samples are divided among the clients in Dirichlet(alpha) proportions
    (smaller alpha: fewer classes per client). Every client gets at least `min_size` samples."""
    rng = rng or np.random.default_rng(0)
    labels = np.asarray(labels)
    for _ in range(100):
        parts = [[] for _ in range(n_clients)]
        for c in np.unique(labels):
            idx = rng.permutation(np.flatnonzero(labels == c))
            cuts = (np.cumsum(rng.dirichlet(np.full(n_clients, alpha))) * len(idx)).astype(int)[:-1]
            for k, chunk in enumerate(np.split(idx, cuts)):
                parts[k].extend(chunk.tolist())
        if min(len(p) for p in parts) >= min_size:
            return [np.array(sorted(p), np.int64) for p in parts]
    raise ValueError(f"dirichlet_split: could not give each of {n_clients} clients {min_size} samples "
                     f"from {len(labels)} (alpha={alpha}).")


class Fleet:
    """`devices`: list of (fl_id, x, y). `trainer_factory(x, y)` makes a trainer (e.g. LiteTrainer on a .ms)."""

    def __init__(self, url, fl_name, devices, trainer_factory, concurrency, seed=0, cafile=None):
        self.url, self.fl_name, self.devices = url, fl_name, devices
        self.rng = np.random.default_rng(seed)
        x0, y0 = devices[0][1], devices[0][2]
        self.pool = queue.Queue()
        for _ in range(concurrency):
            self.pool.put(trainer_factory(x0, y0))
        self.concurrency = concurrency
        self.cafile = cafile

    def _run_device(self, fl_id, x, y, stop_after, out):
        trainer = self.pool.get()
        try:
            trainer.x, trainer.y = x, y
            client = FLClient(self.url, self.fl_name, fl_id, trainer, cafile=self.cafile,
                              seed=int(self.rng.integers(1 << 31)))
            out[fl_id] = client.run_iteration(stop_after=stop_after)
        except Exception as e:   # a device failing is part of the fleet's life; the caller sees it in the result
            out[fl_id] = f"error: {type(e).__name__}: {e}"
        finally:
            self.pool.put(trainer)

    def iteration(self, participants, availability=1.0, drop_rate=0.0, drop_phase="updateModel"):
        """One iteration: `participants` devices drawn from those available (each available with probability
        `availability`) ask to join; a `drop_rate` fraction of them vanishes after `drop_phase`.
        Returns {fl_id: status}."""
        online = [d for d in self.devices if self.rng.random() < availability] or self.devices[:1]
        chosen = self.rng.choice(len(online), size=min(participants, len(online)), replace=False)
        dropping = set(self.rng.choice(chosen, size=int(round(drop_rate * len(chosen))), replace=False).tolist())
        out, threads = {}, []
        for i in chosen:
            fl_id, x, y = online[i]
            t = threading.Thread(target=self._run_device,
                                 args=(fl_id, x, y, drop_phase if i in dropping else None, out), daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        return out


def simulate(server, devices, trainer_factory, iterations, participants, availability=1.0, drop_rate=0.0,
             drop_phase="updateModel", on_iteration=None, seed=0):
    """Run `iterations` iterations of `participants` devices against `server` (a started FLServer). Calls
    `on_iteration(record, statuses, elapsed_s)` after each; returns the server's per-iteration records.

    The devices are threads of this process, so the native thread pools (BLAS, OpenMP) are held at one thread
    while they run: each device's matrix products fanning out over every core, in every device at once,
    oversubscribe the machine (measured: 10 LeNet devices training at once took 13.2 s with the pools' default
    counts, 0.74 s at one thread each, on a 2-core machine)."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1):
        return _simulate(server, devices, trainer_factory, iterations, participants, availability, drop_rate,
                         drop_phase, on_iteration, seed)


def _simulate(server, devices, trainer_factory, iterations, participants, availability, drop_rate, drop_phase,
              on_iteration, seed):
    fleet = Fleet(server.url, server.ctx.fl_name, devices, trainer_factory, participants, seed=seed)
    done = 0
    while done < iterations and not server.job.finished:
        before = len(server.job.finished_iterations)
        t0 = time.perf_counter()
        statuses = fleet.iteration(participants, availability, drop_rate, drop_phase)
        deadline = time.monotonic() + 60
        while len(server.job.finished_iterations) == before and time.monotonic() < deadline:
            time.sleep(0.02)   # an iteration that lost devices ends when its window does
        if len(server.job.finished_iterations) == before:
            raise RuntimeError(f"simulate: the iteration did not end; device statuses {statuses}")
        done += 1
        if on_iteration is not None:
            on_iteration(server.job.finished_iterations[-1], statuses, time.perf_counter() - t0)
    return server.job.finished_iterations
