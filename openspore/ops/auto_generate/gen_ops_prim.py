"""`mindspore.ops.auto_generate.gen_ops_prim`: MindSpore's generated Primitive classes; here the same names as `openspore.ops`
(see `openspore.ops.auto_generate`)."""
from .resolve import resolve


def __getattr__(name):
    return resolve(__name__, name)
