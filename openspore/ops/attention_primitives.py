"""The paged key/value cache primitives of MindSpore's LLM inference (Ascend kernels there), as CPU references
written with the functional API: ReshapeAndCache writes new keys/values into cache blocks at their slots,
PagedAttention / PagedAttentionMask let each sequence's query attend to the cached tokens its block table lists.

Cache layout: (num_blocks, block_size, kv_heads, head_dim) or (num_blocks, block_size, kv_heads·head_dim); slot s
lives in block s // block_size at offset s % block_size; a negative slot is padding and is skipped.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> cache = ms.Parameter(ms.Tensor(np.zeros((2, 2, 1, 2), np.float32)), name="k")
>>> _ = ops.ReshapeAndCache()(ms.Tensor(np.ones((1, 1, 2), np.float32)), None, cache, None, ms.Tensor([3]))
>>> cache.asnumpy().reshape(4, 2).tolist()
[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
"""
import numpy as np

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from . import function as F
from .composite_primitives import _primitive, _PythonPrimitive
from .tensor_methods import _inplace


def _host(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _write_cache(cache, rows, slots):
    flat = F.reshape(cache, (cache.shape[0] * cache.shape[1], -1))
    keep = slots >= 0
    if keep.any():
        flat = F.tensor_scatter_update(flat, Tensor(slots[keep].reshape(-1, 1).astype(np.int64)),
                                       F.gather(rows, Tensor(np.nonzero(keep)[0]), 0))
    new = F.reshape(flat, tuple(cache.shape))
    return F.assign(cache, new) if isinstance(cache, Parameter) else _inplace(cache, new)


def _reshape_and_cache(self, key, value=None, key_cache=None, value_cache=None, slot_mapping=None):
    slots = _host(slot_mapping).reshape(-1).astype(np.int64)
    capacity = key_cache.shape[0] * key_cache.shape[1]
    if slots.size and slots.max() >= capacity:
        raise ValueError(f"For 'ReshapeAndCache', slot {int(slots.max())} is outside the cache's {capacity} slots.")
    for new, cache in ((key, key_cache), (value, value_cache)):
        if new is None or cache is None:
            continue
        rows = F.reshape(new, (slots.size, -1))
        if rows.shape[1] != int(np.prod(cache.shape[2:])):
            raise ValueError(f"For 'ReshapeAndCache', a token holds {rows.shape[1]} values but a cache slot holds "
                             f"{int(np.prod(cache.shape[2:]))}.")
        _write_cache(cache, F.cast(rows, cache.dtype), slots)
    return key_cache


ReshapeAndCache = _primitive(
    "ReshapeAndCache", _reshape_and_cache,
    doc="ReshapeAndCache()(key, value, key_cache, value_cache, slot_mapping): write each token's key (and value) "
        "into the cache slot slot_mapping names (in place); returns key_cache.")


def _paged(self, query, key_cache, value_cache, block_tables, context_lens, alibi_mask):
    heads = self.head_num
    kv_heads = self.kv_head_num or heads
    lead = tuple(query.shape[:-1])
    batch = query.shape[0]
    hidden = query.shape[-1]
    dim = hidden // heads
    block = key_cache.shape[1]
    tables, lengths = _host(block_tables).astype(np.int64), _host(context_lens).reshape(-1).astype(np.int64)
    k_flat = F.reshape(key_cache, (key_cache.shape[0] * block, kv_heads, dim))
    v_flat = F.reshape(value_cache, (value_cache.shape[0] * block, kv_heads, dim))
    q = F.reshape(query, (batch, -1, heads, dim))  # (B, S_q, N, D)
    outs = []
    for b in range(batch):
        t = np.arange(lengths[b])
        slots = Tensor(tables[b, t // block] * block + t % block)
        k = F.transpose(F.gather(k_flat, slots, 0), (1, 0, 2))  # (kv, ctx, D)
        v = F.transpose(F.gather(v_flat, slots, 0), (1, 0, 2))
        if kv_heads != heads:
            k, v = F.repeat_interleave(k, heads // kv_heads, 0), F.repeat_interleave(v, heads // kv_heads, 0)
        qb = F.transpose(q[b], (1, 0, 2))  # (N, S_q, D)
        scores = F.matmul(qb, F.swapaxes(k, 1, 2)) * self.scale_value
        if alibi_mask is not None:
            scores = scores + F.narrow(alibi_mask[b], -1, 0, int(lengths[b]))
        outs.append(F.transpose(F.matmul(F.softmax(scores, -1), v), (1, 0, 2)))  # (S_q, N, D)
    return F.reshape(F.stack(outs, 0), lead + (hidden,))


def _paged_attention(self, query, key_cache, value_cache, block_tables, context_lens, antiquant_scale=None,
                     antiquant_offset=None, attn_mask=None, q_seq_lens=None, alibi_mask=None):
    for name, v in (("antiquant_scale", antiquant_scale), ("antiquant_offset", antiquant_offset),
                    ("attn_mask", attn_mask), ("q_seq_lens", q_seq_lens)):
        if v is not None:
            raise ValueError(f"For 'PagedAttention', '{name}' (quantised caches / speculative decoding) is not "
                             f"supported in openspore; pass None.")
    return _paged(self, query, key_cache, value_cache, block_tables, context_lens, alibi_mask)


def _paged_attention_mask(self, query, key_cache, value_cache, block_tables, context_lens, antiquant_scale=None,
                          antiquant_offset=None, alibi_mask=None):
    if antiquant_scale is not None or antiquant_offset is not None:
        raise ValueError("For 'PagedAttentionMask', quantised caches (antiquant_*) are not supported in openspore.")
    return _paged(self, query, key_cache, value_cache, block_tables, context_lens, alibi_mask)


_ATTRS = [("head_num", 1), ("scale_value", 1.0), ("kv_head_num", 0), ("kv_cache_quant_mode", "DEFAULT"),
          ("mask_mode", "MASK_DEFAULT"), ("mla_v_dim", 0)]
PagedAttention = _primitive(
    "PagedAttention", _paged_attention, attrs=_ATTRS,
    doc="PagedAttention(head_num, scale_value=1.0, kv_head_num=0)(query, key_cache, value_cache, block_tables, "
        "context_lens): each sequence's query attends to its first context_lens cached tokens, found through "
        "its block table.")
PagedAttentionMask = _primitive(
    "PagedAttentionMask", _paged_attention_mask, attrs=_ATTRS[:3],
    doc="PagedAttentionMask(head_num, scale_value=1.0, kv_head_num=0)(query, key_cache, value_cache, block_tables, "
        "context_lens, antiquant_scale, antiquant_offset, alibi_mask): PagedAttention with alibi_mask "
        "(B, N, S_q, max_context) added to the scores.")
__all__ = sorted(n for n, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, _PythonPrimitive) and v is not _PythonPrimitive)
