"""The IR graph of a network, for the summary's graph event: the graph GRAPH_MODE compiled for it, or (PyNative,
or a network not yet run) a trace of its construct with the given inputs."""
import logging

logger = logging.getLogger("openspore.summary")


def compiled_graph(network):
    """The traced IR graph of `network`'s last GRAPH_MODE compile, or None."""
    from ...nn import cell as cell_module
    runner = cell_module._graph_runner
    caches = getattr(runner, "caches", None)
    cache = caches.get(network) if caches is not None else None
    entry = getattr(cache, "last_entry", None)
    return entry.traced.graph if entry is not None else None


def network_graph(network, inputs=None):
    """`compiled_graph(network)`, else a trace of `network(*inputs)` (no kernels run), else None."""
    graph = compiled_graph(network)
    if graph is not None or inputs is None:
        return graph
    from ...compiler.frontend import trace
    try:
        return trace(network, tuple(inputs), name=f"{type(network).__name__}.construct").graph
    except Exception as exc:  # the graph view is a nicety: a network the tracer cannot capture still trains
        logger.warning("summary: the graph of %s could not be traced (%s); no graph is recorded",
                       type(network).__name__, exc)
        return None
