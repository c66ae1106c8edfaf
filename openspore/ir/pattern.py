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

from .node import Graph

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
        return _Rewriter(self).graph(graph)


class _Rewriter:
    def __init__(self, table):
        self.table = table
        self.memo = {}

    def graph(self, g):
        done = self.memo.get(id(g))
        if done is None:
            done = self._rewrite(g)
            self.memo[id(g)] = self.memo[id(done)] = done
        return done

    def _rewrite(self, g):
        mapping = {n.id: n for n in g.inputs}
        present = set(mapping)
        nodes = []
        changed = False
        for n in g.nodes:
            inputs = tuple(mapping[i.id] for i in n.inputs)
            graphs = tuple(self.graph(s) for s in n.graphs)
            if any(a is not b for a, b in zip(inputs, n.inputs)) or any(a is not b for a, b in zip(graphs, n.graphs)):
                cur = n.clone(inputs=inputs, graphs=graphs)
            else:
                cur = n
            for _ in range(_MAX_STEPS):
                repl = self.table.match(cur)
                if repl is None:
                    break
                cur = repl
                if cur.id in present:
                    break
            self._emit(cur, nodes, present)
            mapping[n.id] = cur
            changed = changed or cur is not n
        if not changed:
            return g
        return Graph(g.name, g.inputs, nodes, mapping[g.output.id], g.flags)

    def _emit(self, node, nodes, present):
        """Append `node` after any of its inputs that a rule created and that are not in the graph yet."""
        if node.id in present:
            return
        stack = [(node, False)]
        while stack:
            cur, ready = stack.pop()
            if cur.id in present:
                continue
            if ready:
                present.add(cur.id)
                nodes.append(cur)
                continue
            stack.append((cur, True))
            stack.extend((i, False) for i in cur.inputs if i.id not in present)


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
