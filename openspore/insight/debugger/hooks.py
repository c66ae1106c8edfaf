"""What the environment asks of a run (runtime/events.py calls `observer_from_env` once, on the first compile):
`MINDSPORE_DUMP_CONFIG` -> a DumpObserver; `ENABLE_MS_DEBUGGER=1` -> the online debugger client."""
from .dump_config import DumpConfig
from .dump_writer import DumpObserver


def observer_from_env(env):
    observers = []
    if env.get("dump_config"):
        config = DumpConfig.load(env["dump_config"], env.get("diagnostic_data_path", ""))
        rank = env.get("rank_id") or "0"
        if not str(rank).isdigit():
            raise ValueError(f"RANK_ID should be a non-negative integer, but got {rank!r}.")
        observers.append(DumpObserver(config, int(rank)))
    if env.get("enable_debugger"):
        from .online import client_from_env
        observers.append(client_from_env(env))
    if not observers:
        return None
    return observers[0] if len(observers) == 1 else MultiObserver(observers)


class MultiObserver:
    """Several observers on one graph (a dump and the online debugger at once)."""

    def __init__(self, observers):
        self.observers = observers

    def for_graph(self, graph, backend):
        hooks = [h for h in (o.for_graph(graph, backend) for o in self.observers) if h is not None]
        return MultiHook(hooks) if hooks else None


class MultiHook:
    def __init__(self, hooks):
        self.hooks = hooks

    def wants(self, node):
        wants = [h.wants(node) for h in self.hooks]
        return any(w[0] for w in wants), any(w[1] for w in wants)

    def begin(self, inputs=()):
        for h in self.hooks:
            h.begin(inputs)

    def inputs(self, node_id, arrays):
        for h in self.hooks:
            h.inputs(node_id, arrays)

    def output(self, node_id, value):
        for h in self.hooks:
            h.output(node_id, value)

    def end(self):
        for h in self.hooks:
            h.end()


def debugger_client(observer):
    """The online debugger's client among the installed observers, or None."""
    from .online import DebuggerClient
    for o in getattr(observer, "observers", [observer]):
        if isinstance(o, DebuggerClient):
            return o
    return None
