"""PaddedDataset, FakeImageDataset, KMnistDataset and EMnistDataset."""
import os

import numpy as np
import pytest

import openspore.dataset as ds
from tests.dataset.test_sources import write_idx


def test_padded_dataset_rows_in_order():
    data = ds.PaddedDataset([{"image": np.zeros(2, np.uint8), "label": 1}, {"image": np.ones(3, np.uint8), "label": 2}])
    rows = [(r["image"].tolist(), int(r["label"])) for r in data.create_dict_iterator(output_numpy=True)]
    assert data.get_col_names() == ["image", "label"] and rows == [([0, 0], 1), ([1, 1, 1], 2)]
    with pytest.raises(ValueError, match="same keys"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])


def test_fake_image_dataset_is_reproducible_per_row():
    data = ds.FakeImageDataset(6, (4, 5, 3), 3, base_seed=7, shuffle=False)
    rows = list(data.create_tuple_iterator(output_numpy=True))
    assert len(rows) == 6 and rows[0][0].shape == (4, 5, 3) and rows[0][0].dtype == np.uint8
    assert all(r[1].dtype == np.uint32 and 0 <= int(r[1]) < 3 for r in rows)
    # a row's image depends on its index and the seed only: shuffling reorders the same (image, label) rows
    shuffled = list(ds.FakeImageDataset(6, (4, 5, 3), 3, base_seed=7).create_tuple_iterator(output_numpy=True))
    key = lambda r: (int(r[1]), r[0].tobytes())
    assert sorted(map(key, shuffled)) == sorted(map(key, rows))
    other = next(ds.FakeImageDataset(6, (4, 5, 3), 3, base_seed=8, shuffle=False).create_tuple_iterator(output_numpy=True))
    assert not np.array_equal(rows[0][0], other[0])


def test_kmnist_and_emnist_files(tmp_path):
    rng = np.random.default_rng(0)
    for prefix, n in (("train", 4), ("t10k", 2), ("emnist-letters-train", 3), ("emnist-letters-test", 5)):
        write_idx(os.path.join(tmp_path, f"{prefix}-images-idx3-ubyte"), rng.integers(0, 256, (n, 28, 28)), 2051)
        write_idx(os.path.join(tmp_path, f"{prefix}-labels-idx1-ubyte"), rng.integers(0, 10, n), 2049)
    assert ds.KMnistDataset(str(tmp_path), usage="train").get_dataset_size() == 4
    assert ds.EMnistDataset(str(tmp_path), "letters", usage="test").get_dataset_size() == 5
    assert ds.EMnistDataset(str(tmp_path), "letters").get_dataset_size() == 8
    with pytest.raises(ValueError, match="'name' must be one of"):
        ds.EMnistDataset(str(tmp_path), "nope")
