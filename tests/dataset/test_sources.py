import os

import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from .conftest import numpy_rows


# --- GeneratorDataset ---------------------------------------------------------------------------------------------
def test_generator_function_rows_and_python_scalar_types():
    def gen():
        for i in range(4):
            yield i, float(i) / 2, np.full((2,), i, np.float32)

    data = ds.GeneratorDataset(gen, ["a", "b", "c"])
    assert data.get_col_names() == ["a", "b", "c"]
    rows = numpy_rows(data)
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3]  # a generator is never shuffled
    assert data.output_types() == [np.int64, np.float64, np.float32]
    assert data.output_shapes() == [[], [], [2]]
    assert data.get_dataset_size() == 4


def test_generator_column_names_str_and_single_value_rows():
    data = ds.GeneratorDataset(lambda: iter([np.ones(3), np.zeros(3)]), column_names="x")
    assert data.get_col_names() == ["x"]
    assert [r[0].tolist() for r in numpy_rows(data)] == [[1, 1, 1], [0, 0, 0]]


class RandomAccess:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.array([i], np.int32), np.array(i * 10)

    def __len__(self):
        return self.n


def _firsts(data):
    return [int(r[0][0]) for r in numpy_rows(data)]


def test_random_access_is_shuffled_by_default_and_iterables_are_not():
    shuffled = _firsts(ds.GeneratorDataset(RandomAccess(20), ["x", "y"]))
    assert sorted(shuffled) == list(range(20)) and shuffled != list(range(20))
    assert _firsts(ds.GeneratorDataset(RandomAccess(20), ["x", "y"], shuffle=False)) == list(range(20))
    iterable = [(np.array([i]),) for i in range(20)]
    from_list = _firsts(ds.GeneratorDataset(iterable, ["x"]))  # a list has __getitem__ and __len__: shuffled
    assert sorted(from_list) == list(range(20)) and from_list != list(range(20))
    assert _firsts(ds.GeneratorDataset(iter(iterable), ["x"])) == list(range(20))


def test_generator_sharding_and_num_samples():
    data = ds.GeneratorDataset(RandomAccess(6), ["x", "y"], shuffle=False, num_shards=2, shard_id=1)
    assert _firsts(data) == [1, 3, 5]
    assert data.get_dataset_size() == 3
    assert _firsts(ds.GeneratorDataset(RandomAccess(6), ["x", "y"], shuffle=False, num_samples=4)) == [0, 1, 2, 3]
    gen = ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(10)), ["x"], num_samples=3)
    assert _firsts(gen) == [0, 1, 2]


def test_generator_column_types_and_schema():
    data = ds.GeneratorDataset(RandomAccess(3), ["x", "y"], column_types=[ms.float16, np.uint8], shuffle=False)
    assert data.output_types() == [np.float16, np.uint8]
    schema = ds.Schema()
    schema.add_column("x", ms.int64)
    schema.add_column("y", "float32")
    data = ds.GeneratorDataset(RandomAccess(3), schema=schema, shuffle=False)
    assert data.get_col_names() == ["x", "y"] and data.output_types() == [np.int64, np.float32]


def test_generator_argument_errors():
    with pytest.raises(ValueError, match="Neither columns_names nor schema are provided"):
        ds.GeneratorDataset(RandomAccess(3))
    with pytest.raises(ValueError, match="sampler is not supported if source does not have attribute"):
        ds.GeneratorDataset(lambda: iter([]), ["x"], sampler=ds.SequentialSampler())
    with pytest.raises(ValueError, match="num_shards is not supported if source does not have attribute"):
        ds.GeneratorDataset(lambda: iter([]), ["x"], num_shards=2, shard_id=0)
    with pytest.raises(RuntimeError, match="'sampler' and 'shuffle'"):
        ds.GeneratorDataset(RandomAccess(3), ["x", "y"], sampler=ds.SequentialSampler(), shuffle=True)
    bad = ds.GeneratorDataset(lambda: iter([(1, 2)]), ["x"])
    with pytest.raises(RuntimeError, match="size of column_names is:1 and number of returned NumPy array is:2"):
        numpy_rows(bad)
    # a dict item is one dict column (MindSpore's "Python objects in the pipeline"; tests/dataset/test_python_objects.py)
    rows = list(ds.GeneratorDataset(lambda: iter([{"a": 1}]), ["x"]).create_tuple_iterator(output_numpy=True))
    assert rows == [[{"a": np.array(1)}]]


def test_generator_batch_sampler_and_collate():
    data = ds.GeneratorDataset(RandomAccess(5), ["x", "y"], batch_sampler=[[0, 1], [2, 3], [4]])
    rows = numpy_rows(data)
    assert [r[0].shape for r in rows] == [(2, 1), (2, 1), (1, 1)]
    assert rows[1][1].tolist() == [20, 30]
    collated = ds.GeneratorDataset(RandomAccess(4), ["total"], batch_sampler=[[0, 1, 2, 3]],
                                   collate_fn=lambda items: np.sum([it[1] for it in items]))
    assert numpy_rows(collated)[0][0] == 60


