"""Text corpora over files the tests write in the official layouts; rows, columns and the interleaving of usage
'all' are what real MindSpore 2.10 (a black box) printed for the same files."""
import os

import numpy as np
import pytest

import openspore.dataset as ds


def _write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(content)


def _rows(data):
    return [{k: v.tolist() for k, v in r.items()} for r in data.create_dict_iterator(output_numpy=True)]


@pytest.mark.parametrize("cls, columns", [
    (ds.AGNewsDataset, ["index", "title", "description"]),
    (ds.AmazonReviewDataset, ["label", "title", "content"]),
    (ds.DBpediaDataset, ["class", "title", "content"]),
    (ds.SogouNewsDataset, ["index", "title", "content"]),
])
def test_csv_corpora_parse_quoted_fields(tmp_path, cls, columns):
    _write(tmp_path / "train.csv", '"3","Wall St. Bears","Reuters - Short"\n"4","Tech ""x""","desc, b"\n')
    data = cls(str(tmp_path), usage="train", shuffle=False)
    assert data.get_col_names() == columns and data.get_dataset_size() == 2
    assert _rows(data)[1] == dict(zip(columns, ["4", 'Tech "x"', "desc, b"]))


def test_csv_corpora_other_column_counts_and_all(tmp_path):
    _write(tmp_path / "train.csv", '"5","q t","q c","best"\n"4","a","b","c"\n')
    _write(tmp_path / "test.csv", '"1","t","c","x"\n')
    data = ds.YahooAnswersDataset(str(tmp_path), shuffle=False)
    assert [r["class"] for r in _rows(data)] == ["1", "5", "4"]  # test, train, then the rest of train
    _write(tmp_path / "yelp" / "train.csv", '"2","great food"\n"1","bad"\n')
    assert _rows(ds.YelpReviewDataset(str(tmp_path / "yelp"), usage="train", shuffle=False)) == \
        [{"label": "2", "text": "great food"}, {"label": "1", "text": "bad"}]
    with pytest.raises(RuntimeError, match="2 fields"):
        list(ds.YahooAnswersDataset(str(tmp_path / "yelp"), usage="train").create_tuple_iterator())


def test_csv_corpus_errors(tmp_path):
    with pytest.raises(ValueError, match="usage"):
        ds.AGNewsDataset(str(tmp_path), usage="valid")
    with pytest.raises(ValueError, match="train.csv"):
        ds.AGNewsDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="does not exist"):
        ds.AGNewsDataset(str(tmp_path / "missing"))


def test_line_corpora(tmp_path):
    _write(tmp_path / "ptb.train.txt", " aer banknote\n no it was n't\n\n last\n")
    _write(tmp_path / "ptb.test.txt", " test line\n")
    _write(tmp_path / "ptb.valid.txt", " valid a\n valid b\n")
    train = ds.PennTreebankDataset(str(tmp_path), usage="train", shuffle=False)
    assert [r["text"] for r in _rows(train)] == [" aer banknote", " no it was n't", " last"]
    every = ds.PennTreebankDataset(str(tmp_path), usage="all", shuffle=False)
    assert [r["text"] for r in _rows(every)] == [" test line", " aer banknote", " valid a", " no it was n't",
                                                  " valid b", " last"]
    _write(tmp_path / "wiki" / "wiki.train.tokens", " = Valkyria =\n\n Senjo no\n")
    _write(tmp_path / "wiki" / "wiki.test.tokens", " t\n")
    wiki = ds.WikiTextDataset(str(tmp_path / "wiki"), shuffle=False)
    assert [r["text"] for r in _rows(wiki)] == [" t", " = Valkyria =", " Senjo no"]
    _write(tmp_path / "enw" / "enwik9", "<mediawiki>\n  <page>\n\n  text here\n")
    enwik = ds.EnWik9Dataset(str(tmp_path / "enw"), shuffle=False)
    assert [r["text"] for r in _rows(enwik)] == ["<mediawiki>", "  <page>", "", "  text here"]


