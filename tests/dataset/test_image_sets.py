"""The folder-format image sets on tiny datasets written here in each official layout: columns, values, order."""
import json
import os

import numpy as np
import pytest

import openspore.dataset as ds
from tests.dataset.test_detection_sources import write_image


def _rows(data):
    return list(data.create_tuple_iterator(output_numpy=True))


def _pixel(image):
    return int(image[0, 0, 0])


def test_celeba(tmp_path):
    root = str(tmp_path)
    for k in range(3):
        write_image(os.path.join(root, f"00000{k + 1}.jpg"), 40 * k, ext=".jpg")
    with open(os.path.join(root, "list_attr_celeba.txt"), "w") as f:
        f.write("3\nSmiling Young\n000001.jpg 1 -1\n000002.jpg -1 -1\n000003.jpg  1  1\n")
    with open(os.path.join(root, "list_eval_partition.txt"), "w") as f:
        f.write("000001.jpg 0\n000002.jpg 1\n000003.jpg 0\n")
    rows = _rows(ds.CelebADataset(root, shuffle=False))
    assert [r[1].tolist() for r in rows] == [[1, 0], [0, 0], [1, 1]] and rows[0][1].dtype == np.uint32
    train = _rows(ds.CelebADataset(root, usage="train", shuffle=False, decode=True))
    assert [r[1].tolist() for r in train] == [[1, 0], [1, 1]] and train[0][0].shape == (4, 6, 3)
    assert ds.CelebADataset(root, usage="valid").get_dataset_size() == 1
    assert ds.CelebADataset(root, num_shards=3, shard_id=0).get_dataset_size() == 1


