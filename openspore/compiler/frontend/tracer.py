"""The Tracer: receives every primitive call while graph code runs (`core.dispatch.push_tracer`) and builds IR.

One Tracer builds one graph: the traced function's, or a subgraph (an `if` branch, a loop's condition or body)
whose parent is the Tracer of the enclosing graph. Values become nodes as they are met:

* a `SymbolicTensor` of this graph is its node; one of an enclosing graph is *captured*: the subgraph gets an
  input for it and the control-flow node passes it as an operand (free variables become explicit operands);
* a Parameter is one `weight` node per Parameter in the top graph (node name = parameter name) and a captured
  operand in subgraphs (so gradients with respect to it flow through the control-flow node's backward rule);
* another concrete Tensor is a `const` node (one per object); Python values are `const` nodes too.

Nodes are appended in program order, side-effecting ones included, and carry the user's code stack (`loc`, see
ir/source.py) and a scope name (see scope.py); a node made by a backward rule carries its forward node's stack
and a `Gradients/...` scope. While a grad transform is active, each call is recorded for autodiff exactly
as PyNative's bind records it, so `grad`/`value_and_grad` inside traced code emit the backward graph.
"""
from ...common.errors import with_location
from ...core import autograd, dispatch, read_snapshots
from ...core.parameter import Parameter
from ...core.primitive import AbstractTensor
from ...core.tensor import Tensor
from ...ir.node import Node
from ...ir.source import capture
from .errors import GraphCaptureError, located
from .scope import gradient_scope
from .symbolic import SymbolicTensor


def has_tensor(value):
    if isinstance(value, Tensor):
        return True
    if type(value) in (tuple, list):
        return any(has_tensor(v) for v in value)
    return False


class _Shared:
    """State common to a trace and its subgraphs: scope stack and subgraph numbering."""

    def __init__(self, name, scopes, entry=None):
        self.name = name
        self.scopes = scopes
        self.subgraphs = 0
        self.entry = entry  # the frame that started the trace: code stacks stop there

    def origin(self):
        """(loc, cell scope) of the node being made: the user's code where it was called, or for a node of a
        backward rule the forward node's stack under `Gradients/<its cell scope>/Grad_<Prim>`."""
        running = autograd.DIFFERENTIATING[0]
        if running is None:
            return capture(2, self.entry), self.scopes.current
        forward = _forward_node(running)
        if forward is None:  # gradient accumulation between rules, or a rule of a node with no IR node
            return capture(2, self.entry), "Gradients/" + self.scopes.current
        return forward.loc, gradient_scope(forward.scope, forward.op_name)

    def subgraph_name(self, kind):
        self.subgraphs += 1
        return f"{self.name}_{kind}{self.subgraphs}"


