"""Read the IR text that `print_graph` writes back into a Graph (tests write graphs as text; see printer.py).

    g = parse_graph('''
    graph @f(%0 x: f32[2]) {
      %1 = Neg(%0) : f32[2]
      return %1
    }''')

Primitives are looked up by name in the primitive table and built with the printed attributes; constants
are Python literals plus `dtype.float32`, `tensor([...], f32)`, `inf`/`nan`, `slice(...)` and numpy scalars.
A `weight "name"` node holds `weights[name]` when a mapping is given, otherwise None (the name is kept).
Subgraphs are referenced by name, so every graph name must be unique in the text.
"""
import ast
import re

import numpy as np

from ..common import dtype as mstype
from ..core.primitive import PRIMITIVES, AbstractTensor
from ..core.tensor import Tensor
from .node import Graph, Node
from .printer import SHORT_TO_DTYPE


class IRParseError(ValueError):
    """The IR text does not follow the printer's format; the message names the line."""


_HEADER = re.compile(r"graph @(?P<name>[^\s(]+)\((?P<params>.*)\)\s*\{\s*$")
_PARAM = re.compile(r"%(?P<num>\d+) (?P<name>[^:]*): (?P<rest>.*)$")
_NODE = re.compile(r"\s*%(?P<num>\d+) = ")
_RETURN = re.compile(r"\s*return %(?P<num>\d+)\s*$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REF = re.compile(r"%(\d+)")
_GRAPH_REF = re.compile(r"@([^\s(),{}]+)")
_WEIGHT = re.compile(r'weight "(?P<name>[^"]*)"')
_STRUCTURAL = ("make_tuple", "tuple_get_item", "if", "while", "call")


def parse_graph(text, weights=None):
    """parse_graph(text, weights=None) -> Graph: the first graph in `text`, with its subgraphs resolved."""
    parser = _Parser(text, weights or {})
    return parser.run()


class _PendingGraph:
    __slots__ = ("name", "inputs", "nodes", "output", "refs", "values")

    def __init__(self, name):
        self.name = name
        self.inputs, self.nodes, self.output, self.refs, self.values = [], [], None, [], {}


class _Parser:
    def __init__(self, text, weights):
        self.lines = text.splitlines()
        self.weights = weights
        self.lineno = 0

    def error(self, msg):
        line = self.lines[self.lineno - 1].strip() if 0 < self.lineno <= len(self.lines) else ""
        return IRParseError(f"IR text line {self.lineno}: {msg}\n  {line}")

    def run(self):
        pending, order = {}, []
        current = None
        for lineno, line in enumerate(self.lines, 1):
            self.lineno = lineno  # error() names the line being read
            stripped = line.strip()
            if not stripped:
                continue
            if current is None:
                m = _HEADER.match(stripped)
                if not m:
                    raise self.error("expected 'graph @name(...) {'")
                if m.group("name") in pending:
                    raise self.error(f"graph @{m.group('name')} is defined twice")
                current = _PendingGraph(m.group("name"))
                self._params(current, m.group("params"))
                pending[current.name] = current
                order.append(current)
            elif stripped == "}":
                if current.output is None:
                    raise self.error(f"graph @{current.name} has no 'return'")
                current = None
            elif stripped.startswith("return"):
                m = _RETURN.match(line)
                if not m:
                    raise self.error("expected 'return %N'")
                current.output = self._value(current, int(m.group("num")))
            else:
                self._node(current, line)
        if current is not None:
            raise self.error(f"graph @{current.name} is not closed with '}}'")
        if not order:
            raise IRParseError("IR text holds no graph")
        return self._resolve(order, pending)

    def _resolve(self, order, pending):
        """Subgraph references resolve by name; build Graph objects callees first (the text is a DAG)."""
        built = {}

        def build(pg, stack):
            if pg.name in built:
                return built[pg.name]
            if pg.name in stack:
                raise IRParseError(f"graph @{pg.name} refers to itself (recursion is not representable)")
            stack.add(pg.name)
            for node, names, lineno in pg.refs:
                subs = []
                for name in names:
                    if name not in pending:
                        self.lineno = lineno
                        raise self.error(f"unknown graph @{name}")
                    subs.append(build(pending[name], stack))
                node.graphs = tuple(subs)
            stack.discard(pg.name)
            g = Graph(pg.name, pg.inputs, pg.nodes, pg.output)
            built[pg.name] = g
            return g

        return build(order[0], set())

    # ---- pieces of a line -----------------------------------------------------------------------
    def _params(self, pg, text):
        for part in _split_top(text, ","):
            part = part.strip()
            if not part:
                continue
            m = _PARAM.match(part)
            if not m:
                raise self.error(f"bad graph parameter {part!r}; expected '%N name: abstract'")
            abstract, end = self._abstract(m.group("rest"), 0)
            if m.group("rest")[end:].strip():
                raise self.error(f"unexpected text after the abstract of parameter {part!r}")
            node = Node("input", abstract=abstract, name=m.group("name"))
            self._define(pg, int(m.group("num")), node)
            pg.inputs.append(node)

    def _define(self, pg, num, node):
        if num in pg.values:  # numbers are labels: hand-written text may skip or reorder them
            raise self.error(f"%{num} is defined twice in graph @{pg.name}")
        pg.values[num] = node

    def _value(self, pg, num):
        node = pg.values.get(num)
        if node is None:
            raise self.error(f"%{num} is used before it is defined in graph @{pg.name}")
        return node

    def _node(self, pg, line):
        m = _NODE.match(line)
        if not m:
            raise self.error("expected '%N = ...', 'return %N' or '}'")
        num, pos = int(m.group("num")), m.end()
        text = line
        kw = _IDENT.match(text, pos)
        if text.startswith('weight "', pos):
            wm = _WEIGHT.match(text, pos)
            if not wm:
                raise self.error("expected weight \"name\"")
            name = wm.group("name")
            node_fields = dict(op="weight", name=name, value=self.weights.get(name))
            pos = wm.end()
        elif text.startswith("const ", pos):
            end = _scan(text, pos + 6, ":")
            if end is None:
                raise self.error("a const needs ' : abstract' after its value")
            value = self._literal(text[pos + 6:end].strip())
            node_fields = dict(op="const", value=value)
            pos = end
        elif kw is None:
            raise self.error("expected an op name after '='")
        else:
            op, pos = kw.group(0), kw.end()
            attrs, index = {}, None
            if text.startswith("[", pos):
                if op == "tuple_get_item":
                    close = text.index("]", pos)
                    try:
                        index = int(text[pos + 1:close])
                    except ValueError:
                        raise self.error("tuple_get_item needs an integer index") from None
                    pos = close + 1
                else:
                    attrs, pos = self._attrs(text, pos + 1)
            if not text.startswith("(", pos):
                raise self.error(f"expected '(' after {op}")
            close = _scan(text, pos + 1, ")")
            if close is None:
                raise self.error("unclosed '('")
            inputs = self._refs(pg, text[pos + 1:close])
            pos = close + 1
            graph_names = []
            if op in ("if", "while", "call"):
                gm = _GRAPH_REF.match(text, _skip_spaces(text, pos))
                while gm:
                    graph_names.append(gm.group(1))
                    pos = gm.end()
                    gm = _GRAPH_REF.match(text, _skip_spaces(text, pos))
                want = 1 if op == "call" else 2
                if len(graph_names) != want:
                    raise self.error(f"'{op}' names {want} graph(s), got {len(graph_names)}")
            if op in _STRUCTURAL:
                node_fields = dict(op=op, inputs=inputs, index=index)
            else:
                node_fields = dict(op=self._primitive(op, attrs), inputs=inputs)
        rest = text[pos:]
        m2 = re.match(r"\s*:\s*", rest)
        if not m2:
            raise self.error("expected ' : abstract' after the node")
        abstract, end = self._abstract(rest, m2.end())
        scope, loc = self._comment(rest[end:])
        node = Node(abstract=abstract, scope=scope, loc=loc, **node_fields)
        if node.op == "const":
            node.value = _fit_shape(node.value, abstract)
        if node.op in ("if", "while", "call"):
            pg.refs.append((node, graph_names, self.lineno))
        self._define(pg, num, node)
        pg.nodes.append(node)

    def _refs(self, pg, text):
        if not text.strip():
            return []
        refs = []
        for part in text.split(","):
            m = _REF.fullmatch(part.strip())
            if not m:
                raise self.error(f"inputs must be values like %3, but got {part.strip()!r}")
            refs.append(self._value(pg, int(m.group(1))))
        return refs

    def _attrs(self, text, pos):
        attrs = {}
        while True:
            pos = _skip_spaces(text, pos)
            if text.startswith("]", pos):
                return attrs, pos + 1
            km = _IDENT.match(text, pos)
            if not km or not text.startswith("=", km.end()):
                raise self.error("expected 'name=value' in the attribute list")
            end = _scan(text, km.end() + 1, ",]")
            if end is None:
                raise self.error("unclosed attribute list")
            attrs[km.group(0)] = self._literal(text[km.end() + 1:end].strip())
            pos = end + 1 if text[end] == "," else end

    def _primitive(self, name, attrs):
        cls = PRIMITIVES.get(name)
        if cls is None:
            raise self.error(f"unknown primitive '{name}'")
        known = {k: v for k, v in attrs.items() if k in cls.attr_defaults}
        try:
            prim = cls(**known)
        except (TypeError, ValueError) as exc:
            raise self.error(f"cannot build {name} with attributes {known}: {exc}") from None
        for k, v in attrs.items():
            if k not in cls.attr_defaults:
                prim.add_prim_attr(k, v)
        return prim

    def _literal(self, text):
        try:
            return _eval(ast.parse(text, mode="eval").body)
        except (SyntaxError, ValueError, KeyError, TypeError) as exc:
            raise self.error(f"cannot read the value {text!r}: {exc}") from None

    def _abstract(self, text, pos):
        pos = _skip_spaces(text, pos)
        if text.startswith("(", pos):
            items, pos = [], _skip_spaces(text, pos + 1)
            while not text.startswith(")", pos):
                item, pos = self._abstract(text, pos)
                items.append(item)
                pos = _skip_spaces(text, pos)
                if text.startswith(",", pos):
                    pos = _skip_spaces(text, pos + 1)
                elif not text.startswith(")", pos):
                    raise self.error("expected ',' or ')' in a tuple abstract")
            return tuple(items), pos + 1
        m = re.compile(r"([a-z0-9]+)(?:\[([-0-9, ]*)\])?").match(text, pos)
        if not m:
            raise self.error(f"expected an abstract such as f32[2,3], (…) or py at {text[pos:pos + 20]!r}")
        if m.group(2) is None:
            if m.group(1) != "py":
                raise self.error(f"unknown abstract {m.group(1)!r}")
            return None, m.end()
        dtype = SHORT_TO_DTYPE.get(m.group(1))
        if dtype is None:
            raise self.error(f"unknown dtype {m.group(1)!r} in an abstract")
        dims = tuple(int(d) for d in m.group(2).split(",") if d.strip())
        return AbstractTensor(dims, dtype), m.end()

    def _comment(self, text):
        text = text.strip()
        if not text:
            return "", ""
        if not text.startswith("#"):
            raise self.error(f"unexpected text after the abstract: {text!r}")
        body = text[1:]
        body = body[1:] if body.startswith(" ") else body
        scope, sep, loc = body.partition(" @ ")
        return scope.strip(), loc.strip() if sep else ""


# ---- scanning ---------------------------------------------------------------------------------------
_OPEN, _CLOSE = "([{", ")]}"


def _skip_spaces(text, pos):
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _scan(text, pos, stops):
    """Index of the first `stops` character at bracket depth 0 from `pos`, skipping string literals."""
    depth, n = 0, len(text)
    while pos < n:
        c = text[pos]
        if c in "'\"":
            pos = _skip_string(text, pos)
            continue
        if depth == 0 and c in stops:
            return pos
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
        pos += 1
    return None


def _skip_string(text, pos):
    quote, pos = text[pos], pos + 1
    while pos < len(text) and text[pos] != quote:
        pos += 2 if text[pos] == "\\" else 1
    return pos + 1


def _split_top(text, sep):
    parts, start = [], 0
    while True:
        end = _scan(text, start, sep)
        if end is None:
            parts.append(text[start:])
            return parts
        parts.append(text[start:end])
        start = end + 1


# ---- constant values --------------------------------------------------------------------------------
_NAMES = {"None": None, "True": True, "False": False, "inf": float("inf"), "nan": float("nan"),
          "Ellipsis": Ellipsis}


def _eval(node):
    """A literal_eval that also reads dtype.X, tensor(data, f32), slice(...), inf/nan and np.<scalar>(v)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in _NAMES:
            return _NAMES[node.id]
        if node.id in SHORT_TO_DTYPE:  # the dtype argument of tensor(data, f32)
            return node.id
        raise ValueError(f"unknown name {node.id!r}")
    if isinstance(node, ast.Tuple):
        return tuple(_eval(e) for e in node.elts)
    if isinstance(node, ast.List):
        return [_eval(e) for e in node.elts]
    if isinstance(node, ast.Set):
        return {_eval(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        return {_eval(k): _eval(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):  # complex literals 1+2j
        left, right = _eval(node.left), _eval(node.right)
        if not isinstance(right, complex):
            raise ValueError("only complex literals may use + or -")
        return left + right if isinstance(node.op, ast.Add) else left - right
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "dtype":
        return mstype._lookup(node.attr)
    if isinstance(node, ast.Call) and not node.keywords:
        args = [_eval(a) for a in node.args]
        func = node.func
        if isinstance(func, ast.Name) and func.id == "tensor" and len(args) == 2:
            return _tensor(args[0], args[1])
        if isinstance(func, ast.Name) and func.id == "slice":
            return slice(*args)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np" \
                and len(args) == 1 and isinstance(getattr(np, func.attr, None), type) \
                and issubclass(getattr(np, func.attr), np.generic):
            return getattr(np, func.attr)(args[0])
    raise ValueError(f"unsupported syntax {ast.dump(node)[:60]}")


def _tensor(data, dtype_name):
    dtype = SHORT_TO_DTYPE.get(dtype_name) if isinstance(dtype_name, str) else None
    if dtype is None:
        raise ValueError(f"unknown tensor dtype {dtype_name!r}")
    return Tensor(np.array(data, dtype=dtype.np_dtype), dtype)


def _fit_shape(value, abstract):
    """`tensor([], f32)` loses the shape of empty arrays; the abstract restores it."""
    if isinstance(abstract, AbstractTensor) and hasattr(value, "asnumpy") and value.shape != abstract.shape \
            and value.size == abstract.size == 0:
        return Tensor(value.asnumpy().reshape(abstract.shape), value.dtype)
    return value
