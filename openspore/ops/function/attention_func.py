"""CPU references of MindSpore's fused attention functions (Ascend kernels there): flash_attention_score,
prompt_flash_attention, incre_flash_attention, fused_infer_attention_score — softmax(scale·QKᵀ + mask)·V over
the layouts BSH, BSND, BNSD and SBH, with grouped key/value heads and the causal / band sparse modes — written with
the functional API, so they differentiate and compile. Quantisation, positional shifts (pse), variable sequence
lengths and paged key/value caches of the fused kernels are not modelled: passing them is a clear error.

Masks follow MindSpore: True (or 1) marks a position that is left out.

>>> import numpy as np, openspore as ms
>>> from openspore import ops
>>> q = ms.Tensor(np.ones((1, 2, 4), np.float32))
>>> ops.flash_attention_score(q, q, q, head_num=2).shape
(1, 2, 4)
"""
import numpy as np

from ...common import dtype as mstype
from ...core.tensor import Tensor
from .. import function as F

__all__ = ["flash_attention_score", "prompt_flash_attention", "incre_flash_attention", "fused_infer_attention_score"]

_LAYOUTS = ("BSH", "BSND", "BNSD", "SBH")
_NO_LIMIT = 2147483647


def _to_bnsd(op, x, layout, heads):
    """x in `layout` → (B, N, S, D)."""
    if layout not in _LAYOUTS:
        raise ValueError(f"For '{op}', 'input_layout' must be one of {list(_LAYOUTS)} (TND is not supported in "
                         f"openspore), but got {layout!r}.")
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return F.transpose(x, (0, 2, 1, 3))
    if layout == "SBH":
        x = F.transpose(x, (1, 0, 2))
    b, s, h = x.shape
    if h % heads:
        raise ValueError(f"For '{op}', the hidden size {h} is not a multiple of the {heads} heads.")
    return F.transpose(F.reshape(x, (b, s, heads, h // heads)), (0, 2, 1, 3))


def _from_bnsd(x, layout):
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return F.transpose(x, (0, 2, 1, 3))
    b, n, s, d = x.shape
    out = F.reshape(F.transpose(x, (0, 2, 1, 3)), (b, s, n * d))
    return F.transpose(out, (1, 0, 2)) if layout == "SBH" else out


def _band(s_q, s_kv, pre_tokens, next_tokens, sparse_mode):
    """bool (S_q, S_kv): True where a query may not look (MindSpore's sparse modes 0, 2, 3, 4)."""
    i, j = np.arange(s_q)[:, None], np.arange(s_kv)[None]
    if sparse_mode in (0, 4):
        return (j < i - pre_tokens) | (j > i + next_tokens)
    if sparse_mode == 2:  # causal from the top-left corner
        return j > i
    if sparse_mode == 3:  # causal aligned to the bottom-right corner
        return j > i + (s_kv - s_q)
    raise ValueError(f"sparse_mode must be 0, 2, 3 or 4 in openspore, but got {sparse_mode!r}.")


def _attend(q, k, v, scale, mask, keep_prob=1.0):
    """(B, N, S, D) attention with grouped kv heads; returns (out, log-sum-exp (B, N, S, 1))."""
    n, n_kv = q.shape[1], k.shape[1]
    if n % n_kv:
        raise ValueError(f"The {n} query heads must be a multiple of the {n_kv} key/value heads.")
    if n_kv != n:  # grouped-query attention: each kv head serves n / n_kv query heads
        k = F.repeat_interleave(k, n // n_kv, 1)
        v = F.repeat_interleave(v, n // n_kv, 1)
    scores = F.matmul(q, F.swapaxes(k, 2, 3)) * scale
    if mask is not None:
        low = float(np.finfo(scores.dtype.np_dtype).min)
        scores = F.where(mask, F.fill(scores.dtype, (), low), scores)
    lse = F.logsumexp(scores, -1, True)
    probs = F.exp(scores - lse)
    if keep_prob < 1.0:
        probs = F.dropout(probs, p=1.0 - keep_prob)
    return F.matmul(probs, v), lse


def _mask(op, attn_mask, shape, band):
    masks = []
    if attn_mask is not None:
        m = attn_mask if attn_mask.dtype is mstype.bool_ else attn_mask != 0
        masks.append(m)
    if band is not None:
        masks.append(Tensor(band))
    if not masks:
        return None
    out = masks[0]
    for m in masks[1:]:
        out = F.logical_or(out, m)
    return out


def _unsupported(op, **values):
    for name, value in values.items():
        if value is not None:
            raise ValueError(f"For '{op}', '{name}' (a fused-kernel feature: quantisation, positional shift, variable "
                             f"lengths or paged caches) is not supported in openspore; pass None.")


def flash_attention_score(query, key, value, head_num, real_shift=None, drop_mask=None, padding_mask=None,
                          attn_mask=None, prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, keep_prob=1.0,
                          scalar_value=1.0, pre_tokens=_NO_LIMIT, next_tokens=_NO_LIMIT, inner_precise=0,
                          input_layout="BSH", sparse_mode=0):
    """softmax(scalar_value·QKᵀ, masked by attn_mask and the pre/next-token band) · V in `input_layout`."""
    _unsupported("flash_attention_score", real_shift=real_shift, drop_mask=drop_mask, padding_mask=padding_mask,
                 prefix=prefix, actual_seq_qlen=actual_seq_qlen, actual_seq_kvlen=actual_seq_kvlen)
    q = _to_bnsd("flash_attention_score", query, input_layout, head_num)
    n_kv = head_num if input_layout in ("BNSD", "BSND") else None
    k = _to_bnsd("flash_attention_score", key, input_layout, n_kv or max(1, head_num * key.shape[-1]
                                                                         // query.shape[-1]))
    v = _to_bnsd("flash_attention_score", value, input_layout, k.shape[1] if n_kv is None else n_kv)
    band = None
    if sparse_mode != 0 or pre_tokens < q.shape[2] or next_tokens < k.shape[2]:
        band = _band(q.shape[2], k.shape[2], pre_tokens, next_tokens, sparse_mode)
    out, _ = _attend(q, k, v, scalar_value, _mask("flash_attention_score", attn_mask, None, band), keep_prob)
    return _from_bnsd(out, input_layout)


def _inference_attention(op, query, key, value, attn_mask, num_heads, scale, pre_tokens, next_tokens, input_layout,
                         num_key_value_heads, sparse_mode):
    kv_heads = num_key_value_heads or num_heads
    q = _to_bnsd(op, query, input_layout, num_heads)
    k = _to_bnsd(op, key, input_layout, kv_heads)
    v = _to_bnsd(op, value, input_layout, kv_heads)
    band = None  # as the fused kernels: the token band applies together with a mask, or with a causal sparse mode
    if sparse_mode in (2, 3, 4) or (attn_mask is not None and (pre_tokens < k.shape[2] or next_tokens < k.shape[2])):
        band = _band(q.shape[2], k.shape[2], pre_tokens, next_tokens, sparse_mode)
    out, lse = _attend(q, k, v, scale, _mask(op, attn_mask, None, band))
    return _from_bnsd(out, input_layout), lse


def prompt_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
                           pse_shift=None, deq_scale1=None, quant_scale1=None, deq_scale2=None, quant_scale2=None,
                           quant_offset2=None, num_heads=1, scale_value=1.0, pre_tokens=_NO_LIMIT, next_tokens=0,
                           input_layout="BSH", num_key_value_heads=0, sparse_mode=0, inner_precise=1):
    """Full-prompt attention (the prefill step): softmax(scale·QKᵀ + mask)·V with grouped kv heads."""
    _unsupported("prompt_flash_attention", actual_seq_lengths=actual_seq_lengths,
                 actual_seq_lengths_kv=actual_seq_lengths_kv, pse_shift=pse_shift, deq_scale1=deq_scale1,
                 quant_scale1=quant_scale1, deq_scale2=deq_scale2, quant_scale2=quant_scale2,
                 quant_offset2=quant_offset2)
    return _inference_attention("prompt_flash_attention", query, key, value, attn_mask, num_heads, scale_value,
                                pre_tokens, next_tokens, input_layout, num_key_value_heads, sparse_mode)[0]


def incre_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, pse_shift=None,
                          dequant_scale1=None, quant_scale1=None, dequant_scale2=None, quant_scale2=None,
                          quant_offset2=None, antiquant_scale=None, antiquant_offset=None, block_table=None,
                          num_heads=1, input_layout="BSH", scale_value=1.0, num_key_value_heads=0, block_size=0,
                          inner_precise=1, kv_padding_size=None):
    """One decoding step: the new query tokens attend to the whole key/value (a Tensor, or a list of per-batch
    Tensors joined along the batch axis)."""
    _unsupported("incre_flash_attention", actual_seq_lengths=actual_seq_lengths, pse_shift=pse_shift,
                 dequant_scale1=dequant_scale1, quant_scale1=quant_scale1, dequant_scale2=dequant_scale2,
                 quant_scale2=quant_scale2, quant_offset2=quant_offset2, antiquant_scale=antiquant_scale,
                 antiquant_offset=antiquant_offset, block_table=block_table, kv_padding_size=kv_padding_size)
    key = F.concat(tuple(key), 0) if isinstance(key, (tuple, list)) else key
    value = F.concat(tuple(value), 0) if isinstance(value, (tuple, list)) else value
    return _inference_attention("incre_flash_attention", query, key, value, attn_mask, num_heads, scale_value,
                                _NO_LIMIT, _NO_LIMIT, input_layout, num_key_value_heads, 0)[0]


def fused_infer_attention_score(query, key, value, *, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
                                actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None,
                                dequant_scale2=None, quant_scale2=None, quant_offset2=None, antiquant_scale=None,
                                antiquant_offset=None, block_table=None, query_padding_size=None,
                                kv_padding_size=None, key_antiquant_scale=None, key_antiquant_offset=None,
                                value_antiquant_scale=None, value_antiquant_offset=None, key_shared_prefix=None,
                                value_shared_prefix=None, actual_shared_prefix_len=None, num_heads=1, scale=1.0,
                                pre_tokens=_NO_LIMIT, next_tokens=_NO_LIMIT, input_layout="BSH",
                                num_key_value_heads=0, sparse_mode=0, inner_precise=1, block_size=0, antiquant_mode=0,
                                key_antiquant_mode=0, value_antiquant_mode=0, softmax_lse_flag=False):
    """(attention output, log-sum-exp of the scores (B, N, S, 1) when softmax_lse_flag, else a one-element zero):
    prompt and incremental attention in one function."""
    _unsupported("fused_infer_attention_score", pse_shift=pse_shift, actual_seq_lengths=actual_seq_lengths,
                 actual_seq_lengths_kv=actual_seq_lengths_kv, dequant_scale1=dequant_scale1, quant_scale1=quant_scale1,
                 dequant_scale2=dequant_scale2, quant_scale2=quant_scale2, quant_offset2=quant_offset2,
                 antiquant_scale=antiquant_scale, antiquant_offset=antiquant_offset, block_table=block_table,
                 query_padding_size=query_padding_size, kv_padding_size=kv_padding_size,
                 key_antiquant_scale=key_antiquant_scale, key_antiquant_offset=key_antiquant_offset,
                 value_antiquant_scale=value_antiquant_scale, value_antiquant_offset=value_antiquant_offset,
                 key_shared_prefix=key_shared_prefix, value_shared_prefix=value_shared_prefix,
                 actual_shared_prefix_len=actual_shared_prefix_len)
    key = F.concat(tuple(key), 0) if isinstance(key, (tuple, list)) else key
    value = F.concat(tuple(value), 0) if isinstance(value, (tuple, list)) else value
    out, lse = _inference_attention("fused_infer_attention_score", query, key, value, atten_mask, num_heads, scale,
                                    pre_tokens, next_tokens, input_layout, num_key_value_heads, sparse_mode)
    return out, (F.cast(lse, mstype.float32) if softmax_lse_flag else F.zeros((1,), mstype.float32))
