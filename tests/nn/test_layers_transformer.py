"""Embedding, MultiheadAttention and the Transformer layers: MindSpore parameter names, numerics vs torch with
copied weights (eval mode, dropout 0), masks, gradients."""
import numpy as np
import pytest
import torch

import openspore as ms
from openspore import nn
from tests.nn.layer_helpers import TRANSFORMER_RENAME, close, copy_weights, ms_t


def randn(*shape):
    return torch.randn(*shape)


@pytest.fixture(autouse=True)
def _torch_seed():
    torch.manual_seed(0)


# ---- Embedding ----------------------------------------------------------------------------------------
def test_embedding_parameters_lookup_and_repr(backend):
    emb = nn.Embedding(10, 4)
    assert [(k, tuple(p.shape)) for k, p in emb.parameters_and_names()] == [("embedding_table", (10, 4))]
    table = emb.embedding_table.asnumpy()
    assert 0 < table.std() < 0.02  # Normal(sigma=0.01)
    ids = np.array([[1, 2, 9], [0, 0, 3]], np.int32)
    out = emb(ms.Tensor(ids))
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.asnumpy(), table[ids])
    hot = nn.Embedding(10, 4, use_one_hot=True, embedding_table=ms.Tensor(table))
    np.testing.assert_allclose(hot(ms.Tensor(ids.astype(np.int64))).asnumpy(), table[ids], rtol=1e-6)
    assert repr(emb).startswith("Embedding(vocab_size=10, embedding_size=4, use_one_hot=False, "
                                "embedding_table=normal, dtype=Float32, padding_idx=None")
    with pytest.raises(TypeError, match="the input ids must be an int Tensor"):
        emb(ms.Tensor(ids.astype(np.float32)))


def test_embedding_padding_idx_and_gradient(backend):
    emb = nn.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[4], 0)
    ids = ms.Tensor(np.array([1, 1, 3], np.int32))
    (g,) = ms.grad(lambda i: emb(i).sum(), None, [emb.embedding_table])(ids)
    np.testing.assert_array_equal(g.asnumpy()[:, 0], [0, 2, 0, 1, 0])


# ---- MultiheadAttention ---------------------------------------------------------------------------------
def _mha_pair(embed_dim=8, num_heads=2, **kwargs):
    t = torch.nn.MultiheadAttention(embed_dim, num_heads, **kwargs)
    kwargs.pop("bias", None)
    m = nn.MultiheadAttention(embed_dim, num_heads, **kwargs)
    return copy_weights(m, t), t


def test_mha_parameter_names():
    m = nn.MultiheadAttention(8, 2)
    assert [(k, tuple(p.shape)) for k, p in m.parameters_and_names()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)), ("out_proj.bias", (8,))]
    np.testing.assert_array_equal(m.in_proj_bias.asnumpy(), 0)
    np.testing.assert_array_equal(m.out_proj.bias.asnumpy(), 0)
    other = nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)
    assert {k: tuple(p.shape) for k, p in other.parameters_and_names()} == {
        "q_proj_weight": (8, 8), "k_proj_weight": (8, 4), "v_proj_weight": (8, 6), "in_proj_bias": (24,),
        "bias_k": (1, 1, 8), "bias_v": (1, 1, 8), "out_proj.weight": (8, 8), "out_proj.bias": (8,)}
    with pytest.raises(ValueError, match="divisible by 'num_heads'"):
        nn.MultiheadAttention(9, 2)


@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_self_and_cross_attention_with_masks(backend, batch_first):
    m, t = _mha_pair(batch_first=batch_first)
    q = randn(4, 3, 8) if batch_first else randn(3, 4, 8)
    kv = randn(4, 5, 8) if batch_first else randn(5, 4, 8)
    key_padding = torch.rand(4, 5) > 0.6
    key_padding[:, 0] = False
    attn_mask = torch.rand(3, 5) > 0.7
    attn_mask[:, 0] = False
    out, weights = t(q, kv, kv, key_padding_mask=key_padding, attn_mask=attn_mask)
    ours, our_weights = m(ms_t(q), ms_t(kv), ms_t(kv), key_padding_mask=ms_t(key_padding), attn_mask=ms_t(attn_mask))
    close(ours, out)
    close(our_weights, weights)
    x = ms_t(q)
    out, weights = t(q, q, q, average_attn_weights=False)
    ours, our_weights = m(x, x, x, average_attn_weights=False)
    close(ours, out)
    close(our_weights, weights)
    float_mask = randn(4 * 2, 3, 3)
    out, _ = t(q, q, q, attn_mask=float_mask, need_weights=False)
    ours, none = m(x, x, x, attn_mask=ms_t(float_mask), need_weights=False)
    assert none is None
    close(ours, out)


def test_mha_kdim_vdim_bias_kv_zero_attn_unbatched(backend):
    m, t = _mha_pair(kdim=4, vdim=6, add_bias_kv=True, add_zero_attn=True)
    q, k, v = randn(3, 2, 8), randn(5, 2, 4), randn(5, 2, 6)
    key_padding = torch.zeros(2, 5, dtype=torch.bool)
    key_padding[1, 3:] = True
    out, weights = t(q, k, v, key_padding_mask=key_padding)
    ours, our_weights = m(ms_t(q), ms_t(k), ms_t(v), key_padding_mask=ms_t(key_padding))
    close(ours, out)
    close(our_weights, weights)
    m2, t2 = _mha_pair()
    x = randn(5, 8)
    out, weights = t2(x, x, x)
    ours, our_weights = m2(ms_t(x), ms_t(x), ms_t(x))
    close(ours, out)
    close(our_weights, weights)


