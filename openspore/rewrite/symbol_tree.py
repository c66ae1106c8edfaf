"""`SymbolTree`: a network's `construct` as a list of statement `Node`s that can be inspected and edited
(insert, erase, replace, re-wire arguments) and turned back into a working network (`get_network`).

The new network is an instance of a generated subclass (`<Name>Opt`) whose `construct` is written from the
nodes; it shares the original's sub-cells and Parameters (so both keep the same weights) and holds the cells
inserted by the rewrite. Its source is registered with `linecache`, so it reads like any other network's
(`inspect.getsource`, graph mode).

>>> import numpy as np
>>> import openspore as ms
>>> from openspore import nn
>>> from openspore.rewrite import SymbolTree, Node, ScopedValue
>>> class Net(nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.relu = nn.ReLU()
...     def construct(self, x):
...         y = self.relu(x)
...         return y
>>> stree = SymbolTree.create(Net())
>>> [n.get_name() for n in stree.nodes()]
['input_x', 'relu', 'return']
>>> neg = Node.create_call_cell(nn.Tanh(), ["t"], [ScopedValue.create_naming_value("x")], name="tanh")
>>> _ = stree.insert(stree.before("relu"), neg)
>>> stree.get_node("relu").set_arg(0, "t")
>>> stree.get_network()(ms.Tensor(np.array([-1.0, 2.0], np.float32))).asnumpy().round(4)
array([0.   , 0.964], dtype=float32)
"""
import ast
import itertools
import linecache
import os

from ..common.files import write_atomic
from .node import Node
from .parse import parse_construct
from .values import NodeType, ScopedValue, ValueType

__all__ = ["SymbolTree"]

_serial = itertools.count()


class Position:
    """Where `SymbolTree.insert` puts a node: just before or just after `node`."""

    def __init__(self, tree, node, before):
        self.symbol_tree, self.node, self.before_node = tree, node, before


