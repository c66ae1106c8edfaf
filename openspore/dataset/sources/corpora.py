"""Text corpora read from their official file layouts: the CSV classification sets (AG News, Amazon Reviews,
DBpedia, Sogou News, Yahoo Answers, Yelp Reviews), the line corpora (Penn Treebank, WikiText, EnWik9), the tagged
sentence corpora (CoNLL-2000 chunking, UDPOS: one row per sentence, one string array per column) and IMDB.

Every column is a string except IMDB's label (int32: pos 1, neg 0). With usage 'all' the split files are read
in turn, one row from each (test, train, valid), as MindSpore's file readers interleave them.

>>> import os, tempfile
>>> from openspore import dataset as ds
>>> root = tempfile.mkdtemp()
>>> with open(os.path.join(root, "train.csv"), "w") as f:
...     _ = f.write('"3","Wall St.","Short sellers"\\n')
>>> row = next(ds.AGNewsDataset(root, usage="train").create_tuple_iterator(output_numpy=True))
>>> [str(v) for v in row]
['3', 'Wall St.', 'Short sellers']
"""
import csv
import os

import numpy as np

from .mappable import MappableDataset
from .text_files import _LineSource
from .vision_files import _check_dir, _check_usage

_SPLITS = ("test", "train", "valid")  # the order MindSpore interleaves the files of usage 'all'


def _interleave(per_file):
    """Rows of several files, one from each in turn until all are exhausted."""
    rows, longest = [], max((len(r) for r in per_file), default=0)
    for k in range(longest):
        rows.extend(r[k] for r in per_file if k < len(r))
    return rows


def _split_files(dataset_dir, usage, name_of, splits, where):
    """The files of a usage: that split's file, or, for 'all', every split file the folder has."""
    wanted = [s for s in splits if usage in ("all", s)]
    paths = [os.path.join(dataset_dir, name_of(s)) for s in wanted]
    present = [p for p in paths if os.path.isfile(p)]
    if not present:
        raise ValueError(f"For '{where}', usage '{usage}' needs {' or '.join(paths)}, but it is not there.")
    return present


