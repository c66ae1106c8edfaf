"""dataset.text names of MindSpore 2.10 that openspore lacked: UnicodeScriptTokenizer and FilterWikipediaXML
(values as real MindSpore 2.10 gives them), and the model-package tokenizers (Jieba, SentencePiece), which raise
an ImportError naming the package."""
import numpy as np
import pytest

from openspore.dataset import text
import openspore.dataset as ds

# (input, keep_whitespace) -> (tokens, begins, ends), recorded from MindSpore 2.10.
SCRIPT_CASES = [
    ("Welcome to Beijing!", False, (["Welcome", "to", "Beijing", "!"], [0, 8, 11, 18], [7, 10, 18, 19])),
    ("北京欢迎您！ hello,world 123abc", True,
     (["北京欢迎您", "！", " ", "hello", ",", "world", " ", "123", "abc"], [0, 15, 18, 19, 24, 25, 30, 31, 34],
      [15, 18, 19, 24, 25, 30, 31, 34, 37])),
    ("Привет мир, hello", False, (["Привет", "мир", ",", "hello"], [0, 13, 19, 21], [12, 19, 20, 26])),
    ("a1b2 c3_d-e  f", True, (["a", "1", "b", "2", " ", "c", "3_", "d", "-", "e", "  ", "f"],
                              [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 13], [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 13, 14])),
    ("éàü naïve café's", False, (["éàü", "naïve", "café", "'", "s"], [0, 7, 14, 19, 20], [6, 13, 19, 20, 21])),
    ("日本語テキストとカタカナ", False, (["日本語", "テキスト", "と", "カタカナ"], [0, 9, 21, 24], [9, 21, 24, 36])),
    ("x+y=z 3.14 $5", False, (["x", "+", "y", "=", "z", "3.14", "$5"], [0, 1, 2, 3, 4, 6, 11],
                             [1, 2, 3, 4, 5, 10, 13])),
    ("  ", False, ([""], [0], [0])),
    ("  ", True, (["  "], [0], [2])),
    ("", True, ([""], [0], [0])),
    ("αβγ abc αβ", False, (["αβγ", "abc", "αβ"], [0, 7, 11], [6, 10, 15])),
    ("한국어 텍스트", True, (["한국어", " ", "텍스트"], [0, 9, 10], [9, 10, 19])),
    ("a\u0301b", False, (["a", "\u0301", "b"], [0, 1, 3], [1, 3, 4])),
    ("tab\there\nnew", True, (["tab", "\t", "here", "\n", "new"], [0, 3, 4, 8, 9], [3, 4, 8, 9, 12])),
    ("ʈⅻ ٩ذ ９ℯ ←〵", False, (["ʈⅻ", "٩ذ", "９ℯ", "←〵"], [0, 6, 11, 18], [5, 10, 17, 24])),
]


@pytest.mark.parametrize("s, keep, expected", SCRIPT_CASES)
def test_unicode_script_tokenizer_matches_mindspore(s, keep, expected):
    tokens, begins, ends = text.UnicodeScriptTokenizer(keep_whitespace=keep, with_offsets=True)(s)
    assert (tokens.tolist(), begins.tolist(), ends.tolist()) == expected
    assert begins.dtype == ends.dtype == np.uint32
    assert text.UnicodeScriptTokenizer(keep_whitespace=keep)(s).tolist() == expected[0]


def test_unicode_script_tokenizer_in_a_pipeline_and_bad_arguments():
    data = ds.NumpySlicesDataset(["Hello北京"], column_names=["text"], shuffle=False)
    data = data.map(text.UnicodeScriptTokenizer(), input_columns=["text"])
    rows = [row["text"].tolist() for row in data.create_dict_iterator(output_numpy=True)]
    assert rows == [["Hello", "北京"]]
    with pytest.raises(TypeError, match="^Wrong input type for keep_whitespace, should be boolean.$"):
        text.UnicodeScriptTokenizer(keep_whitespace=1)


WIKI_CASES = [
    ("Hello World!", "hello world"),
    ("The [[Cat]] sat on the {{mat}} 123 times.", "the cat sat on the mat one two three times"),
    ("<ref>cite</ref>Text &amp; more [http://x.com link] ''italic'' '''bold''' Zürich",
     "text more http x com link italic bold z rich"),
    ("[[Image:foo.jpg|thumb|A cat]] after", "image foo jpg thumb a cat after"),
    ("==Heading==\nbody text", "heading body text"),
    ("{{a {{b}} c}} d", "a b c d"),
    ("<!-- comment --> x", "x"),
    ("&lt;tag&gt; q", "tag q"),
    ("ÀÉÎ", ""),
    ("北京 hi", "hi"),
    ("0 5 9 10", "zero five nine one zero"),
    ("x<ref name=a/>y", "xy"),
    ("a<b>c</b>d", "ad"),
    ("a&b", "a b"),
    ("#REDIRECT [[X]]", ""),
    ("  lead  trail  ", "lead trail"),
]


@pytest.mark.parametrize("s, expected", WIKI_CASES)
def test_filter_wikipedia_xml_matches_mindspore(s, expected):
    assert text.FilterWikipediaXML()(s).tolist() == expected


def test_filter_wikipedia_xml_lowers_capital_r_as_documented():
    # MindSpore 2.10 deletes capital R ("WORLD" -> "wold"); its documentation says A-Z are lowered.
    assert text.FilterWikipediaXML()("WORLD").tolist() == "world"


def test_model_package_tokenizers_name_what_is_missing():
    assert [m.name for m in text.SentencePieceModel] == ["UNIGRAM", "BPE", "CHAR", "WORD"]
    with pytest.raises(ImportError, match="JiebaTokenizer .*'jieba'"):
        text.JiebaTokenizer("hmm_model.utf8", "jieba.dict.utf8", text.JiebaMode.MP)
    with pytest.raises(ImportError, match="SentencePieceTokenizer .*'sentencepiece'"):
        text.SentencePieceTokenizer("m.model", text.SPieceTokenizerOutType.STRING)
    with pytest.raises(ImportError, match="SentencePieceVocab.from_dataset .*'sentencepiece'"):
        text.SentencePieceVocab.from_dataset(None, ["text"], 100, 0.9995, text.SentencePieceModel.UNIGRAM, {})
