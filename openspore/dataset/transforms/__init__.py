"""`mindspore.dataset.transforms`: transforms for any column, and the bases of all transforms."""
from .base import PyTensorOperation, TensorOperation, not_random  # noqa: F401
from .transforms import (Compose, Concatenate, Duplicate, Fill, Mask, OneHot, PadEnd, RandomApply,  # noqa: F401
                         RandomChoice, RandomOrder, Relational, Slice, TypeCast, Unique)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd", "RandomApply", "RandomChoice",
           "RandomOrder", "Relational", "Slice", "TypeCast", "Unique", "TensorOperation", "PyTensorOperation",
           "not_random"]
from .plugin import Plugin  # noqa: F401,E402

__all__ += ["Plugin"]
