"""CLUE, IWSLT 2016/2017, Multi30k, SQuAD and SST-2 on tiny files written here in each official layout."""
import json
import os

import numpy as np
import pytest

import openspore.dataset as ds


def _rows(data):
    return [tuple(np.asarray(v).tolist() for v in r) for r in data.create_tuple_iterator(output_numpy=True)]


def test_clue_tasks(tmp_path):
    path = str(tmp_path / "train.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"sentence1": "双十一", "sentence2": "花呗", "label": "0"}, ensure_ascii=False) + "\n")
        f.write(json.dumps({"sentence1": "a", "sentence2": "b", "label": "1"}) + "\n")
    data = ds.CLUEDataset(path, task="AFQMC", usage="train", shuffle=False)
    assert data.get_col_names() == ["label", "sentence1", "sentence2"]  # name order, as MindSpore gives them
    assert _rows(data) == [("0", "双十一", "花呗"), ("1", "a", "b")]
    wsc = str(tmp_path / "wsc.json")
    with open(wsc, "w") as f:
        f.write(json.dumps({"target": {"span2_index": 37, "span1_index": 5, "span1_text": "x", "span2_text": "it"},
                            "idx": 3, "label": "false", "text": "t"}) + "\n")
    row = next(ds.CLUEDataset(wsc, task="WSC", usage="eval").create_dict_iterator(output_numpy=True))
    assert int(row["span2_index"]) == 37 and row["idx"].dtype == np.uint32 and str(row["label"]) == "false"
    csl = str(tmp_path / "csl.json")
    with open(csl, "w") as f:
        f.write(json.dumps({"id": 7, "abst": "abc", "keyword": ["k1", "k2"]}) + "\n")
    assert _rows(ds.CLUEDataset(csl, task="CSL", usage="test")) == [("abc", 7, ["k1", "k2"])]
    with pytest.raises(ValueError, match="task"):
        ds.CLUEDataset(path, task="XNLI")


def test_iwslt2016_and_2017(tmp_path):
    root = str(tmp_path)
    folder = os.path.join(root, "texts", "de", "en", "de-en")
    os.makedirs(folder)
    open(os.path.join(folder, "train.tags.de-en.de"), "w").write("<url>x</url>\nHallo Welt\n<talkid>1</talkid>\nZwei\n")
    open(os.path.join(folder, "train.tags.de-en.en"), "w").write("<url>x</url>\nHello world\nTwo\n")
    for name, de, en in (("tst2013", "Gut", "Good"), ("tst2014", "Ende", "End")):
        for lang, text in (("de", de), ("en", en)):
            with open(os.path.join(folder, f"IWSLT16.TED.{name}.de-en.{lang}.xml"), "w") as f:
                f.write(f'<mteval><doc><seg id="1"> {text} </seg></doc></mteval>')
    assert _rows(ds.IWSLT2016Dataset(root, usage="train", shuffle=False)) == [("Hallo Welt", "Hello world"),
                                                                               ("Zwei", "Two")]
    assert _rows(ds.IWSLT2016Dataset(root, usage="test")) == [("Ende", "End")]
    assert ds.IWSLT2016Dataset(root).get_dataset_size() == 4
    with pytest.raises(ValueError, match="language_pair"):
        ds.IWSLT2016Dataset(root, language_pair=["de", "fr"])
    folder17 = os.path.join(root, "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")
    os.makedirs(folder17)
    for lang, text in (("it", "Ciao"), ("nl", "Hoi")):
        with open(os.path.join(folder17, f"IWSLT17.TED.dev2010.it-nl.{lang}.xml"), "w") as f:
            f.write(f'<seg id="1">{text}</seg>\n')
    assert _rows(ds.IWSLT2017Dataset(root, usage="valid", language_pair=["it", "nl"])) == [("Ciao", "Hoi")]


def test_multi30k_squad_sst2(tmp_path):
    root = str(tmp_path)
    os.makedirs(os.path.join(root, "training"))
    open(os.path.join(root, "training", "train.en"), "w").write("A dog.\nA cat.\n")
    open(os.path.join(root, "training", "train.de"), "w").write("Ein Hund.\nEine Katze.\n")
    assert _rows(ds.Multi30kDataset(root, usage="train", language_pair=["de", "en"], shuffle=False)) == [
        ("Ein Hund.", "A dog."), ("Eine Katze.", "A cat.")]
    squad = {"data": [{"paragraphs": [{"context": "Paris is big.", "qas": [
        {"question": "What is big?", "answers": [{"text": "Paris", "answer_start": 0},
                                                 {"text": "Paris", "answer_start": 0}]},
        {"question": "Why?", "answers": [], "is_impossible": True}]}]}]}
    with open(os.path.join(root, "dev-v2.0.json"), "w") as f:
        json.dump(squad, f)
    rows = _rows(ds.SQuADDataset(root, usage="dev", shuffle=False))
    assert rows == [("Paris is big.", "What is big?", ["Paris", "Paris"], [0, 0]), ("Paris is big.", "Why?", [""], [0])]
    open(os.path.join(root, "test.tsv"), "w").write("index\tsentence\n0\tuneasy mishmash\n")
    open(os.path.join(root, "dev.tsv"), "w").write("sentence\tlabel\ngood\t1\nbad\t0\n")
    assert _rows(ds.SST2Dataset(root, usage="test")) == [("uneasy mishmash",)]
    assert _rows(ds.SST2Dataset(root, usage="dev", shuffle=False)) == [("good", "1"), ("bad", "0")]
    assert ds.SST2Dataset(root, usage="dev", num_shards=2, shard_id=1).get_dataset_size() == 1
