"""Samplers: which row indices a random-access source reads, and in which order, each epoch."""
import enum
import math

import numpy as np

from .. import config
from .checks import check_shards
from .init_record import Recorded


class Shuffle(str, enum.Enum):
    """Shuffle levels of file-based sources: FALSE, ADAPTIVE (= GLOBAL here), GLOBAL, PARTIAL (rows shuffled
    globally here), FILES (file order only) and INFILE (rows inside each file); MindDataset honours FILES/INFILE."""
    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def _check_num_samples(num_samples, where):
    if num_samples is None:
        return None
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"num_samples must be integer but was: {num_samples}.")
    if not 0 <= num_samples <= 2 ** 63 - 1:
        raise ValueError("num_samples exceeds the boundary between 0 and 9223372036854775807(INT64_MAX)!")
    return int(num_samples) or None  # 0 means all rows


def _check_indices(indices, where):
    if isinstance(indices, np.ndarray):
        indices = list(indices)  # rows of a 2-D array stay arrays, so the error names their type as MindSpore's
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"For '{where}', 'indices' must be a list or tuple of int, but got {type(indices).__name__}.")
    for k, i in enumerate(indices):
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"{where}: Type of indices element must be int, but got list[{k}]: {i}, "
                            f"type: {type(i)}.")
    return np.asarray(indices, dtype=np.int64)


class Sampler(Recorded):
    """`Sampler(num_samples=None)`: base of all samplers; subclass it and define `__iter__` for a custom one."""

    def __init__(self, num_samples=None):
        self.num_samples = _check_num_samples(num_samples, type(self).__name__)
        self.child_sampler = None

    def parse(self):
        """Check the sampler as MindSpore does when it builds its engine object, and give it back (openspore's
        engine uses the sampler itself)."""
        child = self.child_sampler
        if child is not None:
            child.parse()
        return self

    def add_child(self, sampler):
        """Sample positions among the indices `sampler` produces instead of among all rows."""
        if not isinstance(sampler, Sampler):
            raise TypeError(f"For 'add_child', the child must be a Sampler, but got {type(sampler).__name__}.")
        self.child_sampler = sampler

    def get_child(self):
        return self.child_sampler

    def get_num_samples(self):
        return self.num_samples

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__ to be used as a custom sampler.")

    def _own(self, n, rng, pass_no):
        """Positions in [0, n) for one epoch; custom samplers yield them from `__iter__`."""
        return np.fromiter((int(i) for i in self), dtype=np.int64)

    def _indices(self, n, rng, pass_no=0):
        base = None
        if self.child_sampler is not None:
            base = self.child_sampler._indices(n, rng, pass_no)
            n = len(base)
        idx = np.asarray(self._own(n, rng, pass_no), dtype=np.int64)
        if self.num_samples is not None:
            idx = idx[:self.num_samples]
        return base[idx] if base is not None else idx

    def _count(self, n):
        return len(self._indices(n, np.random.default_rng(0), 0))


class BuiltinSampler(Sampler):
    """Base of the samplers this module provides."""


class RandomSampler(BuiltinSampler):
    """`RandomSampler(replacement=False, num_samples=None, shuffle=Shuffle.GLOBAL)`: a random order each epoch."""

    def __init__(self, replacement=False, num_samples=None, shuffle=Shuffle.GLOBAL):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a boolean value but was: {replacement}.")
        super().__init__(num_samples)
        self.replacement = replacement
        self.shuffle = shuffle

    def _own(self, n, rng, pass_no):
        if self.replacement:
            return rng.integers(0, n, self.num_samples or n) if n else np.zeros(0, np.int64)
        return rng.permutation(n)


class SequentialSampler(BuiltinSampler):
    """`SequentialSampler(start_index=None, num_samples=None)`: rows in order from `start_index`."""

    def __init__(self, start_index=None, num_samples=None):
        if start_index is not None and (isinstance(start_index, bool) or not isinstance(start_index, int)
                                        or start_index < 0):
            raise ValueError(f"For 'SequentialSampler', 'start_index' must be None or a non-negative int, "
                             f"but got {start_index!r}.")
        super().__init__(num_samples)
        self.start_index = start_index or 0

    def _own(self, n, rng, pass_no):
        if self.start_index and self.start_index >= n:
            raise RuntimeError(f"For 'SequentialSampler', 'start_index' ({self.start_index}) must be smaller than "
                               f"the dataset size ({n}).")
        return np.arange(self.start_index, n)


