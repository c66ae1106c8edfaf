"""Scene, face and patch sets with per-image annotations: Cityscapes, SBD (Semantic Boundaries), KITTI object
detection, WIDER FACE, LFW (people and pairs) and Photo Tour patches, each read from its official layout.

>>> import os, tempfile
>>> import openspore.dataset as ds
>>> root = tempfile.mkdtemp()
>>> os.makedirs(os.path.join(root, "WIDER_train", "images", "0--Parade"))
>>> open(os.path.join(root, "WIDER_train", "images", "0--Parade", "a.jpg"), "wb").close()
>>> os.makedirs(os.path.join(root, "wider_face_split"))
>>> with open(os.path.join(root, "wider_face_split", "wider_face_train_bbx_gt.txt"), "w") as f:
...     _ = f.write("0--Parade/a.jpg\\n1\\n1 2 3 4 0 0 0 0 0 0\\n")
>>> row = next(ds.WIDERFaceDataset(root, usage="train").create_dict_iterator(output_numpy=True))
>>> row["bbox"].tolist()
[[1, 2, 3, 4]]
"""
import glob
import json
import os

import numpy as np

from .folder_base import RecordSource, _check_dir, check_choice, need_file, read_image
from .image_sets import _images_in, _loadmat, _subfolders


class CityscapesDataset(RecordSource):
    """`CityscapesDataset(dataset_dir, usage='train', quality_mode='fine', task='instance', decode=False,
    num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None,
    cache=None)`: leftImg8bit/<usage>/<city>/*_leftImg8bit.png with gtFine (or gtCoarse)/<usage>/<city>/
    *_gt<Fine|Coarse>_<instanceIds|labelIds|color>.png or *_polygons.json (task 'polygon': the JSON text).
    Columns image and task."""

    _where = "CityscapesDataset"
    _suffix = {"instance": "instanceIds.png", "semantic": "labelIds.png", "color": "color.png",
               "polygon": "polygons.json"}

    def __init__(self, dataset_dir, usage="train", quality_mode="fine", task="instance", decode=False,
                 num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.quality_mode = check_choice(quality_mode, "quality_mode", ("fine", "coarse"), self._where)
        usages = ("train", "test", "val", "all") if quality_mode == "fine" else ("train", "train_extra", "val", "all")
        self.usage = check_choice(usage, "usage", usages, self._where)
        self.task = check_choice(task, "task", tuple(self._suffix), self._where)
        self.decode = bool(decode)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["image", "task"]

    def _scan(self):
        gt = "gtFine" if self.quality_mode == "fine" else "gtCoarse"
        splits = [u for u in (("train", "test", "val") if self.quality_mode == "fine"
                              else ("train", "train_extra", "val")) if self.usage in ("all", u)]
        records = []
        for split in splits:
            root = os.path.join(self.dataset_dir, "leftImg8bit", split)
            if not os.path.isdir(root):
                continue
            for city in _subfolders(root):
                for name in sorted(os.listdir(os.path.join(root, city))):
                    if not name.endswith("_leftImg8bit.png"):
                        continue
                    stem = name[:-len("_leftImg8bit.png")]
                    target = os.path.join(self.dataset_dir, gt, split, city, f"{stem}_{gt}_{self._suffix[self.task]}")
                    records.append((os.path.join(root, city, name), need_file(target, self._where, "annotation")))
        return records

    def _row(self, record):
        image = read_image(record[0], self.decode)
        if self.task == "polygon":
            with open(record[1], encoding="utf-8") as f:  # re-serialised compactly, as MindSpore gives it
                return image, np.array(json.dumps(json.load(f), separators=(",", ":")))
        return image, read_image(record[1], self.decode)


class SBDataset(RecordSource):
    """`SBDataset(dataset_dir, task='Boundaries', usage='all', num_samples=None, num_parallel_workers=1,
    shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None)`: img/<id>.jpg and cls/<id>.mat
    (GTcls) listed by train.txt, val.txt or train_noval.txt ('all' = train + val); task 'Boundaries' gives a
    uint8 (classes, H, W) stack of boundary maps, 'Segmentation' the uint8 (H, W) class map."""

    _where = "SBDataset"

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.task = check_choice(task, "task", ("Boundaries", "Segmentation"), self._where)
        self.usage = check_choice(usage, "usage", ("train", "val", "train_noval", "all"), self._where)
        self.decode = bool(decode)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _column_names(self):
        return ["image", "task"]

    def _scan(self):
        ids = []
        for split in (["train", "val"] if self.usage == "all" else [self.usage]):
            with open(need_file(os.path.join(self.dataset_dir, f"{split}.txt"), self._where), encoding="utf-8") as f:
                ids += [line.strip() for line in f if line.strip()]
        return ids

    def _row(self, image_id):
        image = read_image(os.path.join(self.dataset_dir, "img", f"{image_id}.jpg"), self.decode)
        mat = _loadmat(need_file(os.path.join(self.dataset_dir, "cls", f"{image_id}.mat"), self._where), self._where)
        gt = mat["GTcls"][0, 0]
        if self.task == "Segmentation":
            return image, np.asarray(gt["Segmentation"], np.uint8)
        maps = [np.asarray(b.toarray() if hasattr(b, "toarray") else b, np.uint8)
                for b in np.asarray(gt["Boundaries"]).reshape(-1)]
        return image, np.stack(maps)


class KITTIDataset(RecordSource):
    """`KITTIDataset(dataset_dir, usage='train', num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: data_object_image_2/<training|testing>/
    image_2/*.png with data_object_label_2/training/label_2/*.txt; train rows are image, label (uint32, class
    numbered in name order among the types the label files use, as MindSpore numbers them), truncated, occluded (uint32), alpha, bbox (n, 4), dimensions (n, 3), location (n, 3),
    rotation_y; test rows are the image alone."""

    _where = "KITTIDataset"
    CLASSES = ("Car", "Cyclist", "DontCare", "Misc", "Pedestrian", "Person_sitting", "Tram", "Truck", "Van")

    def __init__(self, dataset_dir, usage="train", num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice(usage, "usage", ("train", "test"), self._where)
        self.decode = bool(decode)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        if self.usage == "test":
            return ["image"]
        return ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"]

    def _scan(self):
        part = "training" if self.usage == "train" else "testing"
        folder = os.path.join(self.dataset_dir, "data_object_image_2", part, "image_2")
        if not os.path.isdir(folder):
            raise RuntimeError(f"For '{self._where}', {folder} was not found.")
        stems = [os.path.splitext(n)[0] for n in _images_in(folder)]
        if self.usage == "train":  # labels number the object types the label files use, in name order
            names = set()
            for stem in stems:
                for objects in self._objects(stem):
                    names.add(objects[0])
            self._store["labels"] = {name: k for k, name in enumerate(sorted(names))}  # shared by clones
        return stems

    def _objects(self, stem):
        path = need_file(os.path.join(self.dataset_dir, "data_object_label_2", "training", "label_2", f"{stem}.txt"),
                         self._where, "label file")
        objects = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if not parts:
                    continue
                if len(parts) < 15 or parts[0] not in self.CLASSES:
                    raise RuntimeError(f"For '{self._where}', {path} has a line that is not '<class> + 14 numbers' "
                                       f"with class in {list(self.CLASSES)}: {line.strip()!r}.")
                objects.append((parts[0], [float(v) for v in parts[1:15]]))
        return objects

    def _row(self, stem):
        part = "training" if self.usage == "train" else "testing"
        image = read_image(os.path.join(self.dataset_dir, "data_object_image_2", part, "image_2", f"{stem}.png"),
                           self.decode)
        if self.usage == "test":
            return (image,)
        labels = self._store["labels"]
        objects = [(labels[name], values) for name, values in self._objects(stem)]
        values = np.array([o[1] for o in objects], np.float32).reshape(-1, 14)
        return (image, np.array([o[0] for o in objects], np.uint32).reshape(-1, 1), values[:, 0:1],
                values[:, 1:2].astype(np.uint32), values[:, 2:3], values[:, 3:7], values[:, 7:10],
                values[:, 10:13], values[:, 13:14])


class WIDERFaceDataset(RecordSource):
    """`WIDERFaceDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: WIDER_<train|val|test>/images/ with
    wider_face_split/wider_face_<train|val>_bbx_gt.txt; rows image, bbox (n, 4), blur, expression, illumination,
    occlusion, pose, invalid (uint32); usage 'test' (wider_face_test_filelist.txt) gives the image alone; 'all' is
    train + valid."""

    _where = "WIDERFaceDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "test", "valid", "all"),
                                  self._where)
        self.decode = bool(decode)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        if self.usage == "test":
            return ["image"]
        return ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]

    def _scan(self):
        split_dir = os.path.join(self.dataset_dir, "wider_face_split")
        if self.usage == "test":
            with open(need_file(os.path.join(split_dir, "wider_face_test_filelist.txt"), self._where),
                      encoding="utf-8") as f:
                return [(os.path.join(self.dataset_dir, "WIDER_test", "images", line.strip()), None)
                        for line in f if line.strip()]
        records = []
        for split in (["train", "val"] if self.usage == "all" else ["val" if self.usage == "valid" else "train"]):
            path = need_file(os.path.join(split_dir, f"wider_face_{split}_bbx_gt.txt"), self._where)
            with open(path, encoding="utf-8") as f:
                lines = [line.strip() for line in f if line.strip()]
            k = 0
            while k < len(lines):
                name = lines[k]
                try:
                    count = int(lines[k + 1])
                    boxes = [[int(v) for v in lines[k + 2 + j].split()[:10]] for j in range(max(count, 1))]
                except (IndexError, ValueError):
                    raise RuntimeError(f"For '{self._where}', {path} is malformed near the entry of {name}.") from None
                records.append((os.path.join(self.dataset_dir, f"WIDER_{split}", "images", name),
                                boxes[:count] if count else []))
                k += 2 + max(count, 1)
        return records

    def _row(self, record):
        image = read_image(record[0], self.decode)
        if record[1] is None:
            return (image,)
        values = np.array(record[1], np.uint32).reshape(-1, 10)
        # file order: x y w h blur expression illumination invalid occlusion pose
        return (image, values[:, 0:4], values[:, 4:5], values[:, 5:6], values[:, 6:7], values[:, 8:9],
                values[:, 9:10], values[:, 7:8])


