"""Debugger routes (`/v1/mindinsight/debugger/...`): offline sessions over dump directories under the summary
base dir (the DumpAnalyzer) and the online session (the DebugServer a training run connects to).

Every debugger route needs the per-session token printed at start, in the `X-Insight-Token` header: the
routes pause and step training, read tensor values and run checks that can take the CPU for minutes.
"""
import hmac
import itertools
import math
import os
import threading

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from ..debugger import DumpAnalyzer, Watchpoint
from ..debugger.catalog import CONDITIONS, make_condition
from ..debugger.conditions import statistics
from ..summary_reader import InvalidTrainId
from .summary_api import PARAM_ERROR, error

TOKEN_HEADER = "X-Insight-Token"
MAX_OFFLINE_SESSIONS = 2
MAX_VALUES = 200  # tensor values sent to the page; the statistics cover the whole tensor


def _clean(obj):
    """JSON cannot hold NaN/Inf: send them as strings the page shows as they are."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.generic):
        return _clean(obj.item())
    return obj


def ok(payload, status=200):
    return JSONResponse(_clean(payload), status_code=status)


class OfflineSession:
    """A DumpAnalyzer over one dump dir, its watchpoints and the hits of the last check."""

    def __init__(self, sid, dump_id, path):
        self.id, self.dump_id = sid, dump_id
        self.analyzer = DumpAnalyzer(path)
        self.watchpoints = {}  # id -> (name, condition id, params, [Node])
        self.hits = []
        self.state = "waiting"
        self._ids = itertools.count(1)
        self.lock = threading.Lock()

    def graph(self):
        return [{"name": n.name, "op_type": n.op_type, "category": n.category, "rank": n.rank,
                 "stack": [str(f) for f in n.stack], "inputs": [i.name for i in self.analyzer.get_input_nodes(n)]}
                for n in sorted(self.analyzer.nodes(), key=lambda n: (n.rank, n.order))]

    def _targets(self, category, names):
        nodes = self.analyzer.nodes()
        if names:
            wanted = set(names)
            chosen = [n for n in nodes if n.name in wanted]
            missing = wanted - {n.name for n in chosen}
            if missing:
                raise ValueError(f"no such node(s) in the dump: {sorted(missing)[:5]}")
            return chosen
        if category in ("weight", "gradient", "activation"):
            return [n for n in nodes if n.category == category]
        if category == "loss":
            return [n for n in nodes if "loss" in n.name.lower() and n.category != "gradient"]
        return [n for n in nodes if n.op_type != "Parameter"]

    def add_watchpoint(self, condition_id, params, names):
        condition = make_condition(condition_id, **params)
        nodes = self._targets(CONDITIONS[condition_id][1], names)
        wid = next(self._ids)
        self.watchpoints[wid] = (condition_id, condition_id, params, nodes, condition)
        return wid

    def recommend(self):
        ids = []
        for wp in self.analyzer.recommend_watchpoints():
            wid = next(self._ids)
            self.watchpoints[wid] = (wp.name, wp.name, {}, list(wp.tensors), wp.condition)
            ids.append(wid)
        return ids

    def check(self):
        wps = [Watchpoint(nodes, cond, watchpoint_id=wid, name=name)
               for wid, (name, _, _, nodes, cond) in self.watchpoints.items() if nodes]
        self.state = "running"
        try:
            self.hits = [h.to_dict() for h in self.analyzer.check_watchpoints(wps)] if wps else []
        finally:
            self.state = "waiting"
        return self.hits

    def watchpoint_list(self):
        return [{"id": wid, "name": name, "condition": cid, "params": params, "node_count": len(nodes)}
                for wid, (name, cid, params, nodes, _) in self.watchpoints.items()]

    def poll(self):
        return {"type": "OFFLINE", "state": self.state, "dump_dir": self.dump_id,
                "iterations": self.analyzer.get_iterations(), "ranks": self.analyzer.get_ranks(),
                "watchpoints": self.watchpoint_list(), "hits": self.hits}

    def tensor(self, name, slot, iteration, rank=None):
        nodes = [n for n in self.analyzer.nodes() if n.name == name and (rank is None or n.rank == rank)]
        if not nodes:
            raise KeyError(name)
        its = None if iteration is None else [iteration]
        tensors = nodes[0].get_output_tensors(iterations=its, slots=[slot])
        if not tensors:
            raise KeyError(name)
        tensor = tensors[-1]
        value = tensor.value()
        return _tensor_payload(name, slot, tensor.iteration, value)

    def search(self, query, by):
        return [n.name for n in self.analyzer.select_nodes(query, select_by=by, case_sensitive=False)]

    def relations(self, name):
        nodes = [n for n in self.analyzer.nodes() if n.name == name]
        if not nodes:
            raise KeyError(name)
        node = nodes[0]
        return {"node": {"name": node.name, "op_type": node.op_type},
                "inputs": [{"name": n.name, "op_type": n.op_type} for n in self.analyzer.get_input_nodes(node)],
                "outputs": [{"name": n.name, "op_type": n.op_type} for n in self.analyzer.get_output_nodes(node)]}


def _tensor_payload(name, slot, iteration, value):
    if value is None:
        return {"name": name, "slot": slot, "iteration": iteration, "value": None}
    arr = np.asarray(value)
    flat = arr.reshape(-1)[:MAX_VALUES].astype(np.float64).tolist() if arr.dtype.kind in "fiub" else []
    return {"name": name, "slot": slot, "iteration": iteration, "shape": list(arr.shape), "dtype": str(arr.dtype),
            "statistics": statistics(arr), "values": flat, "truncated": arr.size > MAX_VALUES}


class OnlineSession:
    """The DebugServer's state and controls for the page."""

    id = "online"

    def __init__(self, server):
        self.server = server

    def graph(self):
        return [{"name": n["name"], "op_type": n["op_type"], "category": n["category"], "rank": n.get("rank", 0),
                 "stack": n.get("stack", []), "inputs": n.get("inputs", [])} for n in self.server.graph]

    def poll(self):
        s = self.server
        return {"type": "ONLINE", "state": s.state, "step": s.step, "metadata": dict(s.metadata),
                "watchpoints": [{"id": w["id"], "name": w["name"], "node_count": len(w["nodes"])}
                                for w in s.watchpoints.values()],
                "hits": list(s.hits), "hit_history": list(s.hit_history)[-200:]}

    def add_watchpoint(self, condition_id, params, names):
        return self.server.set_watchpoint(condition_id, nodes=names or None, **params)

    def recommend(self):
        return self.server.recommend_watchpoints()

    def check(self):
        return self.server.recheck()

    def control(self, action, steps=1):
        s = self.server
        if action == "continue":
            s.continue_training()
        elif action == "pause":
            s.pause()
        elif action == "step":
            s.run(int(steps))
        elif action == "step_node":
            s.step_node()
        elif action == "terminate":
            s.terminate()
        else:
            raise ValueError(f"unknown action {action!r}; expected continue, pause, step, step_node or terminate")

    def tensor(self, name, slot, iteration, rank=None):
        value = self.server.read_tensors([name], slot=slot).get(name)
        return _tensor_payload(name, slot, self.server.step, value)

    def search(self, query, by):
        q = query.lower()
        if by == "code_stack":
            return [n["name"] for n in self.server.graph if any(q in str(f).lower() for f in n.get("stack", []))]
        return [n["name"] for n in self.server.graph if q in n["name"].lower()]

    def relations(self, name):
        graph = {n["name"]: n for n in self.server.graph}
        if name not in graph:
            raise KeyError(name)
        node = graph[name]
        return {"node": {"name": name, "op_type": node["op_type"]},
                "inputs": [{"name": i, "op_type": graph[i]["op_type"]} for i in node.get("inputs", []) if i in graph],
                "outputs": [{"name": n["name"], "op_type": n["op_type"]} for n in self.server.graph
                            if name in n.get("inputs", [])]}


