"""The online debug server (MindInsight's role): a training process connects to it over gRPC and is paused,
stepped and inspected from this object's Python API (which the web UI will drive).

    >>> server = DebugServer(port=0).start()      # doctest: +SKIP
    >>> # run training with ENABLE_MS_DEBUGGER=1 MS_DEBUGGER_HOST=127.0.0.1 MS_DEBUGGER_PORT=<server.port>
    >>> # the client waits before its first step; continue_training() runs until a watchpoint hits
    >>> server.wait_until_waiting(60)              # doctest: +SKIP
    >>> server.recommend_watchpoints()             # doctest: +SKIP
    >>> server.continue_training()                 # doctest: +SKIP
    >>> server.wait_until_waiting(60); server.hits # doctest: +SKIP

The client waits for a command before its first step; `continue_training()` runs until a watchpoint hits.

Control: `run(steps)` runs N steps then pauses; `continue_training()` runs until a hit or the end; `pause()`
pauses at the end of the current step; `step_node()` runs to the next kernel; `terminate()` stops training.
Watchpoints: `set_watchpoint(condition_id_or_condition, nodes=None, **params)` (nodes default to the
condition's target category), `remove_watchpoint(id)`, `recommend_watchpoints()`; `recheck()` re-evaluates
the current step's tensors after rules changed, without running training. Tensors of the current step:
`read_tensors(names, slot=0)` and `tensor_statistics(name)`.
"""
import collections
import itertools
import threading
from concurrent import futures

from . import wire
from .catalog import CONDITIONS, make_condition, recommend
from .conditions import ConditionBase
from .dump_store import NodeRecord


