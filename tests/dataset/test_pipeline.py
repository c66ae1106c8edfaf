import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore.dataset import config
from .conftest import numpy_rows


def rows5(name="x"):
    return ds.NumpySlicesDataset({name: np.arange(5)}, shuffle=False)


def values(dataset, col=0):
    return [r[col].tolist() for r in numpy_rows(dataset)]


def test_repeat_batch_order_semantics():
    assert [len(b) for b in values(rows5().repeat(2).batch(3))] == [3, 3, 3, 1]
    assert values(rows5().repeat(2).batch(3)) == [[0, 1, 2], [3, 4, 0], [1, 2, 3], [4]]
    assert [len(b) for b in values(rows5().batch(3).repeat(2))] == [3, 2, 3, 2]
    assert rows5().batch(3).repeat(2).get_dataset_size() == 4
    assert rows5().repeat(2).batch(3).get_dataset_size() == 4
    assert rows5().batch(3, drop_remainder=True).get_dataset_size() == 1
    assert rows5().repeat().get_dataset_size() == -1
    assert rows5().repeat(3).get_repeat_count() == 3 and rows5().get_repeat_count() == 1
    assert rows5().batch(2).get_batch_size() == 2 and rows5().get_batch_size() == 1


def test_pipeline_must_be_a_tree():
    base = rows5()
    a = base.batch(2)
    b = base.map(lambda x: x + 1)
    with pytest.raises(ValueError, match=r"The data pipeline is not a tree \(i.e., one node has 2 consumers\)"):
        a.create_tuple_iterator()
    with pytest.raises(ValueError, match="not a tree"):
        list(b)
    del b  # once the second consumer is gone the pipeline is a tree again
    assert len(values(a)) == 3
    shared = rows5()
    with pytest.raises(ValueError, match="not a tree"):
        shared.zip(shared.rename("x", "y")).get_dataset_size()


def test_map_columns_replace_in_place_or_go_first():
    data = ds.NumpySlicesDataset({"x": np.arange(3), "y": np.arange(3) * 10}, shuffle=False)
    same = data.map(lambda y: y + 1, input_columns="y")
    assert same.get_col_names() == ["x", "y"] and values(same, 1) == [1, 11, 21]
    data = ds.NumpySlicesDataset({"x": np.arange(3), "y": np.arange(3) * 10}, shuffle=False)
    split = data.map(lambda y: (y, y * 2), input_columns=["y"], output_columns=["y", "y1"])
    assert split.get_col_names() == ["y", "y1", "x"]
    assert numpy_rows(split)[2] == (20, 40, 2)
    data = ds.NumpySlicesDataset({"x": np.arange(3), "y": np.arange(3)}, shuffle=False)
    merged = data.map(lambda x, y: x + y, input_columns=["x", "y"], output_columns="s")
    assert merged.get_col_names() == ["s"] and values(merged) == [0, 2, 4]
    first = rows5().map([lambda x: x * 2, lambda x: x + 1])  # default input column: the first; ops chain
    assert values(first) == [1, 3, 5, 7, 9]


def test_map_errors():
    # MindSpore's wording; the error is both a RuntimeError (as MindSpore raises it) and a ValueError
    with pytest.raises(ValueError, match="input column name: nope doesn't exist"):
        rows5().map(lambda x: x, input_columns="nope").get_col_names()
    with pytest.raises(TypeError, match="must be callable"):
        rows5().map(3)
    bad_count = rows5().map(lambda x: (x, x))
    with pytest.raises(RuntimeError, match="returned 2 column"):
        numpy_rows(bad_count)

    def explode(x):
        if x == 3:
            raise KeyError("three")
        return x
    with pytest.raises(RuntimeError, match=r"operation 'test_map_errors.<locals>.explode' failed on row 3.*KeyError"):
        numpy_rows(rows5().map(explode))


def test_batch_variants():
    data = ds.NumpySlicesDataset({"a": np.arange(10).reshape(5, 2), "b": np.arange(5)}, shuffle=False)
    rows = numpy_rows(data.batch(2))
    assert rows[0][0].shape == (2, 2) and rows[2][1].tolist() == [4]

    def grow(info):
        return info.get_batch_num() + 1
    assert [len(b) for b in values(rows5().batch(grow))] == [1, 2, 2]

    def per_batch(b, info):
        return ([x * 100 + info.get_batch_num() for x in b],)
    mapped = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4)}, shuffle=False)
    mapped = mapped.batch(2, per_batch_map=per_batch, input_columns=["b"])
    assert mapped.get_col_names() == ["a", "b"]
    assert [r[1].tolist() for r in numpy_rows(mapped)] == [[0, 100], [201, 301]]
    ragged = ds.GeneratorDataset(lambda: (np.ones(i + 1) for i in range(3)), "v")
    with pytest.raises(RuntimeError, match="Inconsistent batch shapes"):
        numpy_rows(ragged.batch(3))
    ragged = ds.GeneratorDataset(lambda: (np.ones(i + 1) for i in range(3)), "v")
    padded = numpy_rows(ragged.padded_batch(3, pad_info={"v": ([4], -1)}))
    assert padded[0][0].tolist() == [[1, -1, -1, -1], [1, 1, -1, -1], [1, 1, 1, -1]]


