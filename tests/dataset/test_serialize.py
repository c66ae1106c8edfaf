"""serialize / deserialize / show / compare: JSON trees in MindSpore's layout that rebuild equivalent pipelines."""
import json

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import transforms, vision
from tests.dataset.test_sources import make_mnist


def add_one(x):
    return x + 1


def _rows(data):
    return [tuple(np.asarray(v).tolist() for v in r) for r in data.create_tuple_iterator(output_numpy=True)]


def _mnist_pipeline(root):
    data = ds.MnistDataset(root, usage="train", sampler=ds.SequentialSampler(start_index=1, num_samples=5))
    data = data.map([vision.Resize((8, 8)), vision.Rescale(1 / 255, 0), vision.HWC2CHW()], input_columns=["image"])
    data = data.map(transforms.TypeCast(np.int32), input_columns=["label"])
    return data.project(["label", "image"]).batch(2, drop_remainder=True).repeat(2)


def test_round_trip_through_file(tmp_path):
    make_mnist(str(tmp_path))
    data = _mnist_pipeline(str(tmp_path))
    path = str(tmp_path / "pipeline.json")
    tree = ds.serialize(data, json_filepath=path)
    assert tree["op_type"] == "Repeat" and tree["count"] == 2
    batch = tree["children"][0]
    assert batch["op_type"] == "Batch" and batch["batch_size"] == 2 and batch["drop_remainder"] is True
    source = batch["children"][0]["children"][0]["children"][0]["children"][0]
    assert source["op_type"] == "MnistDataset" and source["usage"] == "train"
    assert source["sampler"]["sampler_name"] == "SequentialSampler" and source["sampler"]["start_index"] == 1
    ops = batch["children"][0]["children"][0]["children"][0]["operations"]
    assert [o["tensor_op_name"] for o in ops] == ["Resize", "Rescale", "HWC2CHW"]
    assert ops[0]["tensor_op_params"]["size"] == [8, 8]
    assert json.load(open(path)) == tree
    again = ds.deserialize(json_filepath=path)
    assert ds.compare(data, again)
    assert _rows(again) == _rows(data) and len(_rows(again)) == 4


def test_compare_sees_a_changed_argument_and_show_prints(tmp_path, capsys):
    make_mnist(str(tmp_path))
    a = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False).batch(2)
    b = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False).batch(3)
    assert ds.compare(a, ds.deserialize(input_dict=ds.serialize(a)))
    assert not ds.compare(a, b)
    ds.show(a, indentation=None)
    printed = json.loads(capsys.readouterr().out)
    assert printed["op_type"] == "Batch" and printed["children"][0]["op_type"] == "MnistDataset"


def test_python_functions_and_samplers():
    sampler = ds.RandomSampler(num_samples=4)
    sampler.add_child(ds.SequentialSampler(start_index=2))
    data = ds.NumpySlicesDataset({"x": np.arange(10)}, sampler=sampler).map(add_one, input_columns=["x"])
    tree = ds.serialize(data)
    assert tree["operations"][0]["tensor_op_name"] == "PyFunc"
    assert tree["children"][0]["sampler"]["child_sampler"][0]["sampler_name"] == "SequentialSampler"
    again = ds.deserialize(input_dict=tree)
    ds.config.set_seed(5)
    first = sorted(r[0] for r in _rows(data))
    ds.config.set_seed(5)
    assert sorted(r[0] for r in _rows(again)) == first and all(3 <= v <= 10 for v in first)


def test_what_cannot_be_rebuilt_is_named():
    data = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False).map(lambda x: x, input_columns=["x"])
    tree = ds.serialize(data)
    with pytest.raises(RuntimeError, match="lambda"):
        ds.deserialize(input_dict=tree)
    with pytest.raises(ValueError, match="exactly one"):
        ds.deserialize()

    class Source:
        def __getitem__(self, i):
            return (np.array(i),)

        def __len__(self):
            return 2

    with pytest.raises(TypeError, match="'source' of GeneratorDataset"):
        ds.serialize(ds.GeneratorDataset(Source(), ["x"]))
