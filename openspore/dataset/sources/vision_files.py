"""Image datasets read from their standard files: MNIST / Fashion-MNIST (IDX), CIFAR-10/100 (binary), image folders."""
import glob
import os
import re

import numpy as np

from ..engine.workers import make_pool
from .mappable import MappableDataset

_USAGES = ("train", "test", "all")


def _check_dir(dataset_dir, where):
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"For '{where}', 'dataset_dir' must be a str, but got {type(dataset_dir).__name__}.")
    dataset_dir = os.fspath(dataset_dir)
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"For '{where}', the folder {dataset_dir} does not exist or is not a directory or "
                         f"permission denied!")
    return dataset_dir


def _check_usage(usage, where, choices=_USAGES):
    usage = "all" if usage is None else usage
    if usage not in choices:
        raise ValueError(f"For '{where}', 'usage' must be one of {list(choices)}, but got {usage!r}.")
    return usage


class _FileSource(MappableDataset):
    """Sources whose rows are loaded from files once, on first use, and shared by every copy of the node."""

    # MnistDataset, Cifar10Dataset and Cifar100Dataset take exactly these arguments, so they inherit this __init__
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        self.usage = _check_usage(usage, self._where, self._usages)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)
        self._store = {}  # one dict object shared by clones, so files are read once

    _usages = _USAGES

    def _arrays(self):
        if "arrays" not in self._store:
            self._store["arrays"] = self._load()
        return self._store["arrays"]

    def _num_rows(self):
        return len(self._arrays()[0])

    def _read(self, index):
        return tuple(np.array(a[index]) for a in self._arrays())  # a copy: consumers may write to it


def _read_idx(path, magic, ndim, where):
    with open(path, "rb") as f:
        data = f.read()
    header = 4 + 4 * ndim
    if len(data) < header:
        raise RuntimeError(f"For '{where}', invalid file {path}: it is shorter than its IDX header; re-download the "
                           f"dataset.")
    found = int.from_bytes(data[:4], "big")
    if found != magic:
        raise RuntimeError(f"For '{where}', invalid file {path}: magic number {found}, expected {magic}; "
                           f"re-download the dataset.")
    dims = tuple(int(d) for d in np.frombuffer(data, dtype=">u4", count=ndim, offset=4))
    expected = header + int(np.prod(dims))
    if len(data) != expected:
        raise RuntimeError(f"For '{where}', invalid file {path}: {len(data)} bytes, but its header {dims} needs "
                           f"{expected}; re-download the dataset.")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(dims)


class MnistDataset(_FileSource):
    """`MnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)`: columns image uint8 (28, 28, 1) and label uint32."""

    _where = "MnistDataset"
    _prefixes = {"train": ["train"], "test": ["t10k"], "all": ["train", "t10k"]}

    def _column_names(self):
        return ["image", "label"]

    def _load(self):
        images, labels = [], []
        prefixes = self._prefixes[self.usage]
        if self.usage == "all":
            # MindSpore reads whichever sets the folder has: the official archive puts only train-* files in
            # train/ and only t10k-* files in test/.
            present = [p for p in prefixes if os.path.isfile(os.path.join(self.dataset_dir, f"{p}-images-idx3-ubyte"))
                       or os.path.isfile(os.path.join(self.dataset_dir, f"{p}-labels-idx1-ubyte"))]
            if not present:
                raise RuntimeError(f"For '{self._where}', no MNIST IDX files (train-images-idx3-ubyte, "
                                   f"t10k-images-idx3-ubyte, ...) were found in {self.dataset_dir}.")
            prefixes = present
        for prefix in prefixes:
            img_path = os.path.join(self.dataset_dir, f"{prefix}-images-idx3-ubyte")
            lbl_path = os.path.join(self.dataset_dir, f"{prefix}-labels-idx1-ubyte")
            for path in (img_path, lbl_path):
                if not os.path.isfile(path):
                    raise RuntimeError(f"For '{self._where}', {path} was not found; usage '{self.usage}' needs the "
                                       f"{prefix}-* IDX files directly in {self.dataset_dir}.")
            img = _read_idx(img_path, 2051, 3, self._where)
            lbl = _read_idx(lbl_path, 2049, 1, self._where)
            if len(img) != len(lbl):
                raise RuntimeError(f"For '{self._where}', {img_path} holds {len(img)} images but {lbl_path} holds "
                                   f"{len(lbl)} labels.")
            images.append(img[..., None])
            labels.append(lbl.astype(np.uint32))
        return np.concatenate(images), np.concatenate(labels)


class FashionMnistDataset(MnistDataset):
    """`FashionMnistDataset(dataset_dir, usage=None, ...)`: same files and columns as MnistDataset."""

    _where = "FashionMnistDataset"


def _read_records(path, record, where, name):
    size = os.path.getsize(path)
    if size == 0 or size % record:
        raise RuntimeError(f"Invalid {name} file, failed to read data from: {path}, re-download dataset(make sure it "
                           f"is {name.upper()} binary version). ({where}: {size} bytes is not a whole number of "
                           f"{record}-byte records.)")
    return np.fromfile(path, dtype=np.uint8).reshape(-1, record)