def test_shuffle_take_skip_project_rename_filter_concat_zip():
    config.set_seed(7)
    shuffled = values(rows5().shuffle(3))
    assert sorted(shuffled) == [0, 1, 2, 3, 4] and shuffled != [0, 1, 2, 3, 4]
    config.set_seed(7)
    assert values(rows5().shuffle(3)) == shuffled  # seeded: reproducible
    with pytest.raises(ValueError, match="buffer_size"):
        rows5().shuffle(1)
    assert values(rows5().take(2)) == [0, 1] and values(rows5().skip(3)) == [3, 4]
    assert rows5().skip(3).get_dataset_size() == 2 and rows5().take(-1).get_dataset_size() == 5
    two = ds.NumpySlicesDataset({"a": np.arange(3), "b": -np.arange(3)}, shuffle=False)
    assert two.project(["b", "a"]).get_col_names() == ["b", "a"]
    assert numpy_rows(ds.NumpySlicesDataset({"a": np.arange(3), "b": -np.arange(3)}, shuffle=False)
                      .project("b"))[2] == (-2,)
    assert rows5().rename("x", "z").get_col_names() == ["z"]
    evens = rows5().filter(lambda x: x % 2 == 0)
    assert values(evens) == [0, 2, 4] and rows5().filter(lambda x: x > 2).get_dataset_size() == 2
    both = rows5() + rows5().take(2)
    assert values(both) == [0, 1, 2, 3, 4, 0, 1] and both.get_dataset_size() == 7
    with pytest.raises(RuntimeError, match="'column name' or 'column order' of concat datasets should be the same"):
        rows5().concat(rows5("y")).get_col_names()  # MindSpore's error type and sentence
    zipped = ds.zip((rows5(), rows5("y").skip(2)))
    assert zipped.get_col_names() == ["x", "y"] and numpy_rows(zipped) == [(0, 2), (1, 3), (2, 4)]
    assert zipped.get_dataset_size() == 3
    with pytest.raises(ValueError, match="unique"):
        rows5().zip(rows5()).get_col_names()


def test_split_absolute_and_fractions():
    train, test = rows5().split([3, 2], randomize=False)
    assert values(train) == [0, 1, 2] and values(test) == [3, 4]
    parts = ds.NumpySlicesDataset({"x": np.arange(10)}, shuffle=False).split([0.6, 0.4])
    got = [values(p) for p in parts]
    assert [len(g) for g in got] == [6, 4] and sorted(got[0] + got[1]) == list(range(10))
    gen = ds.GeneratorDataset(lambda: ((i,) for i in range(8)), ["x"])
    a, b = gen.split([0.5, 0.5], randomize=True)
    va, vb = values(a), values(b)
    assert len(va) == 4 and sorted(va + vb) == list(range(8))
    with pytest.raises(RuntimeError, match="add up to the dataset size"):
        rows5().split([2, 2])


def test_iterators_tensors_dicts_and_epochs():
    data = ds.NumpySlicesDataset({"x": np.arange(4, dtype=np.float32), "y": np.arange(4)}, shuffle=False).batch(2)
    row = next(data.create_tuple_iterator())
    assert isinstance(row, list) and isinstance(row[0], ms.Tensor)
    assert row[0].dtype == ms.float32 and row[1].dtype == ms.int64 and row[0].shape == (2,)
    d = next(data.create_dict_iterator(output_numpy=True))
    assert set(d) == {"x", "y"} and isinstance(d["x"], np.ndarray)
    only_y = next(data.create_tuple_iterator(columns=["y"], output_numpy=True))
    assert len(only_y) == 1 and only_y[0].tolist() == [0, 1]
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [len(list(it)) for _ in range(2)] == [2, 2]
    with pytest.raises(RuntimeError, match="EOF buffer encountered"):  # MindSpore 2.10: a third pass is an error
        list(it)
    assert sum(1 for _ in data) == 2 and sum(1 for _ in data) == 2  # `for row in ds` restarts each time
    forever = data.create_tuple_iterator(output_numpy=True)
    assert [len(list(forever)) for _ in range(3)] == [2, 2, 2]


def test_seeded_pipelines_are_reproducible_and_epochs_differ():
    def run():
        config.set_seed(99)
        data = ds.GeneratorDataset([(i,) for i in range(30)], ["x"]).map(
            ds.transforms.RandomApply([lambda x: x + 1000], prob=0.5))
        it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
        return [int(r[0]) for r in it], [int(r[0]) for r in it]
    first, second = run(), run()
    assert first == second
    assert first[0] != first[1]  # each epoch draws a new order
    assert any(v >= 1000 for v in first[0]) and any(v < 1000 for v in first[0])


def test_introspection_and_reset():
    source = [(np.zeros((3, 2), np.float32), 1)] * 4
    data = ds.GeneratorDataset(source, ["img", "lbl"]).batch(2)
    assert data.output_shapes() == [[2, 3, 2], [2]]
    assert data.output_types() == [np.float32, np.int64]
    assert data.num_classes() is None
    assert data.get_dataset_size() == 2
    source.append((np.zeros((3, 2), np.float32), 2))
    assert data.get_dataset_size() == 2  # remembered until reset()
    data.reset()
    assert data.get_dataset_size() == 3
    empty = ds.GeneratorDataset(lambda: iter([]), ["x"])
    assert empty.output_shapes() == [] and empty.output_types() == []  # no row: nothing to report (as MindSpore)
    assert rows5().apply(lambda d: d.take(1)).get_dataset_size() == 1


def test_tutorial_mnist_pipeline(tmp_path):
    from .test_sources import make_mnist
    from openspore.dataset import transforms, vision
    make_mnist(str(tmp_path), n_train=40, n_test=3)
    dataset = ds.MnistDataset(str(tmp_path), usage="train")
    image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                        vision.HWC2CHW()]
    dataset = dataset.map(image_transforms, "image").map(transforms.TypeCast(ms.int32), "label").batch(32)
    image, label = next(dataset.create_tuple_iterator())
    assert image.shape == (32, 1, 28, 28) and image.dtype == ms.float32
    assert label.shape == (32,) and label.dtype == ms.int32
    assert dataset.get_dataset_size() == 2
    d = next(dataset.create_dict_iterator())
    assert set(d) == {"image", "label"}
