"""Image classification sets read from their official folder layouts: CelebA, Caltech-101/256, Flowers-102,
Food-101, SUN397, Places365, LSUN (extracted images), Omniglot, SBU captions, Rendered SST-2, Flickr8k/30k
captions, DIV2K and the ModelArts manifest. Images are the file's bytes (uint8, 1-D) or RGB arrays with
`decode=True`; every source takes MindSpore's num_samples / shuffle / sampler / num_shards / shard_id.

>>> import os, tempfile
>>> import openspore.dataset as ds
>>> root = tempfile.mkdtemp()
>>> for split, cls in (("train", "positive"), ("train", "negative")):
...     os.makedirs(os.path.join(root, split, cls))
...     open(os.path.join(root, split, cls, "0.png"), "wb").close()
>>> [int(r[1]) for r in ds.RenderedSST2Dataset(root, usage="train", shuffle=False).create_tuple_iterator(output_numpy=True)]
[0, 1]
"""
import json
import os

import numpy as np

from .folder_base import RecordSource, _check_dir, check_bool, check_choice, need_file, read_image

_IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".JPEG", ".JPG", ".PNG")


def _images_in(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(_IMAGE_EXT) and os.path.isfile(os.path.join(folder, n)))


def _subfolders(folder):
    return sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))


def _loadmat(path, where):
    try:
        from scipy.io import loadmat
    except ImportError:
        raise ImportError(f"For '{where}', reading {os.path.basename(path)} (a MATLAB file) needs scipy: "
                          f"pip install scipy.") from None
    return loadmat(path)


class _ImageSource(RecordSource):
    """Records (image path, label values...); rows (image, label arrays in `_label_types`)."""

    _label_types = (np.uint32,)
    _usages = None

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        if self._usages is not None:
            usage = self._usages[-1] if usage is None else usage
            self.usage = check_choice(usage, "usage", self._usages, self._where)
        self.decode = check_bool(decode, "decode", self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["image", "label"]

    def _row(self, record):
        path, *labels = record
        return (read_image(path, self.decode),) + tuple(np.array(v, dtype=t) for v, t in zip(labels, self._label_types))


class CelebADataset(_ImageSource):
    """`CelebADataset(dataset_dir, num_parallel_workers=None, shuffle=None, usage='all', sampler=None, decode=False,
    extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None, decrypt=None)`: images listed in
    list_attr_celeba.txt (in dataset_dir or its img_align_celeba/), columns image and attr (uint32, 40 values,
    1 where the file says 1 and 0 where it says -1); usage picks rows by list_eval_partition.txt (0 train,
    1 valid, 2 test)."""

    _where = "CelebADataset"

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all", sampler=None, decode=False,
                 extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None, decrypt=None):
        self.usage = check_choice(usage, "usage", ("train", "valid", "test", "all"), self._where)
        if extensions is not None and (not isinstance(extensions, (list, tuple))
                                       or not all(isinstance(e, str) for e in extensions)):
            raise TypeError(f"For '{self._where}', 'extensions' must be a list of str, but got {extensions!r}.")
        self.extensions, self.decrypt = (tuple(extensions) if extensions else None), decrypt
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)
        need_file(os.path.join(self.dataset_dir, "list_attr_celeba.txt"), self._where, "attribute file")

    def _column_names(self):
        return ["image", "attr"]

    def _scan(self):
        with open(os.path.join(self.dataset_dir, "list_attr_celeba.txt"), encoding="utf-8") as f:
            lines = [line.split() for line in f if line.strip()]
        if len(lines) < 2:
            raise RuntimeError(f"For '{self._where}', list_attr_celeba.txt needs a count line and an attribute-name "
                               f"line.")
        self.attr_names = lines[1]
        keep = None
        if self.usage != "all":
            part_file = need_file(os.path.join(self.dataset_dir, "list_eval_partition.txt"), self._where,
                                  f"partition file (needed by usage '{self.usage}')")
            wanted = {"train": "0", "valid": "1", "test": "2"}[self.usage]
            with open(part_file, encoding="utf-8") as f:
                keep = {p[0] for p in (line.split() for line in f) if len(p) == 2 and p[1] == wanted}
        image_dir = self.dataset_dir
        if os.path.isdir(os.path.join(self.dataset_dir, "img_align_celeba")):
            image_dir = os.path.join(self.dataset_dir, "img_align_celeba")
        records = []
        for parts in lines[2:]:
            name, values = parts[0], parts[1:]
            if keep is not None and name not in keep:
                continue
            if self.extensions and not name.endswith(self.extensions):
                continue
            if len(values) != len(self.attr_names):
                raise RuntimeError(f"For '{self._where}', the line of {name} has {len(values)} attributes, "
                                   f"expected {len(self.attr_names)}.")
            records.append((os.path.join(image_dir, name), [1 if v == "1" else 0 for v in values]))
        return records

    def _row(self, record):
        path, attr = record
        return read_image(path, self.decode, self.decrypt), np.array(attr, np.uint32)