def _chw_to_hwc(planes):
    return np.ascontiguousarray(planes.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))


class Cifar10Dataset(_FileSource):
    """`Cifar10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)`: columns image uint8 (32, 32, 3) and label uint32."""

    _where = "Cifar10Dataset"

    def _column_names(self):
        return ["image", "label"]

    def _files(self):
        train = sorted(glob.glob(os.path.join(self.dataset_dir, "data_batch_*.bin")),
                       key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
        test = [p for p in [os.path.join(self.dataset_dir, "test_batch.bin")] if os.path.isfile(p)]
        files = {"train": train, "test": test, "all": train + test}[self.usage]
        if not files:
            raise RuntimeError(f"For '{self._where}', no CIFAR-10 binary files for usage '{self.usage}' in "
                               f"{self.dataset_dir} (expected data_batch_1..5.bin and/or test_batch.bin).")
        return files

    def _load(self):
        records = np.concatenate([_read_records(p, 3073, self._where, "cifar10") for p in self._files()])
        return _chw_to_hwc(records[:, 1:]), records[:, 0].astype(np.uint32)


class Cifar100Dataset(_FileSource):
    """`Cifar100Dataset(dataset_dir, usage=None, ...)`: columns image uint8 (32, 32, 3), coarse_label and fine_label
    uint32, from train.bin / test.bin."""

    _where = "Cifar100Dataset"

    def _column_names(self):
        return ["image", "coarse_label", "fine_label"]

    def _load(self):
        names = {"train": ["train.bin"], "test": ["test.bin"], "all": ["train.bin", "test.bin"]}[self.usage]
        paths = [os.path.join(self.dataset_dir, n) for n in names]
        for p in paths:
            if not os.path.isfile(p):
                raise RuntimeError(f"For '{self._where}', {p} was not found (usage '{self.usage}').")
        records = np.concatenate([_read_records(p, 3074, self._where, "cifar100") for p in paths])
        return (_chw_to_hwc(records[:, 2:]), records[:, 0].astype(np.uint32), records[:, 1].astype(np.uint32))


class ImageFolderDataset(MappableDataset):
    """`ImageFolderDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None, decrypt=None)`:
    one class per sub-folder; columns image (the file's bytes, uint8 1-D, or RGB HWC with decode=True), label int32."""

    _where = "ImageFolderDataset"

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        self.dataset_dir = _check_dir(dataset_dir, self._where)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)
        if extensions is not None and (not isinstance(extensions, (list, tuple))
                                       or not all(isinstance(e, str) for e in extensions)):
            raise TypeError(f"For '{self._where}', 'extensions' must be a list of str, but got {extensions!r}.")
        if class_indexing is not None and (not isinstance(class_indexing, dict) or not all(
                isinstance(k, str) and isinstance(v, int) for k, v in class_indexing.items())):
            raise TypeError(f"For '{self._where}', 'class_indexing' must be a dict of str to int, but got "
                            f"{class_indexing!r}.")
        if decrypt is not None and not callable(decrypt):
            raise TypeError(f"For '{self._where}', 'decrypt' must be callable, but got {type(decrypt).__name__}.")
        self.extensions = tuple(extensions) if extensions else None
        self.decode, self.decrypt = bool(decode), decrypt
        folders = sorted(d for d in os.listdir(self.dataset_dir) if os.path.isdir(os.path.join(self.dataset_dir, d)))
        if class_indexing is None:
            self.class_indexing = {d: i for i, d in enumerate(folders)}
        else:
            missing = [k for k in class_indexing if k not in folders]
            if missing:
                raise ValueError(f"For '{self._where}', class_indexing names folders {missing} that are not in "
                                 f"{self.dataset_dir}.")
            self.class_indexing = dict(class_indexing)
        files, labels = [], []
        for folder in sorted(self.class_indexing):
            path = os.path.join(self.dataset_dir, folder)
            for name in sorted(os.listdir(path)):
                full = os.path.join(path, name)
                if os.path.isfile(full) and (self.extensions is None or name.endswith(self.extensions)):
                    files.append(full)
                    labels.append(self.class_indexing[folder])
        self.files, self.labels = files, np.asarray(labels, dtype=np.int32)

    def _column_names(self):
        return ["image", "label"]

    def _num_rows(self):
        return len(self.files)

    def _read(self, index):
        with open(self.files[index], "rb") as f:
            data = f.read()
        if self.decrypt is not None:
            data = self.decrypt(data)
        image = np.frombuffer(data, dtype=np.uint8)
        if self.decode:
            from ..transforms.image_ops import decode
            image = decode(image)
        return image, np.array(self.labels[index])

    def _pool(self, ctx, on_error):
        # decoding runs in C inside Pillow, which releases the GIL, so threads give real parallelism
        return make_pool(self._read, self.num_parallel_workers if self.decode else None, False, on_error)

    def get_class_indexing(self):
        """`get_class_indexing()`: folder name → label."""
        return dict(self.class_indexing)

    def _class_count(self):
        return len(self.class_indexing)
