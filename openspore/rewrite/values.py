"""The values and kinds of the rewrite API: `ScopedValue` (a name such as `self.dense`, a constant, or a
container of them), `ValueType` (which of those it is) and `NodeType` (what a statement node does).

>>> from openspore.rewrite import ScopedValue, ValueType
>>> v = ScopedValue.create_naming_value("dense", "self")
>>> str(v), v.type == ValueType.NamingValue
('self.dense', True)
>>> ScopedValue.create_variable_value((1, 2.0)).type
<ValueType.TupleValue: 1>
"""
import ast
from enum import Enum

__all__ = ["ValueType", "NodeType", "ScopedValue"]


class ValueType(Enum):
    """What a `ScopedValue` holds."""
    ConstantValue = 0
    TupleValue = 1
    ListValue = 2
    DictValue = 3
    NamingValue = 4
    CustomObjValue = 5
    UnsupportedValue = 6


class NodeType(Enum):
    """What a statement of `construct` does."""
    Unknown = 0
    CallCell = 1        # targets = self.cell(args)
    CallPrimitive = 2   # targets = self.primitive(args)
    CallModule = 3
    CallFunction = 4    # targets = some.function(args)
    CallMethod = 5      # targets = self.method(args), a method of the network itself
    Python = 6          # any other statement, kept as written
    Input = 7           # an argument of construct
    Output = 8          # the return statement
    Tree = 9            # a call of a user-defined sub-network, with its own SymbolTree
    CellContainer = 10  # a call of a SequentialCell
    MathOps = 11        # targets = a <op> b
    ControlFlow = 12    # if / for / while, kept as written


_CONSTANTS = (int, float, str, bool, complex, bytes, type(None))


class ScopedValue:
    """`ScopedValue(arg_type, scope="", value=None)`: one argument, target or attribute of a node."""

    def __init__(self, arg_type, scope="", value=None):
        if not isinstance(arg_type, ValueType):
            raise TypeError(f"For 'ScopedValue', 'arg_type' must be a ValueType, but got {type(arg_type).__name__}.")
        if not isinstance(scope, str):
            raise TypeError(f"For 'ScopedValue', 'scope' must be a str, but got {type(scope).__name__}.")
        self.type = arg_type
        self.scope = scope
        self.value = value

    @classmethod
    def create_variable_value(cls, value):
        """A constant (int, float, str, bool, None), a tuple/list/dict of them, or any other object."""
        if isinstance(value, ScopedValue):
            return value
        if isinstance(value, _CONSTANTS):
            return cls(ValueType.ConstantValue, "", value)
        if isinstance(value, tuple):
            return cls(ValueType.TupleValue, "", tuple(cls.create_variable_value(v) for v in value))
        if isinstance(value, list):
            return cls(ValueType.ListValue, "", [cls.create_variable_value(v) for v in value])
        if isinstance(value, dict):
            return cls(ValueType.DictValue, "", {k: cls.create_variable_value(v) for k, v in value.items()})
        return cls(ValueType.CustomObjValue, "", value)

    @classmethod
    def create_naming_value(cls, name: str, scope: str = ""):
        """A variable `name`, or the attribute `scope.name` (e.g. `self.dense`)."""
        if not isinstance(name, str):
            raise TypeError(f"For 'create_naming_value', 'name' must be a str, but got {type(name).__name__}.")
        return cls(ValueType.NamingValue, scope, name)

    @staticmethod
    def create_name_values(names, scopes=None):
        """Naming values for several names (`scopes`, when given, one per name)."""
        if not isinstance(names, (list, tuple)):
            raise TypeError(f"For 'create_name_values', 'names' must be a list or tuple, got {type(names).__name__}.")
        if scopes is not None and len(scopes) != len(names):
            raise ValueError(f"For 'create_name_values', 'scopes' has {len(scopes)} entries for {len(names)} names.")
        scopes = scopes if scopes is not None else [""] * len(names)
        return [ScopedValue.create_naming_value(n, s) for n, s in zip(names, scopes)]

    def __str__(self):
        if self.type == ValueType.NamingValue:
            return f"{self.scope}.{self.value}" if self.scope else str(self.value)
        if self.type == ValueType.ConstantValue and isinstance(self.value, str):
            return repr(self.value)
        if self.type == ValueType.TupleValue:
            inner = ", ".join(str(v) for v in self.value)
            return f"({inner},)" if len(self.value) == 1 else f"({inner})"
        if self.type == ValueType.ListValue:
            return "[" + ", ".join(str(v) for v in self.value) + "]"
        if self.type == ValueType.DictValue:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in self.value.items()) + "}"
        if self.type == ValueType.UnsupportedValue:
            return self.value
        return str(self.value)

    __repr__ = __str__

    def __eq__(self, other):
        if not isinstance(other, ScopedValue):
            return False
        return (self.type, self.scope) == (other.type, other.scope) and (
            self.value is other.value or self.value == other.value)

    def __hash__(self):
        return hash((self.type, self.scope, str(self)))

    # ---- conversion to and from Python syntax (used by the parser and the code writer) -------------------------
    @classmethod
    def from_ast(cls, node):
        """The value an expression of `construct` stands for; anything else is kept as its source text."""
        if isinstance(node, ast.Name):
            return cls.create_naming_value(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return cls.create_naming_value(node.attr, node.value.id)
        if isinstance(node, ast.Constant):
            return cls(ValueType.ConstantValue, "", node.value)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [cls.from_ast(e) for e in node.elts]
            if isinstance(node, ast.Tuple):
                return cls(ValueType.TupleValue, "", tuple(items))
            return cls(ValueType.ListValue, "", items)
        return cls(ValueType.UnsupportedValue, "", ast.unparse(node))

    def to_ast(self, bind_object):
        """The expression for this value; `bind_object(obj)` names an object the generated code must reach."""
        t = self.type
        if t == ValueType.NamingValue:
            if self.scope:
                return ast.Attribute(value=ast.Name(id=self.scope, ctx=ast.Load()), attr=self.value, ctx=ast.Load())
            return ast.Name(id=self.value, ctx=ast.Load())
        if t == ValueType.ConstantValue:
            return ast.Constant(value=self.value)
        if t in (ValueType.TupleValue, ValueType.ListValue):
            elts = [v.to_ast(bind_object) for v in self.value]
            kind = ast.Tuple if t == ValueType.TupleValue else ast.List
            return kind(elts=elts, ctx=ast.Load())
        if t == ValueType.DictValue:
            return ast.Dict(keys=[ast.Constant(value=k) for k in self.value],
                            values=[v.to_ast(bind_object) for v in self.value.values()])
        if t == ValueType.CustomObjValue:
            return ast.Name(id=bind_object(self.value), ctx=ast.Load())
        return ast.parse(self.value, mode="eval").body


def as_scoped(value, where):
    """A ScopedValue from a ScopedValue or a plain str (a variable name)."""
    if isinstance(value, ScopedValue):
        return value
    if isinstance(value, str):
        return ScopedValue.create_naming_value(value)
    raise TypeError(f"For '{where}', expected a ScopedValue or a str, but got {type(value).__name__}.")
