"""Starts real worker processes on 127.0.0.1 for the distributed tests, and always reaps them."""
import json
import os
import socket
import subprocess
import sys

from tests.conftest import child_env

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER_TIMEOUT_S = 120


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_env(rank, size, port, **extra):
    return child_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(size), RANK=str(rank),
                     LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(size), MS_TOPO_TIMEOUT="60", **extra)


def run_workers(script, size, out_dir, *args, env_for=torchrun_env, timeout=WORKER_TIMEOUT_S, **extra):
    """Runs `python script out_dir args...` as `size` ranks, each given `timeout` seconds; returns each rank's
    JSON result (worker_<r>.json)."""
    port = free_port()
    procs = []
    try:
        for rank in range(size):
            env = env_for(rank, size, port, **extra)
            procs.append(subprocess.Popen([sys.executable, os.path.join(HERE, script), str(out_dir), *args],
                                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        outputs = [p.communicate(timeout=timeout)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for rank, (p, out) in enumerate(zip(procs, outputs)):
        assert p.returncode == 0, f"rank {rank} failed (exit {p.returncode}):\n{out[-4000:]}"
    results = []
    for rank in range(size):
        with open(os.path.join(out_dir, f"worker_{rank}.json")) as f:
            results.append(json.load(f))
    return results