class Debugger:
    """Sessions and the token check; `routes()` for the app."""

    def __init__(self, index, token, server=None):
        self.index, self.token, self.server = index, token, server
        self.sessions = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def authorized(self, request):
        given = request.headers.get(TOKEN_HEADER, "")
        return bool(self.token) and hmac.compare_digest(given.encode(), self.token.encode())

    def dump_dirs(self):
        """Direct sub-directories of the base dir (or the base itself) that hold `rank_*` dump folders."""
        out = []
        candidates = [("./", self.index.base)]
        try:
            candidates += [(f"./{e.name}", e.path) for e in sorted(os.scandir(self.index.base), key=lambda e: e.name)
                           if e.is_dir(follow_symlinks=False)]
        except OSError:
            pass
        for dump_id, path in candidates:
            try:
                if any(n.startswith("rank_") for n in os.listdir(path)):
                    out.append(dump_id)
            except OSError:
                continue
        return out

    def session(self, sid):
        if sid == "online":
            if self.server is None:
                raise KeyError("the online debugger is not enabled (start with --enable-debugger true)")
            return OnlineSession(self.server)
        return self.sessions[sid]

    def create(self, kind, dump_id):
        if kind == "ONLINE":
            self.session("online")
            return "online"
        path = self.index.resolve(dump_id)  # refuses ../, absolute paths and links out of the base dir
        if dump_id not in self.dump_dirs() and not (path == self.index.base and "./" in self.dump_dirs()):
            raise KeyError(f"{dump_id!r} is not a dump directory (no rank_* folders) under the summary base dir")
        with self._lock:
            for sid, s in self.sessions.items():
                if s.dump_id == dump_id:
                    return sid
            sid = str(next(self._ids))
            self.sessions[sid] = OfflineSession(sid, dump_id, path)
            while len(self.sessions) > MAX_OFFLINE_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))
            return sid

    def routes(self):
        guard = self._guarded

        async def conditions(request):
            return ok({"conditions": [{"id": cid, "abbr": abbr, "target": target, "params": params}
                                      for cid, (abbr, target, _, params) in CONDITIONS.items()]})

        async def list_sessions(request):
            items = [{"id": sid, "type": "OFFLINE", "dump_dir": s.dump_id} for sid, s in self.sessions.items()]
            if self.server is not None:
                items.insert(0, {"id": "online", "type": "ONLINE", "state": self.server.state})
            return ok({"sessions": items, "dump_dirs": self.dump_dirs(), "online": self.server is not None})

        async def create_session(request):
            body = await _json(request)
            kind = str(body.get("session_type", "OFFLINE")).upper()
            sid = await run_in_threadpool(self.create, kind, body.get("dump_dir", ""))
            return ok({"id": sid})

        async def graph(request, s):
            return ok({"nodes": await run_in_threadpool(s.graph)})

        async def poll(request, s):
            return ok(s.poll())

        async def create_watchpoint(request, s):
            body = await _json(request)
            cid = body.get("condition")
            if cid not in CONDITIONS:
                raise ValueError(f"unknown condition {cid!r}; known: {sorted(CONDITIONS)}")
            params = body.get("params") or {}
            if not isinstance(params, dict):
                raise ValueError("'params' should be an object of condition parameters")
            return ok({"id": s.add_watchpoint(cid, params, body.get("nodes"))})

        async def recommend(request, s):
            return ok({"ids": await run_in_threadpool(s.recommend)})

        async def check(request, s):
            return ok({"hits": await run_in_threadpool(s.check)})

        async def control(request, s):
            body = await _json(request)
            if not isinstance(s, OnlineSession):
                raise ValueError("control applies to the online session only")
            await run_in_threadpool(s.control, body.get("action"), body.get("steps", 1))
            return ok(s.poll())

        async def tensor(request, s):
            q = request.query_params
            iteration = q.get("iteration")
            payload = await run_in_threadpool(s.tensor, q.get("name", ""), int(q.get("slot", 0)),
                                              int(iteration) if iteration not in (None, "") else None)
            return ok(payload)

        async def search(request, s):
            q = request.query_params
            by = q.get("by", "node_name")
            if by not in ("node_name", "code_stack"):
                raise ValueError("'by' should be node_name or code_stack")
            return ok({"nodes": s.search(q.get("query", ""), by)})

        async def relations(request, s):
            return ok(s.relations(request.query_params.get("name", "")))

        return [("/debugger/conditions", guard(conditions, False), ["GET"]),
                ("/debugger/sessions", guard(list_sessions, False), ["GET"]),
                ("/debugger/sessions", guard(create_session, False), ["POST"]),
                ("/debugger/sessions/{sid}/graph", guard(graph), ["GET"]),
                ("/debugger/sessions/{sid}/poll-data", guard(poll), ["GET"]),
                ("/debugger/sessions/{sid}/create-watchpoint", guard(create_watchpoint), ["POST"]),
                ("/debugger/sessions/{sid}/recommend", guard(recommend), ["POST"]),
                ("/debugger/sessions/{sid}/check", guard(check), ["POST"]),
                ("/debugger/sessions/{sid}/control", guard(control), ["POST"]),
                ("/debugger/sessions/{sid}/tensors", guard(tensor), ["GET"]),
                ("/debugger/sessions/{sid}/search", guard(search), ["GET"]),
                ("/debugger/sessions/{sid}/tensor-graphs", guard(relations), ["GET"])]

    def _guarded(self, handler, with_session=True):
        async def endpoint(request):
            if not self.authorized(request):
                return error("50549001", f"The debugger needs the session token printed at start, in the "
                                         f"{TOKEN_HEADER} header.", status=401)
            try:
                if with_session:
                    return await handler(request, self.session(request.path_params["sid"]))
                return await handler(request)
            except InvalidTrainId as exc:
                return error(PARAM_ERROR, f"Invalid parameter value. {exc}")
            except KeyError as exc:
                return error("50549002", f"Not found: {exc.args[0] if exc.args else exc}", status=404)
            except (ValueError, TypeError) as exc:
                return error(PARAM_ERROR, f"Invalid parameter value. {exc}")
            except (RuntimeError, TimeoutError) as exc:
                return error("50549003", str(exc), status=409)
        return endpoint


async def _json(request):
    try:
        body = await request.json()
    except ValueError:
        raise ValueError("the request body should be a JSON object") from None
    if not isinstance(body, dict):
        raise ValueError("the request body should be a JSON object")
    return body