class LFWDataset(RecordSource):
    """`LFWDataset(dataset_dir, task=None, usage=None, image_set=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: task 'people' (default;
    rows image, label = the person's line in lfw-names.txt) or 'pairs' (rows image1, image2, label 1 for the same
    person); usage 'train' / 'test' (the DevTrain / DevTest lists), '10fold' (people.txt / pairs.txt) or 'all'
    (train + test); image_set 'funneled' (default, lfw_funneled/), 'original' (lfw/) or 'deepfunneled'
    (lfw_deepfunneled/)."""

    _where = "LFWDataset"

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.task = check_choice("people" if task is None else task, "task", ("people", "pairs"), self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "test", "10fold", "all"),
                                  self._where)
        self.image_set = check_choice("funneled" if image_set is None else image_set, "image_set",
                                      ("original", "funneled", "deepfunneled"), self._where)
        self.decode = bool(decode)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["image", "label"] if self.task == "people" else ["image1", "image2", "label"]

    def _image(self, name, number):
        folder = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw_deepfunneled"}[self.image_set]
        return os.path.join(self.dataset_dir, folder, name, f"{name}_{int(number):04d}.jpg")

    def _lists(self):
        prefix = "people" if self.task == "people" else "pairs"
        names = {"train": [f"{prefix}DevTrain.txt"], "test": [f"{prefix}DevTest.txt"], "10fold": [f"{prefix}.txt"],
                 "all": [f"{prefix}DevTrain.txt", f"{prefix}DevTest.txt"]}[self.usage]
        lines = []
        for name in names:
            with open(need_file(os.path.join(self.dataset_dir, name), self._where), encoding="utf-8") as f:
                lines += [line.split() for line in f if line.strip()]
        return lines

    def _scan(self):
        records = []
        if self.task == "people":
            with open(need_file(os.path.join(self.dataset_dir, "lfw-names.txt"), self._where), encoding="utf-8") as f:
                index = {p[0]: k for k, p in enumerate(line.split() for line in f if line.strip())}
            for parts in self._lists():
                if len(parts) == 2 and not parts[0].isdigit():  # "name count" (other lines are counts)
                    records.extend((self._image(parts[0], n), index[parts[0]]) for n in range(1, int(parts[1]) + 1))
            return records
        for parts in self._lists():
            if len(parts) == 3:
                records.append((self._image(parts[0], parts[1]), self._image(parts[0], parts[2]), 1))
            elif len(parts) == 4:
                records.append((self._image(parts[0], parts[1]), self._image(parts[2], parts[3]), 0))
        return records

    def _row(self, record):
        *paths, label = record
        return tuple(read_image(p, self.decode) for p in paths) + (np.array(label, np.uint32),)