class SymbolTree:
    """See the module text; make one with `SymbolTree.create(network)`."""

    def __init__(self, network, nodes, globals_, vararg=None, kwarg=None):
        self._network = network
        self._nodes = []
        self._globals = globals_
        self._vararg, self._kwarg = vararg, kwarg
        self._saved_file_name = "./network_define.py"
        for node in nodes:
            node._tree = self
            self._nodes.append(node)
        self._rename_parsed()

    @staticmethod
    def create(network):
        """Parse `network`'s construct (a Cell's) into a SymbolTree."""
        from ..nn.cell import Cell
        if not isinstance(network, Cell):
            raise TypeError(f"For 'SymbolTree.create', 'network' must be a Cell, but got {type(network).__name__}.")
        args, nodes, globals_ = parse_construct(network)
        return SymbolTree(network, nodes, globals_, args.vararg, args.kwarg)

    def _rename_parsed(self):
        """Parsed nodes get unique names in order (a second `self.relu` call is relu_1)."""
        taken = set()
        for node in self._nodes:
            node._name = self._fresh(node._name, taken)
            taken.add(node._name)

    @staticmethod
    def _fresh(name, taken):
        if name not in taken:
            return name
        for i in itertools.count(1):
            if f"{name}_{i}" not in taken:
                return f"{name}_{i}"

    # ---- reading ---------------------------------------------------------------------------------------------
    def get_handler(self):
        return self

    def nodes(self, all_nodes=False):
        """The nodes in statement order (`all_nodes`: with those of the Tree nodes' sub-trees)."""
        for node in list(self._nodes):
            yield node
            if all_nodes and node._type == NodeType.Tree and node._sub_tree is not None:
                yield from node._sub_tree.nodes(all_nodes=True)

    def all_nodes(self):
        return list(self.nodes(all_nodes=True))

    def get_node(self, node_name: str):
        """The node named `node_name`, or None."""
        return next((n for n in self._nodes if n._name == node_name), None)

    def get_inputs(self):
        return [n for n in self._nodes if n._type == NodeType.Input]

    def get_origin_network(self):
        return self._network

    def unique_name(self, name: str = "output"):
        """`name`, or `name_1`, `name_2`, ... when a variable of construct already has it."""
        return self._fresh(name, {v for n in self._nodes for v in n.written_names()})

    def _unique_node_name(self, name):
        """A node name no other node has and no attribute of the network uses (an inserted cell becomes
        `self.<name>`)."""
        taken = {n._name for n in self._nodes}
        taken.update(k for k in dir(self._network) if not k.startswith("__"))
        return self._fresh(name, taken)

    # ---- data flow -------------------------------------------------------------------------------------------
    def _index(self, node):
        for i, n in enumerate(self._nodes):
            if n is node:
                return i
        raise ValueError(f"node '{node.get_name()}' is not in this SymbolTree.")

    def _provider(self, index, name):
        for j in range(index - 1, -1, -1):
            written = self._nodes[j].written_names()
            if name in written:
                return self._nodes[j], written.index(name)
        return None

    def arg_providers(self, node):
        index, result = self._index(node), {}
        for i, arg in enumerate(node._args):
            if arg.type == ValueType.NamingValue and not arg.scope:
                found = self._provider(index, arg.value)
                if found:
                    result[i] = found
        return result

    def inputs_of(self, node):
        index, result = self._index(node), []
        for name in node.read_names():
            found = self._provider(index, name)
            if found and all(found[0] is not r for r in result):
                result.append(found[0])
        return result

    def target_users(self, node):
        index, result = self._index(node), {}
        for t, name in enumerate(node.written_names()):
            for later in self._nodes[index + 1:]:
                for a, arg in enumerate(later._args):
                    if name in _names_in(arg):
                        result.setdefault(t, []).append((later, a))
                if name not in _names_in_kwargs(later) and name in later.read_names() and \
                        not any(name in _names_in(arg) for arg in later._args):
                    result.setdefault(t, []).append((later, -1))
                if name in later.written_names():
                    break
        return result

    def users_of(self, node):
        result = []
        index = self._index(node)
        for name in node.written_names():
            for later in self._nodes[index + 1:]:
                if name in later.read_names() and all(later is not r for r in result):
                    result.append(later)
                if name in later.written_names():
                    break
        return result

    # ---- editing ---------------------------------------------------------------------------------------------
    def before(self, node):
        """The position just before `node` (a Node or a node name)."""
        return Position(self, self._resolve(node, "before"), True)

    def after(self, node):
        """The position just after `node` (a Node or a node name)."""
        return Position(self, self._resolve(node, "after"), False)

    def _resolve(self, node, where):
        if isinstance(node, str):
            found = self.get_node(node)
            if found is None:
                raise ValueError(f"For '{where}', there is no node named '{node}' in the SymbolTree.")
            return found
        if not isinstance(node, Node):
            raise TypeError(f"For '{where}', 'node' must be a Node or a str, but got {type(node).__name__}.")
        return node

    def insert(self, position, node):
        """Insert `node` at `position` (from `before`/`after`); its name is made unique. Returns the node."""
        if not isinstance(position, Position):
            raise TypeError(f"For 'insert', 'position' must come from before()/after(), got {type(position).__name__}.")
        if not isinstance(node, Node):
            raise TypeError(f"For 'insert', 'node' must be a Node, but got {type(node).__name__}.")
        if position.symbol_tree is not self:
            raise ValueError("For 'insert', the position belongs to another SymbolTree.")
        if node._tree is not None:
            raise ValueError(f"For 'insert', node '{node.get_name()}' is already in a SymbolTree.")
        index = self._index(position.node) + (0 if position.before_node else 1)
        node._name = self._unique_node_name(node._name or "node")
        if node._type in (NodeType.CallCell, NodeType.Tree, NodeType.CellContainer) and node._func is None:
            node._func = ScopedValue.create_naming_value(node._name, "self")
        node._tree = self
        self._nodes.insert(index, node)
        return node

    def erase(self, node):
        """Remove `node` (a Node or a node name); returns it, or None when it is not in this tree."""
        if isinstance(node, str):
            node = self.get_node(node)
            if node is None:
                return None
        if not isinstance(node, Node):
            raise TypeError(f"For 'erase', 'node' must be a Node or a str, but got {type(node).__name__}.")
        for i, n in enumerate(self._nodes):
            if n is node:
                del self._nodes[i]
                node._tree = None
                return node
        return None

    def replace(self, old_node, new_nodes):
        """Put `new_nodes` (a list, in order) where `old_node` was; returns the last of them."""
        old_node = self._resolve(old_node, "replace")
        if not isinstance(new_nodes, (list, tuple)) or not new_nodes or \
                not all(isinstance(n, Node) for n in new_nodes):
            raise TypeError("For 'replace', 'new_nodes' must be a non-empty list of Node.")
        position = self.before(old_node)
        for node in new_nodes:
            self.insert(position, node)
        self.erase(old_node)
        return new_nodes[-1]

    def set_output(self, index: int, return_value: str):
        """Make element `index` of the returned value the variable `return_value`."""
        output = next((n for n in self._nodes if n._type == NodeType.Output), None)
        if output is None or not output._args:
            raise RuntimeError("For 'set_output', the construct has no return value to set.")
        value = ScopedValue.create_naming_value(return_value)
        returned = output._args[0]
        if returned.type == ValueType.TupleValue:
            items = list(returned.value)
            items[index] = value
            output._args[0] = ScopedValue(ValueType.TupleValue, "", tuple(items))
        elif index == 0:
            output._args[0] = value
        else:
            raise ValueError(f"For 'set_output', the construct returns one value, index {index} is out of range.")
        return output

    def flatten_static_if_control_flow(self):
        """Replace each `if` whose test is known now (a constant, or a bool attribute of the network) by the
        statements of the branch it takes."""
        from .parse import _Reader
        for node in list(self._nodes):
            stmt = node._stmt
            if node._type != NodeType.ControlFlow or not isinstance(stmt, ast.If):
                continue
            test = stmt.test
            if isinstance(test, ast.Constant):
                taken = bool(test.value)
            elif isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self" \
                    and isinstance(getattr(self._network, test.attr, None), bool):
                taken = getattr(self._network, test.attr)
            else:
                continue
            reader = _Reader(self._network)
            reader.temps = {v for n in self._nodes for v in n.written_names()}
            for inner in (stmt.body if taken else stmt.orelse):
                reader.statement(inner)
            index = self._index(node)
            self.erase(node)
            for offset, new in enumerate(reader.nodes):
                new._name = self._unique_node_name(new._name)
                new._tree = self
                self._nodes.insert(index + offset, new)

    def flatten_nodes(self, node, erase_another_branch=False, erase_nodes_after_return=False):
        """Nodes are already flat statements here: returns the tree's nodes (kept for MindSpore's signature)."""
        return list(self._nodes)

    # ---- writing the network back ------------------------------------------------------------------------
    def _class_name(self):
        return type(self._network).__name__ + "Opt"

    def _function_ast(self, bind_object):
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg="self")], vararg=self._vararg, kwonlyargs=[],
                             kw_defaults=[], kwarg=self._kwarg, defaults=[])
        for node in self.get_inputs():
            args.args.append(ast.arg(arg=str(node._targets[0].value)))
            if node._default is not None:
                args.defaults.append(node._default.to_ast(bind_object))
            elif args.defaults:
                raise RuntimeError(f"For 'get_network', input '{node.get_name()}' without a default follows one "
                                   "with a default.")
        body = [stmt for node in self._nodes for stmt in _statements(node, bind_object)] or [ast.Pass()]
        fdef = ast.FunctionDef(name="construct", args=args, body=body, decorator_list=[], returns=None,
                               type_params=[])
        return ast.fix_missing_locations(fdef)

    def get_code(self):
        """The source of the rewritten network's class."""
        bound = {}
        fdef = self._function_ast(lambda obj: _bind(bound, obj))
        cls = ast.ClassDef(name=self._class_name(), bases=[ast.Name(id=type(self._network).__name__, ctx=ast.Load())],
                           keywords=[], body=[fdef], decorator_list=[], type_params=[])
        return ast.unparse(ast.fix_missing_locations(cls)) + "\n"

    def get_network(self):
        """A new network running the edited construct; it shares the original's cells and Parameters."""
        bound = {}
        fdef = self._function_ast(lambda obj: _bind(bound, obj))
        source = ast.unparse(fdef) + "\n"
        filename = f"<openspore.rewrite {self._class_name()} #{next(_serial)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = dict(self._globals)
        namespace.update(bound)
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (our own generated construct)
        base = type(self._network)
        cls = type(self._class_name(), (base,), {"construct": namespace["construct"], "__module__": base.__module__})
        network = _clone(self._network, cls)
        for node in self._nodes:
            if node._func is not None and node._func.scope == "self" and node._type in (
                    NodeType.CallCell, NodeType.CellContainer, NodeType.Tree, NodeType.CallPrimitive):
                attr = str(node._func.value)
                instance = node._sub_tree.get_network() if node._type == NodeType.Tree and node._sub_tree \
                    else node._instance
                if instance is not None and getattr(network, attr, None) is not instance:
                    setattr(network, attr, instance)
        return network

    # ---- showing ---------------------------------------------------------------------------------------------
    def print_node_tabulate(self, all_nodes=False):
        """Print one row per node: type, name, code, argument providers, target users."""
        rows = [("node type", "name", "codes", "arg providers", "target users")]
        for node in self.nodes(all_nodes=all_nodes):
            tree = node._tree
            code = "; ".join(ast.unparse(ast.fix_missing_locations(s))
                             for s in _statements(node, lambda o: getattr(o, "__name__", "obj")))
            providers = tree.arg_providers(node) if tree is not None else {}
            users = tree.target_users(node) if tree is not None else {}
            rows.append((node._type.name, node._name, code.replace("\n", " "),
                         str({i: (n.get_name(), k) for i, (n, k) in providers.items()}),
                         str({i: [(n.get_name(), k) for n, k in v] for i, v in users.items()})))
        widths = [max(len(r[c]) for r in rows) for c in range(5)]
        for r, row in enumerate(rows):
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
            if r == 0:
                print("  ".join("-" * w for w in widths))

    def dump(self):
        """Print the rewritten network's source."""
        print(self.get_code(), end="")

    def get_saved_file_name(self):
        return self._saved_file_name

    def set_saved_file_name(self, file_name: str):
        if not isinstance(file_name, str) or not file_name:
            raise TypeError(f"For 'set_saved_file_name', 'file_name' must be a non-empty str, got {file_name!r}.")
        self._saved_file_name = file_name if file_name.endswith(".py") else file_name + ".py"

    def save_network_to_file(self):
        """Write `get_code()` to `get_saved_file_name()` (atomically)."""
        write_atomic(os.path.abspath(self._saved_file_name), [self.get_code().encode()], read_only=False)


