"""`ops.reshard(tensor, layout)`: ask for `tensor` to be laid out as `layout` (a `parallel.Layout` applied to the
tensor's dimensions) at this point of a sharded program.

The value never changes: reshard only moves blocks between devices. openspore does not redistribute inside an
operator graph, and in a standalone run (as in MindSpore's PyNative standalone mode) the tensor is returned as
it is, with gradient 1.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
>>> ms.ops.reshard(x, None).asnumpy().tolist()
[[0.0, 1.0], [2.0, 3.0]]
"""


def reshard(tensor, layout):
    """`tensor`, to be laid out as `layout` (the values are unchanged)."""
    return tensor
