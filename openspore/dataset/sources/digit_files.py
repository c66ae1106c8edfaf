"""Small image datasets read from their original files: Semeion (semeion.data, text) and STL-10 (binary).

>>> import os, tempfile
>>> import numpy as np
>>> from openspore import dataset as ds
>>> root = tempfile.mkdtemp()
>>> pixels = " ".join(["1.0000"] * 256)
>>> with open(os.path.join(root, "semeion.data"), "w") as f:
...     _ = f.write(pixels + " 0 0 1 0 0 0 0 0 0 0\\n")
>>> image, label = next(ds.SemeionDataset(root).create_tuple_iterator(output_numpy=True))
>>> image.shape, int(label)
((16, 16), 2)
"""
import os

import numpy as np

from .vision_files import _FileSource


class SemeionDataset(_FileSource):
    """`SemeionDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)`: semeion.data, one digit per line (256 binary pixels, then a
    one-hot label of 10); columns image uint8 (16, 16) of 0/1 and label uint32."""

    _where = "SemeionDataset"

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id, cache)

    def _column_names(self):
        return ["image", "label"]

    def _load(self):
        path = os.path.join(self.dataset_dir, "semeion.data")
        if not os.path.isfile(path):
            raise RuntimeError(f"For '{self._where}', {path} was not found.")
        images, labels = [], []
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                try:
                    values = np.array(fields, dtype=np.float64)
                except ValueError:
                    raise RuntimeError(f"For '{self._where}', {path} line {line_no} holds a field that is not a "
                                       f"number.") from None
                one_hot = values[256:]
                if len(values) != 266 or np.count_nonzero(one_hot) != 1:
                    raise RuntimeError(f"For '{self._where}', {path} line {line_no} must hold 256 pixels and a "
                                       f"one-hot label of 10, but has {len(values)} fields.")
                images.append((values[:256] > 0).astype(np.uint8).reshape(16, 16))
                labels.append(int(np.argmax(one_hot)))
        return np.array(images, dtype=np.uint8).reshape(-1, 16, 16), np.array(labels, dtype=np.uint32)


class STL10Dataset(_FileSource):
    """`STL10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: train_X/train_y, test_X/test_y and unlabeled_X
    .bin files; columns image uint8 (96, 96, 3) and label int32 (0-9, −1 for unlabeled images). usage: 'train',
    'test', 'unlabeled', 'train+unlabeled' or 'all' (test, train, unlabeled)."""

    _where = "STL10Dataset"
    _usages = ("train", "test", "unlabeled", "train+unlabeled", "all")
    _parts = {"train": ["train"], "test": ["test"], "unlabeled": ["unlabeled"],
              "train+unlabeled": ["train", "unlabeled"], "all": ["test", "train", "unlabeled"]}

    def _column_names(self):
        return ["image", "label"]

    def _part(self, part):
        x_path = os.path.join(self.dataset_dir, f"{part}_X.bin")
        if not os.path.isfile(x_path):
            raise RuntimeError(f"For '{self._where}', {x_path} was not found (usage '{self.usage}').")
        size = os.path.getsize(x_path)
        if size % (3 * 96 * 96):
            raise RuntimeError(f"For '{self._where}', {x_path} holds {size} bytes, not a whole number of 96x96x3 "
                               f"images.")
        # each image is stored channel by channel, column-major: (C, W, H) in file order
        images = np.fromfile(x_path, dtype=np.uint8).reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1)
        if part == "unlabeled":
            return images, np.full(len(images), -1, dtype=np.int32)
        y_path = os.path.join(self.dataset_dir, f"{part}_y.bin")
        if not os.path.isfile(y_path):
            raise RuntimeError(f"For '{self._where}', {y_path} was not found (usage '{self.usage}').")
        labels = np.fromfile(y_path, dtype=np.uint8).astype(np.int32) - 1
        if len(labels) != len(images) or (labels < 0).any() or (labels > 9).any():
            raise RuntimeError(f"For '{self._where}', {y_path} must hold one label 1-10 per image of {x_path} "
                               f"({len(images)}), but holds {len(labels)} labels in "
                               f"[{labels.min(initial=0) + 1}, {labels.max(initial=0) + 1}].")
        return images, labels

    def _load(self):
        parts = [self._part(p) for p in self._parts[self.usage]]
        return (np.ascontiguousarray(np.concatenate([p[0] for p in parts])),
                np.concatenate([p[1] for p in parts]))
