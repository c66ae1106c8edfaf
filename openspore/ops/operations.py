"""Primitive classes (`ops.operations`, the 1.x path `from mindspore.ops import operations as P`).

Every class registered in the primitive table is exported here under its MindSpore name.
"""
from ..core.primitive import PRIMITIVES, Primitive  # noqa: F401
from . import defs  # noqa: F401  (fills the table)

globals().update(PRIMITIVES)
__all__ = sorted(PRIMITIVES) + ["Primitive"]
