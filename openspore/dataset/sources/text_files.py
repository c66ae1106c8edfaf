"""Line-oriented text sources: `TextFileDataset` (one row per line) and `CSVDataset` (one row per record)."""
import csv
import os

import numpy as np

from ..engine.samplers import Shuffle
from .mappable import MappableDataset


def _files(dataset_files, where):
    if isinstance(dataset_files, (str, os.PathLike)):
        dataset_files = [dataset_files]
    if not isinstance(dataset_files, (list, tuple)) or not dataset_files:
        raise TypeError(f"For '{where}', 'dataset_files' must be a str or a non-empty list of str, but got "
                        f"{dataset_files!r}.")
    paths = [os.fspath(p) for p in dataset_files]
    for p in paths:
        if not os.path.isfile(p):
            raise ValueError(f"For '{where}', the file {p} does not exist or permission denied!")
    return paths


def _shuffle_flag(shuffle, where):
    """Shuffle.GLOBAL / FILES / INFILE or a bool → whether rows are shuffled (every level shuffles rows here)."""
    if shuffle is None or isinstance(shuffle, (bool, Shuffle)):
        return True if shuffle is None else shuffle is not Shuffle.FALSE and bool(shuffle)
    raise TypeError(f"For '{where}', 'shuffle' must be a bool or a Shuffle, but got {shuffle!r}.")


class _LineSource(MappableDataset):
    """Sources whose rows are parsed from their files once, on first use, and shared by copies."""

    def __init__(self, dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache):
        self.dataset_files = _files(dataset_files, self._where)
        super().__init__(num_samples, num_parallel_workers, _shuffle_flag(shuffle, self._where), None, num_shards,
                         shard_id, cache)
        self._store = {}

    def _rows_list(self):
        if "rows" not in self._store:
            self._store["rows"] = self._parse()
        return self._store["rows"]

    def _num_rows(self):
        return len(self._rows_list())

    def _read(self, index):
        return tuple(np.array(v) for v in self._rows_list()[index])


class TextFileDataset(_LineSource):
    """`TextFileDataset(dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, cache=None)`: column `text`, one string per line."""

    _where = "TextFileDataset"

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)

    def _column_names(self):
        return ["text"]

    def _parse(self):
        rows = []
        for path in self.dataset_files:
            with open(path, encoding="utf-8") as f:
                rows.extend((line.rstrip("\r\n"),) for line in f if line.rstrip("\r\n"))
        return rows


class CSVDataset(_LineSource):
    """`CSVDataset(dataset_files, field_delim=',', column_defaults=None, column_names=None, num_samples=None,
    num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)`.

    Without column_names the first line of each file names the columns. column_defaults gives each column's type
    (int, float or str) and the value of an empty field; without it every column is a string.
    """

    _where = "CSVDataset"

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"For 'CSVDataset', 'field_delim' must be one character other than quote and newline, "
                             f"but got {field_delim!r}.")
        if column_defaults is not None and (not isinstance(column_defaults, (list, tuple)) or not all(
                isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in column_defaults)):
            raise TypeError(f"For 'CSVDataset', 'column_defaults' must be a list of int, float or str, but got "
                            f"{column_defaults!r}.")
        self.field_delim, self.column_defaults = field_delim, column_defaults
        self.header = list(column_names) if column_names is not None else None
        self._has_header = column_names is None  # then the first line of every file names the columns
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache)
        if self.header is None:
            with open(self.dataset_files[0], encoding="utf-8", newline="") as f:
                self.header = next(csv.reader(f, delimiter=field_delim), None)
            if not self.header:
                raise RuntimeError(f"For 'CSVDataset', {self.dataset_files[0]} has no header line to name the columns.")
        if column_defaults is not None and len(column_defaults) != len(self.header):
            raise ValueError(f"For 'CSVDataset', 'column_defaults' has {len(column_defaults)} values but there are "
                             f"{len(self.header)} columns.")

    def _column_names(self):
        return list(self.header)

    def _read(self, index):
        # MindSpore's CSV columns are int32 / float32 / string
        return tuple(np.array(v, dtype=np.int32 if isinstance(v, int) else np.float32 if isinstance(v, float) else None)
                     for v in self._rows_list()[index])

    def _convert(self, field, col, where):
        default = self.column_defaults[col] if self.column_defaults is not None else ""
        if field == "":
            return default
        try:
            return type(default)(field)
        except ValueError:
            raise RuntimeError(f"For 'CSVDataset', {where}: field {field!r} of column '{self.header[col]}' is not a "
                               f"{type(default).__name__}.") from None

    def _parse(self):
        rows = []
        for path in self.dataset_files:
            with open(path, encoding="utf-8", newline="") as f:
                reader = csv.reader(f, delimiter=self.field_delim)
                for line_no, record in enumerate(reader, 1):
                    if line_no == 1 and self._has_header:
                        continue
                    if not record:
                        continue
                    if len(record) != len(self.header):
                        raise RuntimeError(f"For 'CSVDataset', {path} line {line_no} has {len(record)} fields, but "
                                           f"there are {len(self.header)} columns.")
                    rows.append(tuple(self._convert(v, c, f"{path} line {line_no}") for c, v in enumerate(record)))
        return rows
