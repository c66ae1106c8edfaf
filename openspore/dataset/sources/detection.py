"""Detection and segmentation sets: PASCAL VOC (`VOCDataset`) and COCO (`CocoDataset`).

VOC: `dataset_dir` holds `ImageSets/<Main|Segmentation>/<usage>.txt` (one image id per line), `JPEGImages/<id>.jpg`,
`Annotations/<id>.xml` (Detection) and `SegmentationClass/<id>.png` (Segmentation). Detection rows are
image, bbox float32 (n, 4) as [xmin, ymin, width, height], label, difficult and truncate uint32 (n, 1).

COCO: `annotation_file` is the JSON of one split; images are `dataset_dir/<file_name>`, one row per entry of
"images" in file order.

>>> import json, os, tempfile
>>> import openspore.dataset as ds
>>> root = tempfile.mkdtemp()
>>> open(os.path.join(root, "a.jpg"), "wb").close()
>>> ann = {"images": [{"id": 1, "file_name": "a.jpg"}], "categories": [{"id": 3, "name": "cat"}],
...        "annotations": [{"image_id": 1, "bbox": [1, 2, 3, 4], "category_id": 3, "iscrowd": 0}]}
>>> with open(os.path.join(root, "ann.json"), "w") as f:
...     json.dump(ann, f)
>>> row = next(ds.CocoDataset(root, os.path.join(root, "ann.json")).create_dict_iterator(output_numpy=True))
>>> row["bbox"].tolist(), row["category_id"].tolist()
([[1.0, 2.0, 3.0, 4.0]], [[3]])
"""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np

from .folder_base import RecordSource, _check_dir, check_bool, check_choice, need_file, read_image


