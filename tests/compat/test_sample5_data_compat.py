"""MindSpore 2.10 behaviour found by a sample of its dataset / train / metrics / common tests, each checked
against the real MindSpore as a black box: concat's pipeline errors, the error a Tensor raises for structured or
object numpy arrays, the metrics' argument errors, per-sample multilabel Precision/Recall and the
`initializer._assignment` helper custom initializers call."""
import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore.common import initializer as init
from openspore.train import Accuracy, Precision, Recall


def _rows(start, stop, dtype=np.int64):
    def gen():
        for i in range(start, stop):
            yield (np.array([i], dtype),)
    return gen


def test_concat_different_columns_fails_when_iterated_with_runtime_error():
    data = ds.GeneratorDataset(_rows(0, 3), ["a"]) + ds.GeneratorDataset(_rows(3, 5), ["b"])  # building is fine
    with pytest.raises(RuntimeError, match="'column name' or 'column order' of concat datasets should be the same"):
        list(data)


def test_concat_different_dtypes_fails_with_runtime_error():
    data = ds.GeneratorDataset(_rows(0, 3), ["a"]) + ds.GeneratorDataset(_rows(3, 5, np.float32), ["a"])
    with pytest.raises(RuntimeError, match="data types of the two datasets to be concatenated should be the same, "
                                           "but got: int64 and float32"):
        list(data)


def test_concat_different_ranks_fails_with_runtime_error():
    data = ds.GeneratorDataset(_rows(0, 3), ["a"]) + ds.GeneratorDataset(_rows(3, 9), ["a"]).batch(3)
    with pytest.raises(RuntimeError, match="tensor rank of the two datasets to be concatenated should be the same, "
                                           "but got: 1 and 2"):
        list(data)


def test_concat_of_strings_of_different_lengths_is_allowed():
    first = ds.NumpySlicesDataset(np.array(["a", "bb"]), ["s"], shuffle=False)
    second = ds.NumpySlicesDataset(np.array(["cccc"]), ["s"], shuffle=False)
    assert [str(row[0]) for row in (first + second).create_tuple_iterator(output_numpy=True)] == ["a", "bb", "cccc"]


def test_tensor_from_structured_array_names_the_void_element_type():
    array = np.array([("x", 1), ("y", 2)], dtype=[("name", "<U10"), ("value", "<i4")])
    with pytest.raises(TypeError) as err:
        ms.Tensor(array)
    assert "initializing tensor by numpy array failed" in str(err.value)
    assert "<class 'numpy.void'>" in str(err.value)


def test_tensor_from_object_array_is_a_type_error():
    with pytest.raises(TypeError, match="(?s)initializing tensor by numpy array failed.*data type: object"):
        ms.Tensor(np.array([[1, 2], [3, ms.Tensor(5)]], dtype=object))


@pytest.mark.parametrize("indexes", [0, [0., 2.], ["1", "0"]])
def test_set_indexes_rejects_non_int_lists(indexes):
    with pytest.raises(ValueError, match="For 'set_indexes', the argument 'indexes' must be a list and all its "
                                         "elements must be int, please check whether it is correct."):
        Accuracy("classification").set_indexes(indexes)


def test_unknown_eval_type_is_a_type_error():
    with pytest.raises(TypeError, match="The argument 'eval_type' must be in"):
        Accuracy("test")


def test_multilabel_precision_and_recall_are_per_sample_and_appended_across_updates():
    x = np.array([[0, 1, 0, 1, 1], [1, 0, 1, 1, 0]])
    y = np.array([[0, 1, 1, 1, 1], [0, 0, 0, 1, 0]])
    precision, recall = Precision("multilabel"), Recall("multilabel")
    for metric in (precision, recall):
        metric.update(x, y)
        metric.update(x[:1], y[:1])
    np.testing.assert_allclose(precision.eval(), [1, 1 / 3, 1])
    np.testing.assert_allclose(recall.eval(), [0.75, 1, 0.75])
    assert precision.eval(True) == pytest.approx(7 / 9)


def test_custom_initializer_may_fill_with_the_assignment_helper():
    class InitTwo(init.Initializer):
        def _initialize(self, arr):
            init._assignment(arr, 2)  # pylint: disable=protected-access

    tensor = init.initializer(InitTwo(), [2, 2], ms.int32)
    assert tensor.shape == (2, 2)
    np.testing.assert_array_equal(tensor.init_data().asnumpy(), np.full((2, 2), 2, np.int32))


