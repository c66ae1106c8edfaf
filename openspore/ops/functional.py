"""1.x path `mindspore.ops.functional` (F.xxx): the functional API, plus the shape predicates MindSpore's graph code
asks of shape tuples.

MindSpore's module also answers with the rest of `ops` (`F.Roll`, `F.stft`, `F.random_categorical`, ...) and with
`F.P`, the primitive classes; those are looked up in `openspore.ops` on first use.

>>> from openspore.ops import functional as F
>>> F.roll is not None and F.P.Roll is F.Roll
True
>>> F.is_sequence_value_unknown((2, 3)), F.is_sequence_value_unknown((-1, 3)), F.is_sequence_shape_unknown((2, 3))
(False, True, False)
"""
import builtins

from .function import *  # noqa: F401,F403  (it has ops.any, ops.all: the builtins are named in full below)


def is_sequence_value_unknown(seq):
    """Whether some element of a shape tuple is not known (a dynamic dimension: None or negative)."""
    return builtins.any(v is None or (isinstance(v, int) and v < 0) for v in seq)


def is_sequence_shape_unknown(seq):
    """Whether the length of a shape tuple is not known (dynamic rank); a tuple in hand always has one."""
    return seq is None or (builtins.len(seq) == 1 and seq[0] == -2)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .. import ops
    if name == "P":
        return ops.operations
    if not hasattr(ops, name):
        raise AttributeError(f"module 'openspore.ops.functional' has no attribute {name!r}")
    return getattr(ops, name)
