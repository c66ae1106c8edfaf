"""dead_branch: control flow whose condition is known at compile time.

* `if` with a `const` condition → clones of the taken branch's nodes, spliced in place (like `inline`).
* `while` whose condition graph returns a `const` False → the loop never runs: a make_tuple of its operands.

    graph @main(%0 x: f32[2]) {                      graph @main(%0 x: f32[2]) {
      %1 = const True : py                             %1 = const True : py
      %2 = if(%1, %0) @then @else : f32[2]     →       %2 = Neg(%0) : f32[2]
      return %2                                        return %2
    }                                                }
"""
from ...ir.rewrite import rewrite
from .inline import splice


def dead_branch(graph):
    """dead_branch(graph) -> Graph with constant-condition if/while resolved (the input is not modified)."""
    return rewrite(graph, _visit)


def known_truth(node):
    """True/False for a `const` condition (a Python value or a one-element tensor), None when unknown."""
    if node.op != "const":
        return None
    value = node.value
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if hasattr(value, "size"):
        if value.size != 1:
            return None
        return bool(value.reshape(-1)[0])
    try:
        return bool(value)
    except Exception:  # an object without a truth value: leave the branch to run time
        return None


def _visit(n, inputs, rw):
    if n.op == "if":
        truth = known_truth(inputs[0])
        if truth is not None:
            return splice(rw.subgraph(n.graphs[0] if truth else n.graphs[1]), inputs[1:], rw.emit)
    elif n.op == "while" and known_truth(n.graphs[0].output) is False:
        return n.clone(op="make_tuple", inputs=tuple(inputs), graphs=())
    return rw.keep(n, inputs)
