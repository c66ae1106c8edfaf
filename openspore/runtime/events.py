"""Observers compiled into graphs only when asked for: dumps and the online debugger.

With no observer installed (the normal case) the executor generates exactly the code it always does: no hook
call, no flag test inside a step. An observer is installed by `MINDSPORE_DUMP_CONFIG` / `ENABLE_MS_DEBUGGER=1`
in the environment (checked once, at import) or by the debugger's Python API; graph caches key on
`generation`, so graphs compiled before an observer came or went are recompiled, not reused.

An observer is `observer.for_graph(graph, backend)` -> a hook or None; a hook answers `wants(node)` with
(dump inputs, dump output) per primitive node at compile time, and is called at run time as
`hook.begin()`, `hook.inputs(node_id, arrays)`, `hook.output(node_id, value)`, `hook.end()`.
"""
from .. import context

generation = 0
_state = {"observer": None, "pending_env": None}

_env = context.debugger_env()
if _env["dump_config"] or _env["enable_debugger"]:
    _state["pending_env"] = _env
    generation = 1


def _connect_pynative_on_first_call():
    """With `ENABLE_MS_DEBUGGER=1`, the first PyNative primitive call connects the run to the debug server
    (insight/debugger/pynative_online.py); until then, and in GRAPH_MODE, calls pass straight through."""
    from ..core import dispatch
    from ..core.primitive import Primitive
    original = Primitive.__call__

    def first_call(prim, *args):
        if dispatch.current_tracer() is not None or context.get_context("mode") != context.PYNATIVE_MODE:
            return original(prim, *args)
        Primitive.__call__ = original
        from ..insight.debugger.hooks import debugger_client
        from ..insight.debugger.pynative_online import install
        client = debugger_client(graph_observer())
        if client is not None:
            install(client)
        return Primitive.__call__(prim, *args)
    Primitive.__call__ = first_call


if _env["enable_debugger"]:
    _connect_pynative_on_first_call()


def graph_observer():
    """The installed observer, or None; the environment's dump/debugger settings are applied on first use."""
    env = _state["pending_env"]
    if env is not None:
        _state["pending_env"] = None
        from ..insight.debugger.hooks import observer_from_env  # only a dumping/debugging run loads the debugger
        _state["observer"] = observer_from_env(env)
    return _state["observer"]


def set_graph_observer(observer):
    """Install (or with None remove) the observer; graphs compiled from now on carry its hooks."""
    global generation
    _state["pending_env"] = None
    _state["observer"] = observer
    generation += 1
