"""IR text: one line per node, subgraphs after their parent. The parser (parser.py) reads it back.

    graph @net(%0 x: f32[2,3]) {
      %1 = weight "fc.weight" : f32[4,3]
      %2 = MatMul[transpose_a=False, transpose_b=True](%0, %1) : f32[2,4]  # Default/net-Net/fc-Dense/MatMul-op2 @ net.py:12
      return %2
    }

Value numbers are local to a graph (inputs first, then nodes in order), so printing is deterministic.
"""
import numpy as np

from ..common import dtype as mstype
from ..core.primitive import AbstractTensor

_SHORT = {mstype.float16: "f16", mstype.float32: "f32", mstype.float64: "f64", mstype.bfloat16: "bf16",
          mstype.int8: "i8", mstype.int16: "i16", mstype.int32: "i32", mstype.int64: "i64",
          mstype.uint8: "u8", mstype.uint16: "u16", mstype.uint32: "u32", mstype.uint64: "u64",
          mstype.bool_: "bool", mstype.complex64: "c64", mstype.complex128: "c128"}
SHORT_TO_DTYPE = {v: k for k, v in _SHORT.items()}


def dtype_short(dtype):
    return _SHORT[dtype]


def abstract_text(abstract):
    if abstract is None:
        return "py"
    if isinstance(abstract, AbstractTensor):
        return f"{_SHORT[abstract.dtype]}[{','.join(str(s) for s in abstract.shape)}]"
    if isinstance(abstract, tuple):
        return "(" + ", ".join(abstract_text(a) for a in abstract) + ")"
    return "py"


def value_text(value):
    """Constants in a form `ast.literal_eval` (plus dtype names and `tensor(...)`) reads back."""
    if isinstance(value, mstype.Type):
        return f"dtype.{value._repr}"
    if isinstance(value, np.ndarray) or hasattr(value, "asnumpy"):
        arr = value.asnumpy() if hasattr(value, "asnumpy") else value
        dt = mstype.nptype_to_dtype(arr.dtype)
        return f"tensor({arr.tolist()!r}, {_SHORT[dt]})"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(value_text(v) for v in value)
        if isinstance(value, tuple) and len(value) == 1:
            inner += ","
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    return repr(value)


def _attrs_text(attrs):
    return ", ".join(f"{k}={value_text(v)}" for k, v in attrs.items())


def print_graph(graph, with_debug=True):
    """The graph and all its subgraphs as text."""
    lines, pending, done = [], [graph], set()
    while pending:
        g = pending.pop(0)
        if id(g) in done:
            continue
        done.add(id(g))
        lines.extend(_graph_lines(g, with_debug))
        for n in g.nodes:
            pending.extend(n.graphs)
    return "\n".join(lines)


def _graph_lines(g, with_debug):
    number = {}
    for n in list(g.inputs) + list(g.nodes):
        number[n.id] = len(number)
    ref = lambda n: f"%{number[n.id]}" if n.id in number else f"%?{n.id}"  # noqa: E731
    params = ", ".join(f"{ref(n)} {n.name}: {abstract_text(n.abstract)}" for n in g.inputs)
    out = [f"graph @{g.name}({params}) {{"]
    for n in g.nodes:
        args = ", ".join(ref(i) for i in n.inputs)
        if n.op == "weight":
            body = f'weight "{n.name}"'
        elif n.op == "const":
            body = f"const {value_text(n.value)}"
        elif n.op == "tuple_get_item":
            body = f"tuple_get_item[{n.index}]({args})"
        elif n.op in ("if", "while", "call"):
            names = " ".join(f"@{sub.name}" for sub in n.graphs)
            body = f"{n.op}({args}) {names}"
        elif n.op == "make_tuple":
            body = f"make_tuple({args})"
        else:
            attrs = _attrs_text(n.attrs)
            body = f"{n.op.name}[{attrs}]({args})" if attrs else f"{n.op.name}({args})"
        line = f"  {ref(n)} = {body} : {abstract_text(n.abstract)}"
        if with_debug and (n.scope or n.loc):
            line += f"  # {n.scope}" + (f" @ {n.loc}" if n.loc else "")
        out.append(line)
    out.append(f"  return {ref(g.output)}")
    out.append("}")
    return out
