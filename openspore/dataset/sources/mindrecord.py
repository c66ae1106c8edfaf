"""`MindDataset`: rows of a MindRecord file set (see `openspore.mindrecord`), read by index through the `.db`
indexes, with MindSpore's shuffle levels, sharding and padding.

>>> import os, tempfile
>>> import openspore.dataset as ds
>>> from openspore.mindrecord import FileWriter
>>> path = os.path.join(tempfile.mkdtemp(), "rows.mindrecord")
>>> w = FileWriter(path, shard_num=2)
>>> w.add_schema({"id": {"type": "int64"}})
0
>>> w.write_raw_data([{"id": i} for i in range(6)]); w.commit()
>>> sorted(int(r[0]) for r in ds.MindDataset(path + "0", shuffle=False, num_shards=2, shard_id=1).create_tuple_iterator(output_numpy=True))
[1, 3, 5]
"""
import numpy as np

from ..engine.samplers import Sampler, Shuffle
from .mappable import MappableDataset

_GLOBAL_LEVELS = (Shuffle.GLOBAL, Shuffle.ADAPTIVE, Shuffle.PARTIAL)


class _FileOrderSampler(Sampler):
    """Shuffle.FILES (whole files in a random order) or Shuffle.INFILE (file order kept, rows shuffled inside each
    file), then round-robin sharding with wrap-around as DistributedSampler does."""

    def __init__(self, mode, file_sizes, num_shards=None, shard_id=None, num_samples=None):
        super().__init__(num_samples)
        self.mode, self.file_sizes, self.num_shards, self.shard_id = mode, list(file_sizes), num_shards, shard_id

    def _own(self, n, rng, pass_no):
        starts = np.concatenate([[0], np.cumsum(self.file_sizes)]).astype(np.int64)
        blocks = [np.arange(starts[k], starts[k + 1]) for k in range(len(self.file_sizes))]
        if self.mode == Shuffle.FILES:
            blocks = [blocks[k] for k in rng.permutation(len(blocks))]
        else:
            blocks = [rng.permutation(b) for b in blocks]
        order = np.concatenate(blocks + [np.arange(starts[-1], n)])  # padded rows last
        if self.num_shards is None or n == 0:
            return order
        per_shard = -(-n // self.num_shards)
        return order[(np.arange(per_shard) * self.num_shards + self.shard_id) % n]


class MindDataset(MappableDataset):
    """`MindDataset(dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
    shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None)`."""

    _where = "MindDataset"

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None):
        from ...mindrecord.reader import ShardSet
        if shuffle is not None and not isinstance(shuffle, (bool, Shuffle)):
            raise TypeError(f"For 'MindDataset', 'shuffle' must be a bool, None or a Shuffle level, but got "
                            f"{shuffle!r}.")
        level = shuffle
        if shuffle is None or shuffle is True:
            level = Shuffle.ADAPTIVE
        elif shuffle is False:
            level = Shuffle.FALSE
        as_bool = None if shuffle is None else level is not Shuffle.FALSE
        super().__init__(num_samples, num_parallel_workers, as_bool, sampler, num_shards, shard_id, cache)
        try:
            self._set = ShardSet(dataset_files)
        except (TypeError, ValueError, RuntimeError) as exc:
            raise RuntimeError(f"For 'MindDataset', {exc}") from exc
        self.dataset_files = dataset_files
        if columns_list is not None:
            if not isinstance(columns_list, list) or not columns_list or not all(isinstance(c, str)
                                                                                 for c in columns_list):
                raise TypeError(f"For 'MindDataset', 'columns_list' must be a non-empty list of str, but got "
                                f"{columns_list!r}.")
            unknown = [c for c in columns_list if c not in self._set.schema]
            if unknown:
                raise ValueError(f"For 'MindDataset', columns {unknown} of 'columns_list' are not in the MindRecord "
                                 f"schema {list(self._set.schema)}.")
        self.columns_list = list(columns_list) if columns_list else list(self._set.field_names)
        self.num_padded = self._check_padding(padded_sample, num_padded, num_shards)
        self._padded_row = None if padded_sample is None else self._padded(padded_sample)
        if level in (Shuffle.FILES, Shuffle.INFILE):
            sizes = np.bincount(self._set.shard_of, minlength=len(self._set.paths)).tolist()
            self.sampler = _FileOrderSampler(level, sizes, num_shards, shard_id, self.sampler.num_samples)

    def _check_padding(self, padded_sample, num_padded, num_shards):
        if padded_sample is None and num_padded is None:
            return 0
        if padded_sample is None or num_padded is None:
            raise RuntimeError("For 'MindDataset', 'padded_sample' and 'num_padded' must be given together.")
        if not isinstance(padded_sample, dict):
            raise TypeError(f"For 'MindDataset', 'padded_sample' must be a dict, but got "
                            f"{type(padded_sample).__name__}.")
        if isinstance(num_padded, bool) or not isinstance(num_padded, int) or num_padded < 0:
            raise ValueError(f"For 'MindDataset', 'num_padded' must be a non-negative int, but got {num_padded!r}.")
        if num_shards is None:
            raise RuntimeError("For 'MindDataset', 'padded_sample' needs 'num_shards' and 'shard_id': padding only "
                               "evens out shards.")
        if (len(self._set) + num_padded) % num_shards:
            raise RuntimeError(f"For 'MindDataset', the dataset size {len(self._set)} plus num_padded {num_padded} "
                               f"must be divisible by num_shards {num_shards}.")
        return num_padded

    def _padded(self, sample):
        if sorted(sample) != sorted(self.columns_list):
            raise ValueError(f"For 'MindDataset', the keys of 'padded_sample' {sorted(sample)} must be the columns "
                             f"read {self.columns_list}.")
        return tuple(_column_array(self._set.schema[c], sample[c]) for c in self.columns_list)

    def _column_names(self):
        return list(self.columns_list)

    def _num_rows(self):
        return len(self._set) + self.num_padded

    def _read(self, index):
        if index >= len(self._set):
            return tuple(np.array(a, copy=True) for a in self._padded_row)
        values = self._set.read(index, self.columns_list)
        return tuple(_column_array(self._set.schema[c], values[c]) for c in self.columns_list)


_SCALAR_DTYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}


def _column_array(spec, value):
    """A field value as MindSpore's MindDataset yields it: 0-d arrays for scalars, a (1,) bytes array for bytes."""
    t = spec["type"]
    if "shape" in spec:
        return np.asarray(value, dtype=t)
    if t == "bytes":
        value = bytes(value)
        return np.frombuffer(value, dtype=f"S{len(value)}").copy() if value else np.array([b""])
    if t == "string":
        return np.array(str(value))
    return np.array(value, dtype=_SCALAR_DTYPES[t])