class VOCDataset(RecordSource):
    """`VOCDataset(dataset_dir, task='Segmentation', usage='train', class_indexing=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None,
    extra_metadata=False, decrypt=None)`: Segmentation rows are (image, target); Detection rows are (image, bbox,
    label, difficult, truncate). Without `class_indexing` the Detection labels number the object names found
    in the listed annotations, sorted."""

    _where = "VOCDataset"

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
                 shard_id=None, cache=None, extra_metadata=False, decrypt=None):
        where = self._where
        self.dataset_dir = _check_dir(dataset_dir, where)
        self.task = check_choice(task, "task", ("Segmentation", "Detection"), where)
        if not isinstance(usage, str):
            raise TypeError(f"For '{where}', 'usage' must be a str, but got {usage!r}.")
        self.usage = usage
        if class_indexing is not None:
            if task != "Detection":
                raise ValueError(f"For '{where}', 'class_indexing' is only supported with task 'Detection'.")
            if not isinstance(class_indexing, dict) or not all(
                    isinstance(k, str) and isinstance(v, int) for k, v in class_indexing.items()):
                raise TypeError(f"For '{where}', 'class_indexing' must be a dict of str to int, but got "
                                f"{class_indexing!r}.")
        self.class_indexing = dict(class_indexing) if class_indexing is not None else None
        self.decode = check_bool(decode, "decode", where)
        self.extra_metadata = check_bool(extra_metadata, "extra_metadata", where)
        self.decrypt = decrypt
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)
        list_file = os.path.join(self.dataset_dir, "ImageSets", "Main" if task == "Detection" else "Segmentation",
                                 f"{usage}.txt")
        need_file(list_file, where, f"image list of usage '{usage}'")
        with open(list_file, encoding="utf-8") as f:
            self.image_ids = [line.strip() for line in f if line.strip()]

    def _column_names(self):
        names = ["image", "target"] if self.task == "Segmentation" else \
            ["image", "bbox", "label", "difficult", "truncate"]
        return names + (["_meta-filename"] if self.extra_metadata else [])

    def _objects(self, image_id):
        path = need_file(os.path.join(self.dataset_dir, "Annotations", f"{image_id}.xml"), self._where,
                         "annotation")
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            raise RuntimeError(f"For '{self._where}', {path} is not valid XML: {exc}.") from None
        objects = []
        for obj in root.iter("object"):
            box = obj.find("bndbox")
            if box is None:
                raise RuntimeError(f"For '{self._where}', an object in {path} has no <bndbox>.")
            try:
                xmin, ymin, xmax, ymax = (float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))
            except (TypeError, ValueError):
                raise RuntimeError(f"For '{self._where}', an object in {path} has a <bndbox> without numeric "
                                   f"xmin/ymin/xmax/ymax.") from None
            box = [xmin, ymin, xmax - xmin, ymax - ymin]
            if min(box) <= 0:  # VOC coordinates are 1-based; MindSpore rejects these boxes the same way
                raise RuntimeError(f"For '{self._where}', invalid bndbox in {path}: xmin, ymin, width and height must "
                                   f"be greater than 0, but got {box}.")
            objects.append((obj.findtext("name", "").strip(), box,
                            int(obj.findtext("difficult", "0") or 0), int(obj.findtext("truncated", "0") or 0)))
        return objects

    def _scan(self):
        if self.task == "Segmentation":
            return [(i, None) for i in self.image_ids]
        records = [(i, self._objects(i)) for i in self.image_ids]
        if self.class_indexing is None:
            names = sorted({o[0] for _, objs in records for o in objs})
            self.class_indexing = {n: k for k, n in enumerate(names)}
        return records

    def get_class_indexing(self):
        """`get_class_indexing()`: object name → label (Detection only)."""
        if self.task != "Detection":
            raise RuntimeError(f"For '{self._where}', get_class_indexing is only supported with task 'Detection'.")
        self._records()
        return dict(self.class_indexing)

    def _row(self, record):
        image_id, objects = record
        image = read_image(os.path.join(self.dataset_dir, "JPEGImages", f"{image_id}.jpg"), self.decode,
                           self.decrypt)
        if self.task == "Segmentation":
            target = read_image(os.path.join(self.dataset_dir, "SegmentationClass", f"{image_id}.png"),
                                self.decode)
            row = (image, target)
        else:
            labels = []
            for name, *_ in objects:
                if name not in self.class_indexing:
                    raise RuntimeError(f"For '{self._where}', the object name '{name}' in {image_id}.xml is not in "
                                       f"class_indexing {sorted(self.class_indexing)}.")
                labels.append(self.class_indexing[name])
            row = (np.array([o[1] for o in objects], np.float32).reshape(-1, 4),
                   np.array(labels, np.uint32).reshape(-1, 1),
                   np.array([o[2] for o in objects], np.uint32).reshape(-1, 1),
                   np.array([o[3] for o in objects], np.uint32).reshape(-1, 1))
            row = (image,) + row
        return row + ((np.array(image_id),) if self.extra_metadata else ())

    def _class_count(self):
        return len(self.get_class_indexing()) if self.task == "Detection" else None


_COCO_COLUMNS = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
                 "Stuff": ["image", "segmentation", "iscrowd"],
                 "Keypoint": ["image", "keypoints", "num_keypoints"],
                 "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
                 "Captioning": ["image", "captions"]}


def _polygons(segmentation):
    """A COCO segmentation (polygons, or an RLE dict) as rows padded with -1 to the longest."""
    if isinstance(segmentation, dict):
        segmentation = [segmentation.get("counts", [])]
    return [list(map(float, p)) for p in segmentation]


