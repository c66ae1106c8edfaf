"""WordpieceTokenizer and BertTokenizer; the expected tokens and offsets were printed by real MindSpore 2.10 (a
black box) on the same vocabulary and inputs."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import text

WORDS = ["my", "favor", "##ite", "book", "is", "love", "dur", "##ing", "the", "cholera", "era", "[UNK]", "un",
         "##want", "##ed", "runn", ",", "我", "喜", "欢"]


@pytest.fixture
def vocab():
    return text.Vocab.from_list(WORDS)


def test_wordpiece_greedy_longest_match(vocab):
    out = text.WordpieceTokenizer(vocab)(np.array(["my", "favorite", "book", "unwanted", "xyz", "running"]))
    assert out.tolist() == ["my", "favor", "##ite", "book", "un", "##want", "##ed", "[UNK]", "runn", "##ing"]
    assert text.WordpieceTokenizer(vocab)("unwanted").tolist() == ["un", "##want", "##ed"]


def test_wordpiece_unknowns_and_long_words(vocab):
    assert text.WordpieceTokenizer(vocab, unknown_token="")(np.array(["unwanted", "xyz"])).tolist() == \
        ["un", "##want", "##ed", "xyz"]
    assert text.WordpieceTokenizer(vocab, max_bytes_per_token=4)(np.array(["unwanted", "book"])).tolist() == \
        ["[UNK]", "book"]


def test_wordpiece_offsets_are_inside_each_word(vocab):
    tokens, begins, ends = text.WordpieceTokenizer(vocab, with_offsets=True)(np.array(["unwanted", "xyz", "book"]))
    assert tokens.tolist() == ["un", "##want", "##ed", "[UNK]", "book"]
    assert begins.tolist() == [0, 2, 6, 0, 0] and ends.tolist() == [2, 6, 8, 3, 4]
    assert begins.dtype == np.uint32


def test_wordpiece_argument_errors(vocab):
    with pytest.raises(TypeError, match="Vocab"):
        text.WordpieceTokenizer(["a"])
    with pytest.raises(ValueError, match="max_bytes_per_token"):
        text.WordpieceTokenizer(vocab, max_bytes_per_token=-1)


def test_bert_tokenizer(vocab):
    out = text.BertTokenizer(vocab)("My favorite book, unwanted 我喜欢 xyz")
    assert out.tolist() == ["[UNK]", "favor", "##ite", "book", ",", "un", "##want", "##ed", "我", "喜", "欢", "[UNK]"]
    tokens, begins, ends = text.BertTokenizer(vocab, lower_case=True, with_offsets=True)(
        "My favorite book, Unwanted 我喜欢")
    assert tokens.tolist() == ["my", "favor", "##ite", "book", ",", "un", "##want", "##ed", "我", "喜", "欢"]
    assert begins.tolist() == [0, 3, 8, 12, 16, 18, 20, 24, 27, 30, 33]
    assert ends.tolist() == [2, 8, 11, 16, 17, 20, 24, 26, 30, 33, 36]


def test_bert_tokenizer_in_a_pipeline(vocab):
    data = ds.NumpySlicesDataset({"text": np.array(["my favorite book", "unwanted era"])}, shuffle=False)
    data = data.map([text.BertTokenizer(vocab), text.Lookup(vocab, "[UNK]")], input_columns="text")
    ids = [r["text"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert ids == [[0, 1, 2, 3], [12, 13, 14, 10]]