def _names_in(value):
    from .node import _naming
    return _naming(value)


def _names_in_kwargs(node):
    return [n for v in node._kwargs.values() for n in _names_in(v)]


def _bind(bound, obj):
    """A global name for `obj` in the generated module (reused when bound before)."""
    for name, existing in bound.items():
        if existing is obj:
            return name
    base = "".join(c if c.isalnum() else "_" for c in getattr(obj, "__name__", type(obj).__name__))
    name = f"_rewrite_{base}_{len(bound)}"
    bound[name] = obj
    return name


def _statements(node, bind_object):
    """The Python statements a node stands for."""
    t = node._type
    if t == NodeType.Input:
        return []
    if t in (NodeType.Python, NodeType.ControlFlow):
        return [node._stmt]
    if t == NodeType.Output:
        value = node._args[0].to_ast(bind_object) if node._args else None
        return [ast.Return(value=value)]
    if t == NodeType.MathOps:
        value = ast.BinOp(left=node._args[0].to_ast(bind_object), op=node._stmt, right=node._args[1].to_ast(bind_object))
    else:
        func = node._func if node._func is not None else ScopedValue.create_naming_value(node._name, "self")
        value = ast.Call(func=func.to_ast(bind_object), args=[a.to_ast(bind_object) for a in node._args],
                         keywords=[ast.keyword(arg=k, value=v.to_ast(bind_object)) for k, v in node._kwargs.items()])
    if not node._targets:
        return [ast.Expr(value=value)]
    stores = [ast.Name(id=str(v.value), ctx=ast.Store()) if not v.scope else
              ast.Attribute(value=ast.Name(id=v.scope, ctx=ast.Load()), attr=str(v.value), ctx=ast.Store())
              for v in node._targets]
    target = stores[0] if len(stores) == 1 else ast.Tuple(elts=stores, ctx=ast.Store())
    return [ast.Assign(targets=[target], value=value)]


def _clone(network, cls):
    """A new `cls` instance with `network`'s state: its registries (cells, Parameters, hooks) are copies, so
    cells set on the clone do not appear on the original; the cells and Parameters themselves are shared."""
    clone = cls.__new__(cls)
    for key, value in network.__dict__.items():
        clone.__dict__[key] = type(value)(value) if isinstance(value, dict) else value
    return clone
