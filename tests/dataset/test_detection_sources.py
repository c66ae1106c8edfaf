"""VOCDataset and CocoDataset on tiny datasets written here in their official layouts."""
import json
import os

import cv2
import numpy as np
import pytest

import openspore.dataset as ds


def write_image(path, value, size=(4, 6), ext=".png"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img = np.full(size + (3,), value, np.uint8)
    ok, buf = cv2.imencode(ext, img)
    assert ok
    with open(path, "wb") as f:
        f.write(buf.tobytes())
    return buf.tobytes()


def _voc(root):
    objs = {"a": [("dog", (1, 2, 5, 7), 0, 1)], "b": [("cat", (1, 1, 3, 4), 1, 0), ("dog", (1, 1, 4, 4), 0, 0)]}
    for image_id, items in objs.items():
        xml = "<annotation><filename>%s.jpg</filename>" % image_id
        for name, (x0, y0, x1, y1), diff, trunc in items:
            xml += (f"<object><name>{name}</name><difficult>{diff}</difficult><truncated>{trunc}</truncated>"
                    f"<bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>")
        os.makedirs(os.path.join(root, "Annotations"), exist_ok=True)
        with open(os.path.join(root, "Annotations", f"{image_id}.xml"), "w") as f:
            f.write(xml + "</annotation>")
        write_image(os.path.join(root, "JPEGImages", f"{image_id}.jpg"), 10 if image_id == "a" else 200)
        write_image(os.path.join(root, "SegmentationClass", f"{image_id}.png"), 1)
    for task in ("Main", "Segmentation"):
        os.makedirs(os.path.join(root, "ImageSets", task), exist_ok=True)
        with open(os.path.join(root, "ImageSets", task, "train.txt"), "w") as f:
            f.write("a\nb\n")


def test_voc_detection(tmp_path):
    root = str(tmp_path)
    _voc(root)
    data = ds.VOCDataset(root, task="Detection", usage="train", shuffle=False, decode=True)
    assert data.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert data.get_class_indexing() == {"cat": 0, "dog": 1}
    assert rows[0]["image"].shape == (4, 6, 3) and int(rows[0]["image"][0, 0, 0]) == 10
    assert rows[0]["bbox"].dtype == np.float32 and rows[0]["bbox"].tolist() == [[1, 2, 4, 5]]
    assert rows[1]["label"].tolist() == [[0], [1]] and rows[1]["label"].dtype == np.uint32
    assert rows[1]["difficult"].tolist() == [[1], [0]] and rows[0]["truncate"].tolist() == [[1]]
    data = ds.VOCDataset(root, task="Detection", class_indexing={"dog": 7, "cat": 3}, shuffle=False)
    assert [r[2].tolist() for r in data.create_tuple_iterator(output_numpy=True)] == [[[7]], [[3], [7]]]
    with pytest.raises(RuntimeError, match="class_indexing"):
        list(ds.VOCDataset(root, task="Detection", class_indexing={"dog": 0}, shuffle=False).create_tuple_iterator())
    with open(os.path.join(root, "Annotations", "a.xml"), "w") as f:  # VOC is 1-based: a 0 coordinate is invalid
        f.write("<annotation><object><name>dog</name><bndbox><xmin>0</xmin><ymin>2</ymin><xmax>5</xmax>"
                "<ymax>7</ymax></bndbox></object></annotation>")
    with pytest.raises(RuntimeError, match="greater than 0"):
        list(ds.VOCDataset(root, task="Detection", shuffle=False).create_tuple_iterator())


def test_voc_segmentation_and_sharding(tmp_path):
    root = str(tmp_path)
    _voc(root)
    data = ds.VOCDataset(root, task="Segmentation", shuffle=False)
    image, target = next(data.create_tuple_iterator(output_numpy=True))
    assert image.ndim == 1 and image.dtype == np.uint8 and image[:2].tolist() == [0x89, 0x50]  # PNG bytes, undecoded
    assert target.ndim == 1
    shard = ds.VOCDataset(root, task="Segmentation", num_shards=2, shard_id=1, shuffle=False, decode=True)
    assert shard.get_dataset_size() == 1
    assert int(next(shard.create_tuple_iterator(output_numpy=True))[0][0, 0, 0]) == 200
    with pytest.raises(RuntimeError, match="usage 'val'"):
        ds.VOCDataset(root, usage="val")


def _coco(root):
    for k in range(3):
        write_image(os.path.join(root, f"{k}.png"), 50 * k)
    ann = {"images": [{"id": 10 + k, "file_name": f"{k}.png"} for k in range(3)],
           "categories": [{"id": 1, "name": "person", "isthing": 1}, {"id": 2, "name": "sky", "isthing": 0}],
           "annotations": [
               {"id": 1, "image_id": 10, "bbox": [0, 1, 2, 3], "category_id": 1, "iscrowd": 0,
                "segmentation": [[1, 2, 3, 4, 5, 6], [1, 1, 2, 2]], "keypoints": list(range(51)),
                "num_keypoints": 17, "caption": "a person"},
               {"id": 2, "image_id": 12, "bbox": [4, 5, 6, 7], "category_id": 2, "iscrowd": 1,
                "segmentation": [[9, 9, 8, 8, 7, 7]], "keypoints": [1] * 51, "num_keypoints": 3,
                "caption": "sky"},
               {"id": 3, "image_id": 12, "bbox": [1, 1, 1, 1], "category_id": 1, "iscrowd": 0,
                "segmentation": [[0, 0, 1, 1]], "keypoints": [2] * 51, "num_keypoints": 5, "caption": "blue sky"}]}
    path = os.path.join(root, "ann.json")
    with open(path, "w") as f:
        json.dump(ann, f)
    pan = {"images": ann["images"], "categories": ann["categories"],
           "annotations": [{"image_id": 11, "file_name": "1.png",
                            "segments_info": [{"id": 5, "category_id": 2, "iscrowd": 0, "bbox": [1, 2, 3, 4],
                                               "area": 12}]}]}
    pan_path = os.path.join(root, "pan.json")
    with open(pan_path, "w") as f:
        json.dump(pan, f)
    return path, pan_path


def test_coco_tasks(tmp_path):
    root = str(tmp_path)
    ann, pan = _coco(root)
    rows = list(ds.CocoDataset(root, ann, shuffle=False, decode=True).create_dict_iterator(output_numpy=True))
    assert len(rows) == 3 and int(rows[1]["image"][0, 0, 0]) == 50
    assert rows[0]["bbox"].tolist() == [[0, 1, 2, 3]] and rows[1]["bbox"].shape == (0, 4)
    assert rows[2]["category_id"].tolist() == [[2], [1]] and rows[2]["iscrowd"].tolist() == [[1], [0]]
    stuff = list(ds.CocoDataset(root, ann, task="Stuff", shuffle=False).create_dict_iterator(output_numpy=True))
    assert stuff[0]["segmentation"].tolist() == [[1, 2, 3, 4, 5, 6], [1, 1, 2, 2, -1, -1]]
    assert stuff[0]["segmentation"].dtype == np.float32
    kp = list(ds.CocoDataset(root, ann, task="Keypoint", shuffle=False).create_dict_iterator(output_numpy=True))
    assert kp[2]["keypoints"].shape == (2, 51) and kp[2]["num_keypoints"].tolist() == [[3], [5]]
    cap = list(ds.CocoDataset(root, ann, task="Captioning", shuffle=False).create_dict_iterator(output_numpy=True))
    assert cap[2]["captions"].tolist() == [["sky"], ["blue sky"]]  # (n, 1), as MindSpore gives them
    data = ds.CocoDataset(root, pan, task="Panoptic", shuffle=False)
    assert data.get_col_names() == ["image", "bbox", "category_id", "iscrowd", "area"]
    prow = list(data.create_dict_iterator(output_numpy=True))[1]
    assert prow["area"].tolist() == [[12]] and prow["bbox"].tolist() == [[1, 2, 3, 4]]
    assert data.get_class_indexing() == {"person": [1, 1], "sky": [2, 0]}
    assert ds.CocoDataset(root, ann).get_class_indexing() == {"person": [1], "sky": [2]}


def test_coco_errors(tmp_path):
    root = str(tmp_path)
    ann, _ = _coco(root)
    with pytest.raises(ValueError, match="task"):
        ds.CocoDataset(root, ann, task="Depth")
    with pytest.raises(ValueError, match="annotation file"):
        ds.CocoDataset(root, os.path.join(root, "none.json"))
