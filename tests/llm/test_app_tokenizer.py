"""openspore.llm.tokenizer: byte-level and BPE round trips, save/load, the chat template, streaming decode and the
errors bad input gets."""
import json
import os

import pytest

from openspore.llm.tokenizer import (EOS_TOKEN, BPETokenizer, ByteTokenizer, StreamDecoder, load_tokenizer)

TEXTS = ["plain ascii text", "héllo wörld", "数据集 与 模型", "emoji 🙂 and tabs\tnewlines\n", "", "  spaces  "]
CORPUS = ["The model trains in graph mode; the servable serves it over REST and gRPC.",
          "Serving starts workers, loads checkpoints and answers requests in batches."] * 30


@pytest.fixture(scope="module")
def bpe():
    return BPETokenizer.train(CORPUS, vocab_size=320)


@pytest.fixture(params=["byte", "bpe"])
def tok(request, bpe):
    return ByteTokenizer() if request.param == "byte" else bpe


@pytest.mark.parametrize("text", TEXTS)
def test_round_trip(tok, text):
    ids = tok.encode(text)
    assert all(isinstance(t, int) and 0 <= t < tok.vocab_size for t in ids)
    assert tok.decode(ids) == text


def test_byte_ids_are_utf8_bytes():
    tok = ByteTokenizer()
    assert tok.encode("aé") == [97, 0xC3, 0xA9]
    assert (tok.vocab_size, tok.eos_token_id) == (257, 256)


def test_bpe_merges_shrink_the_training_text(bpe):
    text = CORPUS[0]
    assert len(bpe.encode(text)) < len(text.encode()) / 2  # frequent words became single tokens
    assert bpe.vocab_size == 320 and bpe.decode([bpe.eos_token_id], skip_special_tokens=False) == EOS_TOKEN


def test_eos_in_text_is_the_special_token(tok):
    ids = tok.encode(f"a{EOS_TOKEN}b")
    assert ids.count(tok.eos_token_id) == 1
    assert tok.decode(ids) == "ab"
    assert tok.decode(ids, skip_special_tokens=False) == f"a{EOS_TOKEN}b"


def test_save_load_round_trip(tok, tmp_path):
    folder = tmp_path / "tok"
    tok.save(str(folder))
    again = load_tokenizer(str(folder))
    assert type(again) is type(tok)
    assert (again.vocab_size, again.eos_token_id) == (tok.vocab_size, tok.eos_token_id)
    for text in TEXTS + CORPUS[:1]:
        assert again.encode(text) == tok.encode(text)
    assert not [p for p in os.listdir(folder) if p.endswith(".tmp")]
    assert type(tok).load(str(folder)).vocab_size == tok.vocab_size


def test_load_errors(tmp_path, bpe):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_tokenizer(str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="tokenizer_config.json"):
        load_tokenizer(str(tmp_path))
    (tmp_path / "tokenizer_config.json").write_text("{not json")
    with pytest.raises(ValueError, match="cannot read the tokenizer config"):
        load_tokenizer(str(tmp_path))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "Sentencepiece"}))
    with pytest.raises(ValueError, match="unknown tokenizer_class 'Sentencepiece'"):
        load_tokenizer(str(tmp_path))
    ByteTokenizer().save(str(tmp_path))
    with pytest.raises(ValueError, match="not a BPETokenizer"):
        BPETokenizer.load(str(tmp_path))
    bpe.save(str(tmp_path / "bpe"))
    os.remove(tmp_path / "bpe" / "tokenizer.json")
    with pytest.raises(FileNotFoundError, match="lacks tokenizer.json"):
        load_tokenizer(str(tmp_path / "bpe"))
    (tmp_path / "bpe" / "tokenizer.json").write_text("{}")
    with pytest.raises(ValueError, match="cannot read the BPE tokenizer"):
        load_tokenizer(str(tmp_path / "bpe"))


def test_bad_input_errors(tok):
    with pytest.raises(ValueError, match="expects a str"):
        tok.encode(b"bytes")
    with pytest.raises(ValueError, match=r"position 1 is -1; expected 0 <= id < vocab_size"):
        tok.decode([1, -1])
    with pytest.raises(ValueError, match="position 0 is"):
        tok.decode([tok.vocab_size])
    with pytest.raises(ValueError, match="position 2 should be an int"):
        tok.decode([1, 2, "3"])
    with pytest.raises(ValueError, match="list of ints"):
        tok.decode("abc")


def test_bpe_train_refuses_a_vocab_below_the_byte_alphabet():
    with pytest.raises(ValueError, match="at least 257"):
        BPETokenizer.train(CORPUS, vocab_size=100)


def test_chat_template(tok):
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    text = tok.apply_chat_template(messages)
    assert text == "<|system|>\nbe brief\n<|user|>\nhi\n<|assistant|>\n"
    assert tok.apply_chat_template(messages, add_generation_prompt=False).endswith("<|user|>\nhi\n")
    parts = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    assert tok.apply_chat_template(parts) == "<|user|>\nab\n<|assistant|>\n"
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("messages, match", [
    ([], "non-empty list"),
    ("hi", "non-empty list"),
    ([{"role": "user"}], "message 0 should be a dict with 'role' and 'content'"),
    ([{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}], "message 1 has role 'robot'"),
    ([{"role": "user", "content": 3}], "content should be a string"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": "x"}]}], "only text content parts"),
])
def test_chat_template_errors(messages, match):
    with pytest.raises(ValueError, match=match):
        ByteTokenizer().apply_chat_template(messages)


@pytest.mark.parametrize("text", ["héllo wörld 数据 🙂!", "abc"])
def test_stream_decoder_never_splits_a_character(tok, text):
    dec = StreamDecoder(tok)
    deltas = [dec.push([t]) for t in tok.encode(text)] + [dec.flush()]
    assert "".join(deltas) == text
    assert all("\ufffd" not in d for d in deltas)


def test_stream_decoder_flushes_a_dangling_byte():
    dec = StreamDecoder(ByteTokenizer())
    assert dec.push([97, 0xE6]) == "a"  # 0xE6 starts a 3-byte character that never completes
    assert dec.flush() == "\ufffd"