class DistributedSampler(BuiltinSampler):
    """`DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=None, offset=-1)`: one shard of the rows.

    With offset=-1 every shard gets ceil(n / num_shards) rows (wrapping around); shard k takes positions
    k, k + num_shards, ... of one permutation that all shards share (it depends only on seed and epoch).
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        if isinstance(num_shards, bool) or not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"For 'DistributedSampler', 'num_shards' must be a positive int, but got {num_shards!r}.")
        if isinstance(shard_id, bool) or not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
            raise ValueError(f"For 'DistributedSampler', 'shard_id' must be an int in [0, {num_shards - 1}], "
                             f"but got {shard_id!r}.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"For 'DistributedSampler', 'shuffle' must be a bool, but got {shuffle!r}.")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < -1:
            raise ValueError(f"For 'DistributedSampler', 'offset' must be -1 or an int in [0, {num_shards}], "
                             f"but got {offset!r}.")
        super().__init__(num_samples)
        self.num_shards, self.shard_id, self.shuffle, self.offset = num_shards, shard_id, shuffle, offset

    def parse(self):
        if self.offset > self.num_shards:  # MindSpore accepts it here and fails when the sampler is built
            raise RuntimeError(f"DistributedSampler: offset must be no more than num_shards({self.num_shards}), but "
                               f"got: {self.offset}")
        return super().parse()

    def _own(self, n, rng, pass_no):
        self.parse()
        if n == 0:
            return np.zeros(0, np.int64)
        order = config._fixed_rng(0xD157, pass_no).permutation(n) if self.shuffle else np.arange(n)
        if self.offset == -1:
            per_shard = math.ceil(n / self.num_shards)
            positions = (np.arange(per_shard) * self.num_shards + self.shard_id) % n
        else:
            positions = np.arange((self.shard_id - self.offset) % self.num_shards, n, self.num_shards)
        return order[positions]


class SubsetSampler(BuiltinSampler):
    """`SubsetSampler(indices, num_samples=None)`: exactly `indices`, in the given order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.indices = _check_indices(indices, type(self).__name__)

    def _own(self, n, rng, pass_no):
        return self.indices


class SubsetRandomSampler(SubsetSampler):
    """`SubsetRandomSampler(indices, num_samples=None)`: `indices` in a random order each epoch."""

    def _own(self, n, rng, pass_no):
        return rng.permutation(self.indices)


class WeightedRandomSampler(BuiltinSampler):
    """`WeightedRandomSampler(weights, num_samples=None, replacement=True)`: index i drawn with probability ∝ weights[i]."""

    def __init__(self, weights, num_samples=None, replacement=True):
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.size == 0 or np.any(w < 0) or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError(f"For 'WeightedRandomSampler', 'weights' must be non-negative numbers with a positive "
                             f"sum, but got {weights!r}.")
        if not isinstance(replacement, bool):
            raise TypeError(f"For 'WeightedRandomSampler', 'replacement' must be a bool, but got {replacement!r}.")
        super().__init__(num_samples)
        self.weights, self.replacement = w, replacement
        if not replacement and (self.num_samples or w.size) > np.count_nonzero(w):
            raise ValueError("For 'WeightedRandomSampler', 'num_samples' must not exceed the number of non-zero "
                             "weights when 'replacement' is False.")

    def _own(self, n, rng, pass_no):
        k = self.num_samples or self.weights.size
        return rng.choice(self.weights.size, size=k, replace=self.replacement, p=self.weights / self.weights.sum())


