"""Text sets read from their official files: CLUE (JSON lines), IWSLT 2016/2017 (tagged text and XML), Multi30k,
SQuAD 1.1/2.0 (JSON) and SST-2 (TSV). Text columns are strings; `shuffle` takes a bool or a `Shuffle` level, as
MindSpore's text readers do (every level shuffles rows here).

>>> import os, tempfile
>>> import openspore.dataset as ds
>>> root = tempfile.mkdtemp()
>>> with open(os.path.join(root, "train.tsv"), "w") as f:
...     _ = f.write("sentence\\tlabel\\nit 's a charming journey \\t1\\n")
>>> [(str(s), str(l)) for s, l in ds.SST2Dataset(root, shuffle=False).create_tuple_iterator(output_numpy=True)]
[("it 's a charming journey ", '1')]
"""
import json
import os
import re

import numpy as np

from ..engine.samplers import Shuffle
from .folder_base import RecordSource, _check_dir, check_choice, expand_dataset_files, need_file
from .text_files import _shuffle_flag


class _TextSource(RecordSource):
    """Rows are tuples of Python values, converted to arrays on read."""

    def __init__(self, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache):
        super().__init__(num_samples, num_parallel_workers, _shuffle_flag(shuffle, self._where), None, num_shards,
                         shard_id, cache)

    def _row(self, record):
        return tuple(np.array(v, dtype=t) if t is not None else np.array(v) for v, t in zip(record, self._types()))

    def _types(self):
        return [None] * len(self.get_col_names())


_CLUE = {  # task -> (train/eval columns, test columns); u = uint32 column, else string
    "AFQMC": (["sentence1", "sentence2", "label"], ["id:u", "sentence1", "sentence2"]),
    "TNEWS": (["label", "label_desc", "sentence", "keywords"], ["id:u", "label", "label_desc", "sentence", "keywords"]),
    "IFLYTEK": (["label", "label_des", "sentence"], ["id:u", "sentence"]),
    "CMNLI": (["sentence1", "sentence2", "label"], ["id:u", "sentence1", "sentence2"]),
    "WSC": (["span1_index:u", "span2_index:u", "span1_text", "span2_text", "idx:u", "text", "label"],
            ["span1_index:u", "span2_index:u", "span1_text", "span2_text", "idx:u", "text"]),
    "CSL": (["id:u", "abst", "keyword", "label"], ["id:u", "abst", "keyword"]),
}


class CLUEDataset(_TextSource):
    """`CLUEDataset(dataset_files, task='AFQMC', usage='train', num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)`: JSON-lines files of a CLUE task; the
    columns follow the task and usage ('test' rows carry the id instead of the label); ids and span indices are
    uint32, CSL keywords a string array, everything else strings (a missing field is empty)."""

    _where = "CLUEDataset"

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        self.dataset_files = expand_dataset_files(dataset_files, self._where)
        self.task = check_choice(task, "task", tuple(_CLUE), self._where)
        self.usage = check_choice(usage, "usage", ("train", "test", "eval"), self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _spec(self):
        # MindSpore's reader gives the columns in name order
        return sorted((c.split(":") + [""])[:2] for c in _CLUE[self.task][self.usage == "test"])

    def _column_names(self):
        return [c[0] for c in self._spec()]

    def _types(self):
        return [np.uint32 if c[1] == "u" else None for c in self._spec()]

    def _scan(self):
        records = []
        for path in self.dataset_files:
            with open(path, encoding="utf-8") as f:
                for line_no, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        obj = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise RuntimeError(f"For '{self._where}', line {line_no} of {path} is not JSON: {exc}.") \
                            from None
                    flat = dict(obj)
                    flat.update(obj.get("target", {}) if isinstance(obj.get("target"), dict) else {})
                    row = []
                    for name, kind in self._spec():
                        value = flat.get(name, 0 if kind == "u" else "")
                        row.append(int(value) if kind == "u" else
                                   ([str(v) for v in value] if isinstance(value, list) else str(value)))
                    records.append(tuple(row))
        return records


def _tagged_lines(path):
    """Text lines of an IWSLT train.tags file (lines starting with '<' are metadata)."""
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.lstrip().startswith("<")]


