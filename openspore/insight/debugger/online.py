"""The training side of online debugging: with `ENABLE_MS_DEBUGGER=1` every compiled graph reports to the
debug server at `MS_DEBUGGER_HOST:MS_DEBUGGER_PORT` (gRPC) and obeys it.

The client waits for a command before the first step, keeps the step's kernel outputs (memory is not reused
while debugging, as in MindSpore), and at the end of each step checks the watchpoints with the same rule engine
the offline analyzer uses; it pauses on a hit, after the requested number of steps, on a pause request, or after
each kernel while stepping node by node. While paused it answers tensor reads and rechecks. If the server goes
away, training continues without the debugger (with a warning), never hangs. PyNative runs are debugged through
the same hook (pynative_online.py).
"""
import atexit
import ipaddress
import logging

import numpy as np

from ...core.tensor import Tensor
from . import engine, wire
from .conditions import statistics
from .graph_describe import GraphDescription
from .tensors import Node

logger = logging.getLogger("openspore.debugger")


def client_from_env(env):
    host = env.get("debugger_host") or "localhost"
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"MS_DEBUGGER_HOST should be an IP address, but got {host!r}.") from None
    port = env.get("debugger_port") or "50051"
    if not str(port).isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"MS_DEBUGGER_PORT should be an integer in [1, 65535], but got {port!r}.")
    return DebuggerClient(host, int(port), rank=int(env.get("rank_id") or 0))


class DebuggerClient:
    """The observer (runtime/events.py) that connects compiled graphs to a DebugServer."""

    def __init__(self, host, port, rank=0, timeout=30.0):
        import grpc
        self.rank, self.timeout = rank, timeout
        self.address = f"{host}:{port}"
        self._channel = grpc.insecure_channel(self.address)
        self._calls = {name: self._channel.unary_unary(f"/{wire.SERVICE}/{name}", request_serializer=wire.encode,
                                                       response_deserializer=wire.decode)
                       for name in wire.METHODS}
        self._graphs = 0
        self.connected = True
        self.last_step = 0
        atexit.register(self.finish)

    def finish(self):
        """Tell the server the run is over (at interpreter exit), and close the channel."""
        if self.connected:
            self.call("SendMetadata", {"training_done": True, "cur_step": self.last_step}, timeout=5.0)
        self.connected = False
        self._channel.close()

    def call(self, name, message, timeout=None):
        import grpc
        if not self.connected:
            return None
        try:
            return self._calls[name](message, timeout=timeout or self.timeout)
        except grpc.RpcError as exc:
            self.connected = False
            logger.warning("debugger: lost the debug server at %s (%s); training continues without it",
                           self.address, exc.code() if hasattr(exc, "code") else exc)
            return None

    def for_graph(self, graph, backend):
        hook = OnlineHook(self, self._graphs, graph, backend)
        self._graphs += 1
        return hook