class Caltech101Dataset(_ImageSource):
    """`Caltech101Dataset(dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None)`: images in 101_ObjectCategories/<class>/
    (BACKGROUND_Google skipped), classes numbered in sorted order (int64); target_type 'category' (default) gives
    (image, category), 'annotation' (image, annotation), 'all' (image, category, annotation); annotations are the
    obj_contour of Annotations/<class>/annotation_<n>.mat (float64, 2 × points)."""

    _where = "Caltech101Dataset"
    _annotation_folders = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                           "airplanes": "Airplanes_Side_2"}

    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None):
        self.target_type = check_choice("category" if target_type is None else target_type, "target_type",
                                        ("category", "annotation", "all"), self._where)
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id)
        self.image_root = os.path.join(self.dataset_dir, "101_ObjectCategories")
        if not os.path.isdir(self.image_root):
            raise RuntimeError(f"For '{self._where}', {self.image_root} was not found.")

    def _column_names(self):
        return {"category": ["image", "category"], "annotation": ["image", "annotation"],
                "all": ["image", "category", "annotation"]}[self.target_type]

    def _scan(self):
        classes = [c for c in _subfolders(self.image_root) if c != "BACKGROUND_Google"]
        records = []
        for label, cls in enumerate(classes):
            for name in _images_in(os.path.join(self.image_root, cls)):
                number = os.path.splitext(name)[0].rsplit("_", 1)[-1]
                ann = os.path.join(self.dataset_dir, "Annotations", self._annotation_folders.get(cls, cls),
                                   f"annotation_{number}.mat")
                records.append((os.path.join(self.image_root, cls, name), label, ann))
        return records

    def _row(self, record):
        path, label, ann = record
        row = [read_image(path, self.decode)]
        if self.target_type in ("category", "all"):
            row.append(np.array(label, np.int64))
        if self.target_type in ("annotation", "all"):
            row.append(np.asarray(_loadmat(need_file(ann, self._where, "annotation"), self._where)["obj_contour"],
                                  np.float64))
        return tuple(row)


class Caltech256Dataset(_ImageSource):
    """`Caltech256Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: one folder per class (001.ak47, ...), labels
    numbered by sorted folder (int32, as ImageFolderDataset's)."""

    _where = "Caltech256Dataset"
    _label_types = (np.int32,)

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)

    def _scan(self):
        return [(os.path.join(self.dataset_dir, cls, name), label)
                for label, cls in enumerate(_subfolders(self.dataset_dir))
                for name in _images_in(os.path.join(self.dataset_dir, cls))]


class Flowers102Dataset(_ImageSource):
    """`Flowers102Dataset(dataset_dir, task='Classification', usage='all', num_samples=None, num_parallel_workers=1,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None)`: jpg/image_<n>.jpg with
    imagelabels.mat (labels 1..102, given as 0..101) and setid.mat (trnid / valid / tstid; 'all' reads the three
    lists in turn); task 'Segmentation'
    adds segmim/segmim_<n>.jpg: rows (image, segmentation, label)."""

    _where = "Flowers102Dataset"

    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None):
        self.task = check_choice(task, "task", ("Classification", "Segmentation"), self._where)
        self.usage = check_choice(usage, "usage", ("train", "valid", "test", "all"), self._where)
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id)

    def _column_names(self):
        return ["image", "label"] if self.task == "Classification" else ["image", "segmentation", "label"]

    def _scan(self):
        labels = _loadmat(need_file(os.path.join(self.dataset_dir, "imagelabels.mat"), self._where), self._where)
        labels = np.asarray(labels["labels"]).reshape(-1)
        sets = _loadmat(need_file(os.path.join(self.dataset_dir, "setid.mat"), self._where), self._where)
        keys = {"train": ["trnid"], "valid": ["valid"], "test": ["tstid"], "all": ["trnid", "valid", "tstid"]}
        ids = np.concatenate([np.asarray(sets[k]).reshape(-1) for k in keys[self.usage]])
        return [(int(i), int(labels[int(i) - 1]) - 1) for i in ids]

    def _row(self, record):
        number, label = record
        image = read_image(os.path.join(self.dataset_dir, "jpg", f"image_{number:05d}.jpg"), self.decode)
        if self.task == "Classification":
            return image, np.array(label, np.uint32)
        seg = read_image(os.path.join(self.dataset_dir, "segmim", f"segmim_{number:05d}.jpg"), self.decode)
        return image, seg, np.array(label, np.uint32)


