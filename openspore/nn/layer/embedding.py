"""`nn.Embedding`: a lookup table from integer ids to vectors (parameter `embedding_table`).

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> emb = nn.Embedding(10, 4)
>>> emb(ms.Tensor(np.array([[1, 2, 3]], np.int32))).shape
(1, 3, 4)
"""
import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...core.tensor import Tensor
from ..cell import Cell
from ._common import (check_bool, check_dtype, compute_cast, init_repr, is_int, make_param, positive_int,
                      same_dtype)


class Embedding(Cell):
    """`Embedding(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal', dtype=mstype.float32,
    padding_idx=None)`: ids of any shape → ids.shape + (embedding_size,).

    The table is (vocab_size, embedding_size), initialized by `embedding_table` (default Normal(0.01)); the row
    `padding_idx` starts at zero. `use_one_hot=True` computes one_hot(ids) @ table instead of a gather.
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal", dtype=mstype.float32,
                 padding_idx=None):
        super().__init__()
        self.vocab_size = positive_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = positive_int("Embedding", "embedding_size", embedding_size)
        self.use_one_hot = check_bool("Embedding", "use_one_hot", use_one_hot)
        self.dtype = check_dtype("Embedding", dtype)
        if padding_idx is not None:
            if not is_int(padding_idx) or not -self.vocab_size <= padding_idx < self.vocab_size:
                raise ValueError(f"For 'Embedding', the 'padding_idx' must be an int in range [{-self.vocab_size}, "
                                 f"{self.vocab_size}), but got {padding_idx!r}.")
            padding_idx = int(padding_idx) % self.vocab_size
        self.padding_idx = padding_idx
        self.init = embedding_table
        self.embedding_table = make_param(embedding_table, (self.vocab_size, self.embedding_size), self.dtype,
                                          "embedding_table")
        if padding_idx is not None:
            table = self.embedding_table.asnumpy().copy()
            table[padding_idx] = 0
            self.embedding_table.set_data(Tensor(table, self.dtype))
        self.gather = ops.Gather()
        if self.use_one_hot:
            self.one_hot = ops.OneHot()
            self.matmul = ops.MatMul()
            self._on = Tensor(np.ones((), self.dtype.np_dtype), self.dtype)
            self._off = Tensor(np.zeros((), self.dtype.np_dtype), self.dtype)

    def construct(self, ids):
        if ids.dtype.kind not in ("int", "uint"):
            raise TypeError(f"For 'Embedding', the input ids must be an int Tensor, but got Tensor[{ids.dtype}].")
        table = self.embedding_table if self._mixed_dtype is None else compute_cast(self, self.embedding_table)
        if not self.use_one_hot:
            return self.gather(table, ids, 0)
        shape = tuple(ids.shape)
        flat = ops.reshape(ids, (-1,))
        dtype = table.dtype
        one_hot = self.one_hot(flat, self.vocab_size, same_dtype(self._on, dtype), same_dtype(self._off, dtype))
        return ops.reshape(self.matmul(one_hot, table), shape + (self.embedding_size,))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, "
                f"embedding_table={init_repr(self.init)}, dtype={self.dtype}, padding_idx={self.padding_idx}")


__all__ = ["Embedding"]
