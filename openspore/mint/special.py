"""`mindspore.mint.special`: PyTorch's `torch.special` names. Each is the `ops` (or `mint.nn.functional`) function
of the same meaning, so PyNative, Graph mode and gradients behave as those do.

>>> import openspore as ms
>>> from openspore.mint import special
>>> special.expm1(ms.Tensor([0.0, 1.0])).asnumpy().astype("float64").round(4).tolist()
[0.0, 1.7183]
>>> special.log_softmax(ms.Tensor([[0.0, 0.0]]), dim=1).asnumpy().astype("float64").round(4).tolist()
[[-0.6931, -0.6931]]
"""
from .. import ops as _ops
from .nn.functional import log_softmax  # noqa: F401 (the same function as mint.nn.functional's)

__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]

erfc = _ops.erfc
exp2 = _ops.exp2
expm1 = _ops.expm1
log1p = _ops.log1p
sinc = _ops.sinc


def round(input):  # noqa: A001 (torch.special's name)
    """Round half to even (torch.special.round has no `decimals`)."""
    return _ops.round(input)

