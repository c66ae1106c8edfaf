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
