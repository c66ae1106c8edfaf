"""`nn.MultiheadAttention` (facts §1.7): packed `in_proj_weight` (3E, E) and `in_proj_bias`, `out_proj` Dense.

Self-attention (query, key and value the same tensor) projects with one MatMul and splits the result; otherwise
the packed weight is split once and each input projected on its own. Heads are computed batched as
(N, heads, L, head_dim) with BatchMatMul. Boolean masks mark positions to ignore (True = masked); float masks are
added to the attention scores.

>>> import numpy as np, openspore as ms
>>> from openspore import nn
>>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
>>> x = ms.Tensor(np.ones((2, 5, 8), np.float32))
>>> out, weights = mha(x, x, x)
>>> out.shape, weights.shape
((2, 5, 8), (2, 5, 5))
"""
import math

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import XavierNormal, XavierUniform
from ..cell import Cell
from ._common import check_bool, check_dtype, check_number, compute_cast, make_param, positive_int
from .basic import Dense, Dropout


class MultiheadAttention(Cell):
    """`MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
    kdim=None, vdim=None, batch_first=False, dtype=mstype.float32)`.

    `construct(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)` → (attn_output, attn_weights); attn_weights is None when need_weights is False.
    Inputs are (L, N, E) — (N, L, E) with batch_first — or unbatched (L, E).
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=mstype.float32):
        super().__init__()
        name = "MultiheadAttention"
        self.embed_dim = positive_int(name, "embed_dim", embed_dim)
        self.num_heads = positive_int(name, "num_heads", num_heads)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"For '{name}', the 'embed_dim' must be divisible by 'num_heads', but got embed_dim="
                             f"{embed_dim} and num_heads={num_heads}.")
        self.kdim = positive_int(name, "kdim", kdim) if kdim is not None else self.embed_dim
        self.vdim = positive_int(name, "vdim", vdim) if vdim is not None else self.embed_dim
        self.dropout = check_number(name, "dropout", dropout, 0.0, 1.0, high_open=True)
        self.has_bias = check_bool(name, "has_bias", has_bias)
        self.add_zero_attn = check_bool(name, "add_zero_attn", add_zero_attn)
        self.batch_first = check_bool(name, "batch_first", batch_first)
        dtype = check_dtype(name, dtype)
        self.head_dim = self.embed_dim // self.num_heads
        e = self.embed_dim
        self._qkv_same_embed_dim = self.kdim == e and self.vdim == e
        if self._qkv_same_embed_dim:
            self.in_proj_weight = make_param(XavierUniform(), (3 * e, e), dtype, "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = make_param(XavierUniform(), (e, e), dtype, "q_proj_weight")
            self.k_proj_weight = make_param(XavierUniform(), (e, self.kdim), dtype, "k_proj_weight")
            self.v_proj_weight = make_param(XavierUniform(), (e, self.vdim), dtype, "v_proj_weight")
            self.in_proj_weight = None
        self.in_proj_bias = make_param("zeros", (3 * e,), dtype, "in_proj_bias") if self.has_bias else None
        self.out_proj = Dense(e, e, has_bias=self.has_bias, dtype=dtype)
        if self.has_bias:
            self.out_proj.bias.set_data(ops.zeros((e,), dtype))
        if check_bool(name, "add_bias_kv", add_bias_kv):
            self.bias_k = make_param(XavierNormal(), (1, 1, e), dtype, "bias_k")
            self.bias_v = make_param(XavierNormal(), (1, 1, e), dtype, "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.matmul = ops.MatMul(transpose_b=True)
        self.bias_add = ops.BiasAdd()
        self.bmm_t = ops.BatchMatMul(transpose_b=True)
        self.bmm = ops.BatchMatMul()
        self.softmax = ops.Softmax(axis=-1)
        self.split3 = ops.Split(axis=0, output_num=3)
        self.split3_last = ops.Split(axis=-1, output_num=3)
        self.attn_dropout = Dropout(p=self.dropout)

    # ---- projections --------------------------------------------------------------------------------
    def _project(self, x2d, weight, bias):
        out = self.matmul(x2d, weight)
        return self.bias_add(out, bias) if bias is not None else out

    def _in_projection(self, query, key, value):
        """2-D (tokens, features) inputs → q, k, v projections."""
        bias = compute_cast(self, self.in_proj_bias) if self.has_bias else None
        biases = self.split3(bias) if self.has_bias else (None, None, None)
        if self._qkv_same_embed_dim:
            weight = compute_cast(self, self.in_proj_weight)
            if query is key and key is value:
                return self.split3_last(self._project(query, weight, bias))
            weights = self.split3(weight)
        else:
            weights = tuple(compute_cast(self, w) for w in (self.q_proj_weight, self.k_proj_weight,
                                                             self.v_proj_weight))
        return tuple(self._project(x, w, b) for x, w, b in zip((query, key, value), weights, biases))

    # ---- heads ----------------------------------------------------------------------------------------
    def _heads(self, x, n, length):
        """(tokens, E) in the input's layout → (N, heads, length, head_dim)."""
        if self.batch_first:
            return ops.transpose(ops.reshape(x, (n, length, self.num_heads, self.head_dim)), (0, 2, 1, 3))
        return ops.transpose(ops.reshape(x, (length, n, self.num_heads, self.head_dim)), (1, 2, 0, 3))

    def _scores_mask(self, scores, mask):
        if mask is None:
            return scores
        if mask.dtype is mstype.bool_:
            return ops.masked_fill(scores, mask, float("-inf"))
        return ops.add(scores, ops.cast(mask, scores.dtype) if mask.dtype is not scores.dtype else mask)

    def _attn_mask4(self, attn_mask, n, tgt_len, src_len):
        if attn_mask is None:
            return None
        if len(attn_mask.shape) == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise ValueError(f"For 'MultiheadAttention', the 2-D 'attn_mask' must be ({tgt_len}, {src_len}), "
                                 f"but got {tuple(attn_mask.shape)}.")
            return attn_mask
        if tuple(attn_mask.shape) != (n * self.num_heads, tgt_len, src_len):
            raise ValueError(f"For 'MultiheadAttention', the 3-D 'attn_mask' must be "
                             f"({n * self.num_heads}, {tgt_len}, {src_len}), but got {tuple(attn_mask.shape)}.")
        return ops.reshape(attn_mask, (n, self.num_heads, tgt_len, src_len))

    def _extend_kv(self, k, v, attn_mask, key_padding_mask, n):
        """Append bias_k/bias_v and/or a zero position to the keys and values (masks get a visible column)."""
        extra = (1 if self.bias_k is not None else 0) + (1 if self.add_zero_attn else 0)
        if self.bias_k is not None:
            shape = (n, self.num_heads, 1, self.head_dim)
            for_heads = lambda b: ops.broadcast_to(  # noqa: E731
                ops.reshape(compute_cast(self, b), (1, self.num_heads, 1, self.head_dim)), shape)
            k = ops.concat((k, for_heads(self.bias_k)), 2)
            v = ops.concat((v, for_heads(self.bias_v)), 2)
        if self.add_zero_attn:
            zeros = ops.zeros((n, self.num_heads, 1, self.head_dim), k.dtype)
            k, v = ops.concat((k, zeros), 2), ops.concat((v, zeros), 2)
        pad = (0, extra)
        if attn_mask is not None:
            attn_mask = ops.pad(attn_mask, pad, "constant", False if attn_mask.dtype is mstype.bool_ else 0)
        if key_padding_mask is not None:
            key_padding_mask = ops.pad(key_padding_mask, pad, "constant",
                                       False if key_padding_mask.dtype is mstype.bool_ else 0)
        return k, v, attn_mask, key_padding_mask

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        unbatched = len(query.shape) == 2
        if unbatched:
            axis = 0 if self.batch_first else 1
            same_kv, same_qk = key is value, query is key
            query = ops.expand_dims(query, axis)
            key = query if same_qk else ops.expand_dims(key, axis)
            value = key if same_kv else ops.expand_dims(value, axis)
            if key_padding_mask is not None:
                key_padding_mask = ops.expand_dims(key_padding_mask, 0)
        elif len(query.shape) != 3:
            raise ValueError(f"For 'MultiheadAttention', the 'query' must be 2-D or 3-D, but got shape "
                             f"{list(query.shape)}.")
        if self.batch_first:
            n, tgt_len, e = query.shape
            src_len = key.shape[1]
        else:
            tgt_len, n, e = query.shape
            src_len = key.shape[0]
        if e != self.embed_dim:
            raise ValueError(f"For 'MultiheadAttention', the last dimension of 'query' must be {self.embed_dim}, "
                             f"but got {e}.")
        same = query is key and key is value
        q2 = ops.reshape(query, (-1, e))
        k2 = q2 if same else ops.reshape(key, (-1, key.shape[-1]))
        v2 = q2 if same else (k2 if value is key else ops.reshape(value, (-1, value.shape[-1])))
        q, k, v = self._in_projection(q2, k2, v2)
        q = self._heads(q, n, tgt_len)
        k = self._heads(k, n, src_len)
        v = self._heads(v, n, src_len)
        attn_mask = self._attn_mask4(attn_mask, n, tgt_len, src_len)
        if self.bias_k is not None or self.add_zero_attn:
            k, v, attn_mask, key_padding_mask = self._extend_kv(k, v, attn_mask, key_padding_mask, n)
        scores = self.bmm_t(ops.mul(q, 1.0 / math.sqrt(self.head_dim)), k)
        scores = self._scores_mask(scores, attn_mask)
        if key_padding_mask is not None:
            kpm = ops.reshape(key_padding_mask, (n, 1, 1, k.shape[2]))
            scores = self._scores_mask(scores, kpm)
        weights = self.softmax(scores)
        if self.training and self.dropout > 0:
            weights = self.attn_dropout(weights)
        out = self.bmm(weights, v)
        perm = (0, 2, 1, 3) if self.batch_first else (2, 0, 1, 3)
        out = ops.reshape(ops.transpose(out, perm), (-1, e))
        out = self.out_proj(out)
        out = ops.reshape(out, (n, tgt_len, e) if self.batch_first else (tgt_len, n, e))
        if unbatched:
            out = ops.squeeze(out, 0 if self.batch_first else 1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = ops.mean(weights, 1)
        if unbatched:
            weights = ops.squeeze(weights, 0)
        return out, weights


__all__ = ["MultiheadAttention"]