class OnlineHook:
    """One compiled graph under the debugger; also the tensor source the rule engine reads."""

    def __init__(self, client, graph_id, graph, backend, desc=None):
        self.client, self.graph_id, self.backend = client, graph_id, backend
        desc = GraphDescription(graph) if desc is None else desc  # (a PyNative run describes its calls itself)
        self.names = {nid: k.full_name for nid, k in desc.kernels.items()}
        self.weights, self.input_names = desc.weights, desc.input_names
        self.nodes = {}
        for rec in desc.records(client.rank, graph_id):
            self.nodes[rec.name] = Node(self, rec, f"kernel_graph_{graph_id}")
        self._inputs_of = {name: [self.nodes[i] for i in node.record.inputs if i in self.nodes]
                           for name, node in self.nodes.items()}
        self.step = 0
        self.started = False
        self.values, self.previous = {}, {}
        self.watchpoints = []
        self._history_names = set()
        self.remaining = 0         # steps to run before pausing; -1: until a hit
        self.node_stepping = False
        self.current_node = ""
        client.call("SendGraph", {"graph_id": graph_id, "nodes": [self._node_dict(n) for n in self.nodes.values()]})

    def _node_dict(self, node):
        return {"name": node.name, "op_type": node.op_type, "category": node.category, "rank": node.rank,
                "graph_id": node.root_graph_id, "order": node.order, "inputs": node.record.inputs,
                "stack": [str(f) for f in node.stack]}

    # ---- executor hook --------------------------------------------------------------------------
    def wants(self, node):
        return False, True

    def begin(self, inputs=()):
        self.values = {name: value for name, value in zip(self.input_names, inputs)}
        if not self.started:
            self.started = True
            self._wait()  # before the first step, as MindSpore waits for the first command

    def inputs(self, node_id, arrays):
        pass

    def output(self, node_id, value):
        name = self.names[node_id]
        if isinstance(value, Tensor):  # a PyNative call's result
            value = value.data_ref()
        elif isinstance(value, tuple) and any(isinstance(v, Tensor) for v in value):
            value = tuple(v.data_ref() if isinstance(v, Tensor) else v for v in value)
        self.values[name] = value
        if self.node_stepping and self.client.connected:
            self.current_node = name
            self._wait()

    def end(self):
        for name, param in self.weights:
            self.values[name] = np.array(self.backend.to_numpy(param.data_ref()), copy=True)
        hits = self._check()
        pause = bool(hits)
        reply = self.client.call("SendMetadata", self._metadata())
        if reply is not None and reply.get("pause"):
            pause = True
        if self.remaining > 0:
            self.remaining -= 1
            pause = pause or self.remaining == 0
        if hits:
            self.client.call("SendWatchpointHits", {"hits": [h.to_dict() for h in hits], "step": self.step})
        if pause:
            self.remaining = 0
            self._wait()
        self.previous = {name: self._host(v) for name, v in self.values.items() if self._watched(name)}
        self.step += 1
        self.client.last_step = self.step

    # ---- the wait loop ----------------------------------------------------------------------------
    def _metadata(self):
        return {"device_name": str(self.client.rank), "cur_step": self.step, "backend": self.backend.name,
                "cur_node": self.current_node, "training_done": False, "graph_num": self.client._graphs,
                "ms_version": "openspore"}

    def _wait(self):
        while self.client.connected:
            reply = self.client.call("WaitCMD", self._metadata())
            if reply is None or reply.get("status") != 0:
                continue
            cmd = reply["cmd"]
            if "watchpoints" in cmd:
                self._set_watchpoints(cmd["watchpoints"])
            if "exit" in cmd:
                self.client.connected = False  # nothing more to tell the server (nor to check at exit)
                raise SystemExit("training terminated by the debugger")
            run = cmd.get("run")
            if run == "recheck":
                hits = self._check()
                self.client.call("SendWatchpointHits", {"hits": [h.to_dict() for h in hits], "step": self.step,
                                                        "recheck": True, "request": cmd["request"]})
            elif "view" in cmd:
                self._view(cmd)
            elif run == "node":
                self.node_stepping = True
                return
            elif run == "step":
                self.node_stepping = False
                self.remaining = cmd.get("steps", 1)
                return

    def _set_watchpoints(self, specs):
        out = []
        for spec in specs:
            cond = wire.condition_from_wire(spec["condition"])
            nodes = [self.nodes[n] for n in spec["nodes"] if n in self.nodes]
            out.append(engine.Watchpoint(nodes, cond, watchpoint_id=spec["id"], name=spec.get("name", "")))
        self.watchpoints = out
        self._history_names = {n.name for wp in out if wp.condition.HISTORY for n in wp.tensors}

    def _watched(self, name):
        return name in self._history_names

    def _check(self):
        if not self.watchpoints:
            return []
        return engine.check(self.watchpoints, self, {self.client.rank: [self.step]})

    def _view(self, cmd):
        view = cmd["view"]
        out = []
        for name in view["names"]:
            node = self.nodes.get(name)
            value = self._read(node, self.step, view.get("slot", 0)) if node is not None else None
            item = {"name": name}
            if value is not None:
                if view.get("level") == "statistics":
                    item["statistics"] = statistics(value)
                else:
                    item["value"] = wire.tensor_to_wire(value)
            out.append(item)
        self.client.call("SendTensors", {"request": cmd["request"], "tensors": out})

    # ---- tensor source for the rule engine -----------------------------------------------------------
    def _host(self, value):
        if value is None:
            return None
        if isinstance(value, (tuple, list)):
            return [self._host(v) for v in value]
        if isinstance(value, np.ndarray):
            return value
        if isinstance(value, (bool, int, float, np.generic)):
            return np.asarray(value)
        return np.asarray(self.backend.to_numpy(value))

    def _read(self, node, iteration, slot):
        store = self.values if iteration == self.step else self.previous if iteration == self.step - 1 else {}
        value = self._host(store.get(node.name))
        if isinstance(value, list):
            return value[slot] if slot < len(value) else None
        return value if slot == 0 else None

    def _tensors_of(self, node, iterations, slots):
        from .tensors import DebuggerTensor
        its = [self.step] if iterations is None else iterations
        return [DebuggerTensor(node, s, it) for it in its for s in (slots or [0])]

    def get_input_nodes(self, node):
        return list(self._inputs_of.get(node.name, []))

    def _input_values(self, node, iteration):
        return [self._read(src, iteration, 0) for src in self.get_input_nodes(node)]
