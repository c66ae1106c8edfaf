"""`mindspore.ops.auto_generate`: the module MindSpore generates its operator definitions into (functions such as
`greater`, `add_ext`, Primitive classes such as `Greater`, `AddExt`). openspore has one primitive table, so this
path answers with the names `openspore.ops` already has; a MindSpore `*_ext` / `*Ext` spelling that openspore has
no separate form of resolves to the plain one.

>>> import openspore as ms
>>> ms.ops.auto_generate.greater(ms.Tensor([1, 3]), ms.Tensor([2, 2])).asnumpy().tolist()
[False, True]
>>> from openspore.ops.auto_generate import gen_ops_prim
>>> gen_ops_prim.Greater is ms.ops.Greater
True
"""
from . import gen_ops_def, gen_ops_prim  # noqa: F401
from .resolve import resolve


def __getattr__(name):
    return resolve(__name__, name)
