"""Digit sets in their distribution files: QMNIST (IDX, with the extended labels), SVHN (MATLAB .mat) and USPS
(libsvm text). Images are uint8 (H, W, C), labels uint32.

>>> import os, tempfile
>>> import openspore.dataset as ds
>>> root = tempfile.mkdtemp()
>>> with open(os.path.join(root, "usps"), "w") as f:
...     _ = f.write("3 " + " ".join(f"{k}:1" for k in range(1, 257)) + "\\n")
>>> image, label = next(ds.USPSDataset(root, usage="train").create_tuple_iterator(output_numpy=True))
>>> image.shape, int(image[0, 0, 0]), int(label)
((16, 16, 1), 255, 2)
"""
import os

import numpy as np

from ..engine.samplers import Shuffle
from .folder_base import _check_dir, check_bool, check_choice, need_file
from .image_sets import _loadmat
from .mappable import MappableDataset
from .text_files import _shuffle_flag


def _read_idx_any(path, where):
    """An IDX file of any element type (0x08 ubyte, 0x0C int32) and rank, as a numpy array."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise RuntimeError(f"For '{where}', {path} is not an IDX file.")
    dtype = {0x08: np.dtype(np.uint8), 0x0C: np.dtype(">i4")}.get(data[2])
    if dtype is None:
        raise RuntimeError(f"For '{where}', {path} has IDX element type {data[2]:#x}, expected 0x08 or 0x0c.")
    ndim = data[3]
    dims = tuple(int(d) for d in np.frombuffer(data, ">u4", ndim, 4))
    body = np.frombuffer(data, dtype, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise RuntimeError(f"For '{where}', {path} holds {body.size} values, but its header {dims} needs "
                           f"{int(np.prod(dims))}.")
    return body.reshape(dims)


class _ArraySource(MappableDataset):
    def __init__(self, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache=None):
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)
        self._store = {}

    def _arrays(self):
        if "arrays" not in self._store:
            self._store["arrays"] = self._load()
        return self._store["arrays"]

    def _column_names(self):
        return ["image", "label"]

    def _num_rows(self):
        return len(self._arrays()[0])

    def _read(self, index):
        return tuple(np.array(a[index]) for a in self._arrays())


class QMnistDataset(_ArraySource):
    """`QMnistDataset(dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)`: qmnist-<train|test>-images-idx3-ubyte
    and qmnist-<train|test>-labels-idx2-int (xnist-* for usage 'nist'); usage 'train', 'test', 'test10k' (first
    10,000 test rows), 'test50k' (the rest), 'nist' or 'all' (train + test + nist). With compat the label is the digit
    (uint32); without, all 8 label fields (uint32 (8,))."""

    _where = "QMnistDataset"

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage",
                                  ("train", "test", "test10k", "test50k", "nist", "all"), self._where)
        self.compat = check_bool(compat, "compat", self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _pair(self, prefix):
        images = _read_idx_any(need_file(os.path.join(self.dataset_dir, f"{prefix}-images-idx3-ubyte"), self._where),
                               self._where)
        labels = _read_idx_any(need_file(os.path.join(self.dataset_dir, f"{prefix}-labels-idx2-int"), self._where),
                               self._where)
        if len(images) != len(labels):
            raise RuntimeError(f"For '{self._where}', {prefix}: {len(images)} images but {len(labels)} labels.")
        return images[..., None], labels.astype(np.uint32)

    def _load(self):
        if self.usage == "nist":
            images, labels = self._pair("xnist")
        elif self.usage == "all":
            parts = [self._pair("qmnist-train"), self._pair("qmnist-test"), self._pair("xnist")]
            images, labels = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        else:
            images, labels = self._pair("qmnist-train" if self.usage == "train" else "qmnist-test")
            if self.usage == "test10k":
                images, labels = images[:10000], labels[:10000]
            elif self.usage == "test50k":
                images, labels = images[10000:], labels[10000:]
        return images, (labels[:, 0] if self.compat else labels)


class SVHNDataset(_ArraySource):
    """`SVHNDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
    num_shards=None, shard_id=None)`: <usage>_32x32.mat (usage 'train', 'test', 'extra' or 'all'): images
    (32, 32, 3) uint8 and labels 0-9 (the files' 10 is the digit 0)."""

    _where = "SVHNDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "test", "extra", "all"),
                                  self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _load(self):
        images, labels = [], []
        for split in (["train", "test", "extra"] if self.usage == "all" else [self.usage]):
            mat = _loadmat(need_file(os.path.join(self.dataset_dir, f"{split}_32x32.mat"), self._where), self._where)
            images.append(np.ascontiguousarray(np.asarray(mat["X"], np.uint8).transpose(3, 0, 1, 2)))
            labels.append(np.asarray(mat["y"]).reshape(-1).astype(np.uint32) % 10)
        return np.concatenate(images), np.concatenate(labels)


class USPSDataset(_ArraySource):
    """`USPSDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, cache=None)`: the libsvm files usps (train) and usps.t (test), 256 values in
    [-1, 1] per line mapped to uint8 (16, 16, 1) pixels ((v + 1) / 2 * 255, truncated); labels 1-10 given as 0-9."""

    _where = "USPSDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = check_choice("all" if usage is None else usage, "usage", ("train", "test", "all"), self._where)
        super().__init__(num_samples, num_parallel_workers, _shuffle_flag(shuffle, self._where), None, num_shards,
                         shard_id, cache)

    def _parse(self, path):
        images, labels = [], []
        with open(need_file(path, self._where), encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                pixels = np.full(256, -1.0)
                try:
                    for item in parts[1:]:
                        k, v = item.split(":")
                        pixels[int(k) - 1] = float(v)
                    label = int(float(parts[0])) - 1
                except (ValueError, IndexError):
                    raise RuntimeError(f"For '{self._where}', line {line_no} of {path} is not "
                                       f"'<label> <index>:<value> ...'.") from None
                # (v + 1) / 2 * 255, truncated to uint8, as MindSpore's reader converts
                scaled = ((pixels.astype(np.float32) + 1) / 2 * 255).astype(np.float32)
                images.append(np.clip(scaled, 0, 255).astype(np.uint8).reshape(16, 16, 1))
                labels.append(label)
        return images, labels

    def _load(self):
        images, labels = [], []
        for name in {"train": ["usps"], "test": ["usps.t"], "all": ["usps", "usps.t"]}[self.usage]:
            i, lab = self._parse(os.path.join(self.dataset_dir, name))
            images += i
            labels += lab
        return np.array(images, np.uint8).reshape(-1, 16, 16, 1), np.array(labels, np.uint32)
