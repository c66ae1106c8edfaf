"""`set_dump(target, enabled=True)`: mark a Cell or a Primitive for dumping with `dump_mode: 2`.

A marked Cell dumps the kernels of its forward computation and of its backward (the kernels its gradient makes),
sub-cells included; `set_dump(sub_cell, False)` takes a part back out (the innermost mark decides). A marked
Primitive instance dumps that operator, whichever cell calls it; its own mark outranks its cell's. Marks are read
when a graph is compiled (call `set_dump` before the first step, as in MindSpore), and only a dump config with
`dump_mode: 2` looks at them.

How marks reach the dump: tracing records the scope name of every marked cell it enters in the graph's
`flags["dump_marks"]` ({scope: enabled}); the dump writer matches a kernel's scope against them, a backward
kernel by its forward node's cell (`Gradients/<cell>/Grad_<Prim>/...`), and reads a primitive's own mark off
the instance (`dump_flag`).

>>> from openspore import nn
>>> net = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
>>> set_dump(net[0])
>>> net[0].dump_flag, "dump_flag" in net[1].__dict__
(True, False)
>>> marked_in_scope("Gradients/Default/0-Dense/Grad_Dense/DenseGrad-op9", {"Default/0-Dense": True})
True
"""
from ..compiler.frontend.scope import is_cell
from ..core.primitive import Primitive


def set_dump(target, enabled=True):
    """Enable (or with `enabled=False` disable) dumping of `target`, a Cell or a Primitive, and its contents."""
    if not isinstance(enabled, bool):
        raise ValueError(f"set_dump: 'enabled' should be a bool, but got {type(enabled).__name__} {enabled!r}.")
    if isinstance(target, Primitive):
        if target.__dict__.get("_shared"):
            raise ValueError(f"set_dump: {target!r} is a shared instance used all over openspore; build your own "
                             f"with ops.{target.name}(...) to mark it for dumping.")
        target.__dict__["dump_flag"] = enabled
        return
    if not is_cell(target):
        raise ValueError(f"set_dump: 'target' should be a Cell or a Primitive, but got {type(target).__name__}.")
    for cell in _cells(target):
        cell.__dict__["dump_flag"] = enabled
        for value in cell.__dict__.values():  # the cell's own primitive instances follow it
            if isinstance(value, Primitive) and not value.__dict__.get("_shared"):
                value.__dict__["dump_flag"] = enabled


def _cells(root):
    out, stack, seen = [], [root], set()
    while stack:
        cell = stack.pop()
        if id(cell) in seen:
            continue
        seen.add(id(cell))
        out.append(cell)
        stack.extend(c for c in cell.__dict__["_cells"].values() if c is not None)
    return out


def forward_cell_scope(scope):
    """The cell scope a kernel belongs to: `Default/fc-Dense/MatMul-op3` -> `Default/fc-Dense`; a backward
    kernel's is its forward node's cell: `Gradients/Default/fc-Dense/Grad_MatMul/MatMul-op7` -> `Default/fc-Dense`."""
    head = scope.rpartition("/")[0]
    if scope.startswith("Gradients/"):
        head = head[len("Gradients/"):]
        cell, _, last = head.rpartition("/")
        if last.startswith("Grad_"):
            head = cell
    return head


def marked_in_scope(scope, marks):
    """Whether the innermost marked cell around the kernel named `scope` is marked for dumping."""
    cell = forward_cell_scope(scope)
    best, flag = -1, False
    for marked, enabled in marks.items():
        if (cell == marked or cell.startswith(marked + "/")) and len(marked) > best:
            best, flag = len(marked), enabled
    return flag
