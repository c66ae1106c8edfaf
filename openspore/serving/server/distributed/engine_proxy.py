"""The master side of a distributed generation servable: `AgentGroup` accepts the agents, `RemoteEngine` is the
engine the continuous-batching scheduler drives (LLMEngine's API), each call fanned out to every agent.

Every agent runs the same call on its slice (`TensorParallelEngine`, AllReduce between agents); rank 0 returns
the logits. The block bookkeeping is mirrored here (a KVPool of the agents' size, the same allocation rule), so
the scheduler's admission checks cost no round trip and OutOfBlocks is raised before anything is sent.

When an agent fails (its connection drops, or a collective fails), the call raises `AgentFailed` naming the rank,
the scheduler fails the requests in flight with that message, the other agents are told to exit, and the group
waits for a full set of agents again (`startup_agents` restarted); requests meanwhile fail at once saying so.
"""
import logging
import select
import socket
import threading
import time

import numpy as np

from ....llm.config import GPTConfig
from ....llm.kv_pool import KVPool, OutOfBlocks
from . import _wire

logger = logging.getLogger("openspore.serving")
CALL_TIMEOUT_S = 600      # one engine call on the agents (the first ones compile their graphs)
REGISTER_TIMEOUT_S = 600  # an agent's weights load and collective group set-up


class AgentFailed(RuntimeError):
    """An agent of a distributed servable died or failed; the requests in flight fail with this message."""


def split_address(address, where):
    host, sep, port = str(address).rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise RuntimeError(f"For '{where}', the address should be 'ip:port', but got {address!r}.")
    return host, int(port)


