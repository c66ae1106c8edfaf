"""`transforms.not_random` marks a Python transform deterministic; the cache's placement check honours the mark."""
import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import transforms, vision
from openspore.dataset.cache.pipeline import check_placement


def _source():
    return ds.NumpySlicesDataset({"x": np.arange(4, dtype=np.float32)}, shuffle=False)


def test_not_random_marks_and_returns_the_function():
    def double(x):
        return x * 2

    assert transforms.not_random(double) is double and double.random is False
    assert vision.not_random is transforms.not_random
    with pytest.raises(TypeError, match="callable"):
        transforms.not_random(3)


def test_cache_placement_honours_the_mark(tmp_path):
    (tmp_path / "ptb.train.txt").write_text("a\nb\n")
    source = ds.PennTreebankDataset(str(tmp_path), usage="train")  # a mappable source, as a cache needs
    flip = vision.RandomHorizontalFlip()
    node = source.map(flip, input_columns="text")
    with pytest.raises(RuntimeError, match="random operation"):
        check_placement(node)
    transforms.not_random(flip)  # the author vouches that this instance is deterministic
    assert check_placement(node) is source

    def noisy(x):
        return x + np.random.rand()

    noisy.random = True
    with pytest.raises(RuntimeError, match="random operation"):
        check_placement(source.map(noisy, input_columns="text"))
    rows = [float(r[0]) for r in _source().map(transforms.not_random(lambda x: x + 1), input_columns="x")
            .create_tuple_iterator(output_numpy=True)]
    assert rows == [1.0, 2.0, 3.0, 4.0]