def _xml_segments(path):
    """The <seg> texts of an IWSLT dev/test XML file, in order."""
    with open(path, encoding="utf-8") as f:
        return [m.group(1).strip() for m in re.finditer(r"<seg[^>]*>(.*?)</seg>", f.read(), re.S)]


class _Translation(_TextSource):
    def _column_names(self):
        return ["text", "translation"]

    @staticmethod
    def _pair(src_lines, tgt_lines, where, what):
        if len(src_lines) != len(tgt_lines):
            raise RuntimeError(f"For '{where}', {what}: {len(src_lines)} source lines but {len(tgt_lines)} "
                               f"translations.")
        return list(zip(src_lines, tgt_lines))


class IWSLT2016Dataset(_Translation):
    """`IWSLT2016Dataset(dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None,
    num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None,
    cache=None)`: texts/<src>/<tgt>/<src>-<tgt>/ with train.tags.<src>-<tgt>.<lang> and
    IWSLT16.TED.<set>.<src>-<tgt>.<lang>.xml; language_pair default ['de', 'en'], valid_set 'tst2013', test_set
    'tst2014'; usage 'train', 'valid', 'test' or 'all'."""

    _where = "IWSLT2016Dataset"
    _pairs = {"en": ("ar", "de", "fr", "cs"), "ar": ("en",), "fr": ("en",), "de": ("en",), "cs": ("en",)}
    _sets = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None, num_samples=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "valid", "test", "all"),
                                  self._where)
        src, tgt = ["de", "en"] if language_pair is None else list(language_pair)
        if tgt not in self._pairs.get(src, ()):
            raise ValueError(f"For '{self._where}', language_pair {[src, tgt]} is not one of IWSLT2016's pairs.")
        self.src, self.tgt = src, tgt
        self.valid_set = check_choice("tst2013" if valid_set is None else valid_set, "valid_set", self._sets,
                                      self._where)
        self.test_set = check_choice("tst2014" if test_set is None else test_set, "test_set", self._sets,
                                     self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _folder(self):
        return os.path.join(self.dataset_dir, "texts", self.src, self.tgt, f"{self.src}-{self.tgt}")

    def _xml(self, name):
        return os.path.join(self._folder(), f"IWSLT16.TED.{name}.{self.src}-{self.tgt}.{{}}.xml")

    def _scan(self):
        pair = f"{self.src}-{self.tgt}"
        records = []
        for usage in ("train", "valid", "test"):
            if self.usage not in ("all", usage):
                continue
            if usage == "train":
                paths = [os.path.join(self._folder(), f"train.tags.{pair}.{lang}") for lang in (self.src, self.tgt)]
                src, tgt = (_tagged_lines(need_file(p, self._where)) for p in paths)
            else:
                template = self._xml(self.valid_set if usage == "valid" else self.test_set)
                src, tgt = (_xml_segments(need_file(template.format(lang), self._where))
                            for lang in (self.src, self.tgt))
            records += self._pair(list(src), list(tgt), self._where, usage)
        return records


class IWSLT2017Dataset(IWSLT2016Dataset):
    """`IWSLT2017Dataset(dataset_dir, usage=None, language_pair=None, num_samples=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, num_parallel_workers=None, cache=None)`: texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/ with
    train.tags.<src>-<tgt>.<lang>, IWSLT17.TED.dev2010 (valid) and IWSLT17.TED.tst2010 (test) XML; any pair of
    de, en, it, nl, ro (default ['de', 'en'])."""

    _where = "IWSLT2017Dataset"
    _langs = ("de", "en", "it", "nl", "ro")

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        pair = ["de", "en"] if language_pair is None else list(language_pair)
        if len(pair) != 2 or pair[0] == pair[1] or not all(p in self._langs for p in pair):
            raise ValueError(f"For '{self._where}', language_pair must be two different languages of "
                             f"{list(self._langs)}, but got {language_pair!r}.")
        self._pairs = {pair[0]: (pair[1],)}
        super().__init__(dataset_dir, usage, pair, "dev2010", "tst2010", num_samples, shuffle, num_shards, shard_id,
                         num_parallel_workers, cache)

    def _folder(self):
        return os.path.join(self.dataset_dir, "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")

    def _xml(self, name):
        return os.path.join(self._folder(), f"IWSLT17.TED.{name}.{self.src}-{self.tgt}.{{}}.xml")


class Multi30kDataset(_Translation):
    """`Multi30kDataset(dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, num_shards=None, shard_id=None, cache=None)`: line files training/train.<lang>,
    validation/val.<lang> and mmt16_task1_test/test.<lang> (usage 'train', 'valid', 'test' or 'all');
    language_pair ['en', 'de'] (default) or ['de', 'en']."""

    _where = "Multi30kDataset"
    _files = {"train": ("training", "train"), "valid": ("validation", "val"), "test": ("mmt16_task1_test", "test")}

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "valid", "test", "all"),
                                  self._where)
        pair = ["en", "de"] if language_pair is None else list(language_pair)
        if pair not in (["en", "de"], ["de", "en"]):
            raise ValueError(f"For '{self._where}', language_pair must be ['en', 'de'] or ['de', 'en'], but got "
                             f"{language_pair!r}.")
        self.language_pair = pair
        super().__init__(num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _scan(self):
        records = []
        for usage in ("train", "valid", "test"):
            if self.usage in ("all", usage):
                lines = []
                folder, stem = self._files[usage]
                for lang in self.language_pair:
                    with open(need_file(os.path.join(self.dataset_dir, folder, f"{stem}.{lang}"), self._where),
                              encoding="utf-8") as f:
                        lines.append([line.rstrip("\n") for line in f])
                records += self._pair(lines[0], lines[1], self._where, usage)
        return records


class SQuADDataset(_TextSource):
    """`SQuADDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, cache=None)`: train-v1.1.json / dev-v1.1.json (or the v2.0 files); one row per
    question: context, question, text (the answers, a string array) and answer_start (uint32 array); an
    unanswerable SQuAD 2.0 question gives [""] and [0]."""

    _where = "SQuADDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "dev", "all"), self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _column_names(self):
        return ["context", "question", "text", "answer_start"]

    def _types(self):
        return [None, None, None, np.uint32]

    def _scan(self):
        records = []
        for usage in ("train", "dev"):
            if self.usage not in ("all", usage):
                continue
            paths = [p for p in (os.path.join(self.dataset_dir, f"{usage}-v{v}.json") for v in ("1.1", "2.0"))
                     if os.path.isfile(p)]
            if not paths:
                raise RuntimeError(f"For '{self._where}', no {usage}-v1.1.json or {usage}-v2.0.json in "
                                   f"{self.dataset_dir}.")
            for path in paths:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)
                for article in data.get("data", []):
                    for para in article.get("paragraphs", []):
                        for qa in para.get("qas", []):
                            answers = qa.get("answers", []) or [{"text": "", "answer_start": 0}]
                            records.append((para["context"], qa["question"], [a["text"] for a in answers],
                                            [int(a["answer_start"]) for a in answers]))
        return records


class SST2Dataset(_TextSource):
    """`SST2Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, cache=None)`: train.tsv / dev.tsv (columns sentence and label, strings) or
    test.tsv (column sentence); usage default 'train'."""

    _where = "SST2Dataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("train" if usage is None else usage, "usage", ("train", "dev", "test"), self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _column_names(self):
        return ["sentence"] if self.usage == "test" else ["sentence", "label"]

    def _scan(self):
        path = need_file(os.path.join(self.dataset_dir, f"{self.usage}.tsv"), self._where)
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f][1:]  # the first line is the header
        records = []
        for line_no, line in enumerate(lines, 2):
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != 2:
                raise RuntimeError(f"For '{self._where}', line {line_no} of {path} does not have 2 tab-separated "
                                   f"fields.")
            records.append((parts[1],) if self.usage == "test" else (parts[0], parts[1]))
        return records