def test_numpy_slices_dataset_inputs():
    data = ds.NumpySlicesDataset([1, 2, 3], shuffle=False)
    assert data.get_col_names() == ["column_0"] and [int(r[0]) for r in numpy_rows(data)] == [1, 2, 3]
    data = ds.NumpySlicesDataset(([1, 2], [[3, 4], [5, 6]]), shuffle=False)
    assert data.get_col_names() == ["column_0", "column_1"]
    assert numpy_rows(data)[1][1].tolist() == [5, 6]
    data = ds.NumpySlicesDataset({"a": np.arange(4.0), "b": np.arange(4)}, shuffle=False)
    assert data.get_col_names() == ["a", "b"] and data.output_types() == [np.float64, np.int64]
    data = ds.NumpySlicesDataset(np.zeros((5, 2, 3), np.float32), column_names=["img"])
    assert data.output_shapes() == [[2, 3]] and data.get_dataset_size() == 5
    with pytest.raises(ValueError, match="same length"):
        ds.NumpySlicesDataset(([1, 2], [1, 2, 3]))


# --- file formats -------------------------------------------------------------------------------------------------
def write_idx(path, array, magic):
    with open(path, "wb") as f:
        f.write(magic.to_bytes(4, "big"))
        for d in array.shape:
            f.write(int(d).to_bytes(4, "big"))
        f.write(array.astype(np.uint8).tobytes())


def make_mnist(root, n_train=7, n_test=3, seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        write_idx(os.path.join(root, f"{prefix}-images-idx3-ubyte"), images, 2051)
        write_idx(os.path.join(root, f"{prefix}-labels-idx1-ubyte"), labels, 2049)
        out[prefix] = (images, labels)
    return out


def test_mnist_reads_idx_files(tmp_path):
    truth = make_mnist(str(tmp_path))
    data = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert data.get_col_names() == ["image", "label"]
    rows = numpy_rows(data)
    assert len(rows) == 7 and data.get_dataset_size() == 7
    assert rows[0][0].shape == (28, 28, 1) and rows[0][0].dtype == np.uint8
    assert rows[0][1].dtype == np.uint32 and rows[0][1].shape == ()
    np.testing.assert_array_equal(np.stack([r[0][..., 0] for r in rows]), truth["train"][0])
    np.testing.assert_array_equal([int(r[1]) for r in rows], truth["train"][1])
    assert ds.MnistDataset(str(tmp_path), usage="test").get_dataset_size() == 3
    assert ds.MnistDataset(str(tmp_path)).get_dataset_size() == 10  # usage None = all
    tensors = next(ds.MnistDataset(str(tmp_path), usage="test").create_tuple_iterator())
    assert tensors[0].dtype == ms.uint8 and tensors[1].dtype == ms.uint32


def test_mnist_bad_files(tmp_path):
    make_mnist(str(tmp_path))
    path = os.path.join(str(tmp_path), "t10k-images-idx3-ubyte")
    data = open(path, "rb").read()
    open(path, "wb").write(data[:-10])
    with pytest.raises(RuntimeError, match="re-download"):
        ds.MnistDataset(str(tmp_path), usage="test").get_dataset_size()
    open(path, "wb").write(b"\x00\x00\x08\x01" + data[4:])
    with pytest.raises(RuntimeError, match="magic number 2049, expected 2051"):
        ds.MnistDataset(str(tmp_path), usage="test").get_dataset_size()
    with pytest.raises(ValueError, match="does not exist"):
        ds.MnistDataset(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="'usage' must be one of"):
        ds.MnistDataset(str(tmp_path), usage="valid")


def make_cifar10(root, files=("data_batch_1.bin", "test_batch.bin"), n=6, seed=0):
    rng = np.random.default_rng(seed)
    truth = {}
    for name in files:
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        chw = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
        records = np.concatenate([labels[:, None], chw.reshape(n, -1)], axis=1)
        records.tofile(os.path.join(root, name))
        truth[name] = (chw.transpose(0, 2, 3, 1), labels)
    return truth


def test_cifar10_reads_binary_records(tmp_path):
    truth = make_cifar10(str(tmp_path))
    data = ds.Cifar10Dataset(str(tmp_path), usage="test", shuffle=False)
    rows = numpy_rows(data)
    assert len(rows) == 6 and rows[0][0].shape == (32, 32, 3) and rows[0][0].dtype == np.uint8
    assert rows[0][1].dtype == np.uint32
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), truth["test_batch.bin"][0])
    np.testing.assert_array_equal([int(r[1]) for r in rows], truth["test_batch.bin"][1])
    assert ds.Cifar10Dataset(str(tmp_path), usage="train").get_dataset_size() == 6
    assert ds.Cifar10Dataset(str(tmp_path), usage="all").get_dataset_size() == 12