class AgentGroup:
    """Listens on `address` for `rank_size` agents; once all have registered they get the model config, set up
    their collective group and load their slices, and `call` fans engine calls out to them."""

    def __init__(self, address, rank_size, model_config, engine_kw):
        self.rank_size, self.model_config, self.engine_kw = rank_size, dict(model_config), dict(engine_kw)
        host, port = split_address(address, "start_servable")
        self._listener = socket.create_server((host, port))
        self.address = f"{host}:{self._listener.getsockname()[1]}"
        self._cv = threading.Condition()
        self._call_lock = threading.Lock()
        self._pending = {}   # rank → (socket, registration) of agents not yet started
        self._agents = {}    # rank → (socket, registration) of the running group
        self.info = None     # rank 0's engine facts of the running group
        self.epoch = 0
        self.last_failure = None
        self._closed = False
        threading.Thread(target=self._accept_loop, name="serving-agent-accept", daemon=True).start()

    # -- registration ------------------------------------------------------------------------------------------
    def _accept_loop(self):
        while not self._closed:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._register, args=(conn,), daemon=True).start()

    def _register(self, conn):
        try:
            conn.settimeout(30)
            header, _ = _wire.receive(conn)
            rank = header.get("rank")
            if header.get("op") != "register" or isinstance(rank, bool) or not isinstance(rank, int):
                raise ValueError(f"expected a registration with an int 'rank', got {header!r:.200}")
            with self._cv:
                if not 0 <= rank < self.rank_size:
                    raise ValueError(f"agent rank {rank} is outside [0, {self.rank_size}) (the servable is declared "
                                     f"with rank_size={self.rank_size})")
                if rank in self._pending or rank in self._agents:
                    raise ValueError(f"an agent of rank {rank} is already registered")
                self._pending[rank] = (conn, header)
                complete = len(self._pending) == self.rank_size
                group = dict(self._pending) if complete else None
                if complete:
                    self._pending = {}
            logger.info("serving: agent rank %d (pid %s) registered", rank, header.get("pid"))
            if complete:
                self._start_group(group)
        except (OSError, ValueError, ConnectionError) as exc:
            logger.warning("serving: an agent registration was refused: %s", exc)
            try:
                _wire.send(conn, {"op": "refused", "error": str(exc)})
            except OSError:
                pass
            conn.close()

    def _start_group(self, group):
        lead = group[0][1]
        replies = {}
        try:
            for rank, (conn, _) in group.items():
                _wire.send(conn, {"op": "init", "rank": rank, "rank_size": self.rank_size,
                                  "master_addr": lead["host"], "master_port": lead["port"],
                                  "config": self.model_config, "engine_kw": self.engine_kw})
            for rank, (conn, _) in group.items():
                conn.settimeout(REGISTER_TIMEOUT_S)
                header, _ = _wire.receive(conn)
                if header.get("op") != "ready":
                    raise ConnectionError(f"agent rank {rank} could not start: {header.get('error', header)}")
                replies[rank] = header
        except (OSError, ConnectionError, ValueError) as exc:
            logger.error("serving: the agents could not start their group: %s", exc)
            for conn, _ in group.values():
                conn.close()
            with self._cv:
                self.last_failure = f"the agents could not start their group: {exc}"
                self._cv.notify_all()
            return
        with self._cv:
            self._agents, self.info = group, replies[0]
            self.epoch += 1
            self._cv.notify_all()
        logger.info("serving: %d agents ready (group %d)", self.rank_size, self.epoch)

    def wait_ready(self, timeout_s):
        """Block until a full group is ready (timeout_s 0: forever); RuntimeError naming what is missing."""
        deadline = None if not timeout_s else time.monotonic() + timeout_s
        with self._cv:
            while not self._agents:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise RuntimeError(f"the distributed servable waited {timeout_s} s for its {self.rank_size} "
                                       f"agents but {len(self._pending)} registered on {self.address}; start them "
                                       f"with distributed.startup_agents")
                self._cv.wait(0.5 if left is None else min(left, 0.5))

    @property
    def ready(self):
        return bool(self._agents)

    # -- calls ---------------------------------------------------------------------------------------------------
    def call(self, header):
        """Send `header` to every agent; rank 0's (header, payload) back. AgentFailed when the group is down or
        breaks; ValueError/KeyError/OutOfBlocks as the agents' engines raised them."""
        with self._call_lock:
            with self._cv:
                agents, epoch = dict(self._agents), self.epoch
            if not agents:
                raise AgentFailed(f"the distributed servable has no running agents ({len(self._pending)} of "
                                  f"{self.rank_size} registered"
                                  + (f"; the last failure: {self.last_failure}" if self.last_failure else "")
                                  + "); restart them with distributed.startup_agents")
            replies = {}
            culprit = 0
            try:
                for rank, (conn, _) in agents.items():
                    culprit = rank  # named in the failure if this send fails
                    _wire.send(conn, header)
                waiting = {conn: r for r, (conn, _) in agents.items()}
                deadline = time.monotonic() + CALL_TIMEOUT_S
                while waiting:  # whichever agent answers (or drops) first: a dead one is seen at once
                    readable, _, _ = select.select(list(waiting), [], [], max(0.0, deadline - time.monotonic()))
                    if not readable:
                        culprit = next(iter(waiting.values()))
                        raise ConnectionError(f"no answer within {CALL_TIMEOUT_S} s")
                    for conn in readable:
                        culprit = waiting.pop(conn)
                        conn.settimeout(CALL_TIMEOUT_S)
                        replies[culprit] = _wire.receive(conn)
            except (OSError, ConnectionError, ValueError) as exc:
                pid = agents[culprit][1].get("pid")
                self._break(epoch, f"agent rank {culprit} (pid {pid}) failed: {exc}")
            fatal = [(r, h) for r, (h, _) in replies.items() if h.get("kind") == "fatal"]
            if fatal:
                r, h = fatal[0]
                self._break(epoch, f"agent rank {r} (pid {agents[r][1].get('pid')}) failed: {h.get('error')}")
            reply = replies[0]
            kind = reply[0].get("kind")
            if kind:
                raise {"ValueError": ValueError, "KeyError": KeyError,
                       "OutOfBlocks": OutOfBlocks}.get(kind, RuntimeError)(reply[0].get("error"))
            return reply

    def _break(self, epoch, detail):
        with self._cv:
            if self.epoch == epoch and self._agents:
                agents, self._agents = self._agents, {}
                self.last_failure = detail
                for conn, _ in agents.values():
                    try:
                        _wire.send(conn, {"op": "exit", "reason": detail})
                    except OSError:
                        pass
                    conn.close()
                logger.error("serving: %s; the other agents were told to exit", detail)
                self._cv.notify_all()
        raise AgentFailed(f"{detail}; the requests in flight fail, and the servable serves again once the agents "
                          f"are restarted (distributed.startup_agents)")

    def close(self):
        self._closed = True
        self._listener.close()
        with self._cv:
            agents, self._agents = self._agents, {}
            pending, self._pending = self._pending, {}
        for conn, _ in list(agents.values()) + list(pending.values()):
            try:
                _wire.send(conn, {"op": "exit", "reason": "the servable stopped"})
            except OSError:
                pass
            conn.close()