class PKSampler(BuiltinSampler):
    """`PKSampler(num_val, num_class=None, shuffle=False, class_column='label', num_samples=None)`: `num_val`
    rows of each class (P classes, K = num_val rows each), class by class in ascending label order (a random
    order of the classes, and of the rows within each, with shuffle). A class with fewer rows repeats them;
    `num_class` keeps only that many classes. The dataset's `class_column` gives the labels."""

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label", num_samples=None):
        if isinstance(num_val, bool) or not isinstance(num_val, int) or num_val <= 0:
            raise ValueError(f"For 'PKSampler', 'num_val' must be a positive int, but got {num_val!r}.")
        if num_class is not None:
            raise NotImplementedError("For 'PKSampler', 'num_class' is not supported (MindSpore does not support it "
                                      "either); leave it None.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"For 'PKSampler', 'shuffle' must be a bool, but got {shuffle!r}.")
        if not isinstance(class_column, str):
            raise TypeError(f"For 'PKSampler', 'class_column' must be a str, but got {class_column!r}.")
        super().__init__(num_samples)
        self.num_val, self.num_class, self.shuffle, self.class_column = num_val, num_class, shuffle, class_column
        self._labels = None  # set by the source that reads through this sampler (MappableDataset)

    def _own(self, n, rng, pass_no):
        if self._labels is None:
            raise RuntimeError("For 'PKSampler', the dataset did not provide its labels: use it with a mappable "
                               "source that has a label column.")
        labels = self._labels()
        classes = np.unique(labels)
        if self.shuffle:
            classes = rng.permutation(classes)
        out = []
        for c in classes:
            rows = np.flatnonzero(labels == c)
            if self.shuffle:
                rows = rng.permutation(rows)
            out.append(rows[np.arange(self.num_val) % len(rows)])
        return np.concatenate(out) if out else np.zeros(0, np.int64)


class _IterableSampler(Sampler):
    """Wraps a user iterable of indices (anything with `__iter__`) passed as `sampler=`."""

    def __init__(self, iterable):
        super().__init__(None)
        self.iterable = iterable

    def _own(self, n, rng, pass_no):
        if not hasattr(self.iterable, "__iter__"):  # a random-access sampler: __getitem__(0 .. len-1)
            return np.array([int(self.iterable[i]) for i in range(len(self.iterable))], dtype=np.int64)
        return np.fromiter((int(i) for i in self.iterable), dtype=np.int64)


def build_sampler(where, num_samples, shuffle, sampler, num_shards, shard_id, shuffle_default=True):
    """The sampler a source's (num_samples, shuffle, sampler, num_shards, shard_id) arguments describe."""
    if num_samples is not None and (isinstance(num_samples, bool) or
                                    not isinstance(num_samples, (int, np.integer))):
        raise TypeError(f"Argument num_samples with value {num_samples} is not of type [<class 'int'>], but got "
                        f"{type(num_samples)}.")
    num_samples = _check_num_samples(num_samples, where)
    if shuffle is not None and not isinstance(shuffle, (bool, Shuffle)):
        raise TypeError(f"For '{where}', 'shuffle' must be a bool or None, but got {shuffle!r}.")
    check_shards(num_shards, shard_id)
    if (num_shards is None) != (shard_id is None):
        raise RuntimeError(f"For '{where}', 'num_shards' and 'shard_id' must be given together, but got "
                           f"num_shards={num_shards}, shard_id={shard_id}.")
    if sampler is not None:
        if shuffle is not None:
            raise RuntimeError(f"For '{where}', 'sampler' and 'shuffle' cannot be specified at the same time.")
        if num_shards is not None:
            raise RuntimeError(f"For '{where}', 'sampler' and sharding (num_shards/shard_id) cannot be specified at "
                               f"the same time.")
        if isinstance(sampler, (list, tuple, np.ndarray)):
            sampler = SubsetSampler(sampler)
        elif not isinstance(sampler, Sampler):
            if not hasattr(sampler, "__iter__") and not (hasattr(sampler, "__getitem__") and hasattr(sampler, "__len__")):
                raise TypeError(f"For '{where}', 'sampler' must be a Sampler, a list of indices, an iterable of "
                                f"indices or an object with __getitem__ and __len__, but got {type(sampler).__name__}.")
            sampler = _IterableSampler(sampler)
        if num_samples is not None:
            capped = SequentialSampler(num_samples=num_samples)
            capped.add_child(sampler)
            return capped
        return sampler
    do_shuffle = shuffle_default if shuffle is None else bool(shuffle)
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=do_shuffle, num_samples=num_samples)
    if do_shuffle:
        return RandomSampler(num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)
