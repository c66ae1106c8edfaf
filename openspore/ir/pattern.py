"""Rule tables for local rewrites: `table = RuleTable()`, `@table.rule("Mul")` functions `rule(node) -> node`.

A rule sees a node whose inputs are already rewritten and returns a replacement — an existing node (alias: the
node disappears), a new node (its new inputs are emitted before it), or None (no match). A replacement is
matched again until no rule fires, so rules compose (`Reshape(Reshape(x))` → `Reshape(x)` → `x`). `apply`
visits every node once in order and recurses into subgraphs: linear in the graph size.

    table = RuleTable()

    @table.rule("Neg")
    def neg_neg(n):
        x = n.inputs[0]
        return x.inputs[0] if is_op(x, "Neg") else None
"""
import numpy as np

from .rewrite import rewrite

_MAX_STEPS = 16  # rewrites of one node; rules that undo each other would otherwise loop


class RuleTable:
    def __init__(self):
        self.rules = {}  # op name ("Mul", "tuple_get_item", ...) -> [rule, ...]

    def rule(self, *ops):
        """Decorator: register `fn(node) -> node | None` for nodes whose op name is one of `ops`."""
        def register(fn):
            for op in ops:
                self.rules.setdefault(op, []).append(fn)
            return fn
        return register

    def match(self, node):
        for fn in self.rules.get(node.op_name, ()):
            repl = fn(node)
            if repl is not None and repl is not node:
                return repl
        return None

    def apply(self, graph):
        """A new graph with the rules applied everywhere (subgraphs included); `graph` is not modified."""
        return rewrite(graph, self._visit)

    def _visit(self, node, inputs, rw):
        cur = rw.keep(node, inputs)
        for _ in range(_MAX_STEPS):
            repl = self.match(cur)
            if repl is None:
                break
            cur = repl
            if rw.has(cur):
                break  # an alias of a value already in the graph (rewritten when it was visited)
        return cur


# ---- matching helpers -------------------------------------------------------------------------------
def is_op(node, name):
    """True when `node` is a primitive named `name` (or a structural op of that name)."""
    return node.op_name == name


def const_array(node):
    """The numpy value of a `const` node holding a tensor or a number, else None."""
    if node.op != "const":
        return None
    value = node.value
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return np.asarray(value)
    return None


def is_const_all(node, number):
    """True when `node` is a constant whose every element equals `number` (and it has at least one)."""
    arr = const_array(node)
    return arr is not None and arr.size > 0 and bool(np.all(arr == number))