def test_mha_gradients_match_torch(backend):
    m, t = _mha_pair(batch_first=True)
    x = randn(2, 3, 8)
    tx = x.clone().requires_grad_(True)
    (t(tx, tx, tx)[0] ** 2).sum().backward()
    gx, (gw,) = ms.grad(lambda a: (m(a, a, a)[0] ** 2).sum(), 0, [m.in_proj_weight])(ms_t(x))
    close(gx, tx.grad, rtol=1e-4, atol=1e-5)
    close(gw, t.in_proj_weight.grad, rtol=1e-4, atol=1e-5)


# ---- Transformer layers ------------------------------------------------------------------------------------
def test_encoder_layer_children_and_parameter_names():
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    assert list(layer.name_cells()) == ["self_attn", "dense1", "dropout", "dense2", "norm1", "norm2", "dropout1",
                                        "dropout2"]
    assert [k for k, _ in layer.parameters_and_names()] == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
        "dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias", "norm1.gamma", "norm1.beta", "norm2.gamma",
        "norm2.beta"]
    assert layer.norm1.epsilon == 1e-5 and layer.dropout.p == pytest.approx(0.1)


@pytest.mark.parametrize("norm_first,activation", [(False, "relu"), (True, "gelu"), (False, "callable")])
def test_encoder_layer_matches_torch(backend, norm_first, activation):
    act = torch.nn.functional.silu if activation == "callable" else activation
    t = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation=act, batch_first=True,
                                         norm_first=norm_first).eval()
    ours_act = nn.SiLU() if activation == "callable" else activation
    m = copy_weights(nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation=ours_act, batch_first=True,
                                                norm_first=norm_first), t, TRANSFORMER_RENAME)
    x = randn(2, 5, 16)
    mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    padding = torch.zeros(2, 5, dtype=torch.bool)
    padding[0, 4] = True
    with torch.no_grad():
        expected = t(x, src_mask=mask, src_key_padding_mask=padding)
    close(m(ms_t(x), src_mask=ms_t(mask), src_key_padding_mask=ms_t(padding)), expected)


def test_decoder_layer_matches_torch(backend):
    t = torch.nn.TransformerDecoderLayer(16, 2, 24, dropout=0.0).eval()
    m = copy_weights(nn.TransformerDecoderLayer(16, 2, 24, dropout=0.0), t, TRANSFORMER_RENAME)
    assert {"self_attn", "multihead_attn", "norm3", "dropout3"} <= set(m.name_cells())
    tgt, memory = randn(4, 2, 16), randn(6, 2, 16)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    with torch.no_grad():
        expected = t(tgt, memory, tgt_mask=mask)
    close(m(ms_t(tgt), ms_t(memory), tgt_mask=ms_t(mask)), expected)


def test_transformer_stack_matches_torch(backend):
    t = torch.nn.Transformer(16, 2, 2, 1, 24, dropout=0.0, batch_first=True).eval()
    m = nn.Transformer(16, 2, 2, 1, 24, dropout=0.0, batch_first=True)
    names = [k for k, _ in m.parameters_and_names()]
    assert "encoder.layers.1.self_attn.in_proj_weight" in names and "decoder.norm.gamma" in names
    assert len(names) == len(t.state_dict())
    copy_weights(m, t, TRANSFORMER_RENAME)
    src, tgt = randn(2, 5, 16), randn(2, 3, 16)
    with torch.no_grad():
        expected = t(src, tgt)
    close(m(ms_t(src), ms_t(tgt)), expected, rtol=1e-4, atol=1e-5)
    layers = m.encoder.layers
    assert layers[0].dense1.weight is not layers[1].dense1.weight
    assert layers[0].dense1.weight.name == "encoder.layers.0.dense1.weight"


def test_encoder_layer_dropout_only_in_training(backend):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = ms_t(randn(3, 2, 8))
    np.testing.assert_array_equal(layer(x).asnumpy(), layer(x).asnumpy())
    layer.set_train()
    assert not np.array_equal(layer(x).asnumpy(), layer(x).asnumpy())


def test_to_float_float16_through_embedding_and_encoder(backend):
    net = nn.SequentialCell(nn.Embedding(20, 8), nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True))
    ids = ms.Tensor(np.array([[1, 5, 7], [2, 2, 19]], np.int32))
    expected = net(ids).asnumpy()
    out = net.to_float(ms.float16)(ids)
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), expected, atol=2e-2)
    mha = nn.MultiheadAttention(8, 2, kdim=4, vdim=4, add_bias_kv=True).to_float(ms.float16)
    q, kv = ms_t(randn(3, 2, 8)), ms_t(randn(5, 2, 4))
    out, weights = mha(q, kv, kv)
    assert out.dtype == ms.float16 and weights.dtype == ms.float16
