"""Dataset behaviours an eleventh sample of MindSpore's own unit tests (tests/ut/python/dataset) relies on, each
checked on MindSpore 2.10: iterators past their epochs or stopped, the engine Tensor of `_c_dataengine`,
Concatenate's 1-D rules, ToNumber's numeric type, batch/map argument checks (max_rowsize, column names,
per_batch_map's rows and columns), padded_batch's cutting and string padding, MuLawDecoding's float32 values,
create_dct/Magphase/Vocab.from_dict errors and the samplers' parse() and out-of-range indices."""
import numpy as np
import pytest

import openspore._c_dataengine as cde
import openspore.common.dtype as mstype
import openspore.dataset as ds
from openspore.dataset import audio, text, transforms


def _rows(n):
    def gen():
        for i in range(n):
            yield (np.array([i]),)
    return gen


def test_an_iterator_past_its_epochs_raises_eof_and_a_stopped_one_has_no_runtime():
    it = ds.GeneratorDataset(_rows(3), ["x"]).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [len(list(it)) for _ in range(2)] == [3, 3]
    with pytest.raises(RuntimeError, match="EOF buffer encountered. User tries to fetch data beyond the specified "
                                           "number of epochs."):
        next(it)
    it = ds.GeneratorDataset(_rows(3), ["x"]).create_dict_iterator(num_epochs=-1)
    assert len(list(it)) == 3 and len(list(it)) == 3  # -1: as many epochs as asked for
    it.stop()
    with pytest.raises(AttributeError, match="'DictIterator' object has no attribute '_runtime_context'"):
        next(it)


def test_engine_tensor_gives_its_array_back_with_shape_and_type():
    t = cde.Tensor(np.array([[1, 2], [3, 4]], dtype=np.int32))
    np.testing.assert_array_equal(t.as_array(), [[1, 2], [3, 4]])
    assert str(t.shape()) == "<2,2>" and str(t.type()) == "int32"
    assert str(t) == "Tensor (shape: <2,2>, Type: int32)\n[[1,2],[3,4]]"
    words = np.array([["ab", "cde"], ["x", ""]])
    np.testing.assert_array_equal(cde.Tensor(words).as_array(), words)
    assert str(cde.Tensor(words).type()) == "string" and str(cde.Tensor(words.astype("S")).type()) == "bytes"


def test_concatenate_is_one_dimensional_with_matching_dtypes():
    with pytest.raises(ValueError, match="only 1D concatenation supported."):
        transforms.Concatenate(1)
    with pytest.raises(ValueError, match="can only prepend 1D arrays."):
        transforms.Concatenate(0, np.array([[1, 2]]))
    with pytest.raises(ValueError, match="can only append 1D arrays."):
        transforms.Concatenate(0, None, np.array([[1, 2]]))
    with pytest.raises(TypeError, match="Argument prepend with value"):
        transforms.Concatenate(0, [1, 2])
    op = transforms.Concatenate(-1, np.array([1, 2]), np.array([9]))
    assert op(np.array([3, 4])).tolist() == [1, 2, 3, 4, 9]
    with pytest.raises(RuntimeError, match="only 1D input supported, input 'axis' should be 0, but got: 1"):
        op(np.array([[3, 4]]))  # axis -1 of a 2-D input is axis 1
    with pytest.raises(RuntimeError, match="only 1D input supported, got rank of input: 2"):
        transforms.Concatenate(0, np.array([1, 2]))(np.array([[3, 4]]))
    with pytest.raises(RuntimeError, match="input datatype does not match the prepend datatype, got input datatype: "
                                           "int32, prepend datatype:int64"):
        op(np.array([3, 4], np.int32))
    with pytest.raises(RuntimeError, match="input datatype does not match"):  # str and bytes differ
        transforms.Concatenate(0, np.array(["a"]))(np.array([b"x"]))


def test_to_number_wants_a_numeric_type():
    for dtype, name in ((mstype.bool_, "Bool"), (mstype.string, "String")):
        with pytest.raises(TypeError, match=f"data_type: {name} is not numeric data type."):
            text.ToNumber(dtype)
    assert text.ToNumber(mstype.int8)(["1", "-2"]).tolist() == [1, -2]


