"""`RandomDataset`: rows of random values, with the columns a schema describes (or random ones without a schema).

Each row is drawn from a generator seeded by (dataset seed, row index), so a row is the same however it is sampled
or sharded, and a pipeline run twice under one `ds.config.set_seed` gives the same rows.

>>> import openspore.dataset as ds
>>> from openspore import dtype as mstype
>>> schema = ds.Schema()
>>> schema.add_column("image", de_type=mstype.uint8, shape=[2, 2])
>>> schema.add_column("label", de_type=mstype.int32, shape=[1])
>>> data = ds.RandomDataset(schema=schema, total_rows=3)
>>> [(r[0].shape, r[0].dtype.name, r[1].dtype.name) for r in data.create_tuple_iterator(output_numpy=True)][0]
((2, 2), 'uint8', 'int32')
>>> data.get_dataset_size()
3
"""
import numpy as np

from .. import config
from .mappable import MappableDataset
from .tfrecord import _schema_of

_RANDOM_TYPES = (np.uint8, np.int32, np.int64, np.float32, np.float64)


def _random_values(rng, dtype, shape):
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -(2 ** 31)), min(info.max, 2 ** 31 - 1), shape, endpoint=True).astype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-1e3, 1e3, shape).astype(dtype)
    if dtype.kind in "SU":
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        words = ["".join(rng.choice(letters, rng.integers(1, 9))) for _ in range(int(np.prod(shape, dtype=int)))]
        return np.array(words, dtype=dtype.kind).reshape(shape)
    raise TypeError(f"For 'RandomDataset', cannot make random values of type {dtype}.")


class RandomDataset(MappableDataset):
    """`RandomDataset(total_rows=None, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
    cache=None, shuffle=None, num_shards=None, shard_id=None)`: `total_rows` random rows (default: the schema's
    numRows, else a random count in [1, 1024]). A schema column without a shape gets a random shape of rank 1-3,
    fixed for the dataset; without a schema the columns are random too (1-4 columns named c0, c1, ...)."""

    _where = "RandomDataset"

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 cache=None, shuffle=None, num_shards=None, shard_id=None):
        where = self._where
        if total_rows is not None and (isinstance(total_rows, bool) or not isinstance(total_rows, int)
                                       or total_rows < 1):
            raise ValueError(f"For '{where}', 'total_rows' must be a positive int, but got {total_rows!r}.")
        columns, schema_rows = _schema_of(schema, where)
        self.seed = int(config._rng(0x4A1D).integers(2 ** 31))  # one draw per dataset; reproducible under set_seed
        layout_rng = np.random.default_rng([self.seed, 1])
        if columns is None:
            kinds = layout_rng.choice(len(_RANDOM_TYPES), size=int(layout_rng.integers(1, 5)))
            columns = {f"c{k}": {"type": np.dtype(_RANDOM_TYPES[t]), "shape": None} for k, t in enumerate(kinds)}
        self.columns = {}
        for name, spec in columns.items():
            shape = spec["shape"]
            if shape is None:
                shape = [int(d) for d in layout_rng.integers(1, 9, size=int(layout_rng.integers(1, 4)))]
            self.columns[name] = (spec["type"], tuple(shape))
        if columns_list is not None:
            missing = [c for c in columns_list if c not in self.columns]
            if missing:
                raise ValueError(f"For '{where}', columns_list names {missing}, which the schema does not have "
                                 f"(it has {list(self.columns)}).")
            self.columns = {c: self.columns[c] for c in columns_list}
        self.total_rows = total_rows or schema_rows or int(layout_rng.integers(1, 1025))
        super().__init__(num_samples, num_parallel_workers, shuffle, None, num_shards, shard_id, cache)

    def _column_names(self):
        return list(self.columns)

    def _num_rows(self):
        return self.total_rows

    def _read(self, index):
        rng = np.random.default_rng([self.seed, 2, int(index)])
        return tuple(_random_values(rng, dtype, shape) for dtype, shape in self.columns.values())
