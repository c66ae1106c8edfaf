"""`MappableDataset`: a source whose rows are read by index, in the order a sampler chooses."""
import numpy as np

from .. import config
from ..engine.checks import check_num_parallel_workers
from ..engine.datasets import Dataset, _split_sizes
from ..engine.ops import run_rows
from ..engine.samplers import DistributedSampler, RandomSampler, SubsetRandomSampler, SubsetSampler, build_sampler
from ..engine.workers import describe_failure


class MappableDataset(Dataset):
    """Base of random-access sources: subclasses define `_num_rows()` and `_read(index)`."""

    _where = "MappableDataset"

    def __init__(self, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__([], num_parallel_workers, cache)
        check_num_parallel_workers(num_parallel_workers)
        self.sampler = build_sampler(self._where, num_samples, shuffle, sampler, num_shards, shard_id)
        self.num_samples, self.shuffle_flag, self.num_shards, self.shard_id = num_samples, shuffle, num_shards, shard_id

    # --- what a source defines --------------------------------------------------------------------------------------
    def _num_rows(self):
        raise NotImplementedError

    def _read(self, index):
        raise NotImplementedError

    def _pool(self, ctx, on_error):
        """A pool to read rows in parallel, or None to read them inline."""
        return None

    def _row_reader(self):
        """The callable index → row the inline read loop calls (a source may hand out a cheaper one than _read)."""
        return self._read

    # --- shared behaviour -------------------------------------------------------------------------------------------
    def _size(self):
        self._bind_samplers()
        return self.sampler._count(self._num_rows())

    def _class_labels(self, column):
        """The labels of every row (for PKSampler), read once."""
        cache = self.__dict__.setdefault("_label_cache", {})
        if column not in cache:
            names = self.get_col_names()
            if column not in names:
                raise RuntimeError(f"For '{self._where}', PKSampler needs the class column '{column}', but the "
                                   f"columns are {names}.")
            k = names.index(column)
            cache[column] = np.array([np.asarray(self._read(i)[k]).reshape(-1)[0] for i in range(self._num_rows())])
        return cache[column]

    def _bind_samplers(self):
        sampler = self.sampler
        while sampler is not None:  # a PKSampler anywhere in the chain reads this source's labels
            if hasattr(sampler, "class_column") and hasattr(sampler, "_labels"):
                sampler._labels = lambda column=sampler.class_column: self._class_labels(column)
            sampler = sampler.child_sampler

    def _epoch_indices(self, ctx):
        n = self._num_rows()
        self._bind_samplers()
        key, pass_no = ctx.key(self), ctx.next_pass(self)
        idx = self.sampler._indices(n, config._rng(key, pass_no), pass_no)
        outside = (idx < 0) | (idx >= n)
        if outside.any():  # MindSpore's sentence, naming the first index out of range
            bad = int(idx[np.argmax(outside)])
            raise RuntimeError(f"Sample ID ({bad}) is out of bound, expected range [0, {n - 1}] (the sampler of "
                               f"'{self._where}' produced it).")
        return idx

    def _iter_rows(self, ctx):
        if self.cache is not None:
            from ..cache.pipeline import cached_rows
            return cached_rows(self, ctx, self._read_rows)
        return self._read_rows(ctx)

    def _read_rows(self, ctx):
        forced = ctx.cache_forced.pop(id(self), None)  # a cache above reads only the rows it misses
        idx = self._epoch_indices(ctx) if forced is None else forced

        def on_error(task_no, op, summary, tb):
            detail = f"\n{tb}" if tb else ""
            return RuntimeError(f"For '{self._where}', reading sample index {int(idx[task_no])} failed: "
                                f"{summary}{detail}")

        pool = self._pool(ctx, on_error)
        if pool is not None:
            yield from run_rows(self._read, (int(i) for i in idx), pool, on_error)
            return
        read = self._row_reader()
        indices = idx.tolist() if isinstance(idx, np.ndarray) else (int(i) for i in idx)  # a cache's misses stream
        for k, i in enumerate(indices):  # read inline: one loop, no generator layer per row
            try:
                row = read(i)
            except Exception as exc:  # noqa: BLE001
                raise on_error(k, *describe_failure(exc)) from exc
            yield row

    def use_sampler(self, new_sampler):
        """`use_sampler(new_sampler)`: read the rows `new_sampler` chooses from now on."""
        self.sampler = build_sampler(self._where, None, None, new_sampler, None, None)
        self._meta = {}

    def split(self, sizes, randomize=True):
        """`split(sizes, randomize=True)`: disjoint subsets of the rows, each read through a subset sampler."""
        if isinstance(self.sampler, DistributedSampler):
            raise RuntimeError(f"For 'split', a sharded {self._where} cannot be split; split first, then shard.")
        n = self.get_dataset_size()
        sizes = _split_sizes(sizes, n)
        base = self.sampler._indices(self._num_rows(), np.random.default_rng(0), 0)
        if randomize:
            base = config._rng(0x5B117).permutation(base)
        shuffled = isinstance(self.sampler, RandomSampler)
        parts, start = [], 0
        for size in sizes:
            node = self._clone()
            piece = base[start:start + size].tolist()
            node.sampler = SubsetRandomSampler(piece) if shuffled else SubsetSampler(piece)
            parts.append(node)
            start += size
        return parts
