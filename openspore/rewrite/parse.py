"""Reads a network's `construct` source into rewrite `Node`s.

Each statement becomes one node. A call or arithmetic step nested in another's arguments is first hoisted into
its own node with a temporary target (`z = ops.abs(y) + 1` becomes `abs_var = ops.abs(y)` and
`z = abs_var + 1`), so every call is a node of its own; the hoisting keeps the evaluation order. Statements the
rewrite API does not model (`if`/`for`/`while`, augmented assignments, expressions kept for effect) are kept as
written in Python or ControlFlow nodes.
"""
import ast
import inspect
import textwrap

from .node import Node
from .values import NodeType, ScopedValue

__all__ = ["parse_construct"]


def parse_construct(network):
    """(ast.arguments of construct, [Node], globals of construct) for `network`."""
    construct = type(network).construct
    try:
        source = textwrap.dedent(inspect.getsource(construct))
    except (OSError, TypeError) as exc:
        raise RuntimeError(f"For 'SymbolTree.create', the source of {type(network).__name__}.construct cannot be "
                           f"read ({exc}); rewrite works on networks defined in source files.") from exc
    fdef = ast.parse(source).body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise RuntimeError(f"For 'SymbolTree.create', {type(network).__name__}.construct is not a plain function.")
    reader = _Reader(network)
    positional = fdef.args.posonlyargs + fdef.args.args
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(fdef.args.defaults):], fdef.args.defaults))
    defaults.update({a.arg: d for a, d in zip(fdef.args.kwonlyargs, fdef.args.kw_defaults) if d is not None})
    for arg in positional[1:] + fdef.args.kwonlyargs:  # positional[0] is self
        node = Node(NodeType.Input, "input_" + arg.arg, [ScopedValue.create_naming_value(arg.arg)])
        node._default = ScopedValue.from_ast(defaults[arg.arg]) if arg.arg in defaults else None
        reader.add(node)
    body = fdef.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    for stmt in body:
        reader.statement(stmt)
    return fdef.args, reader.nodes, getattr(construct, "__globals__", {})


class _Reader:
    def __init__(self, network):
        self.network = network
        self.nodes = []
        self.temps = set()

    def add(self, node):
        self.nodes.append(node)

    def statement(self, stmt):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _simple_target(stmt.targets[0]) \
                and self._modelled(stmt.value):
            targets = _target_values(stmt.targets[0])
            self.add(self._call_node(stmt.value, targets))
        elif isinstance(stmt, ast.Return):
            value = [] if stmt.value is None else [self._value(stmt.value)]
            self.add(Node(NodeType.Output, "return", [], value))
        elif isinstance(stmt, (ast.If, ast.For, ast.While)):
            self.add(Node(NodeType.ControlFlow, type(stmt).__name__.lower() + "_node", _stored(stmt), stmt=stmt))
        else:
            self.add(Node(NodeType.Python, "python_node", _stored(stmt), stmt=stmt))

    def _modelled(self, expr):
        if isinstance(expr, ast.BinOp):
            return True
        return isinstance(expr, ast.Call) and not any(isinstance(a, ast.Starred) for a in expr.args) \
            and all(k.arg is not None for k in expr.keywords)

    def _value(self, expr):
        """A ScopedValue for an argument; a nested call or arithmetic step is hoisted into a node first."""
        if self._modelled(expr):
            stem = _callee_name(expr) if isinstance(expr, ast.Call) else "binop_" + type(expr.op).__name__.lower()
            temp = self._temp(stem.removeprefix("binop_") + "_var")
            self.add(self._call_node(expr, [ScopedValue.create_naming_value(temp)]))
            return ScopedValue.create_naming_value(temp)
        if isinstance(expr, ast.Tuple):
            return ScopedValue(ScopedValue.from_ast(expr).type, "", tuple(self._value(e) for e in expr.elts))
        return ScopedValue.from_ast(expr)

    def _temp(self, name):
        candidate, i = name, 0
        while candidate in self.temps:
            i += 1
            candidate = f"{name}_{i}"
        self.temps.add(candidate)
        return candidate

    def _call_node(self, expr, targets):
        if isinstance(expr, ast.BinOp):
            args = [self._value(expr.left), self._value(expr.right)]
            return Node(NodeType.MathOps, "binop_" + type(expr.op).__name__.lower(), targets, args, stmt=expr.op)
        args = [self._value(a) for a in expr.args]
        kwargs = {k.arg: self._value(k.value) for k in expr.keywords}
        func = expr.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            obj = _lookup(self.network, func.attr)
            kind = _kind_of(obj)
            node = Node(kind, func.attr, targets, args, kwargs, instance=obj,
                        func=ScopedValue.create_naming_value(func.attr, "self"))
            if kind == NodeType.Tree:
                from .symbol_tree import SymbolTree
                node._sub_tree = SymbolTree.create(obj)
            return node
        return Node(NodeType.CallFunction, _callee_name(expr), targets, args, kwargs, instance=None,
                    func=ScopedValue.from_ast(func))


def _kind_of(obj):
    from ..nn.cell import Cell
    from ..nn.container import SequentialCell
    from ..core.primitive import Primitive
    if isinstance(obj, SequentialCell):
        return NodeType.CellContainer
    if isinstance(obj, Cell):
        return NodeType.Tree if _user_defined(obj) else NodeType.CallCell
    if isinstance(obj, Primitive):
        return NodeType.CallPrimitive
    if inspect.ismethod(obj):
        return NodeType.CallMethod
    return NodeType.CallFunction


def _user_defined(cell):
    """A Cell written by the user (not one of openspore's): its construct is rewritable as a sub-tree."""
    module = type(cell).__module__ or ""
    if module == "openspore" or module.startswith("openspore."):
        return False
    try:
        inspect.getsource(type(cell).construct)
    except (OSError, TypeError):
        return False
    return True


def _lookup(network, attr):
    try:
        return getattr(network, attr)
    except AttributeError:
        return None


def _callee_name(call):
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return "call"


def _simple_target(target):
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts)


def _target_values(target):
    names = [target.id] if isinstance(target, ast.Name) else [e.id for e in target.elts]
    return [ScopedValue.create_naming_value(n) for n in names]


def _stored(stmt):
    """Naming values for the plain names a kept statement assigns."""
    seen = []
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in seen:
            seen.append(n.id)
    return [ScopedValue.create_naming_value(n) for n in seen]
