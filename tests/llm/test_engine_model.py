"""The GPT decoder: its logits equal Hugging Face GPT2LMHeadModel's with the mapped weights; config round trip."""
import numpy as np
import pytest

import openspore as ms
from openspore.llm import GPT, GPTConfig, to_hf_gpt2_state_dict

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _hf_model(net, cfg):
    hf_cfg = transformers.GPT2Config(vocab_size=cfg.vocab_size, n_positions=cfg.n_positions, n_embd=cfg.n_embd,
                                     n_layer=cfg.n_layer, n_head=cfg.n_head, layer_norm_epsilon=cfg.layer_norm_epsilon,
                                     activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0,
                                     attn_pdrop=0.0, tie_word_embeddings=True)
    hf = transformers.GPT2LMHeadModel(hf_cfg).eval()
    state = {k: torch.from_numpy(v.copy()) for k, v in to_hf_gpt2_state_dict(net.parameters_dict()).items()}
    missing, unexpected = hf.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert all(".attn.bias" in m or ".attn.masked_bias" in m for m in missing), missing
    return hf


def _randomize(net, seed):
    rng = np.random.default_rng(seed)  # non-trivial LayerNorm and bias values, so a swapped mapping shows
    for p in net.get_parameters():
        p.set_data(ms.Tensor((rng.standard_normal(p.shape) * 0.1).astype(np.float32)))


def test_logits_match_hugging_face_gpt2():
    cfg = GPTConfig(vocab_size=97, n_positions=64, n_embd=48, n_layer=3, n_head=4)
    net = GPT(cfg)
    _randomize(net, 0)
    hf = _hf_model(net, cfg)
    ids = np.random.default_rng(1).integers(0, cfg.vocab_size, (3, 21)).astype(np.int32)
    ours = net(ms.Tensor(ids)).asnumpy()
    with torch.no_grad():
        ref = hf(torch.from_numpy(ids.astype(np.int64))).logits.numpy()
    assert ours.shape == (3, 21, cfg.vocab_size) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, ref, atol=1e-4, rtol=0)
    compiled = ms.jit(net)(ms.Tensor(ids)).asnumpy()  # GRAPH_MODE gives the same logits
    np.testing.assert_allclose(compiled, ref, atol=1e-4, rtol=0)


def test_config_round_trip_and_errors(tmp_path):
    cfg = GPTConfig(vocab_size=50, n_embd=32, n_head=2)
    path = tmp_path / "config.json"
    cfg.save(path)
    assert GPTConfig.load(path) == cfg
    with pytest.raises(ValueError, match="n_embd .* divisible by n_head"):
        GPTConfig(n_embd=30, n_head=4)
    with pytest.raises(ValueError, match="GPTConfig.n_layer must be a positive int"):
        GPTConfig(n_layer=0)
    with pytest.raises(ValueError, match="unknown field"):
        GPTConfig.from_dict({"vocab_size": 3, "n_ctx": 4})
    with pytest.raises(ValueError, match="n_positions=8"):
        GPT(GPTConfig(n_positions=8, n_embd=16, n_head=2, n_layer=1))(ms.Tensor(np.zeros((1, 9), np.int32)))


def test_engine_from_checkpoint_keeps_names_and_logits(tmp_path):
    from openspore.llm import LLMEngine
    cfg = GPTConfig(vocab_size=40, n_positions=32, n_embd=16, n_layer=2, n_head=2)
    net = GPT(cfg)
    _randomize(net, 4)
    names = list(net.parameters_dict())
    first = LLMEngine(net, block_size=4, max_batch_size=2)  # wrapping the model must not rename its parameters
    assert list(net.parameters_dict()) == names and names[0] == "wte.embedding_table"
    ms.save_checkpoint(net, str(tmp_path / "gpt.ckpt"))
    cfg.save(tmp_path / "config.json")
    engine = LLMEngine.from_checkpoint(str(tmp_path / "gpt.ckpt"), str(tmp_path / "config.json"), block_size=4,
                                       max_batch_size=2)
    prompt = [3, 1, 4, 1, 5]
    np.testing.assert_allclose(engine.prefill(["x"], [prompt]), first.prefill(["x"], [prompt]), atol=1e-6)
    np.testing.assert_allclose(engine.prefill(["y"], [prompt])[0], net(ms.Tensor(np.array([prompt], np.int32)))
                               .asnumpy()[0, -1], atol=1e-4)
    with pytest.raises(ValueError, match="lacks parameter"):
        LLMEngine.from_checkpoint(str(tmp_path / "gpt.ckpt"), GPTConfig(vocab_size=40, n_positions=32, n_embd=16,
                                                                         n_layer=3, n_head=2))
