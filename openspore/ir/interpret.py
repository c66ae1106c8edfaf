"""Run a graph node by node through `bind` (PyNative semantics, autodiff recording, or tracing into another
graph when a tracer is active). Used for constant folding, differentiating subgraphs, and tests.

Control flow is evaluated directly when its condition is concrete; a caller running under a tracer passes
`on_if` / `on_while` to re-emit structured control flow for symbolic conditions.
"""
from ..core.dispatch import bind


def run_graph(graph, args, on_if=None, on_while=None):
    if len(args) != len(graph.inputs):
        raise ValueError(f"graph @{graph.name} takes {len(graph.inputs)} inputs, got {len(args)}")
    env = {n.id: a for n, a in zip(graph.inputs, args)}
    for n in graph.nodes:
        ins = [env[i.id] for i in n.inputs]
        op = n.op
        if op == "weight" or op == "const":
            value = n.value
        elif op == "make_tuple":
            value = tuple(ins)
        elif op == "tuple_get_item":
            value = ins[0][n.index]
        elif op == "if":
            value = on_if(n, ins) if on_if is not None else _concrete_if(n, ins, on_if, on_while)
        elif op == "while":
            value = on_while(n, ins) if on_while is not None else _concrete_while(n, ins, on_if, on_while)
        elif op == "call":
            value = run_graph(n.graphs[0], ins, on_if, on_while)
        else:
            value = bind(op, *ins)
        env[n.id] = value
    return env[graph.output.id]


def _concrete_if(node, ins, on_if, on_while):
    then_graph, else_graph = node.graphs
    branch = then_graph if bool(ins[0]) else else_graph
    return run_graph(branch, ins[1:], on_if, on_while)


def _concrete_while(node, ins, on_if, on_while):
    cond_graph, body_graph = node.graphs
    state = tuple(ins)
    while bool(run_graph(cond_graph, state, on_if, on_while)):
        out = run_graph(body_graph, state, on_if, on_while)
        state = tuple(out) if isinstance(out, tuple) else (out,)
    return state  # a while node always yields the tuple of loop-carried values
