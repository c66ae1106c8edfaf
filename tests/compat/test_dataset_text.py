"""openspore.dataset.text: expected outputs are what MindSpore 2.10 printed for the same calls."""
import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore.dataset import text


def test_vocab_and_lookup():
    v = text.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>", "<unk>"], special_first=True)
    assert v.vocab() == {"<pad>": 0, "<unk>": 1, "a": 2, "b": 3, "c": 4}
    assert v.tokens_to_ids(["a", "zz"]) == [2, -1] and v.ids_to_tokens([0, 2]) == ["<pad>", "a"]
    out = text.Lookup(v, "<unk>")(np.array(["a", "zz", "c"]))
    assert out.tolist() == [2, 1, 4] and out.dtype == np.int32
    with pytest.raises(RuntimeError, match="not in the vocabulary"):
        text.Lookup(v)(np.array(["zz"]))
    assert text.Vocab.from_dict({"x": 3, "y": 0}).vocab() == {"x": 3, "y": 0}


def test_vocab_from_dataset_and_map():
    data = ds.NumpySlicesDataset({"t": np.array(["b", "a", "b", "c", "b", "a"])}, shuffle=False)
    v = text.Vocab.from_dataset(data, "t", top_k=2, special_tokens=["<unk>"])
    assert v.vocab() == {"<unk>": 0, "b": 1, "a": 2}
    ids = [int(r[0]) for r in data.map(text.Lookup(v, "<unk>"), "t").create_tuple_iterator(output_numpy=True)]
    assert ids == [1, 2, 1, 0, 1, 2]


def test_tokenizers():
    assert text.WhitespaceTokenizer()("hello  world a").tolist() == ["hello", "world", "a"]
    tokens, begin, end = text.WhitespaceTokenizer(True)("héllo  world")
    assert tokens.tolist() == ["héllo", "world"] and begin.tolist() == [0, 8] and end.tolist() == [6, 13]
    assert text.UnicodeCharTokenizer()("abc").tolist() == ["a", "b", "c"]
    assert text.RegexTokenizer(r"\s+")("a b  c").tolist() == ["a", "b", "c"]
    assert text.RegexTokenizer(r"\s+|,", ",")("a, b  c").tolist() == ["a", ",", "b", "c"]
    assert text.BasicTokenizer()("Hello, World!  ok").tolist() == ["Hello", ",", "World", "!", "ok"]
    assert text.BasicTokenizer(lower_case=True)("Héllo, World!").tolist() == ["hello", ",", "world", "!"]
    assert text.PythonTokenizer(lambda s: s.split(","))(np.array("a,b")).tolist() == ["a", "b"]


def test_sequence_transforms():
    assert text.Ngram([2])(np.array(["a", "b", "c"])).tolist() == ["a b", "b c"]
    assert text.Ngram([2, 3], left_pad=("_", 1), right_pad=("-", 1))(np.array(["a", "b", "c"])).tolist() == \
        ["_ a", "a b", "b c", "c -", "_ a b", "a b c", "b c -"]
    assert text.ToNumber(ms.int32)(np.array(["1", "-2"])).tolist() == [1, -2]
    assert text.Truncate(2)(np.array([1, 2, 3])).tolist() == [1, 2]
    assert text.SlidingWindow(2, 0)(np.array([1, 2, 3, 4])).tolist() == [[1, 2], [2, 3], [3, 4]]
    first, second = text.TruncateSequencePair(3)(np.array([1, 2, 3]), np.array([4, 5]))
    assert first.tolist() == [1, 2] and second.tolist() == [4]
    assert text.AddToken("<s>", begin=True)(np.array(["a", "b"])).tolist() == ["<s>", "a", "b"]
    assert str(text.CaseFold()("HeLLo")) == "hello" and str(text.RegexReplace("a+", "x")("caaat a")) == "cxt x"
    assert text.to_str(np.array([b"ab", b"c"])).tolist() == ["ab", "c"]
    assert text.to_bytes(np.array(["ab"])).tolist() == [b"ab"]
    with pytest.raises(RuntimeError, match="could not be converted"):
        text.ToNumber(ms.int32)(np.array(["x"]))
