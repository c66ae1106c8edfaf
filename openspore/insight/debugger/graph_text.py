"""The dumped graph files (`graphs/ms_output_trace_code_graph_{id}.ir`): read MindSpore's, write ours alike.

What the debugger needs from a graph file: its parameters (with `IsWeight`), and per kernel node its index,
operator type, input references (`%3`, `%para7_conv2.weight`), full scope name and code stack, one
`# In file path:line, cols/code/` line per frame, outermost frame first (MindSpore's order). Everything else
in the file (types, attributes) is skipped when reading.

>>> text = '''%para1_fc.weight: <Ref[Tensor[Float32]], (3, 4)> : IsWeight: true
... subgraph @kernel_graph0() {
...   %0(x) = PrimFunc_MatMul(%para2_inputs0, %para1_fc.weight) primitive_attrs: {}
...       # Fullname with scope: (Default/fc-Dense/MatMul-op0)
...       # In file /home/net.py:10, 4~20/        x = self.fc(x)/
... }'''
>>> g = parse_graph_text(text)
>>> node = g.nodes[0]
>>> node.op_type, node.full_name, node.inputs, str(node.stack[0])
('MatMul', 'Default/fc-Dense/MatMul-op0', ['%para2_inputs0', 'fc.weight'], '/home/net.py:10  x = self.fc(x)')
"""
import re
from collections import namedtuple

_PARAM = re.compile(r"^%para(\d+)_(\S+?):\s")
_CNODE = re.compile(r"^\s+%(\d+)\([^)]*\)\s=\s([A-Za-z_][\w]*)\((.*)$")
_REF = re.compile(r"%(para\d+_[^\s,()]+|\d+)")
_FULLNAME = re.compile(r"^\s*# Fullname with scope: \((.*)\)\s*$")
_IN_FILE = re.compile(r"^\s*#(?:\s\s[\s-])?\s?In file (?P<path>.+?):(?P<line>\d+)(?:~\d+)?(?:,\s*[\d~]+)?/(?P<code>.*)/\s*$")
_IN_FILE_OLD = re.compile(r"^\s*# In file (?P<path>.+?)\((?P<line>\d+)\)/(?P<code>.*)/\s*$")
_ATTR_START = re.compile(r"\)\s*(\{instance name|primitive_attrs|cnode_attrs|cnode_primal_attrs)")


class StackFrame(namedtuple("StackFrame", "file_path line_no code_line")):
    """One code-stack frame: `str()` is `path:line  code`, what a `file.py:52` query is matched against."""

    def __str__(self):
        return f"{self.file_path}:{self.line_no}  {self.code_line}".rstrip()


class GraphNodeText:
    """A kernel node read from a graph file."""

    __slots__ = ("index", "op_type", "full_name", "inputs", "stack")

    def __init__(self, index, op_type):
        self.index, self.op_type = index, op_type
        self.full_name, self.inputs, self.stack = "", [], []

    def __repr__(self):
        return f"GraphNodeText(%{self.index} {self.op_type} {self.full_name})"


class GraphText:
    """`params`: {name: is_weight}; `nodes`: kernel nodes in file order; `by_index`: {index: node}."""

    def __init__(self, params, nodes):
        self.params, self.nodes = params, nodes
        self.by_index = {n.index: n for n in nodes}


def parse_graph_text(text):
    """Parse the `.ir` text of a dumped graph (MindSpore's or openspore's)."""
    params, param_names, nodes, current = {}, {}, [], None
    for line in text.splitlines():
        m = _PARAM.match(line)
        if m:
            params[m.group(2)] = "IsWeight: true" in line or "is_parameter" in line
            param_names[f"para{m.group(1)}_{m.group(2)}"] = m.group(2)
            continue
        m = _CNODE.match(line)
        if m:
            op_type = m.group(2)
            if op_type.startswith("PrimFunc_"):
                op_type = op_type[len("PrimFunc_"):]
            current = GraphNodeText(int(m.group(1)), op_type)
            args = _ATTR_START.split(m.group(3), maxsplit=1)[0]
            current.inputs = [param_names.get(ref, ref if ref.startswith("para") else int(ref))
                              for ref in _REF.findall(args)]
            current.inputs = [f"%{r}" if isinstance(r, str) and r.startswith("para") else r for r in current.inputs]
            nodes.append(current)
            continue
        if current is None:
            continue
        m = _FULLNAME.match(line)
        if m:
            current.full_name = m.group(1)
            continue
        m = _IN_FILE.match(line) or _IN_FILE_OLD.match(line)
        if m:
            current.stack.append(StackFrame(m.group("path"), int(m.group("line")), m.group("code").strip()))
        elif line.strip() == "}":
            current = None
    for n in nodes:  # parameters referenced before their declaration line keep their raw `%paraN_` text
        n.inputs = [_param_name(i, param_names) for i in n.inputs]
    return GraphText(params, nodes)


def _param_name(ref, param_names):
    if isinstance(ref, str) and ref.startswith("%para"):
        return param_names.get(ref[1:], ref)
    return ref


def write_graph_text(graph_id, params, nodes):
    """MindSpore-style graph text. `params`: [(name, is_weight, shape, dtype)]; `nodes`: [(index, op_type,
    input_refs, full_name, stack, out_desc)] with input refs as ints (node indexes) or parameter names and
    `stack` a list of StackFrame, outermost first."""
    pid = {name: k + 1 for k, (name, *_rest) in enumerate(params)}
    out = [f"# IR entry: @kernel_graph{graph_id}", "# Total subgraphs: 1", "",
           f"# Total params: {len(params)}", "# Params:"]
    for name, is_weight, shape, dtype in params:
        out.append(f"%para{pid[name]}_{name}: <Tensor[{dtype}], {tuple(shape)}>  :  "
                   f"IsWeight: {'true' if is_weight else 'false'}")
    out += ["", f"subgraph @kernel_graph{graph_id}() {{"]
    for index, op_type, inputs, full_name, stack, out_desc in nodes:
        refs = ", ".join(f"%{i}" if isinstance(i, int) else f"%para{pid[i]}_{i}" if i in pid else str(i)
                         for i in inputs)
        out.append(f"  %{index}(out{index}) = {op_type}({refs})")
        if out_desc:
            out.append(f"      : {out_desc}")
        out.append(f"      # Fullname with scope: ({full_name})")
        for frame in stack:
            out.append(f"      # In file {frame.file_path}:{frame.line_no}/        {frame.code_line}/")
    out += ["}", ""]
    return "\n".join(out)