def test_callback_manager_enters_and_exits_through_the_callback_type():
    from unittest import mock
    from openspore.train.callback import Callback, _CallbackManager
    with mock.patch.object(Callback, "__exit__", return_value=None) as exit_mock:
        first, second = Callback(), Callback()
        with pytest.raises(ValueError):
            with _CallbackManager([first, second]):
                raise ValueError("stop")
    assert exit_mock.call_count == 2
    assert {id(call.args[0]) for call in exit_mock.call_args_list} == {id(first), id(second)}
    assert all(len(call.args) == 4 and call.args[1] is ValueError for call in exit_mock.call_args_list)


def test_checkpoint_manager_tracks_prefix_files_and_keep_policies(tmp_path):
    import os
    import time
    from openspore.train.callback import _CheckpointManager
    for name in ("net-1_1.ckpt", "net-1_2.ckpt", "net-2_1.ckpt", "net1.ckpt", "other-1_1.ckpt", "net-1.txt"):
        (tmp_path / name).write_text("x")
    now = time.time()
    os.utime(tmp_path / "net-1_1.ckpt", (now - 30, now - 30))
    manager = _CheckpointManager()
    manager.update_ckpoint_filelist(str(tmp_path), "net")
    assert manager.ckpoint_num == 3
    manager.keep_one_ckpoint_per_minutes(1, now + 1)  # all three are recent: only the oldest stays
    manager.update_ckpoint_filelist(str(tmp_path), "net")
    assert [os.path.basename(f) for f in manager.ckpoint_filelist] == ["net-1_1.ckpt"]
    manager.remove_oldest_ckpoint_file()
    manager.update_ckpoint_filelist(str(tmp_path), "net")
    assert manager.ckpoint_num == 0 and (tmp_path / "other-1_1.ckpt").exists() and (tmp_path / "net1.ckpt").exists()


def test_checkpoint_cb_for_save_op_loads_into_the_registered_net():
    from openspore import nn
    from openspore.train.callback import _checkpoint_cb_for_save_op, _set_cur_net
    net = nn.Dense(2, 2, weight_init="zeros")
    _set_cur_net(net)
    try:
        _checkpoint_cb_for_save_op([{"name": "weight", "data": ms.Tensor(np.ones((2, 2), np.float32))}])
    finally:
        _set_cur_net(None)
    np.testing.assert_array_equal(net.weight.asnumpy(), np.ones((2, 2), np.float32))


def test_export_air_on_cpu_is_a_value_error(tmp_path):
    from openspore import nn
    with pytest.raises(ValueError, match="Only support export file in 'AIR' format with Ascend backend."):
        ms.export(nn.Dense(2, 2), ms.Tensor(np.ones((1, 2), np.float32)), file_name=str(tmp_path / "net"),
                  file_format="AIR")


def test_fill_casts_numbers_to_the_input_dtype_the_c_way():
    import openspore.dataset.transforms as T
    np.testing.assert_array_equal(T.Fill(-3)(np.array([4, 5], np.uint8)), np.array([253, 253], np.uint8))
    np.testing.assert_array_equal(T.Fill(300)(np.array([4, 5], np.uint8)), np.array([44, 44], np.uint8))
    np.testing.assert_array_equal(T.Fill(3.7)(np.array([4, 5], np.int32)), np.array([3, 3], np.int32))
    assert T.Fill(3.0)(np.array([1.5], np.float64)).dtype == np.float64


def test_fill_of_a_string_into_numbers_fails_in_the_pipeline_with_runtime_error():
    import openspore.dataset.transforms as T
    with pytest.raises(RuntimeError, match="fill_value and the input tensor must be of the same data type"):
        T.Fill("words")(np.array([4, 4]))


def test_mask_compares_in_the_input_dtype_and_checks_kinds():
    import openspore.dataset.transforms as T
    np.testing.assert_array_equal(T.Mask(T.Relational.EQ, 3.5)(np.array([1, 2, 3, 4])), [False, False, True, False])
    np.testing.assert_array_equal(T.Mask(T.Relational.LE, 3.5)(np.array([1, 2, 3, 4])), [True, True, True, False])
    with pytest.raises(RuntimeError, match="input datatype does not match the value datatype"):
        T.Mask(T.Relational.EQ, "3.5")(np.array([1, 2, 3]))
    with pytest.raises(RuntimeError, match="Only supports bool or numeric datatype for generated mask type"):
        T.Mask(T.Relational.EQ, "1", ms.string)(np.array(["1", "2"]))


