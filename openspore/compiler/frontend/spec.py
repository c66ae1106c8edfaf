"""Flattening Python structures of tensors into leaves and a spec, and back.

A spec is a nested tuple: `("T",)` a tensor leaf (taken in order), `("C", value)` a Python value kept as it is,
`("tuple", specs)`, `("list", specs)`, `("dict", keys, specs)`, `("ntuple", type, specs)` (namedtuples).
`static_key(spec)` is a hashable form for compile caches: Python values are part of it, tensors are not.
A value wrapped in `Same` is kept as it is (`("C", value)`) however it is built: a module's global list returned from
a graph is that list itself in MindSpore, not a copy.
"""
import numpy as np

from ...core.tensor import Tensor

TENSOR = ("T",)


class Same:
    """`Same(value)`: flattened as the object itself (no leaves), so that unflatten gives back `value`."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def flatten(value):
    """(tensor leaves, spec) of a Python value."""
    leaves = []
    return leaves, _flatten(value, leaves)


def _flatten(value, leaves):
    if isinstance(value, Tensor):
        leaves.append(value)
        return TENSOR
    kind = type(value)
    if kind is Same:
        return ("C", value.value)
    if kind is tuple:
        return ("tuple", tuple(_flatten(v, leaves) for v in value))
    if kind is list:
        return ("list", tuple(_flatten(v, leaves) for v in value))
    if kind is dict:
        keys = tuple(value)
        return ("dict", keys, tuple(_flatten(value[k], leaves) for k in keys))
    if isinstance(value, tuple) and hasattr(kind, "_fields"):
        return ("ntuple", kind, tuple(_flatten(v, leaves) for v in value))
    return ("C", value)


def unflatten(spec, leaves):
    """Rebuild the structure of `spec` taking tensors from `leaves` in order."""
    it = iter(leaves)
    out = _unflatten(spec, it)
    rest = sum(1 for _ in it)
    if rest:
        raise ValueError(f"unflatten: {rest} leaves were left over")
    return out


def _unflatten(spec, it):
    tag = spec[0]
    if tag == "T":
        try:
            return next(it)
        except StopIteration:
            raise ValueError("unflatten: not enough leaves for the spec") from None
    if tag == "C":
        return spec[1]
    if tag == "tuple":
        return tuple(_unflatten(s, it) for s in spec[1])
    if tag == "list":
        return [_unflatten(s, it) for s in spec[1]]
    if tag == "dict":
        return {k: _unflatten(s, it) for k, s in zip(spec[1], spec[2])}
    if tag == "ntuple":
        return spec[1](*(_unflatten(s, it) for s in spec[2]))
    raise ValueError(f"unknown spec tag {tag!r}")


def count_leaves(spec):
    tag = spec[0]
    if tag == "T":
        return 1
    if tag == "C":
        return 0
    return sum(count_leaves(s) for s in spec[-1])


def _value_key(value):
    """A hashable stand-in for a Python value baked into a graph (equal values, equal keys)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))) or isinstance(value, np.generic):
        return (type(value).__name__, value)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_value_key(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value).__qualname__, value)


def static_key(spec):
    tag = spec[0]
    if tag == "T":
        return spec
    if tag == "C":
        return ("C", _value_key(spec[1]))
    if tag == "dict":
        return ("dict", spec[1], tuple(static_key(s) for s in spec[2]))
    if tag == "ntuple":
        return ("ntuple", spec[1], tuple(static_key(s) for s in spec[2]))
    return (tag, tuple(static_key(s) for s in spec[1]))
