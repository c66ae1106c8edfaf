"""QMNIST, SVHN, USPS, Cityscapes, SBD, KITTI, WIDER FACE, LFW and Photo Tour on tiny datasets written here."""
import os

import cv2
import numpy as np
import pytest

import openspore.dataset as ds
from tests.dataset.test_detection_sources import write_image


def _rows(data):
    return list(data.create_tuple_iterator(output_numpy=True))


def _write_idx(path, array, type_code):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, type_code, array.ndim]))
        for d in array.shape:
            f.write(int(d).to_bytes(4, "big"))
        f.write(array.astype(">i4" if type_code == 0x0C else np.uint8).tobytes())


def test_qmnist(tmp_path):
    root = str(tmp_path)
    for prefix, n, first in (("qmnist-train", 3, 0), ("qmnist-test", 2, 7), ("xnist", 1, 100)):
        _write_idx(os.path.join(root, f"{prefix}-images-idx3-ubyte"), np.full((n, 28, 28), first, np.uint8), 0x08)
        labels = np.arange(n * 8).reshape(n, 8) + first
        _write_idx(os.path.join(root, f"{prefix}-labels-idx2-int"), labels, 0x0C)
    rows = _rows(ds.QMnistDataset(root, shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 8, 16, 7, 15, 100] and rows[0][0].shape == (28, 28, 1)  # + nist
    full = _rows(ds.QMnistDataset(root, usage="test", compat=False, shuffle=False))
    assert full[1][1].tolist() == list(range(15, 23)) and full[1][1].dtype == np.uint32
    assert ds.QMnistDataset(root, usage="test10k").get_dataset_size() == 2


def test_svhn_and_usps(tmp_path):
    from scipy.io import savemat
    root = str(tmp_path)
    x = np.zeros((32, 32, 3, 2), np.uint8)
    x[0, 0, 0, 1] = 9
    savemat(os.path.join(root, "train_32x32.mat"), {"X": x, "y": np.array([[10], [3]])})
    rows = _rows(ds.SVHNDataset(root, usage="train", shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 3] and int(rows[1][0][0, 0, 0]) == 9 and rows[1][0].shape == (32, 32, 3)
    with open(os.path.join(root, "usps.t"), "w") as f:
        f.write("10 1:-1 2:0 256:1\n")
    image, label = _rows(ds.USPSDataset(root, usage="test"))[0]
    assert int(label) == 9 and image[0, 0, 0] == 0 and image[0, 1, 0] == 127 and image[15, 15, 0] == 255
    with pytest.raises(RuntimeError, match="usps"):
        _rows(ds.USPSDataset(root, usage="train"))


def test_cityscapes(tmp_path):
    root = str(tmp_path)
    for city, stem, v in (("aachen", "aachen_000000_000019", 10), ("bonn", "bonn_000001_000019", 20)):
        write_image(os.path.join(root, "leftImg8bit", "train", city, f"{stem}_leftImg8bit.png"), v)
        write_image(os.path.join(root, "gtFine", "train", city, f"{stem}_gtFine_labelIds.png"), v + 1)
        with open(os.path.join(root, "gtFine", "train", city, f"{stem}_gtFine_polygons.json"), "w") as f:
            f.write('{"objects": []}')
    rows = _rows(ds.CityscapesDataset(root, task="semantic", decode=True, shuffle=False))
    assert [(int(r[0][0, 0, 0]), int(r[1][0, 0, 0])) for r in rows] == [(10, 11), (20, 21)]
    poly = _rows(ds.CityscapesDataset(root, task="polygon", shuffle=False))
    assert str(poly[0][1]) == '{"objects":[]}'  # compact JSON, as MindSpore gives it
    with pytest.raises(RuntimeError, match="annotation"):
        _rows(ds.CityscapesDataset(root, task="color"))


def test_sbd(tmp_path):
    from scipy.io import savemat
    from scipy.sparse import csr_matrix
    root = str(tmp_path)
    write_image(os.path.join(root, "img", "2008_000002.jpg"), 0, ext=".jpg")
    seg = np.array([[0, 1, 1], [2, 2, 0]], np.uint8)
    bounds = np.empty((2, 1), dtype=object)
    bounds[0, 0] = csr_matrix(np.array([[1, 0, 0], [0, 0, 0]], np.uint8))
    bounds[1, 0] = csr_matrix(np.array([[0, 0, 0], [0, 1, 1]], np.uint8))
    os.makedirs(os.path.join(root, "cls"))
    savemat(os.path.join(root, "cls", "2008_000002.mat"),
            {"GTcls": {"Segmentation": seg, "Boundaries": bounds, "CategoriesPresent": np.array([1, 2])}})
    open(os.path.join(root, "train.txt"), "w").write("2008_000002\n")
    open(os.path.join(root, "val.txt"), "w").write("")
    _, target = _rows(ds.SBDataset(root, task="Segmentation"))[0]
    assert target.tolist() == seg.tolist()
    _, boundary = _rows(ds.SBDataset(root, usage="train"))[0]
    assert boundary.shape == (2, 2, 3) and boundary[1].tolist() == [[0, 0, 0], [0, 1, 1]]


def test_kitti(tmp_path):
    root = str(tmp_path)
    write_image(os.path.join(root, "data_object_image_2", "training", "image_2", "000000.png"), 5)
    write_image(os.path.join(root, "data_object_image_2", "testing", "image_2", "000000.png"), 6)
    os.makedirs(os.path.join(root, "data_object_label_2", "training", "label_2"))
    with open(os.path.join(root, "data_object_label_2", "training", "label_2", "000000.txt"), "w") as f:
        f.write("Pedestrian 0.00 0 -0.20 712.40 143.00 810.73 307.92 1.89 0.48 1.20 1.84 1.47 8.41 0.01\n"
                "Car 0.50 2 1.0 1 2 3 4 5 6 7 8 9 10 11\n")
    row = next(ds.KITTIDataset(root).create_dict_iterator(output_numpy=True))
    assert row["label"].tolist() == [[1], [0]] and row["occluded"].tolist() == [[0], [2]]  # types used, name order
    assert row["bbox"][1].tolist() == [1, 2, 3, 4] and row["location"][1].tolist() == [8, 9, 10]
    assert row["rotation_y"].dtype == np.float32 and float(row["rotation_y"][1, 0]) == 11
    assert ds.KITTIDataset(root, usage="test").get_col_names() == ["image"]


def test_wider_face(tmp_path):
    root = str(tmp_path)
    for split, name in (("train", "0--Parade/a.jpg"), ("val", "1--Handshaking/b.jpg"), ("test", "2--x/c.jpg")):
        write_image(os.path.join(root, f"WIDER_{split}", "images", name), 0, ext=".jpg")
    os.makedirs(os.path.join(root, "wider_face_split"))
    with open(os.path.join(root, "wider_face_split", "wider_face_train_bbx_gt.txt"), "w") as f:
        f.write("0--Parade/a.jpg\n2\n1 2 3 4 2 0 0 0 1 1\n5 6 7 8 0 1 1 1 0 0\n")
    with open(os.path.join(root, "wider_face_split", "wider_face_val_bbx_gt.txt"), "w") as f:
        f.write("1--Handshaking/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0\n")
    with open(os.path.join(root, "wider_face_split", "wider_face_test_filelist.txt"), "w") as f:
        f.write("2--x/c.jpg\n")
    rows = list(ds.WIDERFaceDataset(root, shuffle=False).create_dict_iterator(output_numpy=True))
    assert rows[0]["bbox"].tolist() == [[1, 2, 3, 4], [5, 6, 7, 8]] and rows[1]["bbox"].shape == (0, 4)
    assert rows[0]["blur"].tolist() == [[2], [0]] and rows[0]["invalid"].tolist() == [[0], [1]]
    assert rows[0]["occlusion"].tolist() == [[1], [0]] and rows[0]["pose"].tolist() == [[1], [0]]
    assert ds.WIDERFaceDataset(root, usage="test").get_dataset_size() == 1


def test_lfw(tmp_path):
    root = str(tmp_path)
    for name, n, v in (("Aaron", 2, 10), ("Zoe", 1, 20)):
        for k in range(1, n + 1):
            write_image(os.path.join(root, "lfw_funneled", name, f"{name}_{k:04d}.jpg"), v * k, ext=".jpg")
    open(os.path.join(root, "lfw-names.txt"), "w").write("Aaron\t2\nZoe\t1\n")
    open(os.path.join(root, "peopleDevTrain.txt"), "w").write("1\nZoe\t1\n")
    open(os.path.join(root, "peopleDevTest.txt"), "w").write("1\nAaron\t2\n")
    open(os.path.join(root, "pairsDevTrain.txt"), "w").write("1\nAaron\t1\t2\nAaron\t1\tZoe\t1\n")
    assert [int(r[1]) for r in _rows(ds.LFWDataset(root, shuffle=False))] == [1, 0, 0]
    pairs = _rows(ds.LFWDataset(root, task="pairs", usage="train", shuffle=False, decode=True))
    assert [int(r[2]) for r in pairs] == [1, 0] and pairs[1][1].shape == (4, 6, 3)


def test_photo_tour(tmp_path):
    root = str(tmp_path)
    folder = os.path.join(root, "liberty")
    os.makedirs(folder)
    sheet = np.zeros((1024, 1024), np.uint8)
    sheet[0:64, 64:128] = 7  # patch 1 (row 0, column 1)
    sheet[64:128, 0:64] = 9  # patch 16
    cv2.imwrite(os.path.join(folder, "patches0000.bmp"), sheet)
    open(os.path.join(folder, "info.txt"), "w").write("".join(f"{k // 2} 0\n" for k in range(20)))
    open(os.path.join(folder, "m50_100000_100000_0.txt"), "w").write("1 0 0 16 8 0 0\n0 0 0 1 0 0 0\n")
    rows = _rows(ds.PhotoTourDataset(root, "liberty", shuffle=False))  # train rows: the patch alone
    assert len(rows) == 20 and len(rows[1]) == 1 and rows[1][0].shape == (64, 64, 1) and int(rows[1][0][0, 0, 0]) == 7
    assert int(rows[16][0][0, 0, 0]) == 9
    test = _rows(ds.PhotoTourDataset(root, "liberty", usage="test", shuffle=False))
    assert [int(r[2]) for r in test] == [0, 1] and int(test[0][1][0, 0, 0]) == 9
