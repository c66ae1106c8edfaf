"""Batched diagonal bands (`ops.matrix_diag`, `ops.matrix_diag_part`, `ops.matrix_set_diag`, the *V3 classes):
diagonals k (an int or a [low, high] range) of the last two axes, with MindSpore's (TensorFlow's) alignment of
short diagonals — "RIGHT_LEFT" (default): superdiagonals (k ≥ 0) padded at the front, subdiagonals at the back.
Built from Gather and TensorScatterUpdate over index tables computed from the shapes, so they differentiate.

>>> import numpy as np, openspore as ms
>>> x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
>>> ms.ops.matrix_diag_part(x, ms.Tensor([-1, 1]), ms.Tensor(0.0)).asnumpy().tolist()
[[1.0, 6.0, 11.0], [0.0, 5.0, 10.0], [4.0, 9.0, 0.0]]
"""
import numpy as np

from ...core.tensor import Tensor
from ._base_ops import F

__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag"]
_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _k_range(op, k):
    values = np.atleast_1d(k.asnumpy() if isinstance(k, Tensor) else np.asarray(k)).astype(int).tolist()
    if len(values) not in (1, 2) or values[0] > values[-1]:
        raise ValueError(f"For '{op}', 'k' must be an int or a [low, high] pair with low <= high, but got {k!r}.")
    return values[0], values[-1], len(values) == 1


def _length(rows, cols, d):
    return max(0, min(rows, cols - d) if d >= 0 else min(rows + d, cols))


def _table(op, rows, cols, low, high, align):
    """(positions, valid): for each diagonal high..low and slot j, the flat index r·cols + c it holds."""
    if align not in _ALIGNS:
        raise ValueError(f"For '{op}', 'align' must be one of {_ALIGNS}, but got {align!r}.")
    width = max(_length(rows, cols, d) for d in range(low, high + 1))
    pos = np.zeros((high - low + 1, width), np.int64)
    valid = np.zeros_like(pos, bool)
    for row, d in enumerate(range(high, low - 1, -1)):
        n = _length(rows, cols, d)
        right = (align.split("_")[0] if d >= 0 else align.split("_")[1]) == "RIGHT"
        start = width - n if right else 0
        for i in range(n):
            r, c = (i, i + d) if d >= 0 else (i - d, i)
            pos[row, start + i] = r * cols + c
            valid[row, start + i] = True
    return pos, valid


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals k of the last two axes: (..., num_diagonals, max_length), or (..., length) for one k;
    short diagonals padded with padding_value as `align` says."""
    low, high, single = _k_range("matrix_diag_part", k)
    rows, cols = x.shape[-2:]
    pos, valid = _table("matrix_diag_part", rows, cols, low, high, align)
    flat = F.reshape(x, tuple(x.shape[:-2]) + (rows * cols,))
    pad = F.cast(padding_value, x.dtype) if isinstance(padding_value, Tensor) else padding_value
    pad = F.broadcast_to(F.reshape(F.full_like(F.narrow(flat, -1, 0, 1), 0) + pad, tuple(flat.shape[:-1]) + (1,)),
                         tuple(flat.shape[:-1]) + (1,))
    source = F.concat([flat, pad], -1)
    index = np.where(valid, pos, rows * cols).reshape(-1)  # invalid slots read the appended padding value
    out = F.gather(source, Tensor(index), len(source.shape) - 1)
    out = F.reshape(out, tuple(x.shape[:-2]) + pos.shape)
    return F.squeeze(out, len(out.shape) - 2) if single else out


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its diagonals k replaced by `diagonal` (shaped as matrix_diag_part would return them)."""
    low, high, single = _k_range("matrix_set_diag", k)
    rows, cols = x.shape[-2:]
    pos, valid = _table("matrix_set_diag", rows, cols, low, high, align)
    batch = tuple(x.shape[:-2])
    diag = F.expand_dims(diagonal, len(diagonal.shape) - 1) if single else diagonal
    if tuple(diag.shape) != batch + pos.shape:
        raise ValueError(f"For 'matrix_set_diag', 'diagonal' must have shape {list(batch + pos.shape)} "
                         f"(or without the diagonal axis for one k), but got {list(diagonal.shape)}.")
    values = F.reshape(diag, batch + (-1,))
    taken = np.flatnonzero(valid.reshape(-1))
    values = F.gather(values, Tensor(taken.astype(np.int64)), len(batch))          # (..., n_valid)
    flat = F.reshape(x, batch + (rows * cols,))
    nd = len(flat.shape)
    front = F.transpose(flat, (nd - 1,) + tuple(range(nd - 1)))
    upd = F.transpose(values, (nd - 1,) + tuple(range(nd - 1)))
    out = F.tensor_scatter_update(front, Tensor(pos.reshape(-1)[taken].reshape(-1, 1)), F.cast(upd, x.dtype))
    return F.reshape(F.transpose(out, tuple(range(1, nd)) + (0,)), tuple(x.shape))


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices whose diagonals k are `x` (the inverse of matrix_diag_part) and whose other entries are
    padding_value; the matrix size defaults to the smallest that holds the diagonals."""
    low, high, single = _k_range("matrix_diag", k)
    width = x.shape[-1]
    as_int = lambda v: int(v.asnumpy()) if isinstance(v, Tensor) else int(v)  # noqa: E731
    rows, cols = as_int(num_rows), as_int(num_cols)
    min_rows, min_cols = width - min(high, 0), width + max(low, 0)
    if rows == -1 and cols == -1:  # the smallest square that holds every diagonal
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    batch = tuple(x.shape[:-1]) if single else tuple(x.shape[:-2])
    pad = float(padding_value.asnumpy()) if isinstance(padding_value, Tensor) else padding_value
    base = F.full(batch + (rows, cols), pad, dtype=x.dtype)
    return matrix_set_diag(base, x, [low, high] if not single else low, align)
