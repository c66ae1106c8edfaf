"""1.x path `mindspore.ops.composite` (`C.GradOperation`, `C.HyperMap`, `C.MultitypeFuncGraph`, ...).

>>> from openspore.ops import composite as C
>>> add = C.MultitypeFuncGraph("add")
>>> @add.register("Number", "Number")
... def _(x, y):
...     return x + y
>>> C.HyperMap()(add, (1, 2), (10, 20))
(11, 22)
"""
from ..core.grad_api import GradOperation  # noqa: F401
from ..core.tensor import Tensor
from .function import (batch_dot, count_nonzero, cummin, dot, gamma, laplace, matmul, mm, multinomial,  # noqa: F401
                       normal, ones_like, poisson, repeat_elements, repeat_interleave, sequence_mask, tensor_dot,
                       uniform, vecdot, zeros_like)

__all__ = ["GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "add_flags", "batch_dot", "count_nonzero",
           "cummin", "dot", "gamma", "laplace", "matmul", "mm", "multinomial", "normal", "ones_like", "poisson",
           "repeat_elements", "repeat_interleave", "sequence_mask", "tensor_dot", "uniform", "vecdot", "zeros_like", "zip_operation"]

# MindSpore's type names for `MultitypeFuncGraph.register`, and the Python values each one accepts exactly.
_TYPE_TESTS = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "Number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "Int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "Int64": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "Float": lambda v: isinstance(v, float),
    "Float32": lambda v: isinstance(v, float),
    "Float64": lambda v: isinstance(v, float),
    "Bool": lambda v: isinstance(v, bool),
    "String": lambda v: isinstance(v, str),
    "Tuple": lambda v: isinstance(v, tuple),
    "List": lambda v: isinstance(v, list),
    "Dictionary": lambda v: isinstance(v, dict),
    "Slice": lambda v: isinstance(v, slice),
    "None": lambda v: v is None,
    "Function": callable,
}
# Width-specific number names a Python scalar only matches loosely: MindSpore falls back to them (as to
# "Number" for a bool) when no overload matches exactly, e.g. `@f.register("Int32", "Int32")` called with (1, 2).
_LOOSE_TESTS = {
    **{name: _TYPE_TESTS["Int"] for name in ("Int8", "Int16", "Int32", "UInt", "UInt8", "UInt16", "UInt32",
                                             "UInt64")},
    **{name: _TYPE_TESTS["Float"] for name in ("Float16", "BFloat16")},
    "Number": lambda v: isinstance(v, (int, float)),
}
_KNOWN_NAMES = set(_TYPE_TESTS) | set(_LOOSE_TESTS)


def _matches(tests, types, args):
    return len(types) == len(args) and all(t in tests and tests[t](a) for t, a in zip(types, args))


class MultitypeFuncGraph:
    """A function overloaded on its arguments' types: `@f.register("Tensor", "Number")` adds one overload.

    A call takes the first overload whose type names all match exactly; failing that the only overload of that
    arity; failing that the first whose names match loosely (a Python int for "Int32", a bool for "Number"), as
    MindSpore resolves them. No match raises ValueError, an unknown type name RuntimeError, as MindSpore's do.
    """

    def __init__(self, name, read_value=False):
        self.name = name
        self.read_value = read_value
        self.entries = []

    def register(self, *type_names):
        for t in type_names:
            if not isinstance(t, str) or t not in _KNOWN_NAMES:
                raise RuntimeError(f"Unsupported type name: {t}! (MultitypeFuncGraph {self.name!r} knows "
                                   f"{sorted(_KNOWN_NAMES)}.)")

        def deco(fn):
            self.entries.append((tuple(type_names), fn))
            return fn
        return deco

    def __call__(self, *args):
        for types, fn in self.entries:
            if _matches(_TYPE_TESTS, types, args):
                return fn(*args)
        same_arity = [fn for types, fn in self.entries if len(types) == len(args)]
        if len(same_arity) == 1:
            return same_arity[0](*args)
        loose = {**_TYPE_TESTS, **_LOOSE_TESTS}
        for types, fn in self.entries:
            if _matches(loose, types, args):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        raise ValueError(f"For 'MultitypeFuncGraph', cannot find fn match given args. Got {self.name!r} overloads "
                         f"{[t for t, _ in self.entries]}, and argument types ({got}).")


def _apply(fn, seqs, recursive, reverse):
    first = seqs[0]
    if isinstance(first, (tuple, list)):
        if any(not isinstance(s, (tuple, list)) or len(s) != len(first) for s in seqs):
            raise ValueError("HyperMap/Map: the sequences must have the same structure and length.")
        index = range(len(first) - 1, -1, -1) if reverse else range(len(first))
        out = {i: (_apply(fn, [s[i] for s in seqs], recursive, reverse) if recursive else fn(*[s[i] for s in seqs]))
               for i in index}
        return type(first)(out[i] for i in range(len(first)))
    return fn(*seqs)


class HyperMap:
    """`HyperMap(ops=None, reverse=False)`: apply `ops` leaf by leaf over (nested) tuples/lists, zipped."""

    def __init__(self, ops=None, reverse=False):
        self.ops, self.reverse = ops, reverse

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return _apply(fn, list(seqs), True, self.reverse)


class Map(HyperMap):
    """`Map(ops=None, reverse=False)`: like HyperMap but only over the top-level sequence."""

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return _apply(fn, list(seqs), False, self.reverse)


def add_flags(fn=None, **flags):
    """Attach graph-compile flags to a function (kept as the `_flags` attribute; openspore's compiler reads none)."""
    def deco(f):
        f._flags = {**getattr(f, "_flags", {}), **flags}
        return f
    return deco(fn) if fn is not None else deco


def zip_operation(*seqs):
    """zip() of sequences as a tuple of tuples."""
    return tuple(zip(*seqs))


from .composite_augassign import (augassign_add, augassign_div, augassign_floordiv, augassign_mod,  # noqa: E402,F401
                                  augassign_mul, augassign_sub, hyper_add)

# MindSpore keeps GradOperation, HyperMap, Map, MultitypeFuncGraph and add_flags in `ops.composite.base`
# (`from mindspore.ops.composite import base as C`); here they live in this module, which answers that path too.
import sys as _sys  # noqa: E402
base = _sys.modules[__name__]
_sys.modules[__name__ + ".base"] = base