class Tracer:
    """Builds one graph. `Tracer(name, scopes)` for a trace; `parent.child(kind)` for a subgraph."""

    def __init__(self, name, shared, parent=None):
        self.name = name
        self.shared = shared
        self.parent = parent
        self.inputs = []         # explicit inputs (function arguments, loop-carried values)
        self.nodes = []
        self.captures = []       # [(outer value, input node)]: free values from enclosing graphs
        self._captured = {}      # id(outer value) -> input node
        self._weights = {}       # id(Parameter) -> (Parameter, node)
        self._consts = {}        # id(Tensor) -> (Tensor, node)
        self._scalars = {}       # (type, value, dtype) -> SymbolicTensor
        self._rebinds = []

    def child(self, kind):
        return Tracer(self.shared.subgraph_name(kind), self.shared, self)

    # ---- building ------------------------------------------------------------------------------
    def append(self, node):
        self.nodes.append(node)
        return node

    def add_input(self, name, abstract):
        node = Node("input", abstract=abstract, name=name)
        self.inputs.append(node)
        return SymbolicTensor(node, self)

    def symbolic(self, node):
        return SymbolicTensor(node, self)

    def structural(self, op, inputs=(), abstract=None, **fields):
        """Append a non-primitive node at the user's current line and scope."""
        loc, scope = self.shared.origin()
        return self.append(Node(op, inputs, abstract, loc=loc, scope=scope, **fields))

    def make_tuple(self, nodes):
        return self.structural("make_tuple", nodes, tuple(n.abstract for n in nodes))

    def const_node(self, value, abstract=None):
        return self.structural("const", (), abstract, value=value)

    def has_ancestor(self, builder):
        b = self.parent
        while b is not None:
            if b is builder:
                return True
            b = b.parent
        return False

    # ---- values -> nodes -----------------------------------------------------------------------
    def node_of(self, t):
        """The node standing for Tensor `t` in this graph (capturing it from an enclosing graph if needed)."""
        if isinstance(t, SymbolicTensor):
            if t.builder is self:
                return t.node
            if self.has_ancestor(t.builder):
                return self.capture(t)
            raise GraphCaptureError(located(
                "a tensor computed inside an `if` branch or a loop body (or in another trace) is used outside of "
                "it. Assign it to a variable in every branch / before the loop so that graph control flow can "
                "return it."))
        if isinstance(t, Parameter):
            if self.parent is not None:
                return self.capture(t)
            hit = self._weights.get(id(t))
            if hit is None:
                node = self.structural("weight", (), AbstractTensor(t.shape, t.dtype), value=t, name=t.name)
                hit = self._weights[id(t)] = (t, node)
            return hit[1]
        if self.parent is not None and t._nodes:
            return self.capture(t)  # a differentiated concrete value: its gradient must flow out
        hit = self._consts.get(id(t))
        if hit is None:
            hit = self._consts[id(t)] = (t, self.const_node(t, AbstractTensor(t.shape, t.dtype)))
        return hit[1]

    def capture(self, t):
        node = self._captured.get(id(t))
        if node is None:
            name = t.name if isinstance(t, Parameter) else f"free{len(self.captures)}"
            node = Node("input", abstract=AbstractTensor(t.shape, t.dtype), name=name)
            self.captures.append((t, node))
            self._captured[id(t)] = node
        return node

    def value_node(self, value):
        """Node for a primitive argument: tensors, tuples holding tensors (make_tuple), Python values (const)."""
        if isinstance(value, Tensor):
            return self.node_of(value)
        if type(value) in (tuple, list) and has_tensor(value):
            return self.make_tuple([self.value_node(v) for v in value])
        return self.const_node(value)

    # ---- the dispatch protocol -----------------------------------------------------------------
    def bind(self, prim, args):
        graph_form = getattr(prim, "graph_form", None)
        if graph_form is not None:  # a primitive that behaves differently in a graph (Print's layout)
            prim = graph_form()
        try:
            abstract = prim.infer(*args)
        except (ValueError, TypeError, IndexError) as exc:
            raise with_location(dispatch._with_inputs(exc, prim, args)) from None
        if autograd.ACTIVE and prim.side_effect and args:  # the backward reads Parameters as they were read
            read_snapshots.before_write(args[0], autograd.ACTIVE)
        inputs = tuple(self.value_node(a) for a in args)
        loc, cell_scope = self.shared.origin()
        scope = self.shared.scopes.op_scope(prim.name, cell_scope)
        node = self.append(Node(prim, inputs, abstract, loc=loc, scope=scope))
        if isinstance(abstract, AbstractTensor):
            result = SymbolicTensor(node, self)
            outs = (result,)
        elif isinstance(abstract, tuple):
            outs = tuple(SymbolicTensor(self.append(Node("tuple_get_item", (node,), a, loc=loc, scope=scope, index=i)),
                                        self) for i, a in enumerate(abstract))
            result = outs
        else:
            raise TypeError(f"For '{prim.name}', infer returned {type(abstract).__name__}; graph capture needs an "
                            "AbstractTensor or a tuple of them.")
        if autograd.ACTIVE and prim.differentiable:
            autograd.record(prim, args, outs, result)
        return result

    def constant(self, value, dtype):
        """A Python scalar taking part in an op (implicit promotion) as a 0-d tensor of `dtype`."""
        key = (type(value), repr(value), dtype)  # repr: 0.0 / -0.0 and nan stay distinct keys
        t = self._scalars.get(key)
        if t is None:
            concrete = dispatch._scalar_tensor(value, dtype)
            t = self._scalars[key] = SymbolicTensor(self.const_node(concrete, AbstractTensor((), dtype)), self)
        return t

    def call_cell(self, cell, args, kwargs, slow_call):
        """`Cell.__call__` while tracing: enter the cell's scope and run its (rewritten) construct."""
        from .ast_transform import convert
        from .control_flow import CALL_DEPTH
        scopes = self.shared.scopes
        scopes.enter(cell)
        try:
            CALL_DEPTH.__enter__()
        except BaseException:
            scopes.exit()
            raise
        try:
            construct = convert(cell.construct)
            d = cell.__dict__
            if d["_plain_call"]:
                return construct(*args, **kwargs)
            missing = object()
            own = d.get("construct", missing)
            d["construct"] = construct  # hooks / custom bprop run through the slow path with the rewritten code
            try:
                return slow_call(cell, args, kwargs)
            finally:
                if own is missing:
                    del d["construct"]
                else:
                    d["construct"] = own
        finally:
            CALL_DEPTH.__exit__()
            scopes.exit()

    # ---- in-place updates of outer tensors inside subgraphs ------------------------------------
    def note_rebind(self, t):
        self._rebinds.append((t, t.node, t.builder, t._dtype, t._shape_hint, t._nodes))

    def restore_rebinds(self):
        for t, node, builder, dtype, shape, nodes in reversed(self._rebinds):
            t.node, t.builder, t._dtype, t._shape_hint, t._nodes = node, builder, dtype, shape, nodes
        self._rebinds = []


def _forward_node(running):
    """The IR node whose backward rule is running (`running`: an autodiff Node), or None."""
    for out in getattr(running, "outputs", ()):
        node = getattr(out, "node", None)
        if node is None:
            continue
        while node.op == "tuple_get_item" and node.inputs:
            node = node.inputs[0]
        if node.is_primitive:
            return node
    return None
