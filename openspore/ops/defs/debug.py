"""`Print`: writes its inputs to stdout when it runs, one per line, in PyNative and in compiled graphs.

In a graph (`print(...)` or `ops.Print()` inside a compiled `construct`) it is a node like any other, run each time
the graph runs, at its place in the program: it is a side effect, so dead-code elimination keeps it and common
subexpression elimination never merges two of them (`side_effect`). Its `writes_input` is False: it reads its
inputs, unlike the in-place updates that share the flag.

The two layouts are MindSpore 2.10's (checked against it):

* PyNative: a Tensor as its repr (`Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])`,
  0-d ones included), everything else as Python's `str`;
* graph: a Tensor of rank >= 1 without commas (`Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00
  2.00000000e+00])`), a 0-d one as its bare value, numbers as a C++ stream writes them (`True` as 1, 2.5, 1e-09,
  1.23457e+08), a tuple of numbers as `(1, 2)`.

>>> import numpy as np, openspore as ms
>>> _ = ms.ops.Print()("x:", ms.Tensor(np.array([1, 2], np.int32)), 3)
x:
Tensor(shape=[2], dtype=Int32, value= [1, 2])
3
>>> print(graph_text(np.array([[1.5, 2.0]], np.float32), ms.float32))
Tensor(shape=[1, 2], dtype=Float32, value=
[[ 1.50000000e+00  2.00000000e+00]])
"""
import sys

import numpy as np

from ...common import dtype as mstype
from ...core.primitive import AbstractTensor, Primitive, Sample, register
from ...core.tensor_format import format_values
from ._export import not_exportable
from ._util import rand_float

_NONDIFF = "printing: it writes its inputs to stdout and computes nothing to differentiate"


def scalar_text(value):
    """A Python (or 0-d tensor) number as MindSpore's compiled Print writes it: a C++ stream's default layout."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def graph_text(array, dtype):
    """A tensor's value (numpy `array` of openspore dtype `dtype`) as MindSpore's compiled Print writes it."""
    if array.ndim == 0:
        return scalar_text(array.item())
    head = f"Tensor(shape={list(array.shape)}, dtype={dtype}, value="
    if array.size == 0:
        return head + "[])"
    return head + ("" if array.ndim == 1 else "\n") + format_values(array, sep=" ") + ")"


def pynative_text(array, dtype):
    """A tensor's value as PyNative Print writes it: the Tensor's repr."""
    from ...core.tensor import Tensor
    return repr(Tensor(array, dtype=dtype))


def _is_number(value):
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def graph_value_text(value):
    """A Python value given to a compiled Print: a tuple/list of numbers as `(1, 2)`, a number as `scalar_text`,
    the rest as `str` (a string as it is). Tuples of anything else are printed item by item before this."""
    if isinstance(value, (tuple, list)) and all(_is_number(v) for v in value):
        return "(" + ", ".join(scalar_text(v) for v in value) + ")"
    if _is_number(value):
        return scalar_text(value)
    return str(value)


def _is_array(value):
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, (str, mstype.Type))


@register
class Print(Primitive):
    """Print()(*inputs): write each input on its own line (PyNative: Tensors as their repr; graph: see the module
    docstring). Returns a (1,) int32 tensor, as MindSpore's Print does."""
    side_effect = True       # printing is the point: never dropped, merged or reordered
    writes_input = False     # ... but it writes into none of its inputs
    differentiable = False
    nondiff_reason = _NONDIFF
    infer_reads_signature_only = False
    layout = "pynative"

    def graph_form(self):
        """The primitive a traced graph records for this one (compiler/frontend/tracer.py)."""
        return _GRAPH_PRINT

    def infer(self, *inputs):
        return AbstractTensor((1,), mstype.int32)  # any values: what is not a tensor prints as text

    def _lines(self, values, host):
        text_of = graph_text if self.layout == "graph" else pynative_text
        lines = []

        def add(value):
            if _is_array(value):
                lines.append(text_of(*host(value)))
            elif isinstance(value, (tuple, list)) and not (self.layout == "graph" and all(map(_is_number, value))):
                if self.layout == "graph" or any(_is_array(v) for v in value):
                    for v in value:
                        add(v)
                else:
                    lines.append(str(tuple(value)))
            else:
                lines.append(graph_value_text(value) if self.layout == "graph" else str(value))
        for value in values:
            add(value)
        # One write for the whole call: a Print's lines stay together when other threads print too.
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")

    def numpy(self, np_, *inputs):
        self._lines(inputs, lambda a: (np.asarray(a), mstype.nptype_to_dtype(np.asarray(a).dtype)))
        return np.zeros((1,), np.int32)

    def torch(self, torch, *inputs):
        def host(t):
            if t.dtype is torch.bfloat16:
                return t.detach().float().cpu().numpy(), mstype.bfloat16
            array = t.detach().cpu().numpy()
            return array, mstype.nptype_to_dtype(array.dtype)
        self._lines(inputs, host)
        return torch.zeros((1,), dtype=torch.int32)

    @classmethod
    def samples(cls, rng):
        yield Sample("x:", rand_float(rng, (2, 3)))


class GraphPrint(Print):
    """The Print a compiled graph holds (`print(...)` or `ops.Print()` in a traced construct): MindSpore's graph
    layout. Not in the primitive table: the tracer makes it from `Print` (`graph_form`)."""
    name = "Print"
    layout = "graph"


_GRAPH_PRINT = GraphPrint()

not_exportable("printing to stdout: inference files hold the computation, not the debugging output", Print)

