"""The web dashboard (MindInsight's role): an ASGI app over a summary base dir and the debugger engine, its
static front end (echarts, cytoscape + dagre, shipped minified with their licenses) and the start/stop CLI.
`create_app` loads starlette on first use, so the command line parses its flags without it."""


def __getattr__(name):
    if name == "create_app":
        from .app import create_app
        return create_app
    raise AttributeError(f"module 'openspore.insight.dashboard' has no attribute {name!r}")