class DebugServer:
    """A debug server on `host:port` (port 0 picks a free one; `server.port` tells which)."""

    def __init__(self, host="127.0.0.1", port=50051, command_timeout=120.0):
        self.host, self.port, self.command_timeout = host, port, command_timeout
        self._cond = threading.Condition()
        self._commands = collections.deque()
        self._responses = {}
        self._ids = itertools.count(1)
        self._wp_ids = itertools.count(1)
        self.watchpoints = {}  # id -> {"id", "name", "condition", "nodes"}
        self.state = "pending"  # pending | running | waiting | terminated
        self.metadata = {}
        self.graph = []
        self.hits = []
        self.hit_history = []
        self._pause_requested = False
        self._grpc = None

    # ---- lifecycle ------------------------------------------------------------------------------
    def start(self):
        import grpc
        handlers = {name: grpc.unary_unary_rpc_method_handler(getattr(self, f"_rpc_{name}"),
                                                              request_deserializer=wire.decode,
                                                              response_serializer=wire.encode)
                    for name in wire.METHODS}
        self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self._grpc.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(wire.SERVICE, handlers),))
        bound = self._grpc.add_insecure_port(f"{self.host}:{self.port}")
        if not bound:
            raise RuntimeError(f"DebugServer: cannot listen on {self.host}:{self.port}.")
        self.port = bound
        self._grpc.start()
        return self

    def stop(self):
        if self._grpc is not None:
            self._grpc.stop(grace=0.5).wait()
            self._grpc = None
        with self._cond:
            self._cond.notify_all()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- waiting for the training process -------------------------------------------------------
    def wait_until_waiting(self, timeout=60.0):
        """Block until training is paused (or finished); returns the state. TimeoutError otherwise."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.state in ("waiting", "terminated"), timeout):
                raise TimeoutError(f"DebugServer: training did not pause within {timeout} s "
                                   f"(state {self.state!r}).")
            return self.state

    @property
    def step(self):
        return self.metadata.get("cur_step", 0)

    # ---- graph and watchpoints --------------------------------------------------------------------
    def nodes(self, category=None):
        return [n for n in self.graph if category is None or n["category"] == category]

    def set_watchpoint(self, condition, nodes=None, name="", **params):
        """Add a watchpoint; `condition` is a MindInsight condition id (with `params`) or a condition object.
        `nodes` (node names) default to every node of the condition's target category. Returns its id."""
        if isinstance(condition, str):
            target = CONDITIONS[condition][1] if condition in CONDITIONS else "tensor"
            name = name or condition
            condition = make_condition(condition, **params)
        elif isinstance(condition, ConditionBase):
            target = "tensor"
        else:
            raise TypeError(f"set_watchpoint: condition should be a condition id or object, got {condition!r}.")
        if nodes is None:
            nodes = [n["name"] for n in self._targets(target)]
        known = {n["name"] for n in self.graph}
        unknown = [n for n in nodes if n not in known]
        if unknown:
            raise ValueError(f"set_watchpoint: no such node(s) in the graph: {unknown[:5]}.")
        wid = next(self._wp_ids)
        self.watchpoints[wid] = {"id": wid, "name": name or condition.name,
                                 "condition": wire.condition_to_wire(condition), "nodes": list(nodes)}
        return wid

    def _targets(self, target):
        if target in ("weight", "gradient", "activation"):
            return self.nodes(target)
        if target == "loss":
            return [n for n in self.graph if "loss" in n["name"].lower() and n["category"] != "gradient"
                    and n["op_type"] != "Parameter"]
        return [n for n in self.graph if n["op_type"] != "Parameter"]

    def remove_watchpoint(self, watchpoint_id):
        if self.watchpoints.pop(watchpoint_id, None) is None:
            raise ValueError(f"remove_watchpoint: no watchpoint {watchpoint_id}; ids: {sorted(self.watchpoints)}.")

    def recommend_watchpoints(self):
        """MindInsight's recommended watchpoints for the connected graph; returns their ids."""
        records = [NodeRecord(n["rank"], n["graph_id"], n["name"], n["op_type"], n["order"],
                              is_parameter=n["op_type"] == "Parameter", is_weight=n["category"] == "weight")
                   for n in self.graph]
        ids = []
        for name, cond, recs in recommend(records):
            ids.append(self.set_watchpoint(cond, nodes=[r.name for r in recs], name=name))
        return ids

    # ---- training control -----------------------------------------------------------------------
    def run(self, steps=1):
        if not isinstance(steps, int) or isinstance(steps, bool) or steps == 0 or steps < -1:
            raise ValueError(f"run: steps should be a positive int (or -1 for until a hit), got {steps!r}.")
        self._command({"run": "step", "steps": steps})

    def continue_training(self):
        self.run(-1)

    def step_node(self):
        self._command({"run": "node"})

    def pause(self):
        with self._cond:
            self._pause_requested = True

    def terminate(self):
        self._command({"exit": True})

    def recheck(self, timeout=60.0):
        """Re-evaluate the watchpoints on the current step's tensors (training stays paused); returns the hits."""
        self._require_waiting("recheck")
        reply = self._request({"run": "recheck"}, timeout)
        return reply["hits"]

    def read_tensors(self, names, slot=0, timeout=60.0):
        """{name: numpy array or None} for tensors of the current step (training must be paused)."""
        self._require_waiting("read_tensors")
        names = [names] if isinstance(names, str) else list(names)
        reply = self._request({"view": {"names": names, "slot": slot, "level": "value"}}, timeout)
        return {t["name"]: wire.tensor_from_wire(t["value"]) if t.get("value") else None for t in reply["tensors"]}

    def tensor_statistics(self, name, slot=0, timeout=60.0):
        self._require_waiting("tensor_statistics")
        reply = self._request({"view": {"names": [name], "slot": slot, "level": "statistics"}}, timeout)
        return reply["tensors"][0].get("statistics")

    def _require_waiting(self, what):
        if self.state != "waiting":
            raise RuntimeError(f"{what}: training is {self.state}, not paused.")

    def _command(self, cmd):
        with self._cond:
            if self.state == "terminated":
                raise RuntimeError("the training run has finished or was terminated.")
            cmd["watchpoints"] = list(self.watchpoints.values())
            self._commands.append(cmd)
            if "exit" in cmd or cmd.get("run") in ("step", "node"):
                self.state = "running"  # so that wait_until_waiting waits for the next pause, not this one
            self._cond.notify_all()

    def _request(self, cmd, timeout):
        rid = next(self._ids)
        cmd["request"] = rid
        self._command(cmd)
        with self._cond:
            if not self._cond.wait_for(lambda: rid in self._responses, timeout):
                raise TimeoutError(f"DebugServer: no answer from training within {timeout} s.")
            return self._responses.pop(rid)

    # ---- RPC handlers (called by the training process) ------------------------------------------
    def _rpc_SendMetadata(self, meta, context):
        with self._cond:
            self.metadata.update(meta)
            if meta.get("training_done"):
                self.state = "terminated"
            elif self.state in ("pending", "waiting"):
                self.state = "running"
            pause, self._pause_requested = self._pause_requested, False
            self._cond.notify_all()
        return {"status": 0, "pause": pause}

    def _rpc_SendGraph(self, message, context):
        with self._cond:
            self.graph = message["nodes"]
            self._cond.notify_all()
        return {"status": 0}

    def _rpc_WaitCMD(self, meta, context):
        with self._cond:
            self.metadata.update(meta)
            self.state = "waiting"
            self._cond.notify_all()
            self._cond.wait_for(lambda: bool(self._commands), timeout=1.0)
            if not self._commands:
                return {"status": 2}  # PENDING: ask again
            cmd = self._commands.popleft()
            if "run" in cmd and cmd["run"] != "recheck":
                self.state = "running"
            elif "exit" in cmd:
                self.state = "terminated"
            self._cond.notify_all()
            return {"status": 0, "cmd": cmd}

    def _rpc_SendWatchpointHits(self, message, context):
        with self._cond:
            self.hits = message["hits"]
            self.hit_history.extend(message["hits"])
            if message.get("request"):
                self._responses[message["request"]] = message
            self._cond.notify_all()
        return {"status": 0}

    def _rpc_SendTensors(self, message, context):
        with self._cond:
            self._responses[message["request"]] = message
            self._cond.notify_all()
        return {"status": 0}

    def _rpc_SendHeartbeat(self, message, context):
        return {"status": 0}