class _SplitCorpus(_LineSource):
    """A corpus whose splits are files named after the split, in one folder."""

    _splits = ("test", "train")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=True,
                 num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = _check_usage(usage, self._where, tuple(s for s in ("train", "test", "valid")
                                                          if s in self._splits) + ("all",))
        files = _split_files(self.dataset_dir, self.usage, self._file_name, self._splits, self._where)
        super().__init__(files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _column_names(self):
        return list(self._columns)

    def _parse(self):
        return _interleave([self._parse_file(p) for p in self.dataset_files])


class _CsvCorpus(_SplitCorpus):
    """train.csv / test.csv with quoted fields and no header."""

    @staticmethod
    def _file_name(split):
        return f"{split}.csv"

    def _parse_file(self, path):
        rows = []
        with open(path, encoding="utf-8", newline="") as f:
            for line_no, record in enumerate(csv.reader(f), 1):
                if not record:
                    continue
                if len(record) != len(self._columns):
                    raise RuntimeError(f"For '{self._where}', {path} line {line_no} has {len(record)} fields, but "
                                       f"the dataset has {len(self._columns)} columns {list(self._columns)}.")
                rows.append(tuple(record))
        return rows


def _csv_corpus(name, columns, doc):
    return type(name, (_CsvCorpus,), {"_where": name, "_columns": columns, "__doc__": doc, "__module__": __name__})


_CSV_SIGNATURE = ("(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL, "
                  "num_shards=None, shard_id=None, cache=None)")
AGNewsDataset = _csv_corpus("AGNewsDataset", ("index", "title", "description"),
                            f"`AGNewsDataset{_CSV_SIGNATURE}`: train.csv / test.csv; string columns index, title, "
                            f"description.")
AmazonReviewDataset = _csv_corpus("AmazonReviewDataset", ("label", "title", "content"),
                                  f"`AmazonReviewDataset{_CSV_SIGNATURE}`: string columns label, title, content.")
DBpediaDataset = _csv_corpus("DBpediaDataset", ("class", "title", "content"),
                             f"`DBpediaDataset{_CSV_SIGNATURE}`: string columns class, title, content.")
SogouNewsDataset = _csv_corpus("SogouNewsDataset", ("index", "title", "content"),
                               f"`SogouNewsDataset{_CSV_SIGNATURE}`: string columns index, title, content.")
YahooAnswersDataset = _csv_corpus("YahooAnswersDataset", ("class", "title", "content", "answer"),
                                  f"`YahooAnswersDataset{_CSV_SIGNATURE}`: string columns class, title, content, "
                                  f"answer.")
YelpReviewDataset = _csv_corpus("YelpReviewDataset", ("label", "text"),
                                f"`YelpReviewDataset{_CSV_SIGNATURE}`: string columns label, text.")


class _LineCorpus(_SplitCorpus):
    """One row (column `text`) per non-empty line of each split file."""

    _columns = ("text",)
    _splits = _SPLITS
    _keep_empty = False

    def _parse_file(self, path):
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\r\n") for line in f]
        return [(line,) for line in lines if line or self._keep_empty]


class PennTreebankDataset(_LineCorpus):
    """`PennTreebankDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)`: ptb.train.txt / ptb.valid.txt /
    ptb.test.txt, one string row per non-empty line."""

    _where = "PennTreebankDataset"

    @staticmethod
    def _file_name(split):
        return f"ptb.{split}.txt"


class WikiTextDataset(_LineCorpus):
    """`WikiTextDataset(dataset_dir, usage=None, ...)`: wiki.train.tokens / wiki.valid.tokens / wiki.test.tokens,
    one string row per non-empty line."""

    _where = "WikiTextDataset"

    @staticmethod
    def _file_name(split):
        return f"wiki.{split}.tokens"


class EnWik9Dataset(_LineCorpus):
    """`EnWik9Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
    shard_id=None, cache=None)`: the file `enwik9`, one string row per line (empty lines included)."""

    _where = "EnWik9Dataset"
    _splits = ("all",)
    _keep_empty = True

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    @staticmethod
    def _file_name(split):
        return "enwik9"


class _SentenceCorpus(_SplitCorpus):
    """One token per line as `word tag tag`, sentences separated by blank lines; a row per sentence."""

    _splits = ("test", "train")

    def _parse_file(self, path):
        rows, sentence = [], []
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    if sentence:
                        rows.append(sentence)
                    sentence = []
                    continue
                fields = line.split(self._separator)
                if len(fields) != len(self._columns):
                    raise RuntimeError(f"For '{self._where}', {path} line {line_no} must hold {len(self._columns)} "
                                       f"fields ({', '.join(self._columns)}) separated by {self._separator!r}, but "
                                       f"holds {len(fields)}.")
                sentence.append(fields)
        if sentence:  # a last sentence with no blank line after it
            rows.append(sentence)
        return [tuple(list(column) for column in zip(*sentence)) for sentence in rows]


class CoNLL2000Dataset(_SentenceCorpus):
    """`CoNLL2000Dataset(dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
    shard_id=None, num_parallel_workers=None, cache=None)`: train.txt / test.txt (`word pos chunk` per line);
    columns word, pos_tag, chunk_tag, each the sentence's strings."""

    _where = "CoNLL2000Dataset"
    _columns = ("word", "pos_tag", "chunk_tag")
    _separator = " "

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=True, num_shards=None, shard_id=None,
                 num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    @staticmethod
    def _file_name(split):
        return f"{split}.txt"


class UDPOSDataset(_SentenceCorpus):
    """`UDPOSDataset(dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
    shard_id=None, num_parallel_workers=None, cache=None)`: en-ud-tag.v2.{train,dev,test}.txt (usage 'valid'
    reads dev), tab-separated `word universal stanford`; columns word, universal, stanford."""

    _where = "UDPOSDataset"
    _columns = ("word", "universal", "stanford")
    _separator = "\t"
    _splits = _SPLITS

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=True, num_shards=None, shard_id=None,
                 num_parallel_workers=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    @staticmethod
    def _file_name(split):
        return f"en-ud-tag.v2.{'dev' if split == 'valid' else split}.txt"


class IMDBDataset(MappableDataset):
    """`IMDBDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: the aclImdb layout ({train,test}/{pos,neg}/*.txt);
    columns text (string) and label (int32: pos 1, neg 0); usage 'all' reads train then test."""

    _where = "IMDBDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = _check_usage(usage, self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)
        self.files, labels = [], []
        for split in [s for s in ("train", "test") if self.usage in ("all", s)]:
            for sentiment, label in (("pos", 1), ("neg", 0)):
                folder = os.path.join(self.dataset_dir, split, sentiment)
                if not os.path.isdir(folder):
                    raise ValueError(f"For '{self._where}', the folder {folder} does not exist (usage "
                                     f"'{self.usage}' needs {split}/pos and {split}/neg).")
                names = sorted(n for n in os.listdir(folder) if n.endswith(".txt"))
                self.files.extend(os.path.join(folder, n) for n in names)
                labels.extend([label] * len(names))
        self.labels = np.asarray(labels, dtype=np.int32)

    def _column_names(self):
        return ["text", "label"]

    def _num_rows(self):
        return len(self.files)

    def _read(self, index):
        with open(self.files[index], encoding="utf-8") as f:
            return np.array(f.read()), np.array(self.labels[index])
