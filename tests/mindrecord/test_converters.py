"""Converters: CIFAR-10 pickles, an ImageNet-style folder and a CSV file become MindRecord sets that read back."""
import pickle

import cv2
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import vision
from openspore.mindrecord import Cifar10ToMR, CsvToMR, FileReader, ImageNetToMR


def test_cifar10_to_mindrecord(tmp_path):
    rng = np.random.default_rng(0)
    src = tmp_path / "cifar-10-batches-py"
    src.mkdir()
    images = {}
    for name in [f"data_batch_{k}" for k in range(1, 6)] + ["test_batch"]:
        flat = np.zeros((3, 3072), np.uint8)
        for i in range(3):  # flat colours survive JPEG almost exactly, and show the channel order
            flat[i] = np.repeat(rng.integers(0, 256, 3, dtype=np.uint8), 1024)
        images[name] = flat
        with open(src / name, "wb") as f:
            pickle.dump({b"data": flat, b"labels": [1, 2, 3]}, f)
    dest = str(tmp_path / "cifar.mindrecord")
    assert Cifar10ToMR(str(src), dest).transform(["label"]) == 0
    train = ds.MindDataset(dest, shuffle=False).map(vision.Decode(), "data")
    rows = list(train.create_dict_iterator(output_numpy=True))
    assert len(rows) == 15 and [int(r["id"]) for r in rows] == list(range(15))
    assert [int(r["label"]) for r in rows] == [1, 2, 3] * 5
    first_rgb = images["data_batch_1"][0].reshape(3, 32, 32).transpose(1, 2, 0)
    assert rows[0]["data"].shape == (32, 32, 3)
    assert np.abs(rows[0]["data"].astype(int) - first_rgb.astype(int)).max() <= 3
    assert len(list(FileReader(dest + "_test").get_next())) == 3


def test_imagenet_folder_to_mindrecord(tmp_path):
    root = tmp_path / "train"
    for label, cls in enumerate(["n01", "n02"]):
        (root / cls).mkdir(parents=True)
        for i in range(2):
            ok, data = cv2.imencode(".jpg", np.full((8, 8, 3), 40 * (i + 1) + label, np.uint8))
            (root / cls / f"img{i}.jpg").write_bytes(data.tobytes())
    (tmp_path / "map.txt").write_text("n01 0\nn02 1\n")
    dest = str(tmp_path / "imagenet.mindrecord")
    ImageNetToMR(str(tmp_path / "map.txt"), str(root), dest, partition_number=2).transform()
    rows = list(FileReader(dest + "0").get_next())
    assert sorted((r["label"], r["file_name"]) for r in rows) == [(0, "img0.jpg"), (0, "img1.jpg"),
                                                                  (1, "img0.jpg"), (1, "img1.jpg")]
    assert rows[0]["image"] == (root / "n01" / "img0.jpg").read_bytes()
    with pytest.raises(ValueError, match="line 1"):
        (tmp_path / "bad.txt").write_text("n01\n")
        ImageNetToMR(str(tmp_path / "bad.txt"), str(root), str(tmp_path / "x.mindrecord")).transform()


def test_csv_to_mindrecord(tmp_path):
    (tmp_path / "t.csv").write_text("name,count,ratio,flag\nann,3,0.5,True\nbob,-4,2,False\n")
    dest = str(tmp_path / "t.mindrecord")
    CsvToMR(str(tmp_path / "t.csv"), dest).transform()
    reader = FileReader(dest)
    assert reader.schema() == {"name": {"type": "string"}, "count": {"type": "int64"},
                               "ratio": {"type": "float64"}, "flag": {"type": "int32"}}
    assert [(r["name"], r["count"], r["ratio"], r["flag"]) for r in reader.get_next()] == [("ann", 3, 0.5, 1),
                                                                                       ("bob", -4, 2.0, 0)]
    (tmp_path / "bad.csv").write_text("a,b\n1\n")
    with pytest.raises(ValueError, match="line 2"):
        CsvToMR(str(tmp_path / "bad.csv"), str(tmp_path / "b.mindrecord")).transform()