def test_dtype_helpers_cover_python_containers_and_types():
    from openspore.common import dtype
    assert ms.dtype_to_pytype(ms.list_) is list and ms.dtype_to_pytype(ms.tuple_) is tuple
    assert ms.dtype_to_pytype(ms.string) is str and ms.dtype_to_pytype(ms.type_none) is type(None)
    assert dtype.get_py_obj_dtype(float) == ms.float64 and dtype.get_py_obj_dtype(1.5) == ms.float64
    assert dtype.get_py_obj_dtype(tuple) == ms.tuple_ and dtype.get_py_obj_dtype([1]) == ms.list_
    with pytest.raises(NotImplementedError, match="cannot be converted to MindSpore type"):
        dtype.get_py_obj_dtype(type(float))


def _six_rows():
    def gen():
        for i in range(6):
            yield (np.array([i]),)
    return ds.GeneratorDataset(gen, ["a"])


@pytest.mark.parametrize("call, error, sentence", [
    (lambda d: d.batch("1"), TypeError, "batch_size should either be an int or a callable."),
    (lambda d: d.batch(0), ValueError, "Input batch_size is not within the required interval of [1, 2147483647]."),
    (lambda d: d.repeat("1"), TypeError, "Argument repeat with value 1 is not of type [<class 'int'>, "
                                         "<class 'NoneType'>], but got <class 'str'>."),
    (lambda d: d.repeat(-2), ValueError, "count should be either -1 or positive integer, range[1, INT32_MAX]."),
    (lambda d: d.take("1"), TypeError, "Argument count with value 1 is not of type [<class 'int'>]"),
    (lambda d: d.take(0), ValueError, "count should be either -1 or within the required interval of "
                                      "(0, 2147483647], got 0."),
    (lambda d: d.shuffle(1), ValueError, "Input buffer_size is not within the required interval of [2, 2147483647]."),
    (lambda d: d.shuffle("2"), TypeError, "Argument buffer_size with value 2 is not of type [<class 'int'>]"),
])
def test_pipeline_argument_errors_use_mindspore_sentences(call, error, sentence):
    with pytest.raises(error) as err:
        call(_six_rows())
    assert sentence in str(err.value)


@pytest.mark.parametrize("call, error, sentence", [
    (lambda: ds.config.set_seed("1"), TypeError, "seed isn't of type int."),
    (lambda: ds.config.set_seed(-1), ValueError, "seed given is not within the required range [0, UINT32_MAX(4294967295)]."),
    (lambda: ds.config.set_num_parallel_workers("1"), TypeError, "num isn't of type int."),
    (lambda: ds.config.set_num_parallel_workers(0), ValueError, "Number of parallel workers given is not within the "
                                                                "required range (0, INT32_MAX(2147483647)]."),
    (lambda: ds.config.set_prefetch_size(0), ValueError, "size is not within the required range (0, INT32_MAX(2147483647)]."),
    (lambda: ds.RandomSampler(num_samples="1"), TypeError, "num_samples must be integer but was: 1."),
    (lambda: ds.RandomSampler(replacement="x"), TypeError, "replacement must be a boolean value but was: x."),
    (lambda: ds.SequentialSampler(0, -1), ValueError, "num_samples exceeds the boundary between 0 and "
                                                      "9223372036854775807(INT64_MAX)!"),
    (lambda: ds.SubsetSampler([1.5]), TypeError, "SubsetSampler: Type of indices element must be int, but got "
                                                 "list[0]: 1.5, type: <class 'float'>."),
    (lambda: ds.GeneratorDataset(_rows(0, 3), ["a"], num_shards=2), ValueError,
     "num_shards and shard_id need to be passed in together."),
    (lambda: ds.GeneratorDataset(_rows(0, 3), ["a"], sampler=ds.SequentialSampler()), ValueError,
     "sampler is not supported if source does not have attribute '__getitem__'."),
    (lambda: ds.GeneratorDataset(_rows(0, 3)), ValueError, "Neither columns_names nor schema are provided."),
    (lambda: ds.GeneratorDataset([np.array([1])], ["a"], num_samples="1"), TypeError,
     "Argument num_samples with value 1 is not of type [<class 'int'>], but got <class 'str'>."),
    (lambda: _six_rows().map(lambda x: x, num_parallel_workers=0), ValueError,
     "num_parallel_workers exceeds the boundary between 1 and"),
])
def test_config_sampler_and_source_errors_use_mindspore_sentences(call, error, sentence):
    seed = ds.config.get_seed()
    try:
        with pytest.raises(error) as err:
            call()
    finally:
        ds.config.set_seed(seed)
    assert sentence in str(err.value)


