"""cse: common subexpression elimination. Identical nodes are computed once.

    %1 = Mul(%0, %0) : f32[2]                    %1 = Mul(%0, %0) : f32[2]
    %2 = Mul(%0, %0) : f32[2]             →      %3 = Add(%1, %1) : f32[2]
    %3 = Add(%1, %2) : f32[2]

Merged: primitive nodes with the same primitive (type and attributes) and the same inputs, make_tuple /
tuple_get_item nodes, constants equal in value, dtype and shape, and reads of the same Parameter. Never
merged: side-effecting and random nodes, control flow. Values computed from Parameters are not merged across
a side-effecting node (an Assign between two reads changes what the second one sees). Runs inside every
subgraph on its own (subgraphs see only their operands).
"""
import hashlib

import numpy as np

from ...common import dtype as mstype
from ...ir.printer import value_text
from ...ir.rewrite import rewrite

_PLAIN = (bool, int, float, complex, str, bytes, type(None), mstype.Type)


def cse(graph):
    """cse(graph) -> Graph with duplicate computations merged (the input is not modified)."""
    return rewrite(graph, _visit, prepare=_Seen)


class _Seen:
    """Per graph: key -> the node kept, ids of kept nodes whose value depends on a Parameter read, and the count
    of side-effecting nodes so far."""

    def __init__(self, graph):
        self.kept, self.stateful, self.epoch = {}, set(), 0


def _visit(n, inputs, rw):
    seen = rw.facts
    new = rw.keep(n, inputs)
    if n.has_side_effect:
        seen.epoch += 1
        return new
    key = _key(new)
    if key is None:
        return new
    reads = new.op == "weight" or any(i.id in seen.stateful for i in new.inputs)
    if reads:
        key = (key, seen.epoch)
    kept = seen.kept.get(key)
    if kept is not None:
        return kept
    seen.kept[key] = new
    if reads:
        seen.stateful.add(new.id)
    return new


def _key(n):
    """A hashable identity of what the node computes, or None when it must not be merged."""
    op = n.op
    ins = tuple(i.id for i in n.inputs)
    if n.is_primitive:
        attrs = _attrs_key(n.attrs)
        return None if attrs is None else ("prim", type(op), attrs, ins)
    if op == "make_tuple":
        return ("make_tuple", ins)
    if op == "tuple_get_item":
        return ("get", n.index, ins)
    if op == "weight":
        return ("weight", id(n.value)) if n.value is not None else ("weight-name", n.name)
    if op == "const":
        value = _value_key(n.value)
        return None if value is None else ("const", value, _abstract_key(n.abstract))
    return None  # inputs, control flow


def _attrs_key(attrs):
    items = []
    for k, v in attrs.items():
        vk = _value_key(v)
        if vk is None:
            return None
        items.append((k, vk))
    return tuple(items)


def _value_key(value):
    if hasattr(value, "asnumpy") or isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
        kind = getattr(value, "dtype", arr.dtype)
        return ("array", str(kind), arr.shape, hashlib.blake2b(arr.tobytes(), digest_size=16).digest())
    if isinstance(value, _PLAIN) or isinstance(value, np.generic):
        # type and repr: 1, 1.0 and True are equal in Python but not the same constant; -0.0 is not 0.0
        return (type(value).__name__, value_text(value))
    if isinstance(value, (tuple, list)):
        parts = tuple(_value_key(v) for v in value)
        return None if any(p is None for p in parts) else (type(value).__name__, parts)
    if isinstance(value, slice):
        inner = _value_key((value.start, value.stop, value.step))
        return None if inner is None else ("slice", inner)
    return None  # an arbitrary object: only itself is itself


def _abstract_key(abstract):
    if isinstance(abstract, tuple):
        return tuple(_abstract_key(a) for a in abstract)
    return None if abstract is None else (abstract.shape, abstract.dtype)
