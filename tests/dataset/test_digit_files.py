"""SemeionDataset and STL10Dataset over files the tests write in the official formats (layouts, orders, dtypes
and the column-major STL-10 pixels checked against real MindSpore 2.10 on the same files)."""
import numpy as np
import pytest

import openspore.dataset as ds


def _rows(data):
    return list(data.create_dict_iterator(output_numpy=True))


def test_semeion(tmp_path):
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 2, (3, 256))
    with open(tmp_path / "semeion.data", "w") as f:
        for k, px in enumerate(pixels):
            one_hot = ["1" if d == (3 * k) % 10 else "0" for d in range(10)]
            f.write(" ".join(f"{v:.4f}" for v in px) + " " + " ".join(one_hot) + " \n")
    rows = _rows(ds.SemeionDataset(str(tmp_path), shuffle=False))
    assert [int(r["label"]) for r in rows] == [0, 3, 6]
    assert rows[0]["label"].dtype == np.uint32 and rows[0]["image"].dtype == np.uint8
    for row, px in zip(rows, pixels):
        np.testing.assert_array_equal(row["image"], px.reshape(16, 16))
    with open(tmp_path / "semeion.data", "a") as f:
        f.write("1 0 1\n")
    with pytest.raises(RuntimeError, match="line 4"):
        _rows(ds.SemeionDataset(str(tmp_path)))


@pytest.fixture
def stl_dir(tmp_path):
    rng = np.random.default_rng(1)
    files = {}
    for part, n in (("train", 2), ("test", 1), ("unlabeled", 1)):
        x = rng.integers(0, 256, (n, 3, 96, 96), dtype=np.uint8)
        x.tofile(tmp_path / f"{part}_X.bin")
        files[part] = x
    np.array([3, 10], np.uint8).tofile(tmp_path / "train_y.bin")
    np.array([1], np.uint8).tofile(tmp_path / "test_y.bin")
    return tmp_path, files


def test_stl10_usages_labels_and_pixels(stl_dir):
    root, files = stl_dir
    expected = {"train": [2, 9], "test": [0], "unlabeled": [-1], "train+unlabeled": [2, 9, -1], "all": [0, 2, 9, -1]}
    for usage, labels in expected.items():
        rows = _rows(ds.STL10Dataset(str(root), usage=usage, shuffle=False))
        assert [int(r["label"]) for r in rows] == labels, usage
        assert rows[0]["label"].dtype == np.int32 and rows[0]["image"].shape == (96, 96, 3)
    rows = _rows(ds.STL10Dataset(str(root), usage="train", shuffle=False))
    # pixels are stored column-major per channel: row y, column x, channel c is file[c, x, y]
    np.testing.assert_array_equal(rows[1]["image"], files["train"][1].transpose(2, 1, 0))


def test_stl10_errors(stl_dir):
    root, _ = stl_dir
    with pytest.raises(ValueError, match="usage"):
        ds.STL10Dataset(str(root), usage="valid")
    np.array([11, 1], np.uint8).tofile(root / "train_y.bin")
    with pytest.raises(RuntimeError, match="label 1-10"):
        _rows(ds.STL10Dataset(str(root), usage="train"))
    (root / "test_y.bin").unlink()
    with pytest.raises(RuntimeError, match="test_y.bin"):
        _rows(ds.STL10Dataset(str(root), usage="test"))
