"""`mindspore.utils.dlpack`: tensors shared with other frameworks through DLPack, without copying.

`to_dlpack` hands out a DLPack capsule over the tensor's own buffer (openspore's torch backend: the torch
tensor it wraps; the numpy backend: its array); `from_dlpack` takes a capsule, or any object with
`__dlpack__` (a torch tensor, a numpy array), and wraps its buffer as a Tensor.

>>> import numpy as np, openspore as ms
>>> from openspore.utils import to_dlpack, from_dlpack
>>> x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
>>> y = from_dlpack(to_dlpack(x))
>>> print(y.shape, y.dtype, y.asnumpy().tolist())
(2, 3) Float32 [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
"""
import numpy as np

from .. import backends
from ..core.tensor import Tensor

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule over `tensor`'s buffer; the consumer takes it once (a capsule is single-use)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'to_dlpack', 'tensor' must be a Tensor, but got {type(tensor).__name__}.")
    data = tensor.data_ref()
    if not hasattr(data, "__dlpack__"):
        raise TypeError(f"For 'to_dlpack', the {tensor.dtype} data of this backend cannot be shared by DLPack.")
    return data.__dlpack__()


class _Capsule:
    """A bare capsule seen as a DLPack producer on the CPU (numpy's from_dlpack takes producers only)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def from_dlpack(dlpack):
    """A Tensor over the buffer of a DLPack capsule (or of an object with `__dlpack__`), shared, not copied."""
    if not (_is_capsule(dlpack) or hasattr(dlpack, "__dlpack__")):
        raise TypeError(f"For 'from_dlpack', 'dlpack' must be a DLPack capsule or an object with __dlpack__, but "
                        f"got {type(dlpack).__name__}.")
    backend = backends.current()
    if backend.name == "torch":
        import torch  # the torch backend is active, so torch is installed
        data = torch.from_dlpack(dlpack)
    else:
        data = np.from_dlpack(_Capsule(dlpack) if _is_capsule(dlpack) else dlpack)
    data = backend.adopt(data)
    return Tensor._wrap(data, backend.dtype_of(data))