def test_caltech101_and_256(tmp_path):
    from scipy.io import savemat
    root = str(tmp_path)
    for cls, n in (("accordion", 2), ("Faces", 1), ("BACKGROUND_Google", 1)):
        for k in range(n):
            write_image(os.path.join(root, "101_ObjectCategories", cls, f"image_{k + 1:04d}.jpg"), 10 * k, ext=".jpg")
    os.makedirs(os.path.join(root, "Annotations", "Faces_2"))
    savemat(os.path.join(root, "Annotations", "Faces_2", "annotation_0001.mat"),
            {"obj_contour": np.array([[1.0, 2.0], [3.0, 4.0]])})
    rows = _rows(ds.Caltech101Dataset(root, shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 1, 1]  # sorted folders: Faces, accordion; background skipped
    data = ds.Caltech101Dataset(root, target_type="all", sampler=ds.SubsetSampler([0]))
    assert data.get_col_names() == ["image", "category", "annotation"]
    assert _rows(data)[0][2].tolist() == [[1, 2], [3, 4]]
    c256 = str(tmp_path / "c256")
    for k, cls in enumerate(("001.ak47", "002.bat")):
        write_image(os.path.join(c256, cls, f"{k + 1:03d}_0001.jpg"), 50 * k, ext=".jpg")
    rows = _rows(ds.Caltech256Dataset(c256, shuffle=False, decode=True))
    assert [int(r[1]) for r in rows] == [0, 1] and rows[1][1].dtype == np.int32 and _pixel(rows[1][0]) == 50


def test_flowers102(tmp_path):
    from scipy.io import savemat
    root = str(tmp_path)
    for k in range(1, 4):
        write_image(os.path.join(root, "jpg", f"image_{k:05d}.jpg"), 10 * k, ext=".jpg")
        write_image(os.path.join(root, "segmim", f"segmim_{k:05d}.jpg"), 0, ext=".jpg")
    savemat(os.path.join(root, "imagelabels.mat"), {"labels": np.array([[5, 1, 102]])})
    savemat(os.path.join(root, "setid.mat"), {"trnid": np.array([[3, 1]]), "valid": np.array([[2]]),
                                              "tstid": np.array([[2]])})
    # 'all' reads the train, valid and test lists in turn, as MindSpore does
    assert [int(r[1]) for r in _rows(ds.Flowers102Dataset(root, shuffle=False))] == [101, 4, 0, 0]
    assert [int(r[1]) for r in _rows(ds.Flowers102Dataset(root, usage="train", shuffle=False))] == [101, 4]
    seg = ds.Flowers102Dataset(root, task="Segmentation", usage="valid", decode=True)
    assert seg.get_col_names() == ["image", "segmentation", "label"] and int(_rows(seg)[0][2]) == 0


def test_food101_sun397_places365(tmp_path):
    food = str(tmp_path / "food")
    for cls, ids in (("apple_pie", ["1", "2"]), ("ramen", ["7"])):
        for i in ids:
            write_image(os.path.join(food, "images", cls, f"{i}.jpg"), 0, ext=".jpg")
    os.makedirs(os.path.join(food, "meta"))
    open(os.path.join(food, "meta", "train.txt"), "w").write("apple_pie/1\nramen/7\n")
    open(os.path.join(food, "meta", "test.txt"), "w").write("apple_pie/2\n")
    assert [str(r[1]) for r in _rows(ds.Food101Dataset(food, usage="train", shuffle=False))] == ["apple_pie", "ramen"]
    assert ds.Food101Dataset(food).get_dataset_size() == 3
    sun = str(tmp_path / "sun")
    write_image(os.path.join(sun, "a", "abbey", "sun_1.jpg"), 0, ext=".jpg")
    write_image(os.path.join(sun, "b", "bar", "sun_2.jpg"), 0, ext=".jpg")
    open(os.path.join(sun, "ClassName.txt"), "w").write("/b/bar\n/a/abbey\n")
    assert [int(r[1]) for r in _rows(ds.SUN397Dataset(sun, shuffle=False))] == [0, 1]
    places = str(tmp_path / "places")
    write_image(os.path.join(places, "data_256_standard", "a", "airfield", "00000001.jpg"), 0, ext=".jpg")
    write_image(os.path.join(places, "val_256", "Places365_val_00000001.jpg"), 0, ext=".jpg")
    open(os.path.join(places, "places365_train_standard.txt"), "w").write("/a/airfield/00000001.jpg 0\n")
    open(os.path.join(places, "places365_val.txt"), "w").write("Places365_val_00000001.jpg 165\n")
    open(os.path.join(places, "categories_places365.txt"), "w").write("/a/airfield 0\n")
    assert int(_rows(ds.Places365Dataset(places, usage="val"))[0][1]) == 165
    assert int(_rows(ds.Places365Dataset(places))[0][1]) == 0
    assert ds.Places365Dataset(places).get_class_indexing() == {"/a/airfield": 0}


def test_lsun_omniglot_rendered_sst2(tmp_path):
    lsun = str(tmp_path / "lsun")
    write_image(os.path.join(lsun, "bedroom_train", "a.jpg"), 0, ext=".jpg")
    write_image(os.path.join(lsun, "tower_train", "b.jpg"), 0, ext=".jpg")
    write_image(os.path.join(lsun, "tower_val", "c.jpg"), 0, ext=".jpg")
    # labels number the folders read, in order, as MindSpore does
    assert [int(r[1]) for r in _rows(ds.LSUNDataset(lsun, usage="train", shuffle=False))] == [0, 1]
    assert [int(r[1]) for r in _rows(ds.LSUNDataset(lsun, classes=["tower"], shuffle=False))] == [0, 1]
    with pytest.raises(ValueError, match="classes"):
        ds.LSUNDataset(lsun, classes=["castle"])
    omni = str(tmp_path / "omni")
    for part, alphabet, chars in (("images_background", "Greek", ["c1", "c2"]), ("images_evaluation", "Atlantean", ["c1"])):
        for c in chars:
            write_image(os.path.join(omni, part, alphabet, c, "0.png"), 0)
    assert [int(r[1]) for r in _rows(ds.OmniglotDataset(omni, shuffle=False))] == [0, 1, 2]
    assert ds.OmniglotDataset(omni, background=False).get_dataset_size() == 1
    sst = str(tmp_path / "sst")
    for split, cls in (("train", "positive"), ("valid", "negative"), ("test", "positive")):
        write_image(os.path.join(sst, split, cls, "0.png"), 0)
    assert [int(r[1]) for r in _rows(ds.RenderedSST2Dataset(sst, shuffle=False))] == [1, 1, 0]  # test, train, valid
    assert [int(r[1]) for r in _rows(ds.RenderedSST2Dataset(sst, usage="val"))] == [0]


def test_sbu_flickr_div2k_manifest(tmp_path):
    sbu = str(tmp_path / "sbu")
    write_image(os.path.join(sbu, "sbu_images", "1.jpg"), 0, ext=".jpg")
    open(os.path.join(sbu, "SBU_captioned_photo_dataset_urls.txt"), "w").write("http://x/1.jpg\nhttp://x/2.jpg\n")
    open(os.path.join(sbu, "SBU_captioned_photo_dataset_captions.txt"), "w").write("a cat \nmissing\n")
    assert [str(r[1]) for r in _rows(ds.SBUDataset(sbu))] == ["a cat"]
    fl = str(tmp_path / "flickr")
    write_image(os.path.join(fl, "10.jpg"), 0, ext=".jpg")
    write_image(os.path.join(fl, "11.jpg"), 0, ext=".jpg")
    ann = os.path.join(fl, "ann.txt")
    open(ann, "w").write("10.jpg#0\tone\n11.jpg#0\tx\n10.jpg#1\ttwo\n")
    assert [r[1].tolist() for r in _rows(ds.FlickrDataset(fl, ann, shuffle=False))] == [["one", "two"], ["x"]]
    div = str(tmp_path / "div")
    write_image(os.path.join(div, "DIV2K_train_HR", "0001.png"), 1, size=(8, 8))
    write_image(os.path.join(div, "DIV2K_train_LR_bicubic", "X2", "0001x2.png"), 2, size=(4, 4))
    hr, lr = _rows(ds.DIV2KDataset(div, decode=True))[0]
    assert hr.shape == (8, 8, 3) and lr.shape == (4, 4, 3) and _pixel(lr) == 2
    with pytest.raises(ValueError, match="scale 4"):
        ds.DIV2KDataset(div, downgrade="mild", scale=2)
    man = str(tmp_path / "m")
    write_image(os.path.join(man, "a.jpg"), 0, ext=".jpg")
    lines = [{"source": os.path.join(man, "a.jpg"), "usage": "train", "annotation": [{"name": "dog"}, {"name": "cat"}]},
             {"source": os.path.join(man, "a.jpg"), "usage": "eval", "annotation": [{"name": "cat"}]}]
    path = os.path.join(man, "m.manifest")
    open(path, "w").write("\n".join(json.dumps(x) for x in lines))
    data = ds.ManifestDataset(path)
    assert [r[1].tolist() for r in _rows(data)] == [[1, 0]] and data.get_class_indexing() == {"cat": 0, "dog": 1}
    assert [r[1].tolist() for r in _rows(ds.ManifestDataset(path, usage="eval"))] == [0]  # one label: a scalar