@pytest.mark.parametrize("call, sentence", [
    (lambda d: list(d.map(lambda x: x, input_columns=["zz"])), "input column name: zz doesn't exist in the dataset columns."),
    (lambda d: list(d.rename(["zz"], ["b"])), "Invalid column, column to be renamed does not exist."),
    (lambda d: list(d.project(["zz"])), "Invalid column, column name: zz does not exist."),
    (lambda d: list(d.filter(lambda x: True, input_columns=["zz"])), "column name: zz does not exist in the dataset columns."),
])
def test_missing_columns_are_runtime_errors(call, sentence):
    with pytest.raises(RuntimeError) as err:
        call(_six_rows())
    assert sentence in str(err.value)


def test_one_hot_checks_and_negative_labels():
    import openspore.dataset.transforms as T
    with pytest.raises(RuntimeError, match="OneHot: Only support scalar or 1D input, got rank: 2"):
        T.OneHot(3)(np.array([[0, 2], [1, 1]]))
    with pytest.raises(RuntimeError, match="OneHot: index values should not bigger than num classes: 3, but got: 5"):
        T.OneHot(3)(np.array([0, 5]))
    np.testing.assert_array_equal(T.OneHot(3)(np.array([-1, 1])), [[0, 0, 0], [0, 1, 0]])
    with pytest.raises(RuntimeError, match="OneHot: Only support input of int type, but got: float64"):
        T.OneHot(3)(np.array([0.0, 1.0]))


@pytest.mark.parametrize("call, error, sentence", [
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileWriter(p, None), "ParamValueError",
     "Parameter shard_num is None."),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileWriter(p, "20"), "ParamValueError",
     "Parameter shard_num's type is not int."),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileWriter(p, 1001), "ParamValueError",
     "Parameter shard_num's value: 1001 should between 1 and 1000."),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileWriter(p, 4, 1), "ParamValueError",
     "Parameter overwrite's type is not bool."),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileReader(p, None), "ParamValueError",
     "Parameter num_consumer is None."),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).MindPage(p, "2"), "ParamValueError",
     "Parameter num_consumer is not int."),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileWriter(p).add_index(["label"]),
     "MRMGetMetaError", "Failed to get meta info"),
    (lambda p: __import__("openspore.mindrecord", fromlist=["x"]).FileWriter(p).add_schema({"f": {"type": "str"}}),
     "MRMInvalidSchemaError", "Schema format is error. Detail: Field 'f' contain illegal attribute 'str'"),
])
def test_mindrecord_argument_errors_use_mindspore_classes_and_sentences(tmp_path, call, error, sentence):
    from openspore import mindrecord
    with pytest.raises(getattr(mindrecord, error)) as err:
        call(str(tmp_path / "x.mindrecord"))
    assert f"[{error}]:" in str(err.value) and sentence in str(err.value)


def test_mindrecord_reader_of_a_missing_file_names_it():
    from openspore.mindrecord import FileReader
    with pytest.raises(RuntimeError, match="The input: dummy.mindrecord is not exists."):
        FileReader("dummy.mindrecord")


def test_get_lr_parameter_type_and_value_errors():
    from openspore import nn
    net = nn.Dense(2, 2)
    opt = nn.SGD(net.trainable_params())
    with pytest.raises(TypeError, match="the type of 'parameter' should be 'Parameter', but got type 'int'"):
        opt.get_lr_parameter([1, 2, 3])
    with pytest.raises(ValueError, match="the parameter zz is not in optimizer"):
        opt.get_lr_parameter([ms.Parameter(ms.Tensor(np.ones(2)), "zz")])


def test_group_dynamic_lr_must_match_the_default_length():
    from openspore import nn
    params = nn.Dense(2, 2).trainable_params()
    groups = [{"params": [params[0]], "lr": (0.1, 0.2, 0.3)}, {"params": [params[1]]}]
    with pytest.raises(ValueError, match="dynamic learning rate in group must be the same size"):
        nn.Momentum(groups, learning_rate=(0.1, 0.2), momentum=0.9)
    nn.Momentum(groups, learning_rate=0.1, momentum=0.9)  # a constant default is fine
