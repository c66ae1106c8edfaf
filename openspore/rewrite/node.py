"""`Node`: one statement of a network's `construct` in a `SymbolTree` (a Cell call, a function call, an
arithmetic step, an argument, the return, or any other statement kept as written).

Nodes made with `Node.create_call_cell` / `create_call_function` / `create_input` join a tree through
`SymbolTree.insert`. Data flow is by name: a node's inputs are the nodes that last assigned the names its
arguments read, its users are the later nodes that read its targets (until something assigns them again).

>>> from openspore import nn
>>> from openspore.rewrite import Node, NodeType, ScopedValue
>>> node = Node.create_call_cell(nn.ReLU(), ["y"], [ScopedValue.create_naming_value("x")], name="act")
>>> node.get_name(), node.get_node_type(), node.get_args(), node.get_targets()
('act', <NodeType.CallCell: 1>, [x], [y])
"""
import ast

from .values import NodeType, ScopedValue, ValueType, as_scoped

__all__ = ["Node"]


def _cell_class():
    from ..nn.cell import Cell
    return Cell


class Node:
    """A statement of `construct`; make one with the `create_*` methods, not the constructor."""

    def __init__(self, node_type, name, targets=(), args=(), kwargs=None, instance=None, func=None, stmt=None):
        self._type = node_type
        self._name = name
        self._targets = list(targets)
        self._args = list(args)
        self._kwargs = dict(kwargs or {})
        self._instance = instance
        self._func = func          # ScopedValue of the callee (`self.dense`, `ops.abs`, a bound function object)
        self._stmt = stmt          # the ast statement of Python / ControlFlow nodes; the ast operator of MathOps
        self._tree = None          # the SymbolTree implementation this node belongs to
        self._sub_tree = None      # Tree nodes: the SymbolTree of the sub-network
        self._default = None       # Input nodes: the default value (a ScopedValue) or None

    # ---- creation ------------------------------------------------------------------------------------------
    @staticmethod
    def create_call_cell(cell, targets, args=None, kwargs=None, name="", is_sub_net=False):
        """A node for `targets = self.<name>(*args, **kwargs)` calling `cell` (a Cell). With `is_sub_net`, a
        user-defined Cell becomes a Tree node whose own construct can be rewritten (`get_sub_tree`)."""
        if not isinstance(cell, _cell_class()):
            raise TypeError(f"For 'create_call_cell', 'cell' must be a Cell, but got {type(cell).__name__}.")
        node = Node(NodeType.CallCell, name or "", _targets(targets, "create_call_cell"),
                    _args(args, "create_call_cell"), _kwargs(kwargs, "create_call_cell"), instance=cell)
        if is_sub_net:
            from .symbol_tree import SymbolTree
            node._type = NodeType.Tree
            node._sub_tree = SymbolTree.create(cell)
        if not node._name:
            node._name = str(node._targets[0].value) if node._targets else type(cell).__name__.lower()
        return node

    @staticmethod
    def create_call_function(function, targets, args=None, kwargs=None):
        """A node for `targets = function(*args, **kwargs)`."""
        if not callable(function):
            raise TypeError(f"For 'create_call_function', 'function' must be callable, got {type(function).__name__}.")
        return Node(NodeType.CallFunction, getattr(function, "__name__", "function"),
                    _targets(targets, "create_call_function"), _args(args, "create_call_function"),
                    _kwargs(kwargs, "create_call_function"), instance=function,
                    func=ScopedValue(ValueType.CustomObjValue, "", function))

    @staticmethod
    def create_input(param_name: str, default=None):
        """A new argument `param_name` of construct (with `default`, a ScopedValue, when given)."""
        if not isinstance(param_name, str) or not param_name.isidentifier():
            raise TypeError(f"For 'create_input', 'param_name' must be an identifier str, but got {param_name!r}.")
        if default is not None and not isinstance(default, ScopedValue):
            raise TypeError(f"For 'create_input', 'default' must be a ScopedValue, got {type(default).__name__}.")
        node = Node(NodeType.Input, "input_" + param_name, [ScopedValue.create_naming_value(param_name)])
        node._default = default
        return node

    # ---- what the node is ----------------------------------------------------------------------------------
    def get_handler(self):
        return self

    def get_name(self):
        return self._name

    def get_node_type(self):
        return self._type

    def get_instance(self):
        """The Cell, Primitive or function the node calls (None for other nodes)."""
        return self._instance

    def get_instance_type(self):
        """The type of the called object; for a function call, the function itself (as MindSpore reports)."""
        if self._type == NodeType.CallFunction and self._instance is not None:
            return self._instance
        return type(self._instance)

    def get_targets(self):
        return list(self._targets)

    def get_args(self):
        return list(self._args)

    def get_kwargs(self):
        return dict(self._kwargs)

    def get_symbol_tree(self):
        return self._tree

    def get_sub_tree(self):
        """The SymbolTree of a Tree node's sub-network."""
        if self._type != NodeType.Tree:
            raise TypeError(f"For 'get_sub_tree', node '{self._name}' is a {self._type.name} node, not a Tree node.")
        return self._sub_tree

    def get_attributes(self):
        """The called Cell's or Primitive's plain attributes (name -> value)."""
        if self._instance is None:
            return {}
        return {k: v for k, v in vars(self._instance).items() if not k.startswith("_")}

    def get_attribute(self, key: str):
        return self.get_attributes().get(key)

    def set_attribute(self, key: str, value):
        if self._instance is None:
            raise TypeError(f"For 'set_attribute', node '{self._name}' calls no object to set '{key}' on.")
        setattr(self._instance, key, value)

    # ---- editing arguments -----------------------------------------------------------------------------------
    def set_arg(self, index, arg):
        """Replace argument `index` by `arg` (a ScopedValue or a variable name)."""
        self._check_arg_index(index, "set_arg")
        self._args[index] = as_scoped(arg, "set_arg")

    def set_arg_by_node(self, arg_idx, src_node, out_idx=None):
        """Make argument `arg_idx` read output `out_idx` (default 0) of `src_node`."""
        self._check_arg_index(arg_idx, "set_arg_by_node")
        if not isinstance(src_node, Node):
            raise TypeError(f"For 'set_arg_by_node', 'src_node' must be a Node, but got {type(src_node).__name__}.")
        targets = src_node._targets
        out_idx = 0 if out_idx is None else out_idx
        if not 0 <= out_idx < len(targets):
            raise ValueError(f"For 'set_arg_by_node', node '{src_node._name}' has {len(targets)} outputs, "
                             f"out_idx {out_idx} is out of range.")
        self._args[arg_idx] = targets[out_idx]

    def _check_arg_index(self, index, where):
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"For '{where}', the index must be an int, but got {type(index).__name__}.")
        if not 0 <= index < len(self._args):
            raise ValueError(f"For '{where}', node '{self._name}' has {len(self._args)} arguments, index {index} "
                             "is out of range.")

    # ---- data flow (answered by the tree) -----------------------------------------------------------------
    def get_inputs(self):
        """The nodes whose outputs this node reads, in argument order, without repeats."""
        return [] if self._tree is None else self._tree.inputs_of(self)

    def get_users(self):
        """The later nodes that read this node's outputs, without repeats."""
        return [] if self._tree is None else self._tree.users_of(self)

    def get_arg_providers(self):
        """{argument index: (node, output index)} for the arguments another node computes."""
        return {} if self._tree is None else self._tree.arg_providers(self)

    def get_target_users(self, index=-1):
        """{output index: [(node, argument index), ...]}; with `index`, only that output's list."""
        users = {} if self._tree is None else self._tree.target_users(self)
        return users if index == -1 else users.get(index, [])

    # ---- reading names (for the tree) --------------------------------------------------------------------
    def read_names(self):
        """The plain variable names this node reads."""
        if self._type in (NodeType.Python, NodeType.ControlFlow) and self._stmt is not None:
            names = [n.id for n in ast.walk(self._stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
            augmented = [n.target for n in ast.walk(self._stmt) if isinstance(n, ast.AugAssign)]
            return names + [t.id for t in augmented if isinstance(t, ast.Name)]  # `y += 1` reads y too
        names = []
        for value in list(self._args) + list(self._kwargs.values()):
            names.extend(_naming(value))
        return names

    def written_names(self):
        return [str(t.value) for t in self._targets if t.type == ValueType.NamingValue and not t.scope]

    def __repr__(self):
        return f"Node({self._type.name}, {self._name!r}, targets={self._targets}, args={self._args})"


def _naming(value):
    if value.type == ValueType.NamingValue and not value.scope:
        return [value.value]
    if value.type in (ValueType.TupleValue, ValueType.ListValue):
        return [n for v in value.value for n in _naming(v)]
    if value.type == ValueType.DictValue:
        return [n for v in value.value.values() for n in _naming(v)]
    return []


def _targets(targets, where):
    if not isinstance(targets, (list, tuple)):
        raise TypeError(f"For '{where}', 'targets' must be a list, but got {type(targets).__name__}.")
    return [as_scoped(t, where) for t in targets]


def _args(args, where):
    if args is None:
        return []
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"For '{where}', 'args' must be a list, but got {type(args).__name__}.")
    return [as_scoped(a, where) if isinstance(a, (str, ScopedValue)) else ScopedValue.create_variable_value(a)
            for a in args]


def _kwargs(kwargs, where):
    if kwargs is None:
        return {}
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise TypeError(f"For '{where}', 'kwargs' must be a dict with str keys.")
    return {k: as_scoped(v, where) for k, v in kwargs.items()}
