"""`nn.MultiFieldEmbeddingLookup`: embeddings of (index, weight, field) triples pooled per field.

Each looked-up row is multiplied by its weight; the rows of one field are combined by `operator`: 'SUM', 'MEAN'
(the sum divided by the field's total absolute weight) or 'MAX' (elementwise maximum over the field's entries).
A field with no entries, or whose weights are all zero, gives zeros. Output: (batch, field_size, embedding_size).

>>> import numpy as np
>>> import openspore as ms
>>> from openspore import nn
>>> net = nn.MultiFieldEmbeddingLookup(4, 2, 2, param_init=ms.Tensor(np.eye(4, 2, dtype=np.float32)))
>>> idx = ms.Tensor(np.array([[0, 1, 1]], np.int32))
>>> val = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
>>> fid = ms.Tensor(np.array([[0, 0, 1]], np.int32))
>>> net(idx, val, fid).asnumpy().tolist()
[[[1.0, 2.0], [0.0, 3.0]]]
"""
from ... import ops
from ...common import dtype as mstype
from ._common import positive_int
from .more import EmbeddingLookup

__all__ = ["MultiFieldEmbeddingLookup"]

_OPERATORS = ("SUM", "MEAN", "MAX")
_SLICE_MODES = ("batch_slice", "field_slice", "table_row_slice", "table_column_slice")


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """`MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', feature_num_list=None, max_norm=None, sparse=True, operator='SUM',
    dtype=mstype.float32)`; `construct(input_indices, input_values, field_ids)`, all (batch, seq_length)."""

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=mstype.float32):
        where = "MultiFieldEmbeddingLookup"
        if slice_mode not in _SLICE_MODES:
            raise ValueError(f"For '{where}', 'slice_mode' must be one of {list(_SLICE_MODES)}, "
                             f"but got {slice_mode!r}.")
        if not isinstance(sparse, bool):
            raise TypeError(f"For '{where}', 'sparse' must be a bool, but got {type(sparse).__name__}.")
        if not sparse and target == "CPU":
            raise ValueError(f"For '{where}', 'sparse' must be True when 'target' is 'CPU'.")
        if feature_num_list is not None and not isinstance(feature_num_list, tuple):
            raise TypeError(f"For '{where}', 'feature_num_list' must be a tuple or None, "
                            f"but got {type(feature_num_list).__name__}.")
        if slice_mode == "field_slice" and feature_num_list is None:
            raise ValueError(f"For '{where}', 'feature_num_list' must be given when 'slice_mode' is 'field_slice'.")
        if operator not in _OPERATORS:
            raise ValueError(f"For '{where}', 'operator' must be one of {list(_OPERATORS)}, but got {operator!r}.")
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, max_norm=max_norm,
                         sparse=sparse, dtype=dtype)
        self.field_size = positive_int(where, "field_size", field_size)
        self.operator = operator
        self.feature_num_list = feature_num_list

    def construct(self, input_indices, input_values, field_ids):
        if input_indices.ndim != 2 or input_values.shape != input_indices.shape \
                or field_ids.shape != input_indices.shape:
            raise ValueError("For 'MultiFieldEmbeddingLookup', 'input_indices', 'input_values' and 'field_ids' must "
                             f"all be (batch_size, seq_length), but got {input_indices.shape}, "
                             f"{input_values.shape} and {field_ids.shape}.")
        rows = super().construct(input_indices)                                   # (B, S, E)
        values = ops.cast(input_values, rows.dtype)
        weighted = rows * ops.expand_dims(values, -1)
        member = ops.one_hot(field_ids, self.field_size, 1.0, 0.0).astype(rows.dtype)   # (B, S, F)
        member_t = ops.transpose(member, (0, 2, 1))                               # (B, F, S)
        weight = ops.bmm(member_t, ops.expand_dims(ops.abs(values), -1))          # (B, F, 1): total |weight|
        live = weight > 0
        if self.operator == "MAX":
            masked = ops.select(ops.expand_dims(member_t, -1) > 0,
                                ops.broadcast_to(ops.expand_dims(weighted, 1), member_t.shape + (rows.shape[-1],)),
                                ops.full_like(ops.broadcast_to(ops.expand_dims(weighted, 1),
                                                               member_t.shape + (rows.shape[-1],)), -3.0e38))
            pooled = ops.amax(masked, 2)
        else:
            pooled = ops.bmm(member_t, weighted)                                  # (B, F, E)
            if self.operator == "MEAN":
                pooled = pooled / ops.select(live, weight, ops.ones_like(weight))
        return ops.select(ops.broadcast_to(live, pooled.shape), pooled, ops.zeros_like(pooled))
