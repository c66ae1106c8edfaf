"""`ops.composite`'s augmented-assignment overloads (`augassign_add` for `x += y`, ... `augassign_mod`) and
`hyper_add` (element-wise addition over nested tuples/lists of tensors and numbers), as MultitypeFuncGraphs.

Each follows Python's operator for the pair of types it gets: numbers give numbers (`augassign_div(7, 2)` is
3.5), tensors give tensors, lists and tuples concatenate under `augassign_add`.

>>> from openspore.ops import composite as C
>>> C.augassign_add(7, 2), C.augassign_div(7, 2), C.augassign_add([1], [2])
(9, 3.5, [1, 2])
"""
import operator

from .composite import MultitypeFuncGraph

_PAIRS = (("Number", "Number"), ("Tensor", "Tensor"), ("Tensor", "Number"), ("Number", "Tensor"),
          ("Bool", "Bool"), ("Number", "Bool"), ("Bool", "Number"))
_SEQUENCE_PAIRS = (("List", "List"), ("Tuple", "Tuple"), ("String", "String"))


def _overloaded(name, op, sequences=True):
    # Sequences reach Python's operator too: `+` concatenates them, the others raise its TypeError (as MindSpore's
    # do: `augassign_sub([1], [2])` is "unsupported operand type(s) for -").
    graph = MultitypeFuncGraph(name)
    for pair in _PAIRS + (_SEQUENCE_PAIRS if sequences else ()):
        graph.register(*pair)(op)
    return graph


augassign_add = _overloaded("augassign_add", operator.add)
augassign_sub = _overloaded("augassign_sub", operator.sub)
augassign_mul = _overloaded("augassign_mul", operator.mul)
augassign_div = _overloaded("augassign_div", operator.truediv)
augassign_floordiv = _overloaded("augassign_floordiv", operator.floordiv)
augassign_mod = _overloaded("augassign_mod", operator.mod)


def _hyper_add_sequence(xs, ys):
    if len(xs) != len(ys):
        raise ValueError(f"For 'hyper_add', the sequences must have the same length, but got {len(xs)} and "
                         f"{len(ys)}.")
    return type(xs)(hyper_add(x, y) for x, y in zip(xs, ys))


hyper_add = _overloaded("hyper_add", operator.add, sequences=False)
hyper_add.register("Tuple", "Tuple")(_hyper_add_sequence)
hyper_add.register("List", "List")(_hyper_add_sequence)
