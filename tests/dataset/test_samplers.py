import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import config
from .conftest import numpy_rows


def read(sampler, n=10):
    data = ds.NumpySlicesDataset({"i": np.arange(n)}, sampler=sampler)
    return [int(r[0]) for r in numpy_rows(data)]


def test_sequential_and_subset_samplers():
    assert read(ds.SequentialSampler()) == list(range(10))
    assert read(ds.SequentialSampler(start_index=3, num_samples=4)) == [3, 4, 5, 6]
    assert read(ds.SubsetSampler([7, 2, 2, 5])) == [7, 2, 2, 5]
    assert read([4, 1]) == [4, 1]  # a list of indices is a SubsetSampler
    picked = read(ds.SubsetRandomSampler([1, 3, 5, 7, 9]))
    assert sorted(picked) == [1, 3, 5, 7, 9]
    assert len(read(ds.SubsetRandomSampler([1, 3, 5, 7, 9], num_samples=2))) == 2
    with pytest.raises(RuntimeError, match=r"Sample ID \(10\) is out of bound, expected range \[0, 9\]"):
        read(ds.SubsetSampler([10]))


def test_random_sampler():
    perm = read(ds.RandomSampler())
    assert sorted(perm) == list(range(10)) and perm != list(range(10))
    assert len(read(ds.RandomSampler(num_samples=4))) == 4
    with_replacement = read(ds.RandomSampler(replacement=True, num_samples=50))
    assert len(with_replacement) == 50 and len(set(with_replacement)) < 10 + 1
    config.set_seed(5)
    a = read(ds.RandomSampler())
    config.set_seed(5)
    assert read(ds.RandomSampler()) == a


def test_distributed_sampler_shards_cover_rows_once():
    shards = [read(ds.DistributedSampler(3, k, shuffle=False)) for k in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # even shards, wrapping around
    shuffled = [read(ds.DistributedSampler(2, k)) for k in range(2)]
    assert sorted(shuffled[0] + shuffled[1]) == list(range(10))  # every shard uses the same permutation
    assert read(ds.DistributedSampler(2, 1, shuffle=False, num_samples=2)) == [1, 3]
    assert read(ds.DistributedSampler(3, 0, shuffle=False, offset=1)) == [2, 5, 8]
    with pytest.raises(ValueError, match="shard_id"):
        ds.DistributedSampler(2, 2)
    data = ds.NumpySlicesDataset({"i": np.arange(7)}, num_shards=2, shard_id=0, shuffle=False)
    assert data.get_dataset_size() == 4


def test_weighted_random_sampler():
    picks = read(ds.WeightedRandomSampler([0, 0, 1, 0, 3, 0, 0, 0, 0, 0], num_samples=200))
    assert set(picks) == {2, 4} and picks.count(4) > picks.count(2)
    no_repeat = read(ds.WeightedRandomSampler([1] * 10, num_samples=10, replacement=False))
    assert sorted(no_repeat) == list(range(10))
    with pytest.raises(ValueError, match="non-negative"):
        ds.WeightedRandomSampler([-1, 2])


def test_custom_sampler_and_child_sampler():
    class Evens(ds.Sampler):
        def __iter__(self):
            return iter(range(0, 10, 2))
    assert read(Evens()) == [0, 2, 4, 6, 8]
    assert read(Evens(num_samples=2)) == [0, 2]
    parent = ds.SequentialSampler(start_index=1, num_samples=2)
    parent.add_child(ds.SubsetSampler([9, 8, 7, 6]))
    assert read(parent) == [8, 7]
    assert read(iter_indices := [3, 1]) == iter_indices