@pytest.mark.parametrize("bad, error, message", [
    ((12, 20), TypeError, r"Argument max_rowsize with value \(12, 20\) is not of type"),
    ("16", TypeError, "Argument max_rowsize with value 16 is not of type"),
    (20.5, TypeError, "Argument max_rowsize with value 20.5 is not of type"),
    (-8, ValueError, r"Input max_rowsize is not within the required interval of \[-1, 2147483647\]."),
    ([12.4, 20], TypeError, "with value 12.4 is not of type"),
    ([-8, 20], ValueError, "is not within the required interval of"),
    ([1, 2, 3], TypeError, "max_rowsize should be a single integer or a list"),
])
def test_batch_and_map_check_max_rowsize(bad, error, message):
    data = ds.GeneratorDataset(_rows(4), ["x"])
    with pytest.raises(error, match=message):
        data.batch(2, input_columns=["x"], per_batch_map=lambda x, info: (x,), python_multiprocessing=True,
                   num_parallel_workers=2, max_rowsize=bad)
    with pytest.raises(error, match=message):
        data.map(lambda x: x, input_columns=["x"], python_multiprocessing=True, num_parallel_workers=2,
                 max_rowsize=bad)


def test_max_rowsize_accepted_forms():
    data = ds.GeneratorDataset(_rows(4), ["x"])
    for size in (-1, 0, 6, [2, 3], [-1, -1]):
        data.batch(2, input_columns=["x"], per_batch_map=lambda x, info: (x,), max_rowsize=size)
    with pytest.raises(TypeError, match=r"Argument max_rowsize with value \[2, 3\] is not of type"):
        ds.GeneratorDataset(_rows(4), ["x"], max_rowsize=[2, 3])  # a source takes one size


def test_column_name_arguments_in_mindspores_words():
    data = ds.GeneratorDataset(_rows(4), ["x"])
    with pytest.raises(TypeError, match=r"Argument output_columns with value 233 is not of type \[<class 'list'>, "
                                        r"<class 'str'>\], but got <class 'int'>."):
        data.batch(2, input_columns=["x"], output_columns=233, per_batch_map=lambda x, info: (x,))
    with pytest.raises(TypeError, match=r"Argument input_columns\[1\] with value 1 is not of type"):
        data.map(lambda x: x, input_columns=["x", 1])
    with pytest.raises(ValueError, match="columns should not be empty."):
        data.project([])


def test_per_batch_map_rows_and_columns_are_checked_when_iterating():
    def gen():
        for i in range(1, 3):
            yield np.array([i]), np.array([i ** 2])

    def split(col, info):
        return [np.copy(a) for a in col], [np.copy(-a) for a in col]

    def data():
        return ds.GeneratorDataset(gen, ["col1", "col2"])

    stray = data().batch(2, input_columns=["col2"], output_columns=["col1"], per_batch_map=split)  # built fine
    with pytest.raises(RuntimeError, match="columns that are not involved in 'per_batch_map' should not be in "
                                           "output_columns"):
        list(stray)
    three = data().batch(2, input_columns=["col2"], output_columns=["a", "b", "c"], per_batch_map=split)
    with pytest.raises(RuntimeError, match="the number of columns returned in 'per_batch_map' function should be 3"):
        list(three)
    doubled = data().batch(2, input_columns=["col1"],
                           per_batch_map=lambda col, info: ([np.copy(a) for a in col] * 2,))
    with pytest.raises(RuntimeError, match="expects: 2 rows returned from 'per_batch_map', got: 4"):
        list(doubled)
    whole = data().batch(2, input_columns=["col1"], per_batch_map=lambda col, info: (np.zeros((4, 1)),))
    assert [r[0].shape for r in whole.create_tuple_iterator(output_numpy=True)] == [(4, 1)]  # arrays: taken whole


def test_padded_batch_cuts_long_rows_and_pads_strings():
    def gen():
        for i in range(2):
            yield np.array([i]), np.array([[i + 100], [i + 200]])

    data = ds.GeneratorDataset(gen, ["a", "b"]).padded_batch(2, pad_info={"b": ([1, 2], -2)})
    row = next(data.create_dict_iterator(output_numpy=True))
    assert row["b"].tolist() == [[[100, -2]], [[101, -2]]]

    def words():
        for i in range(2):
            yield (np.array([str(j) for j in range(i + 1)]),)

    padded = ds.GeneratorDataset(words, ["w"]).padded_batch(2, pad_info={"w": (None, "PAD_VALUE")})
    assert next(padded.create_tuple_iterator(output_numpy=True))[0].tolist() == [["0", "PAD_VALUE"], ["0", "1"]]
    default = ds.GeneratorDataset(words, ["w"]).padded_batch(2, pad_info={})
    assert next(default.create_tuple_iterator(output_numpy=True))[0].tolist() == [["0", ""], ["0", "1"]]


