"""Scope names of traced nodes, from the Cell call stack: `Default/<attr>-<Class>/.../<PrimName>-op<N>`.

The traced root contributes nothing: tracing `LeNet5().construct` gives `Default/conv1-Conv2d/Conv2D-op0`, and
tracing a `TrainOneStepCell` whose `network` attribute holds the LeNet5 gives
`Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0`, as MindSpore names them. A cell that
is not an attribute of the calling cell (created or passed in at call time) is named by its class alone.
`N` counts the ops of one trace (subgraphs included) from 0.

Backward nodes are named after the forward node they differentiate, as MindSpore names them:
`Gradients/<the forward node's cell scope>/Grad_<ForwardPrim>/<Prim>-op<N>` (`gradient_scope`).
"""
import itertools
import re

_OP_NAME = re.compile(r"(^|/)[^/]+-op\d+$")  # the last segment of a node's full name


def is_cell(obj):
    """Duck-typed `nn.Cell` check (the compiler layer sits below nn)."""
    d = getattr(obj, "__dict__", None)
    return d is not None and "_cells" in d and "_plain_call" in d and callable(getattr(obj, "construct", None))


def _path_to(parent, cell):
    """[(attr, child), ...] from `parent` down to `cell` through registered child cells, or None."""
    stack, seen = [(parent, [])], {id(parent)}
    while stack:
        node, path = stack.pop(0)
        for name, child in node.__dict__["_cells"].items():
            if child is None or id(child) in seen:
                continue
            step = path + [(name, child)]
            if child is cell:
                return step
            seen.add(id(child))
            stack.append((child, step))
    return None


def child_segment(parent, cell):
    """The scope text a call of `cell` adds below `parent` (`fc-Dense`, `layers-CellList/0-Dense`); nothing for
    the traced root cell itself."""
    if cell is parent:
        return ""
    path = _path_to(parent, cell) if parent is not None and is_cell(parent) else None
    if not path:
        return type(cell).__name__
    return "/".join(f"{name}-{type(child).__name__}" for name, child in path)


class ScopeStack:
    """The cells being called while tracing, and the op counter; shared by a trace and all its subgraphs."""

    def __init__(self, root_cell=None):
        self.cells = [root_cell]
        self.names = ["Default"]
        self._ops = itertools.count()
        self.dump_marks = {}  # scope name -> enabled, for cells marked by `set_dump` (runtime/dump_marks.py)
        if root_cell is not None and "dump_flag" in root_cell.__dict__:
            self.dump_marks["Default"] = root_cell.__dict__["dump_flag"]

    @property
    def current(self):
        return self.names[-1]

    def op_scope(self, op_name, scope=None):
        """The full name of the next `op_name` node, in `scope` (default: the current cell's)."""
        return f"{self.names[-1] if scope is None else scope}/{op_name}-op{next(self._ops)}"

    def enter(self, cell):
        segment = child_segment(self.cells[-1], cell)
        self.names.append(f"{self.names[-1]}/{segment}" if segment else self.names[-1])
        self.cells.append(cell)
        if "dump_flag" in cell.__dict__:
            self.dump_marks[self.names[-1]] = cell.__dict__["dump_flag"]

    def exit(self):
        self.names.pop()
        self.cells.pop()


def gradient_scope(forward_scope, forward_op):
    """Where the backward nodes of a forward node go: `Default/net-Net/fc-Dense/MatMul-op3`, `MatMul` ->
    `Gradients/Default/net-Net/fc-Dense/Grad_MatMul`.

    >>> gradient_scope("Default/fc-Dense/MatMul-op3", "MatMul")
    'Gradients/Default/fc-Dense/Grad_MatMul'
    """
    cell = forward_scope.rpartition("/")[0] if _OP_NAME.search(forward_scope) else forward_scope
    return f"Gradients/{cell or 'Default'}/Grad_{forward_op}"
