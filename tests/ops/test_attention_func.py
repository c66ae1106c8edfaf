"""Fused-attention references (flash/prompt/incremental/fused-infer, paged caches) against torch's
scaled_dot_product_attention, with gradients."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import ops

T = ms.Tensor
rng = np.random.default_rng(0)


def _sdpa(q, k, v, heads, kv_heads, scale, mask=None):
    """torch reference on BSH inputs; mask: True = attend."""
    b, s, h = q.shape
    d = h // heads
    tq = torch.tensor(q).reshape(b, s, heads, d).transpose(1, 2)
    tk = torch.tensor(k).reshape(b, -1, kv_heads, d).transpose(1, 2).repeat_interleave(heads // kv_heads, 1)
    tv = torch.tensor(v).reshape(b, -1, kv_heads, d).transpose(1, 2).repeat_interleave(heads // kv_heads, 1)
    out = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=mask, scale=scale)
    return out.transpose(1, 2).reshape(b, s, h).numpy()


def _qkv(b=2, s=3, skv=5, heads=4, kv_heads=2, d=8):
    return (rng.standard_normal((b, s, heads * d)).astype(np.float32),
            rng.standard_normal((b, skv, kv_heads * d)).astype(np.float32),
            rng.standard_normal((b, skv, kv_heads * d)).astype(np.float32))


def test_flash_attention_score_layouts_masks_and_gradient():
    q, k, v = _qkv()
    ref = _sdpa(q, k, v, 4, 2, 0.3)
    np.testing.assert_allclose(ops.flash_attention_score(T(q), T(k), T(v), 4, scalar_value=0.3).asnumpy(), ref,
                               rtol=1e-5, atol=1e-5)
    bnsd = [x.reshape(2, -1, x.shape[-1] // 8, 8).transpose(0, 2, 1, 3) for x in (q, k, v)]
    out = ops.flash_attention_score(*map(T, bnsd), 4, scalar_value=0.3, input_layout="BNSD").asnumpy()
    np.testing.assert_allclose(out.transpose(0, 2, 1, 3).reshape(q.shape), ref, rtol=1e-5, atol=1e-5)
    sbh = [x.transpose(1, 0, 2) for x in (q, k, v)]
    out = ops.flash_attention_score(*map(T, sbh), 4, scalar_value=0.3, input_layout="SBH").asnumpy()
    np.testing.assert_allclose(out.transpose(1, 0, 2), ref, rtol=1e-5, atol=1e-5)
    mask = rng.random((3, 5)) > 0.6
    mask[:, 0] = False
    out = ops.flash_attention_score(T(q), T(k), T(v), 4, attn_mask=T(mask.astype(np.uint8)), scalar_value=0.3)
    np.testing.assert_allclose(out.asnumpy(), _sdpa(q, k, v, 4, 2, 0.3, torch.tensor(~mask)), rtol=1e-5, atol=1e-5)
    causal = ops.flash_attention_score(T(q), T(k), T(v), 4, scalar_value=0.3, sparse_mode=2).asnumpy()
    np.testing.assert_allclose(causal, _sdpa(q, k, v, 4, 2, 0.3, torch.ones(3, 5, dtype=torch.bool).tril()),
                               rtol=1e-5, atol=1e-5)
    band = ops.flash_attention_score(T(q), T(k), T(v), 4, scalar_value=0.3, pre_tokens=1, next_tokens=1).asnumpy()
    allowed = torch.tensor(np.abs(np.arange(3)[:, None] - np.arange(5)[None]) <= 1)
    np.testing.assert_allclose(band, _sdpa(q, k, v, 4, 2, 0.3, allowed), rtol=1e-5, atol=1e-5)
    g = ms.grad(lambda x: ops.flash_attention_score(x, T(k), T(v), 4, scalar_value=0.3).sum())(T(q)).asnumpy()
    tq = torch.tensor(q, requires_grad=True)
    tk = torch.tensor(k).reshape(2, 5, 2, 8).transpose(1, 2).repeat_interleave(2, 1)
    tv = torch.tensor(v).reshape(2, 5, 2, 8).transpose(1, 2).repeat_interleave(2, 1)
    torch.nn.functional.scaled_dot_product_attention(tq.reshape(2, 3, 4, 8).transpose(1, 2), tk, tv,
                                                     scale=0.3).sum().backward()
    np.testing.assert_allclose(g, tq.grad.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="real_shift"):
        ops.flash_attention_score(T(q), T(k), T(v), 4, real_shift=T(q))


def test_prompt_incremental_and_fused_infer_attention():
    q, k, v = _qkv()
    got = ops.prompt_flash_attention(T(q), T(k), T(v), num_heads=4, scale_value=0.5, num_key_value_heads=2,
                                     sparse_mode=3).asnumpy()
    np.testing.assert_allclose(got, _sdpa(q, k, v, 4, 2, 0.5, torch.ones(3, 5, dtype=torch.bool).tril(2)),
                               rtol=1e-5, atol=1e-5)
    one = q[:, :1]
    got = ops.incre_flash_attention(T(one), [T(k[:1]), T(k[1:])], [T(v[:1]), T(v[1:])], num_heads=4,
                                    scale_value=0.5, num_key_value_heads=2).asnumpy()
    np.testing.assert_allclose(got, _sdpa(one, k, v, 4, 2, 0.5), rtol=1e-5, atol=1e-5)
    out, lse = ops.fused_infer_attention_score(T(q), T(k), T(v), num_heads=4, scale=0.5, num_key_value_heads=2,
                                               softmax_lse_flag=True)
    np.testing.assert_allclose(out.asnumpy(), _sdpa(q, k, v, 4, 2, 0.5), rtol=1e-5, atol=1e-5)
    tq = torch.tensor(q).reshape(2, 3, 4, 8).transpose(1, 2)
    tk = torch.tensor(k).reshape(2, 5, 2, 8).transpose(1, 2).repeat_interleave(2, 1)
    ref_lse = torch.logsumexp(tq @ tk.transpose(2, 3) * 0.5, -1, keepdim=True).numpy()
    np.testing.assert_allclose(lse.asnumpy(), ref_lse, rtol=1e-5, atol=1e-5)
    assert ops.fused_infer_attention_score(T(q), T(k), T(v), num_heads=4, num_key_value_heads=2)[1].shape == (1,)


def test_reshape_and_cache_then_paged_attention():
    heads, kv_heads, d, block = 4, 2, 8, 4
    k_cache = ms.Parameter(T(np.zeros((6, block, kv_heads, d), np.float32)), name="kc")
    v_cache = ms.Parameter(T(np.zeros((6, block, kv_heads, d), np.float32)), name="vc")
    lengths = [5, 3]
    tables = np.array([[4, 1], [0, 5]], np.int32)
    keys = [rng.standard_normal((n, kv_heads, d)).astype(np.float32) for n in lengths]
    values = [rng.standard_normal((n, kv_heads, d)).astype(np.float32) for n in lengths]
    slots = np.concatenate([[tables[b, t // block] * block + t % block for t in range(n)]
                            for b, n in enumerate(lengths)] + [[-1]])  # a padding token
    pad = np.zeros((1, kv_heads, d), np.float32)
    ops.ReshapeAndCache()(T(np.concatenate(keys + [pad])), T(np.concatenate(values + [pad])), k_cache, v_cache,
                          T(slots.astype(np.int32)))
    flat = k_cache.asnumpy().reshape(-1, kv_heads, d)
    np.testing.assert_array_equal(flat[tables[0, 1] * block], keys[0][4])
    query = rng.standard_normal((2, 1, heads * d)).astype(np.float32)
    out = ops.PagedAttention(heads, 0.4, kv_heads)(T(query), k_cache, v_cache, T(tables),
                                                     T(np.array(lengths, np.int32))).asnumpy()
    for b, n in enumerate(lengths):
        ref = _sdpa(query[b:b + 1], keys[b].reshape(1, n, -1), values[b].reshape(1, n, -1), heads, kv_heads, 0.4)
        np.testing.assert_allclose(out[b:b + 1], ref, rtol=1e-5, atol=1e-5)
    alibi = rng.standard_normal((2, heads, 1, 8)).astype(np.float32)
    masked = ops.PagedAttentionMask(heads, 0.4, kv_heads)(T(query), k_cache, v_cache, T(tables),
                                                          T(np.array(lengths, np.int32)), None, None, T(alibi))
    ref = _sdpa(query[:1], keys[0].reshape(1, 5, -1), values[0].reshape(1, 5, -1), heads, kv_heads, 0.4,
                torch.tensor(alibi[0, :, :, :5]))
    np.testing.assert_allclose(masked.asnumpy()[:1], ref, rtol=1e-5, atol=1e-5)
