"""The IR: small nodes in one ordered list per graph, structured control flow as subgraphs.

A `Graph` is a function: `inputs` (placeholder nodes), `nodes` in execution order (topological, and for
side-effecting nodes also program order), and one `output` node. Every value is a `Node`:

| op | meaning |
|---|---|
| a `Primitive` instance | a primitive call; `inputs` are nodes; attributes live on the primitive (`node.attrs`) |
| `"input"` | a graph input; `name` is the argument name |
| `"weight"` | reads a Parameter (`value` is the Parameter object; `name` its checkpoint name) |
| `"const"` | a constant: a Python value, a numpy array or a concrete Tensor in `value` |
| `"make_tuple"` | a tuple of its inputs (tuple-typed primitive inputs such as Concat's, and multiple outputs) |
| `"tuple_get_item"` | element `index` of a tuple-valued input (multi-output primitives, control-flow results) |
| `"if"` | `inputs = (cond, *operands)`, `graphs = (then_graph, else_graph)`; both take the operands |
| `"while"` | `inputs = operands`, `graphs = (cond_graph, body_graph)`; body returns the next operands as a tuple; the node yields the final tuple |
| `"call"` | calls `graphs[0]` with `inputs` (inlined by the `inline` pass) |

Nodes carry `abstract` (AbstractTensor, a tuple of them, or None for Python constants), the user's source
location `loc` ("file:line"; a traced node's also holds its whole user call stack, `node.stack`, see source.py)
and a `scope` name like `Default/network-LeNet5/conv1-Conv2d/Conv2D-op12` (a backward node's is
`Gradients/<its forward node's cell scope>/Grad_<ForwardPrim>/<Prim>-op<N>`, as MindSpore names them).
Passes never mutate a graph they were given: they build a new one (`ir.rewrite.rewrite`).
"""
import itertools

from ..core.primitive import Primitive
from .source import stack_of

STRUCTURAL_OPS = ("input", "weight", "const", "make_tuple", "tuple_get_item", "if", "while", "call")
_ids = itertools.count(1)


class Node:
    __slots__ = ("id", "op", "inputs", "abstract", "loc", "scope", "graphs", "value", "name", "index")

    def __init__(self, op, inputs=(), abstract=None, loc="", scope="", graphs=(), value=None, name="", index=None):
        if not isinstance(op, Primitive) and op not in STRUCTURAL_OPS:
            raise ValueError(f"IR node op must be a Primitive or one of {STRUCTURAL_OPS}, got {op!r}")
        self.id = next(_ids)
        self.op = op
        self.inputs = tuple(inputs)
        self.abstract = abstract
        self.loc = loc
        self.scope = scope
        self.graphs = tuple(graphs)
        self.value = value
        self.name = name
        self.index = index

    @property
    def is_primitive(self):
        return isinstance(self.op, Primitive)

    @property
    def op_name(self):
        return self.op.name if isinstance(self.op, Primitive) else self.op

    @property
    def attrs(self):
        return self.op.attrs if isinstance(self.op, Primitive) else {}

    @property
    def stack(self):
        """The user code stack this node came from, innermost frame first: `SourceFrame(file, line, function)`s."""
        return stack_of(self.loc)

    @property
    def has_side_effect(self):
        """Side-effecting and random nodes are never removed, merged or reordered."""
        if isinstance(self.op, Primitive):
            return self.op.side_effect or self.op.random
        if self.op in ("if", "while", "call"):
            return any(g.has_side_effect for g in self.graphs)
        return False

    def clone(self, inputs=None, **changes):
        """A new node (fresh id) with the same fields, optionally new inputs or other fields."""
        fields = dict(op=self.op, inputs=self.inputs if inputs is None else inputs, abstract=self.abstract,
                      loc=self.loc, scope=self.scope, graphs=self.graphs, value=self.value, name=self.name,
                      index=self.index)
        fields.update(changes)
        return Node(**fields)

    def __repr__(self):
        return f"%{self.id}:{self.op_name}"


class Graph:
    """A function in the IR (see the module docstring)."""

    __slots__ = ("name", "inputs", "nodes", "output", "flags")

    def __init__(self, name, inputs, nodes, output, flags=None):
        self.name = name
        self.inputs = list(inputs)
        self.nodes = list(nodes)
        self.output = output
        self.flags = dict(flags or {})

    @property
    def weights(self):
        return [n for n in self.nodes if n.op == "weight"]

    @property
    def has_side_effect(self):
        return any(n.has_side_effect for n in self.nodes)

    def all_graphs(self):
        """This graph and every nested subgraph, depth first."""
        yield self
        for n in self.nodes:
            for g in n.graphs:
                yield from g.all_graphs()

    def users(self):
        """node id -> list of nodes using it (within this graph, not subgraphs)."""
        out = {}
        for n in self.nodes:
            for i in n.inputs:
                out.setdefault(i.id, []).append(n)
        return out

    def __repr__(self):
        from .printer import print_graph
        return print_graph(self)



def value_producers(inputs):
    """The nodes that produced the values of `inputs`, looking through tuple_get_item and make_tuple (graph views
    — the summary GraphProto, the debugger's graph file — draw edges between real operators only)."""
    out = []
    for node in inputs:
        while node.op == "tuple_get_item" and node.inputs:
            node = node.inputs[0]
        if node.op == "make_tuple":
            out.extend(value_producers(node.inputs))
        else:
            out.append(node)
    return out