def test_line_corpus_shuffle_and_shards(tmp_path):
    _write(tmp_path / "ptb.train.txt", "".join(f"line {i}\n" for i in range(20)))
    ds.config.set_seed(3)
    shuffled = [r["text"] for r in _rows(ds.PennTreebankDataset(str(tmp_path), usage="train"))]
    assert sorted(shuffled) == sorted(f"line {i}" for i in range(20)) and shuffled != sorted(shuffled)
    shard = ds.PennTreebankDataset(str(tmp_path), usage="train", shuffle=False, num_shards=4, shard_id=1)
    assert shard.get_dataset_size() == 5


def test_imdb(tmp_path):
    for rel, body in [("train/pos/0_9.txt", "good movie"), ("train/pos/1_8.txt", "great"),
                      ("train/neg/0_2.txt", "bad movie"), ("test/neg/3_1.txt", "meh"), ("test/pos/2_7.txt", "fine")]:
        _write(tmp_path / rel, body)
    train = ds.IMDBDataset(str(tmp_path), usage="train", shuffle=False)
    assert _rows(train) == [{"text": "good movie", "label": 1}, {"text": "great", "label": 1},
                            {"text": "bad movie", "label": 0}]
    every = ds.IMDBDataset(str(tmp_path), shuffle=False)
    assert [r["text"] for r in _rows(every)] == ["good movie", "great", "bad movie", "fine", "meh"]
    row = next(every.create_dict_iterator(output_numpy=True))
    assert row["label"].dtype == np.int32
    sampled = ds.IMDBDataset(str(tmp_path), sampler=ds.SubsetSampler([4, 0]))
    assert [r["text"] for r in _rows(sampled)] == ["meh", "good movie"]
    with pytest.raises(ValueError, match="usage"):
        ds.IMDBDataset(str(tmp_path), usage="valid")


def test_conll2000_sentences(tmp_path):
    _write(tmp_path / "train.txt", "Confidence NN B-NP\nin IN B-PP\n\nthe DT B-NP\npound NN I-NP\n. . O\n\n")
    _write(tmp_path / "test.txt", "Rockwell NNP B-NP\n\n")
    train = _rows(ds.CoNLL2000Dataset(str(tmp_path), usage="train", shuffle=False))
    assert train == [{"word": ["Confidence", "in"], "pos_tag": ["NN", "IN"], "chunk_tag": ["B-NP", "B-PP"]},
                     {"word": ["the", "pound", "."], "pos_tag": ["DT", "NN", "."], "chunk_tag": ["B-NP", "I-NP", "O"]}]
    every = _rows(ds.CoNLL2000Dataset(str(tmp_path), shuffle=False))
    assert [r["word"] for r in every] == [["Rockwell"], ["Confidence", "in"], ["the", "pound", "."]]
    _write(tmp_path / "test.txt", "Rockwell NNP\n")
    with pytest.raises(RuntimeError, match="line 1 must hold 3 fields"):
        _rows(ds.CoNLL2000Dataset(str(tmp_path), usage="test"))


def test_udpos_sentences(tmp_path):
    _write(tmp_path / "en-ud-tag.v2.train.txt", "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\nThe\tDET\tDT\n")
    _write(tmp_path / "en-ud-tag.v2.dev.txt", "v\tNOUN\tNN\n\n")
    train = _rows(ds.UDPOSDataset(str(tmp_path), usage="train", shuffle=False))
    assert train[0] == {"word": ["Al", "-"], "universal": ["PROPN", "PUNCT"], "stanford": ["NNP", "HYPH"]}
    assert train[1]["word"] == ["The"]  # the last sentence counts without a blank line after it
    assert _rows(ds.UDPOSDataset(str(tmp_path), usage="valid", shuffle=False))[0]["universal"] == ["NOUN"]
    with pytest.raises(ValueError, match="en-ud-tag.v2.test.txt"):
        ds.UDPOSDataset(str(tmp_path), usage="test")
