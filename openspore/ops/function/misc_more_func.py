"""Small functions of MindSpore's ops namespace composed from what openspore has: FFT index helpers
(`fftshift`, `ifftshift`, `fftfreq`, `rfftfreq`), `dense`/`bidense`, `dtype`, `reverse_sequence`, `partial`,
`get_grad` (for `grad(..., return_ids=True)`) and `tensordump`.

>>> import openspore as ms
>>> ms.ops.fftfreq(4, 0.25).asnumpy().tolist()
[0.0, 1.0, -2.0, -1.0]
>>> ms.ops.fftshift(ms.Tensor([0, 1, 2, 3, 4, 5])).asnumpy().tolist()
[3, 4, 5, 0, 1, 2]
"""
import functools
import io

import numpy as np

from ...common import dtype as mstype
from ...common.files import write_atomic
from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["fftshift", "ifftshift", "fftfreq", "rfftfreq", "dense", "bidense", "dtype", "reverse_sequence",
           "partial", "get_grad", "tensordump"]


def _dims(x, dim):
    if dim is None:
        return tuple(range(len(x.shape)))
    return tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)


def fftshift(input, dim=None):
    """Roll the zero-frequency entry to the centre of each axis in `dim` (all axes by default)."""
    dims = _dims(input, dim)
    return F.roll(input, tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    dims = _dims(input, dim)
    return F.roll(input, tuple(-(input.shape[d] // 2) for d in dims), dims)


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point FFT with sample spacing d: [0, 1, …, −1] / (d·n)."""
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)]) if n > 0 else np.zeros(0)
    return Tensor((k / (d * n) if n else k).astype((dtype or mstype.float32).np_dtype))


def rfftfreq(n, d=1.0, dtype=None):
    """The non-negative sample frequencies of an n-point real FFT: [0, 1, …, n//2] / (d·n)."""
    return Tensor((np.arange(n // 2 + 1) / (d * n)).astype((dtype or mstype.float32).np_dtype))


def dense(input, weight, bias=None):
    """input · weightᵀ (+ bias): the affine map of nn.Dense."""
    out = F.matmul(input, F.transpose(weight, (1, 0)) if len(weight.shape) == 2 else weight)
    return out + bias if bias is not None else out


def bidense(input1, input2, weight, bias=None):
    """The bilinear map out[..., o] = Σ input1[..., i] · weight[o, i, j] · input2[..., j] (+ bias[o])."""
    from .math_more_func import einsum
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def dtype(input):
    """The dtype of a Tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'dtype', 'input' must be a Tensor, but got {type(input).__name__}.")
    return input.dtype


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """Reverse the first seq_lengths[b] entries along seq_dim of each batch entry b."""
    from ..composite_primitives import ReverseSequence
    return ReverseSequence(seq_dim, batch_dim)(x, seq_lengths)


def partial(func, *args, **kwargs):
    """func with its leading arguments (and keyword arguments: `ops.partial(add, x=2)` in graph code, as the
    graph syntax tutorial does) bound."""
    if not callable(func):
        raise TypeError(f"For 'partial', 'func' must be callable, but got {type(func).__name__}.")
    return functools.partial(func, *args, **kwargs)


def get_grad(gradients, identifier):
    """The gradient tagged `identifier` (an input position, or a Parameter / its name) in the output of
    grad(..., return_ids=True)."""
    key = identifier if isinstance(identifier, (int, str)) else getattr(identifier, "name", None)
    if key is None:
        raise TypeError(f"For 'get_grad', 'identifier' must be an int position or a Parameter, but got "
                        f"{type(identifier).__name__}.")

    def search(node):
        if isinstance(node, tuple):
            if len(node) == 2 and isinstance(node[0], (int, str)) and isinstance(node[1], Tensor):
                return node[1] if node[0] == key else None
            for item in node:
                found = search(item)
                if found is not None:
                    return found
        return None
    found = search(gradients)
    if found is None:
        raise RuntimeError(f"For 'get_grad', no gradient is tagged {key!r}; pass the output of "
                           f"grad(..., return_ids=True).")
    return found


def tensordump(file_name, tensor, mode="out"):
    """Save `tensor` to `file_name` as a .npy file (the name gets '.npy' when it lacks it), atomically."""
    if not isinstance(file_name, str) or not file_name:
        raise ValueError(f"For 'tensordump', 'file_name' must be a non-empty str, but got {file_name!r}.")
    if mode not in ("out", "in", "all"):
        raise ValueError(f"For 'tensordump', 'mode' must be 'out', 'in' or 'all', but got {mode!r}.")
    path = file_name if file_name.endswith(".npy") else file_name + ".npy"
    buffer = io.BytesIO()
    np.save(buffer, tensor.asnumpy() if isinstance(tensor, Tensor) else np.asarray(tensor))
    write_atomic(path, [buffer.getvalue()], read_only=False)
