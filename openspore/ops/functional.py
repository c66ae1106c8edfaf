"""1.x path `mindspore.ops.functional` (F.xxx): the functional API.

MindSpore's module also answers with the rest of `ops` (`F.Roll`, `F.stft`, `F.random_categorical`, ...) and with
`F.P`, the primitive classes; those are looked up in `openspore.ops` on first use.

>>> from openspore.ops import functional as F
>>> F.roll is not None and F.P.Roll is F.Roll
True
"""
from .function import *  # noqa: F401,F403


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .. import ops
    if name == "P":
        return ops.operations
    if not hasattr(ops, name):
        raise AttributeError(f"module 'openspore.ops.functional' has no attribute {name!r}")
    return getattr(ops, name)