class PhotoTourDataset(RecordSource):
    """`PhotoTourDataset(dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: <name>/ holds patches*.bmp (1024x1024 grey sheets of
    16x16 patches of 64x64, row-major), info.txt (the 3D point of each patch) and m50_100000_100000_0.txt
    (matches); usage 'train' rows are the image (64, 64, 1) uint8 alone (as MindSpore gives them); 'test' rows are
    image1, image2 and matches (1 when both patches show the same point)."""

    _where = "PhotoTourDataset"
    NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris")

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.name = check_choice(name, "name", self.NAMES, self._where)
        self.usage = check_choice("train" if usage is None else usage, "usage", ("train", "test"), self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["image"] if self.usage == "train" else ["image1", "image2", "matches"]

    def _patches(self):
        if "patches" not in self._store:
            import cv2
            folder = os.path.join(self.dataset_dir, self.name)
            sheets = sorted(glob.glob(os.path.join(folder, "patches*.bmp")))
            if not sheets:
                raise RuntimeError(f"For '{self._where}', no patches*.bmp in {folder}.")
            patches = []
            for sheet in sheets:
                grey = cv2.imread(sheet, cv2.IMREAD_GRAYSCALE)
                if grey is None or grey.shape != (1024, 1024):
                    raise RuntimeError(f"For '{self._where}', {sheet} is not a 1024x1024 image.")
                patches.append(grey.reshape(16, 64, 16, 64).transpose(0, 2, 1, 3).reshape(256, 64, 64))
            self._store["patches"] = np.concatenate(patches)[..., None]
        return self._store["patches"]

    def _scan(self):
        folder = os.path.join(self.dataset_dir, self.name)
        if self.usage == "train":
            with open(need_file(os.path.join(folder, "info.txt"), self._where), encoding="utf-8") as f:
                return [(k, int(line.split()[0])) for k, line in enumerate(f) if line.strip()]
        with open(need_file(os.path.join(folder, "m50_100000_100000_0.txt"), self._where), encoding="utf-8") as f:
            return [(int(p[0]), int(p[3]), int(p[1] == p[4])) for p in (line.split() for line in f) if len(p) >= 5]

    def _row(self, record):
        patches = self._patches()
        if self.usage == "train":
            return (np.array(patches[record[0]]),)
        return np.array(patches[record[0]]), np.array(patches[record[1]]), np.array(record[2], np.uint32)