def test_mu_law_decoding_works_in_float32_unless_given_float64():
    out = audio.MuLawDecoding()(np.array([[10, 100, 70, 200]], dtype=np.float32))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.array([[-0.6459359526634216, -0.009046762250363827, -0.04388953000307083,
                                                  0.08788024634122849]], np.float32))
    np.testing.assert_array_equal(audio.MuLawDecoding(128)(np.array([70, 170])),
                                  np.array([0.00506480922922492, 26.928272247314453], np.float32))
    wide = audio.MuLawDecoding(128)(np.array([70, 170], np.float64))
    assert wide.dtype == np.float64
    np.testing.assert_allclose(wide, [5.06481218e-03, 2.69282954e+01], rtol=1e-8)


def test_create_dct_and_magphase_errors():
    with pytest.raises(TypeError, match="n_mfcc with value 100.5 is not of type <class 'int'>, but got <class "
                                        "'float'>."):
        audio.create_dct(100.5, 200, audio.NormMode.NONE)
    with pytest.raises(ValueError, match="n_mels must be greater than 0, but got 0."):
        audio.create_dct(100, 0, audio.NormMode.NONE)
    with pytest.raises(TypeError, match="norm with value ortho is not of type <enum 'NormMode'>"):
        audio.create_dct(2, 3, "ortho")
    with pytest.raises(RuntimeError, match="the shape of input tensor does not match the requirement of operator"):
        audio.Magphase(2.0)(np.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(RuntimeError, match="the data type of input tensor does not match the requirement"):
        audio.Magphase(2.0)(np.array([["test", "test"]]))
    mag, phase = audio.Magphase(2.0)(np.array([[1, 2]], np.uint8))
    assert mag.dtype == np.float32 and mag.tolist() == [5.0] and phase.dtype == np.float32


def test_vocab_from_dict_checks_each_entry():
    with pytest.raises(ValueError, match=r"Input word_id is not within the required interval of \[0, 2147483647\]."):
        text.Vocab.from_dict({"home": -1, "behind": 0})
    with pytest.raises(TypeError, match="Argument word with value 1 is not of type"):
        text.Vocab.from_dict({1: 2})
    assert text.Vocab.from_dict({"a": 3}).vocab() == {"a": 3}


def test_sampler_parse_and_out_of_range_indices():
    parent = ds.RandomSampler().parse()
    parent.add_child(ds.SequentialSampler().parse())
    odd = ds.DistributedSampler(num_shards=4, shard_id=0, shuffle=False, offset=5)  # accepted when built
    with pytest.raises(RuntimeError, match=r"DistributedSampler: offset must be no more than num_shards\(4\)"):
        odd.parse()
    with pytest.raises(RuntimeError, match=r"Sample ID \(500\) is out of bound, expected range \[0, 9\]"):
        list(ds.NumpySlicesDataset(list(range(10)), sampler=ds.SubsetSampler([0, 9, 0, 500])))
    with pytest.raises(RuntimeError, match=r"Sample ID \(-6\) is out of bound"):
        list(ds.NumpySlicesDataset(list(range(10)), sampler=[0, 9, -6, 2]))
    with pytest.raises(TypeError, match=r"SubsetSampler: Type of indices element must be int, but got list\[0\]: "
                                        r"\[1\], type: <class 'numpy.ndarray'>."):
        ds.SubsetSampler(np.array([[1], [5]]), 10)


def test_mask_along_axis_checks_in_mindspores_words():
    with pytest.raises(ValueError, match=r"Input mask_start is not within the required interval of \[0, 2147483647\]"):
        audio.MaskAlongAxis(-1, 10, 1.0, 1)
    with pytest.raises(ValueError, match=r"Input mask_width is not within the required interval of \[1, 2147483647\]"):
        audio.MaskAlongAxis(0, 0, 1.0, 1)
    with pytest.raises(TypeError, match="Argument axis with value 1.0 is not of type"):
        audio.MaskAlongAxis(0, 10, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"Input axis is not within the required interval of \[1, 2\]."):
        audio.MaskAlongAxis(0, 10, 1.0, 3)
    with pytest.raises(TypeError, match="Argument mask_value with value x is not of type"):
        audio.MaskAlongAxis(0, 10, "x", 1)
    out = audio.MaskAlongAxis(0, 1, 5.0, 2)(np.ones((1, 2, 3), np.float32))
    assert out[0, :, 0].tolist() == [5.0, 5.0] and out[0, :, 1:].sum() == 4.0