class RemoteEngine:
    """LLMEngine's API over an AgentGroup (see the module docstring). Sequence ids are any hashable values."""

    def __init__(self, group, timeout_s=0):
        group.wait_ready(timeout_s)
        self.group = group
        info = group.info
        self.config = GPTConfig.from_dict(group.model_config)
        self.block_size, self.num_blocks = int(info["block_size"]), int(info["num_blocks"])
        self.max_batch_size, self.max_model_len = int(info["max_batch_size"]), int(info["max_model_len"])
        self.rank_size = group.rank_size
        self._reset(group.epoch)

    def _reset(self, epoch):
        self.pool = KVPool(1, 1, 1, self.num_blocks, self.block_size)  # bookkeeping only: a one-float state
        self._ids, self._next_id, self._epoch = {}, 0, epoch

    def _sync(self):
        """A new group of agents starts empty: forget the sequences of the old one."""
        if self.group.epoch != self._epoch:
            self._reset(self.group.epoch)

    def num_free_blocks(self):
        self._sync()
        return self.pool.num_free_blocks

    def blocks_needed(self, num_tokens):
        return self.pool.blocks_needed(num_tokens)

    def seq_len(self, seq_id):
        if seq_id not in self.pool:
            raise KeyError(f"RemoteEngine.seq_len: unknown sequence {seq_id!r}.")
        return self.pool.length(seq_id)

    def pool_stats(self):
        return self.pool.stats()

    def _logits(self, reply, rows):
        header, payload = reply
        return np.frombuffer(payload, np.float32).reshape(rows, self.config.vocab_size).copy()

    def prefill(self, seq_ids, prompts):
        self._sync()
        seq_ids, prompts = list(seq_ids), [[int(t) for t in p] for p in prompts]
        if len(seq_ids) != len(prompts) or len(set(seq_ids)) != len(seq_ids) or any(s in self.pool for s in seq_ids):
            raise ValueError(f"RemoteEngine.prefill: seq_ids must be distinct new sequences, one per prompt, but got "
                             f"{seq_ids!r:.120} for {len(prompts)} prompts.")
        self.pool.reserve({s: len(p) for s, p in zip(seq_ids, prompts)})
        ids = []
        for s in seq_ids:
            self._ids[s], self._next_id = self._next_id, self._next_id + 1
            ids.append(self._ids[s])
        try:
            return self._logits(self.group.call({"op": "prefill", "ids": ids, "prompts": prompts}), len(ids))
        except BaseException:
            for s in seq_ids:
                self.pool.free(s)
                self._ids.pop(s, None)
            raise

    def decode(self, seq_ids, tokens):
        self._sync()
        seq_ids, tokens = list(seq_ids), [int(t) for t in tokens]
        if not seq_ids:
            return np.zeros((0, self.config.vocab_size), np.float32)
        for s in seq_ids:
            if s not in self.pool:
                raise KeyError(f"RemoteEngine.decode: unknown sequence {s!r} (call prefill first).")
        old = {s: self.pool.length(s) for s in seq_ids}
        self.pool.reserve({s: n + 1 for s, n in old.items()})
        try:
            reply = self.group.call({"op": "decode", "ids": [self._ids[s] for s in seq_ids], "tokens": tokens})
            return self._logits(reply, len(seq_ids))
        except BaseException:
            if self.group.epoch == self._epoch:
                self.pool.shrink(old)
            raise

    def free(self, seq_id):
        self._sync()
        if seq_id not in self.pool:
            raise KeyError(f"RemoteEngine.free: unknown sequence {seq_id!r} (not running, or already freed).")
        self.pool.free(seq_id)
        self.group.call({"op": "free", "id": self._ids.pop(seq_id)})

    def close(self):
        self.group.close()