class Food101Dataset(_ImageSource):
    """`Food101Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: images/<class>/<id>.jpg listed by
    meta/train.txt and meta/test.txt ('<class>/<id>' lines); columns image and label (the class name, a string)."""

    _where = "Food101Dataset"
    _usages = ("train", "test", "all")

    def _scan(self):
        splits = ["train", "test"] if self.usage == "all" else [self.usage]
        records = []
        for split in splits:
            with open(need_file(os.path.join(self.dataset_dir, "meta", f"{split}.txt"), self._where),
                      encoding="utf-8") as f:
                for line in f:
                    item = line.strip()
                    if item:
                        records.append((os.path.join(self.dataset_dir, "images", item + ".jpg"), item.split("/")[0]))
        return records

    def _row(self, record):
        path, label = record
        return read_image(path, self.decode), np.array(label)


class SUN397Dataset(_ImageSource):
    """`SUN397Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: the classes of ClassName.txt ('/a/abbey') in that
    order, images in the folder each names."""

    _where = "SUN397Dataset"

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)

    def _scan(self):
        with open(need_file(os.path.join(self.dataset_dir, "ClassName.txt"), self._where), encoding="utf-8") as f:
            classes = [line.strip() for line in f if line.strip()]
        records = []
        for label, cls in enumerate(classes):
            folder = os.path.join(self.dataset_dir, cls.lstrip("/"))
            if os.path.isdir(folder):
                records.extend((os.path.join(folder, n), label) for n in _images_in(folder))
        return records