def test_cifar10_short_file_is_a_clear_error(tmp_path):
    make_cifar10(str(tmp_path), files=("test_batch.bin",))
    path = os.path.join(str(tmp_path), "test_batch.bin")
    open(path, "ab").write(b"\x01\x02")
    with pytest.raises(RuntimeError, match="Invalid cifar10 file, failed to read data from"):
        ds.Cifar10Dataset(str(tmp_path), usage="test").get_dataset_size()
    with pytest.raises(RuntimeError, match="no CIFAR-10 binary files"):
        ds.Cifar10Dataset(str(tmp_path), usage="train").get_dataset_size()


def test_cifar100_coarse_and_fine_labels(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.integers(0, 256, (4, 3, 32, 32), dtype=np.uint8)
    coarse, fine = np.array([1, 2, 3, 4], np.uint8), np.array([50, 60, 70, 99], np.uint8)
    np.concatenate([coarse[:, None], fine[:, None], chw.reshape(4, -1)], 1).tofile(str(tmp_path / "test.bin"))
    data = ds.Cifar100Dataset(str(tmp_path), usage="test", shuffle=False)
    assert data.get_col_names() == ["image", "coarse_label", "fine_label"]
    rows = numpy_rows(data)
    assert [int(r[1]) for r in rows] == [1, 2, 3, 4] and [int(r[2]) for r in rows] == [50, 60, 70, 99]
    np.testing.assert_array_equal(rows[2][0], chw[2].transpose(1, 2, 0))
    assert rows[0][2].dtype == np.uint32


def test_image_folder(tmp_path):
    from PIL import Image
    colors = {"cat": (255, 0, 0), "dog": (0, 0, 255)}
    for cls, color in colors.items():
        os.makedirs(tmp_path / cls)
        for i in range(2):
            Image.new("RGB", (5, 4), color).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    data = ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"])
    rows = numpy_rows(data)
    assert data.get_dataset_size() == 4 and data.num_classes() == 2
    assert data.get_class_indexing() == {"cat": 0, "dog": 1}
    assert rows[0][0].dtype == np.uint8 and rows[0][0].ndim == 1  # raw file bytes
    assert [int(r[1]) for r in rows] == [0, 0, 1, 1] and rows[0][1].dtype == np.int32
    decoded = numpy_rows(ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"], decode=True,
                                               num_parallel_workers=2))
    assert decoded[3][0].shape == (4, 5, 3) and decoded[3][0][0, 0].tolist() == [0, 0, 255]
    image = ds.vision.Decode()(rows[0][0])
    assert image[0, 0].tolist() == [255, 0, 0]
    only_dog = ds.ImageFolderDataset(str(tmp_path), class_indexing={"dog": 7}, extensions=[".png"])
    assert sorted(int(r[1]) for r in numpy_rows(only_dog)) == [7, 7]


def test_text_file_and_csv(tmp_path):
    (tmp_path / "a.txt").write_text("hello world\n\nsecond line\n")
    (tmp_path / "b.txt").write_text("third\n")
    text = ds.TextFileDataset([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], shuffle=False)
    assert text.get_col_names() == ["text"] and text.get_dataset_size() == 3
    assert [str(r[0]) for r in numpy_rows(text)] == ["hello world", "second line", "third"]
    assert sorted(str(r[0]) for r in numpy_rows(ds.TextFileDataset(str(tmp_path / "a.txt")))) == \
        ["hello world", "second line"]
    (tmp_path / "d.csv").write_text("id,score,name\n1,0.5,ann\n2,,bob\n")
    data = ds.CSVDataset(str(tmp_path / "d.csv"), column_defaults=[0, -1.0, ""], shuffle=False)
    assert data.get_col_names() == ["id", "score", "name"]
    rows = numpy_rows(data)
    assert [(int(a), float(b), str(c)) for a, b, c in rows] == [(1, 0.5, "ann"), (2, -1.0, "bob")]
    assert rows[0][0].dtype == np.int32 and rows[0][1].dtype == np.float32
    named = ds.CSVDataset(str(tmp_path / "d.csv"), column_names=["a", "b", "c"], shuffle=False)
    assert str(numpy_rows(named)[0][0]) == "id"  # with column_names every line is data
    strings = next(ds.CSVDataset(str(tmp_path / "d.csv"), shuffle=False).create_tuple_iterator())
    assert isinstance(strings[2], np.ndarray) and str(strings[2]) == "ann"  # Tensors hold no strings
    (tmp_path / "bad.csv").write_text("x,y\n1\n")
    with pytest.raises(RuntimeError, match="line 2 has 1 fields"):
        ds.CSVDataset(str(tmp_path / "bad.csv")).get_dataset_size()