class CocoDataset(RecordSource):
    """`CocoDataset(dataset_dir, annotation_file, task='Detection', num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, extra_metadata=False,
    decrypt=None)`: columns by task — Detection (image, bbox, category_id, iscrowd), Stuff (image, segmentation,
    iscrowd; polygons padded with -1), Keypoint (image, keypoints, num_keypoints), Panoptic (image, bbox,
    category_id, iscrowd, area), Captioning (image, captions)."""

    _where = "CocoDataset"

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None,
                 extra_metadata=False, decrypt=None):
        where = self._where
        self.dataset_dir = _check_dir(dataset_dir, where)
        if not isinstance(annotation_file, (str, os.PathLike)) or not os.path.isfile(annotation_file):
            raise ValueError(f"For '{where}', the annotation file {annotation_file!r} does not exist or permission "
                             f"denied!")
        self.annotation_file = os.fspath(annotation_file)
        self.task = check_choice(task, "task", tuple(_COCO_COLUMNS), where)
        self.decode = check_bool(decode, "decode", where)
        self.extra_metadata = check_bool(extra_metadata, "extra_metadata", where)
        self.decrypt = decrypt
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return _COCO_COLUMNS[self.task] + (["_meta-filename"] if self.extra_metadata else [])

    def _load_json(self):
        if "json" not in self._store:
            try:
                with open(self.annotation_file, encoding="utf-8") as f:
                    self._store["json"] = json.load(f)
            except json.JSONDecodeError as exc:
                raise RuntimeError(f"For '{self._where}', {self.annotation_file} is not valid JSON: {exc}.") from None
            for key in ("images", "annotations"):
                if key not in self._store["json"]:
                    raise RuntimeError(f"For '{self._where}', {self.annotation_file} has no '{key}' list.")
        return self._store["json"]

    def _scan(self):
        data = self._load_json()
        by_image = {}
        for ann in data["annotations"]:
            if "image_id" not in ann:
                raise RuntimeError(f"For '{self._where}', an annotation in {self.annotation_file} has no image_id.")
            by_image.setdefault(ann["image_id"], []).append(ann)
        return [(img["file_name"], by_image.get(img["id"], [])) for img in data["images"]]

    def _row(self, record):
        file_name, anns = record
        image = read_image(os.path.join(self.dataset_dir, file_name), self.decode, self.decrypt)
        task = self.task
        if task == "Detection":
            row = (np.array([a["bbox"] for a in anns], np.float32).reshape(-1, 4),
                   np.array([a["category_id"] for a in anns], np.uint32).reshape(-1, 1),
                   np.array([a.get("iscrowd", 0) for a in anns], np.uint32).reshape(-1, 1))
        elif task == "Stuff":
            polys = [p for a in anns for p in _polygons(a.get("segmentation", []))]
            width = max((len(p) for p in polys), default=0)
            seg = np.full((len(polys), width), -1.0, np.float32)
            for k, p in enumerate(polys):
                seg[k, :len(p)] = p
            row = (seg, np.array([a.get("iscrowd", 0) for a in anns], np.uint32).reshape(-1, 1))
        elif task == "Keypoint":
            row = (np.array([a["keypoints"] for a in anns], np.float32).reshape(len(anns), 51 if not anns else -1),
                   np.array([a["num_keypoints"] for a in anns], np.uint32).reshape(-1, 1))
        elif task == "Panoptic":
            segs = [s for a in anns for s in a.get("segments_info", [])]
            row = (np.array([s["bbox"] for s in segs], np.float32).reshape(-1, 4),
                   np.array([s["category_id"] for s in segs], np.uint32).reshape(-1, 1),
                   np.array([s.get("iscrowd", 0) for s in segs], np.uint32).reshape(-1, 1),
                   np.array([s["area"] for s in segs], np.uint32).reshape(-1, 1))
        else:
            row = (np.array([a["caption"] for a in anns], dtype=np.str_).reshape(-1, 1),)
        return (image,) + row + ((np.array(file_name),) if self.extra_metadata else ())

    def get_class_indexing(self):
        """`get_class_indexing()`: category name → [id] (Detection) or [id, isthing] (Panoptic)."""
        if self.task not in ("Detection", "Panoptic"):
            raise RuntimeError(f"For '{self._where}', get_class_indexing is only supported with task 'Detection' "
                               f"or 'Panoptic'.")
        if self.task == "Detection":
            return {c["name"]: [c["id"]] for c in self._load_json().get("categories", [])}
        return {c["name"]: [c["id"], c.get("isthing", 1)] for c in self._load_json().get("categories", [])}
