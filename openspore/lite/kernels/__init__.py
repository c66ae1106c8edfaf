"""Kernels of the lite runtime: `make(op)` returns a callable over numpy arrays for one operator.

Lite-specific kernels (fused convolution and dense layers, fast pooling, int8 kernels) are registered here by
operator type; every other operator runs the numpy kernel of openspore's primitive of that name, bound to a
primitive instance built once from the operator's attributes.
"""
import functools

import numpy as np

from ...core.primitive import PRIMITIVES

LITE_KERNELS = {}  # op type -> factory(op) -> callable or None (None: use the primitive's kernel)


def register(*types):
    def deco(factory):
        for t in types:
            LITE_KERNELS[t] = factory
        return factory
    return deco


class UnsupportedOperator(ValueError):
    """An operator the runtime has no kernel for (names the operator and its node)."""


def primitive(op):
    """The openspore primitive instance an operator describes."""
    cls = PRIMITIVES.get(op.type)
    if cls is None:
        raise UnsupportedOperator(f"operator '{op.type}' (node '{op.name}') is not supported by the lite runtime.")
    attrs = {k: v for k, v in op.attrs.items() if k in cls.attr_defaults}
    return cls(**attrs)


def make(op):
    factory = LITE_KERNELS.get(op.type)
    if factory is not None:
        fn = factory(op)
        if fn is not None:
            return fn
    prim = primitive(op)
    raw = getattr(type(prim), "numpy", None)
    if raw is None:
        raise UnsupportedOperator(f"operator '{op.type}' (node '{op.name}') has no numpy kernel.")
    return functools.partial(raw, prim, np)


def supported(op_type):
    return op_type in LITE_KERNELS or getattr(PRIMITIVES.get(op_type), "numpy", None) is not None


from . import nn  # noqa: E402,F401  (registers the kernels)
from . import quant  # noqa: E402,F401
from . import nhwc  # noqa: E402,F401
