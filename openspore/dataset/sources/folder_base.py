"""The shared shape of the folder-format sources: a list of records found once (on first use, shared by every
copy of the node), each turned into a row on read; images are the file's bytes (uint8, 1-D) or, with
`decode=True`, RGB (H, W, 3) arrays.

>>> import os, tempfile
>>> import numpy as np
>>> from openspore.dataset.sources.folder_base import RecordSource
>>> class Lines(RecordSource):
...     _where = "Lines"
...     def _column_names(self): return ["n"]
...     def _scan(self): return [1, 2, 3]
...     def _row(self, record): return (np.array(record),)
>>> [int(r[0]) for r in Lines(shuffle=False).create_tuple_iterator(output_numpy=True)]
[1, 2, 3]
"""
import glob
import os

import numpy as np

from ..engine.workers import make_pool
from .mappable import MappableDataset
from .vision_files import _check_dir, _check_usage  # noqa: F401  (re-exported for the sources)


def read_image(path, decode=False, decrypt=None):
    """An image file as its bytes (uint8 1-D) or, decoded, as RGB uint8 (H, W, 3)."""
    with open(path, "rb") as f:
        data = f.read()
    if decrypt is not None:
        data = decrypt(data)
    image = np.frombuffer(data, dtype=np.uint8)
    if decode:
        from ..transforms.image_ops import decode as decode_image
        image = decode_image(image)
    return image


def check_bool(value, name, where):
    if not isinstance(value, bool):
        raise TypeError(f"For '{where}', '{name}' must be a bool, but got {value!r}.")
    return value


def check_choice(value, name, choices, where):
    if value not in choices:
        raise ValueError(f"For '{where}', '{name}' must be one of {list(choices)}, but got {value!r}.")
    return value


def expand_dataset_files(dataset_files, where):
    """`dataset_files` (a path, a glob pattern, or a non-empty list of paths) as a sorted list of existing files."""
    if isinstance(dataset_files, (str, os.PathLike)):
        pattern = os.fspath(dataset_files)
        files = [pattern] if os.path.isfile(pattern) else sorted(glob.glob(pattern))
    elif isinstance(dataset_files, (list, tuple)) and dataset_files:
        files = sorted(os.fspath(p) for p in dataset_files)
    else:
        raise TypeError(f"For '{where}', 'dataset_files' must be a str or a non-empty list of str, but got "
                        f"{dataset_files!r}.")
    if not files:
        raise ValueError(f"For '{where}', no file matches {dataset_files!r}.")
    for p in files:
        if not os.path.isfile(p):
            raise ValueError(f"For '{where}', the file {p} does not exist or permission denied!")
    return files


def need_file(path, where, what="file"):
    if not os.path.isfile(path):
        raise RuntimeError(f"For '{where}', the {what} {path} was not found.")
    return path


class RecordSource(MappableDataset):
    """A source whose records come from `_scan()` (once) and whose rows come from `_row(record)`."""

    _where = "RecordSource"

    def __init__(self, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)
        self._store = {}

    def _scan(self):
        raise NotImplementedError

    def _row(self, record):
        raise NotImplementedError

    def _records(self):
        if "records" not in self._store:
            self._store["records"] = list(self._scan())
        return self._store["records"]

    def _num_rows(self):
        return len(self._records())

    def _read(self, index):
        return self._row(self._records()[index])

    def _pool(self, ctx, on_error):
        if not getattr(self, "decode", False):  # decoding runs in OpenCV, which releases the GIL
            return None
        return make_pool(self._read, self.num_parallel_workers, False, on_error)
