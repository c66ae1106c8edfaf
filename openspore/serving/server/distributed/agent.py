"""The agent side of a distributed generation servable: `startup_agents` starts one agent process per local rank;
each connects to the servable (`distributed_address`), registers its rank, receives the model config, joins the
agents' collective group (rank 0's `agent_ip:agent_start_port` hosts the rendezvous), loads its slice of the
model file (a full GPT checkpoint, sliced here, or a checkpoint of this rank's slice) and then runs the engine
calls the servable fans out until the servable goes away or tells it to exit.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np

from . import _wire

CONNECT_TIMEOUT_S = 300   # an agent may be started before its servable: it keeps trying this long
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
_AGENT_BOOT = (f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); "
               "from openspore.serving.server.distributed.agent import agent_main; sys.exit(agent_main(sys.argv[1:]))")


def _connect(address):
    from .engine_proxy import split_address
    host, port = split_address(address, "startup_agents")
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        try:
            return socket.create_connection((host, port), timeout=10)
        except OSError as exc:
            if time.monotonic() > deadline:
                raise RuntimeError(f"agent: could not reach the distributed servable at {address} within "
                                   f"{CONNECT_TIMEOUT_S} s ({exc})") from None
            time.sleep(0.5)


def _run_call(engine, header):
    op = header.get("op")
    if op == "prefill":
        return engine.prefill(header["ids"], header["prompts"])
    if op == "decode":
        return engine.decode(header["ids"], header["tokens"])
    if op == "free":
        engine.free(header["id"])
        return None
    raise ValueError(f"unknown call {op!r}")


def agent_main(argv):
    """One agent process: argv = distributed_address model_file rank agent_ip port."""
    address, model_file, rank, agent_ip, port = argv[0], argv[1], int(argv[2]), argv[3], int(argv[4])
    sock = _connect(address)
    _wire.send(sock, {"op": "register", "rank": rank, "pid": os.getpid(), "host": agent_ip, "port": port,
                      "model_file": model_file})
    sock.settimeout(None)
    header, _ = _wire.receive(sock)
    if header.get("op") != "init":
        print(f"agent rank {rank}: the servable refused the registration: {header.get('error', header)}",
              file=sys.stderr, flush=True)
        return 2
    try:
        engine = _start_engine(header, model_file, rank)
    except Exception as exc:  # noqa: BLE001 - the servable learns why, then this agent ends
        _wire.send(sock, {"op": "failed", "error": f"{type(exc).__name__}: {exc}"})
        raise
    _wire.send(sock, {"op": "ready", "rank": rank, "num_blocks": engine.num_blocks, "block_size": engine.block_size,
                      "max_batch_size": engine.max_batch_size, "max_model_len": engine.max_model_len})
    print(f"agent rank {rank} (pid {os.getpid()}) ready", flush=True)
    return _serve(sock, engine, rank)


def _start_engine(init, model_file, rank):
    from .... import communication
    from ....llm.kv_pool import OutOfBlocks  # noqa: F401 - imported before any call, so failures are quick
    from ....llm.tensor_parallel import TensorParallelEngine
    size = int(init["rank_size"])
    os.environ.update(MASTER_ADDR=str(init["master_addr"]), MASTER_PORT=str(init["master_port"]),
                      WORLD_SIZE=str(size), RANK=str(rank), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(size))
    for name in ("MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM"):  # the agents' own group, not a launcher's
        os.environ.pop(name, None)
    os.environ.setdefault("MS_TOPO_TIMEOUT", "300")
    communication.init()
    return TensorParallelEngine.from_checkpoint(model_file, init["config"], rank=rank, size=size,
                                                **init.get("engine_kw", {}))


def _serve(sock, engine, rank):
    from ....llm.kv_pool import OutOfBlocks
    while True:
        try:
            header, _ = _wire.receive(sock)
        except (ConnectionError, OSError):
            return 0  # the servable is gone
        if header.get("op") == "exit":
            return 0
        try:
            result = _run_call(engine, header)
        except OutOfBlocks as exc:
            _wire.send(sock, {"kind": "OutOfBlocks", "error": str(exc)})
            continue
        except (ValueError, KeyError) as exc:
            _wire.send(sock, {"kind": type(exc).__name__, "error": str(exc)})
            continue
        except Exception as exc:  # noqa: BLE001 - a collective failed: the group is broken, this agent ends
            _wire.send(sock, {"kind": "fatal", "error": f"{type(exc).__name__}: {exc}"})
            return 1
        payload = np.ascontiguousarray(result, np.float32).tobytes() if rank == 0 and result is not None else b""
        _wire.send(sock, {"ok": True}, payload)


def startup_agents(distributed_address, model_files, group_config_files=None, agent_start_port=7000,
                   agent_ip=None, rank_start=None, dec_key=None, dec_mode="AES-GCM"):
    """startup_agents(distributed_address, model_files, group_config_files=None, agent_start_port=7000,
    agent_ip=None, rank_start=None): start one agent process per entry of `model_files` (ranks rank_start,
    rank_start+1, ...) for the distributed servable at `distributed_address`, and wait for them. When one agent
    ends with an error, the others are stopped and RuntimeError names it; when the servable stops, they all end
    and this returns. Agent i uses port agent_start_port+i (rank 0's hosts the agents' rendezvous)."""
    files = _check_agents(distributed_address, model_files, group_config_files, agent_start_port, agent_ip,
                          rank_start, dec_key, dec_mode)
    agent_ip = agent_ip or "127.0.0.1"
    rank_start = rank_start or 0
    procs = []
    try:
        for i, path in enumerate(files):
            cmd = [sys.executable, "-c", _AGENT_BOOT, distributed_address, path, str(rank_start + i), agent_ip,
                   str(agent_start_port + i)]
            procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL))
        while True:
            codes = [p.poll() for p in procs]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                i, code = failed[0]
                raise RuntimeError(f"agent rank {rank_start + i} (pid {procs[i].pid}) exited with code {code}; the "
                                   f"other agents were stopped")
            if all(c == 0 for c in codes):
                return
            time.sleep(0.1)
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _check_agents(address, model_files, group_config_files, agent_start_port, agent_ip, rank_start, dec_key,
                  dec_mode):
    from .engine_proxy import split_address
    split_address(address, "startup_agents")
    if not isinstance(model_files, (list, tuple)) or not model_files:
        raise RuntimeError(f"For 'startup_agents', the parameter 'model_files' should be a non-empty list/tuple, one "
                           f"entry per local device, but got {model_files!r}.")
    files = []
    for entry in model_files:
        if isinstance(entry, (list, tuple)):
            if len(entry) != 1:
                raise RuntimeError(f"For 'startup_agents', an agent loads one model file (a GPT checkpoint), but an "
                                   f"entry of 'model_files' holds {len(entry)}: {entry!r}.")
            entry = entry[0]
        if not isinstance(entry, str) or not os.path.isfile(entry) or not os.access(entry, os.R_OK):
            raise RuntimeError(f"For 'startup_agents', the model file {entry!r} does not exist or is not readable.")
        files.append(os.path.realpath(entry))
    if group_config_files is not None and (not isinstance(group_config_files, (list, tuple))
                                           or len(group_config_files) != len(files)):
        raise RuntimeError(f"For 'startup_agents', 'group_config_files' should have one entry per model file "
                           f"({len(files)}), but got {group_config_files!r}.")
    if isinstance(agent_start_port, bool) or not isinstance(agent_start_port, int) or \
            not 1 <= agent_start_port <= 65535 - len(files):
        raise RuntimeError(f"For 'startup_agents', the parameter 'agent_start_port' should be an int in "
                           f"[1, {65535 - len(files)}], but got {agent_start_port!r}.")
    if (agent_ip is None) != (rank_start is None):
        raise RuntimeError("For 'startup_agents', 'agent_ip' and 'rank_start' should be both set or both None.")
    if rank_start is not None and (isinstance(rank_start, bool) or not isinstance(rank_start, int) or rank_start < 0):
        raise RuntimeError(f"For 'startup_agents', 'rank_start' should be an int >= 0, but got {rank_start!r}.")
    if dec_key is not None:
        raise RuntimeError("For 'startup_agents', encrypted models ('dec_key') are not supported by openspore.")
    return files


def read_rank_table(path):
    """The number of ranks a MindSpore rank table JSON lists (server_list[].device[] or group_list layouts)."""
    try:
        with open(path, encoding="utf-8") as f:
            table = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise RuntimeError(f"For 'start_servable', the rank table {path!r} cannot be read as JSON ({exc}).") from None
    ranks = []
    if isinstance(table, dict) and isinstance(table.get("server_list"), list):
        for server in table["server_list"]:
            ranks += [d.get("rank_id") for d in server.get("device", [])]
    elif isinstance(table, dict) and isinstance(table.get("group_list"), list):
        for group in table["group_list"]:
            ranks += [inst.get("rank_id") for inst in group.get("instance_list", [])]
    if not ranks or any(not isinstance(r, str) or not r.isdigit() for r in ranks) or \
            sorted(int(r) for r in ranks) != list(range(len(ranks))):
        raise RuntimeError(f"For 'start_servable', the rank table {path!r} should list devices with string rank_id "
                           f"'0'..'N-1' under server_list[].device[] (or group_list[].instance_list[]), but got "
                           f"rank ids {ranks}.")
    return len(ranks)