class Places365Dataset(_ImageSource):
    """`Places365Dataset(dataset_dir, usage=None, small=True, decode=False, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)`: usage
    'train-standard' (default), 'train-challenge' or 'val', listed by places365_<usage>.txt; images under
    data_<256|large>_<standard|challenge>/ (train) and val_256/ or val_large/ (val)."""

    _where = "Places365Dataset"
    _usages = ("train-challenge", "val", "train-standard")

    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.small = check_bool(small, "small", self._where)
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)

    def _scan(self):
        list_file = {"train-standard": "places365_train_standard.txt",
                     "train-challenge": "places365_train_challenge.txt", "val": "places365_val.txt"}[self.usage]
        size = "256" if self.small else "large"
        kind = self.usage.split("-")[-1]  # standard / challenge
        folder = f"val_{size}" if self.usage == "val" else f"data_{size}_{kind}"
        records = []
        with open(need_file(os.path.join(self.dataset_dir, list_file), self._where), encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    records.append((os.path.join(self.dataset_dir, folder, parts[0].lstrip("/")), int(parts[1])))
        return records

    def get_class_indexing(self):
        """`get_class_indexing()`: category (as in categories_places365.txt) → label."""
        path = need_file(os.path.join(self.dataset_dir, "categories_places365.txt"), self._where)
        with open(path, encoding="utf-8") as f:
            return {p[0]: int(p[1]) for p in (line.split() for line in f) if len(p) == 2}


class LSUNDataset(_ImageSource):
    """`LSUNDataset(dataset_dir, usage=None, classes=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: extracted images in
    <category>_<usage>/ folders (usage 'train', 'valid', 'test' or 'all'); labels number the chosen categories in
    the order they are read (class by class, train before val), as MindSpore
    numbers them."""

    _where = "LSUNDataset"
    _usages = ("train", "test", "valid", "all")
    CATEGORIES = ("bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
                  "living_room", "restaurant", "tower")

    def __init__(self, dataset_dir, usage=None, classes=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        if isinstance(classes, str):
            classes = [classes]
        if classes is not None:
            unknown = [c for c in classes if c not in self.CATEGORIES]
            if unknown:
                raise ValueError(f"For '{self._where}', unknown classes {unknown}; expected some of "
                                 f"{list(self.CATEGORIES)}.")
        self.classes = list(classes) if classes else list(self.CATEGORIES)
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)

    def _scan(self):
        splits = ["train", "val"] if self.usage == "all" else ["val" if self.usage == "valid" else self.usage]
        records = []
        if self.usage == "test":
            folder = os.path.join(self.dataset_dir, "test")
            return [(os.path.join(folder, n), 0) for n in _images_in(folder)] if os.path.isdir(folder) else []
        label = 0
        for cls in self.classes:
            for split in splits:
                folder = os.path.join(self.dataset_dir, f"{cls}_{split}")
                if os.path.isdir(folder):  # MindSpore numbers the folders it reads, in this order
                    records.extend((os.path.join(folder, n), label) for n in _images_in(folder))
                    label += 1
        return records


class OmniglotDataset(_ImageSource):
    """`OmniglotDataset(dataset_dir, background=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: images_background/ (background True),
    images_evaluation/ (False) or both (None), <alphabet>/<character>/*.png; every character is a class, numbered
    in sorted (alphabet, character) order; label int32."""

    _where = "OmniglotDataset"
    _label_types = (np.int32,)

    def __init__(self, dataset_dir, background=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        if background is not None:
            check_bool(background, "background", self._where)
        self.background = background
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)

    def _scan(self):
        parts = {True: ["images_background"], False: ["images_evaluation"],
                 None: ["images_background", "images_evaluation"]}[self.background]
        records, label = [], 0
        for part in parts:
            root = os.path.join(self.dataset_dir, part)
            if not os.path.isdir(root):
                raise RuntimeError(f"For '{self._where}', {root} was not found.")
            for alphabet in _subfolders(root):
                for character in _subfolders(os.path.join(root, alphabet)):
                    folder = os.path.join(root, alphabet, character)
                    records.extend((os.path.join(folder, n), label) for n in _images_in(folder))
                    label += 1
        return records


class SBUDataset(_ImageSource):
    """`SBUDataset(dataset_dir, decode=False, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: SBU_captioned_photo_dataset_urls.txt and
    ..._captions.txt line by line; the image of a URL is sbu_images/<the URL's last path part>; rows whose image is
    missing are skipped. Columns image and caption (string)."""

    _where = "SBUDataset"

    def __init__(self, dataset_dir, decode=False, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards,
                         shard_id, cache)

    def _column_names(self):
        return ["image", "caption"]

    def _scan(self):
        def lines(name):
            with open(need_file(os.path.join(self.dataset_dir, name), self._where), encoding="utf-8") as f:
                return [line.rstrip("\n") for line in f]
        urls = lines("SBU_captioned_photo_dataset_urls.txt")
        captions = lines("SBU_captioned_photo_dataset_captions.txt")
        if len(urls) != len(captions):
            raise RuntimeError(f"For '{self._where}', {len(urls)} URLs but {len(captions)} captions.")
        records = []
        for url, caption in zip(urls, captions):
            path = os.path.join(self.dataset_dir, "sbu_images", url.strip().rsplit("/", 1)[-1])
            if url.strip() and os.path.isfile(path):
                records.append((path, caption.strip()))
        return records

    def _row(self, record):
        return read_image(record[0], self.decode), np.array(record[1])


class RenderedSST2Dataset(_ImageSource):
    """`RenderedSST2Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)`: train/, valid/ (usage 'val'), test/,
    each with negative/ (label 0) and positive/ (label 1)."""

    _where = "RenderedSST2Dataset"
    _usages = ("train", "val", "test", "all")

    def _scan(self):
        splits = {"train": ["train"], "val": ["valid"], "test": ["test"], "all": ["test", "train", "valid"]}[self.usage]
        records = []
        for split in splits:
            for label, cls in enumerate(("negative", "positive")):
                folder = os.path.join(self.dataset_dir, split, cls)
                if os.path.isdir(folder):
                    records.extend((os.path.join(folder, n), label) for n in _images_in(folder))
        return records


class FlickrDataset(_ImageSource):
    """`FlickrDataset(dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=None, sampler=None, num_shards=None, shard_id=None, cache=None)`: the annotation file's
    '<image>#<k>\\t<caption>' lines grouped by image (in first-seen order); columns image and annotation
    (the image's captions, a string array)."""

    _where = "FlickrDataset"

    def __init__(self, dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.annotation_file = need_file(os.fspath(annotation_file), self._where, "annotation file")
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, bool(decode), sampler,
                         num_shards, shard_id, cache)

    def _column_names(self):
        return ["image", "annotation"]

    def _scan(self):
        captions = {}
        with open(self.annotation_file, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                if "\t" not in line or "#" not in line.split("\t", 1)[0]:
                    raise RuntimeError(f"For '{self._where}', line {line_no} of {self.annotation_file} is not "
                                       f"'<image>#<k><TAB><caption>'.")
                key, caption = line.rstrip("\n").split("\t", 1)
                captions.setdefault(key.rsplit("#", 1)[0], []).append(caption)
        return [(os.path.join(self.dataset_dir, name), caps) for name, caps in captions.items()
                if os.path.isfile(os.path.join(self.dataset_dir, name))]

    def _row(self, record):
        return read_image(record[0], self.decode), np.array(record[1])


class DIV2KDataset(_ImageSource):
    """`DIV2KDataset(dataset_dir, usage='train', downgrade='bicubic', scale=2, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None, cache=None)`:
    pairs DIV2K_<usage>_HR/<n>.png with DIV2K_<usage>_LR_<downgrade>/X<scale>/<n>x<scale>.png (bicubic/unknown)
    or DIV2K_<usage>_LR_<downgrade>/<n>x4<m|d|w>.png (mild/difficult/wild, scale 4); columns hr_image, lr_image."""

    _where = "DIV2KDataset"

    def __init__(self, dataset_dir, usage="train", downgrade="bicubic", scale=2, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        self.usage = check_choice(usage, "usage", ("train", "valid", "all"), self._where)
        self.downgrade = check_choice(downgrade, "downgrade", ("bicubic", "unknown", "mild", "difficult", "wild"),
                                      self._where)
        self.scale = check_choice(scale, "scale", (2, 3, 4, 8), self._where)
        if scale == 8 and downgrade != "bicubic":
            raise ValueError(f"For '{self._where}', scale 8 exists only with downgrade 'bicubic'.")
        if downgrade in ("mild", "difficult", "wild") and scale != 4:
            raise ValueError(f"For '{self._where}', downgrade '{downgrade}' exists only with scale 4.")
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, bool(decode), sampler,
                         num_shards, shard_id, cache)

    def _column_names(self):
        return ["hr_image", "lr_image"]

    def _scan(self):
        records = []
        for usage in (["train", "valid"] if self.usage == "all" else [self.usage]):
            hr_dir = os.path.join(self.dataset_dir, f"DIV2K_{usage}_HR")
            if not os.path.isdir(hr_dir):
                raise RuntimeError(f"For '{self._where}', {hr_dir} was not found.")
            lr_dir = os.path.join(self.dataset_dir, f"DIV2K_{usage}_LR_{self.downgrade}")
            for name in _images_in(hr_dir):
                stem = os.path.splitext(name)[0]
                if self.downgrade in ("bicubic", "unknown"):
                    lr = os.path.join(lr_dir, f"X{self.scale}", f"{stem}x{self.scale}.png")
                else:
                    lr = os.path.join(lr_dir, f"{stem}x4{self.downgrade[0]}.png")
                records.append((os.path.join(hr_dir, name), need_file(lr, self._where, "low-resolution image")))
        return records

    def _row(self, record):
        return read_image(record[0], self.decode), read_image(record[1], self.decode)


class ManifestDataset(RecordSource):
    """`ManifestDataset(dataset_file, usage='train', num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None)`: a ModelArts
    manifest, one JSON object per line: {"source": image path, "usage": "train"|"eval"|"inference",
    "annotation": [{"name": class}, ...]}; columns image and label. Without
    class_indexing the classes of the whole file are numbered in sorted order. Labels are int32: a scalar
    for one annotation, an array for several."""

    _where = "ManifestDataset"

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None):
        self.dataset_file = need_file(os.fspath(dataset_file), self._where, "manifest")
        self.usage = check_choice(usage, "usage", ("train", "eval", "inference"), self._where)
        if class_indexing is not None and (not isinstance(class_indexing, dict) or not all(
                isinstance(k, str) and isinstance(v, int) for k, v in class_indexing.items())):
            raise TypeError(f"For '{self._where}', 'class_indexing' must be a dict of str to int, but got "
                            f"{class_indexing!r}.")
        self.class_indexing = dict(class_indexing) if class_indexing else None
        self.decode = check_bool(decode, "decode", self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["image", "label"]

    def _scan(self):
        entries = []
        with open(self.dataset_file, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise RuntimeError(f"For '{self._where}', line {line_no} of {self.dataset_file} is not JSON: "
                                       f"{exc}.") from None
                entries.append(entry)
        if self.class_indexing is None:
            names = sorted({a.get("name") for e in entries for a in e.get("annotation", []) if a.get("name")})
            self.class_indexing = {n: k for k, n in enumerate(names)}
        records = []
        for entry in entries:
            if entry.get("usage", "train").lower() != self.usage:
                continue
            labels = [self.class_indexing[a["name"]] for a in entry.get("annotation", [])
                      if a.get("name") in self.class_indexing]
            records.append((entry["source"], labels))
        return records

    def _row(self, record):
        labels = np.array(record[1], np.int32)
        return read_image(record[0], self.decode), (labels[0] if labels.size == 1 else labels)

    def get_class_indexing(self):
        """`get_class_indexing()`: class name → label."""
        self._records()
        return dict(self.class_indexing)
