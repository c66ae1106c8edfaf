"""Sources that make their rows instead of reading files: `PaddedDataset` (given samples), `FakeImageDataset`
(random images and labels, reproducible from base_seed), plus the MNIST-format variants `KMnistDataset` and
`EMnistDataset`.

>>> import numpy as np
>>> import openspore.dataset as ds
>>> data = ds.PaddedDataset([{"image": np.zeros(2, np.uint8), "label": 1}])
>>> [(r["image"].tolist(), int(r["label"])) for r in data.create_dict_iterator(output_numpy=True)]
[([0, 0], 1)]
"""
import numpy as np

from .mappable import MappableDataset
from .vision_files import MnistDataset


class PaddedDataset(MappableDataset):
    """`PaddedDataset(padded_samples)`: one row per dict in the list (all with the same keys), in order."""

    _where = "PaddedDataset"

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list) or not padded_samples or \
                not all(isinstance(s, dict) for s in padded_samples):
            raise TypeError("For 'PaddedDataset', 'padded_samples' must be a non-empty list of dict.")
        keys = list(padded_samples[0])
        if any(list(s) != keys for s in padded_samples):
            raise ValueError("For 'PaddedDataset', every sample must have the same keys in the same order.")
        super().__init__(shuffle=False)
        self._names = keys
        self._rows = [tuple(np.asarray(s[k]) for k in keys) for s in padded_samples]

    def _column_names(self):
        return list(self._names)

    def _num_rows(self):
        return len(self._rows)

    def _read(self, index):
        return tuple(np.array(v) for v in self._rows[index])


class FakeImageDataset(MappableDataset):
    """`FakeImageDataset(num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0, ...)`: uint8
    images of image_size and uint32 labels in [0, num_classes), each drawn from a generator seeded by
    (base_seed, index) so a row is the same however it is sampled."""

    _where = "FakeImageDataset"

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        for name, v in (("num_images", num_images), ("num_classes", num_classes)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"For 'FakeImageDataset', '{name}' must be a positive int, but got {v!r}.")
        if len(tuple(image_size)) != 3 or any(int(d) < 1 for d in image_size):
            raise ValueError(f"For 'FakeImageDataset', 'image_size' must be 3 positive ints, but got {image_size!r}.")
        self.num_images, self.image_size, self.num_classes, self.base_seed = num_images, tuple(image_size), \
            num_classes, base_seed
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache)

    def _column_names(self):
        return ["image", "label"]

    def _num_rows(self):
        return self.num_images

    def _read(self, index):
        rng = np.random.default_rng([int(self.base_seed), int(index)])
        image = rng.integers(0, 256, size=self.image_size, dtype=np.uint8)
        return image, np.array(rng.integers(0, self.num_classes), np.uint32)


class KMnistDataset(MnistDataset):
    """`KMnistDataset(dataset_dir, usage=None, ...)`: Kuzushiji-MNIST, in MNIST's IDX files and columns."""

    _where = "KMnistDataset"


class EMnistDataset(MnistDataset):
    """`EMnistDataset(dataset_dir, name, usage=None, ...)`: EMNIST split `name` ('byclass', 'bymerge', 'balanced',
    'letters', 'digits', 'mnist') from its IDX files `emnist-<name>-<train|test>-images-idx3-ubyte`."""

    _where = "EMnistDataset"
    _NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        if name not in self._NAMES:
            raise ValueError(f"For 'EMnistDataset', 'name' must be one of {list(self._NAMES)}, but got {name!r}.")
        self.name = name
        self._prefixes = {"train": [f"emnist-{name}-train"], "test": [f"emnist-{name}-test"],
                          "all": [f"emnist-{name}-train", f"emnist-{name}-test"]}
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id, cache)

