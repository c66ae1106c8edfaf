"""MindSpore's dataset API: argument errors worded as MindSpore words them, and sources MindSpore accepts."""
import sys

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset.engine import iterators


def rows(dataset, column=0):
    return [r[column] for r in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)]


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(column_names=[7]), TypeError, "Argument column_names[0] with value 7 is not of type [<class 'str'>]"),
    (dict(column_names=[""]), ValueError, "column_names[0] should not be empty"),
    (dict(column_names=[]), ValueError, "column_names should not be empty"),
    (dict(num_shards=sys.maxsize, shard_id=0), ValueError,
     "Input num_shards is not within the required interval of [1, 2147483647]."),
    (dict(num_shards=0, shard_id=0), ValueError, "Input num_shards is not within the required interval"),
    (dict(num_shards=2, shard_id=2), ValueError, "Input shard_id is not within the required interval of [0, 1]."),
])
def test_numpy_slices_argument_errors(kwargs, error, words):
    with pytest.raises(error) as info:
        ds.NumpySlicesDataset([4, 5, 6], shuffle=False, **kwargs)
    assert words in str(info.value)


def test_numpy_slices_empty_data_and_ragged_rows():
    with pytest.raises(ValueError, match="Argument data cannot be empty"):
        ds.NumpySlicesDataset([], shuffle=False)
    ragged = [[], [1], [2, 3], [4, 5, 6]]
    got = rows(ds.NumpySlicesDataset(ragged, column_names=["x"], shuffle=False))
    assert [g.tolist() for g in got] == ragged
    columns = {"data": [np.array([1], np.uint8), np.array([5, 6], np.uint8)], "label": [1, 2]}
    sharded = ds.NumpySlicesDataset(columns, num_shards=2, shard_id=1, shuffle=False)
    [(data, label)] = list(sharded.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert data.tolist() == [5, 6] and data.dtype == np.uint8 and label == 2


def test_generator_column_count_and_type_errors():
    def pairs():
        for i in range(3):
            yield np.array([i]), np.array([i, i])

    with pytest.raises(RuntimeError) as info:
        rows(ds.GeneratorDataset(pairs, ["only"]))
    assert "the size of column_names is:1 and number of returned NumPy array is:2" in str(info.value)

    class Indexed:  # random access, read by a sampler (another code path than the generator function)
        def __getitem__(self, i):
            return np.array([i])

        def __len__(self):
            return 4

    with pytest.raises(RuntimeError) as info:
        rows(ds.GeneratorDataset(Indexed(), ["a", "b", "c"], shuffle=False))
    assert "the size of column_names is:3 and number of returned NumPy array is:1" in str(info.value)

    with pytest.raises(RuntimeError) as info:
        rows(ds.GeneratorDataset(lambda: ((np.array([{1}]),) for _ in range(2)), ["x"]))
    assert "Data type of 1th item of the input or its converted Numpy array is expected" in str(info.value)

    with pytest.raises(RuntimeError) as info:
        rows(ds.GeneratorDataset(lambda: ((np.array(1), {2}) for _ in range(2)), ["x", "y"]))
    assert "Data type of 2th item" in str(info.value)


def test_map_column_count_message():
    data = ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(3)), ["x"])
    data = data.map(lambda x: (x, x * 2), input_columns=["x"])
    with pytest.raises(RuntimeError) as info:
        rows(data)
    assert "the number of columns returned in 'map' operations should match the number of 'output_columns'" \
        in str(info.value)


def test_zip_source_serves_every_epoch_and_shuffles():
    features = np.arange(10, dtype=np.float32).reshape(5, 2)
    labels = np.arange(5, dtype=np.int32)
    data = ds.GeneratorDataset(zip(features, labels), ["f", "l"], shuffle=True).batch(2)
    iterator = data.create_tuple_iterator(num_epochs=3, output_numpy=True)
    seen = []
    for _ in range(3):
        epoch = [int(v) for batch in iterator for v in batch[1]]
        assert sorted(epoch) == [0, 1, 2, 3, 4]
        seen.append(epoch)
    assert len(seen) == 3


def test_getitem_only_source_is_iterated_until_index_error():
    class NoLen:
        def __getitem__(self, i):
            if i >= 3:
                raise IndexError(i)
            return np.array([i * 10])

    data = ds.GeneratorDataset(NoLen(), ["x"])
    assert [r.tolist() for r in rows(data)] == [[0], [10], [20]]
    assert data.get_dataset_size() == 3


def test_bucket_batch_argument_errors():
    data = ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(4)), ["c"])
    cases = [
        (TypeError, ([1], [1, 2], [1, 1, 1]), "Argument column_names[0] with value 1 is not of type [<class 'str'>]"),
        (ValueError, (["c"], [], [1]), "bucket_boundaries cannot be empty"),
        (TypeError, (["c"], ["1"], [1, 1]), "bucket_boundaries should be a list of int"),
        (ValueError, (["c"], [0, 2], [1, 1, 1]), "bucket_boundaries must only contain positive numbers."),
        (ValueError, (["c"], [2, 2], [1, 1, 1]), "bucket_boundaries should be strictly increasing"),
        (TypeError, (["c"], [1, 2], ["1", 1, 1]), "bucket_batch_sizes should be a list of int"),
        (ValueError, (["c"], [1, 2], [1, 0, 1]), "bucket_batch_sizes should be a list of positive numbers"),
        (ValueError, (["c"], [1, 2], [1, 1]), "bucket_batch_sizes must contain one element more than"),
        (TypeError, (["c"], [1, 2], [1, 1, 1], None, None, ""),
         'Argument pad_to_bucket_boundary with value "" is not of type [<class \'bool\'>]'),
        (TypeError, (["c"], [1, 2], [1, 1, 1], None, None, False, 1),
         "Argument drop_remainder with value 1 is not of type [<class 'bool'>]"),
    ]
    for error, args, words in cases:
        with pytest.raises(error) as info:
            data.bucket_batch_by_length(*args)
        assert words in str(info.value), (args, str(info.value))


def test_bucket_pad_to_boundary_with_open_pad_shape():
    data = ds.GeneratorDataset(lambda: ((np.arange(n + 1),) for n in range(5)), ["c"])
    data = data.bucket_batch_by_length(["c"], [3, 8], [2, 3, 1], len, {"c": ([None], -1)}, True)
    got = [b.tolist() for b in rows(data)]
    assert got == [[[0, -1], [0, 1]],
                   [[0, 1, 2, -1, -1, -1, -1], [0, 1, 2, 3, -1, -1, -1], [0, 1, 2, 3, 4, -1, -1]]]


def test_cleanup_stops_live_iterators():
    data = ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(5)), ["x"])
    iterator = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    next(iterator)
    iterators._cleanup()  # pylint: disable=protected-access
    with pytest.raises(AttributeError, match="'TupleIterator' object has no attribute '_runtime_context'"):
        list(iterator)  # MindSpore 2.10: a stopped iterator has no runtime left


def test_skip_count_interval():
    data = ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(3)), ["x"])
    with pytest.raises(ValueError, match=r"Input count is not within the required interval of \[0, 2147483647\]"):
        data.skip(-1)
    with pytest.raises(TypeError, match="Argument count with value 1.5 is not of type"):
        data.skip(1.5)


def _padded(sizes):
    return ds.PaddedDataset([{"image": np.zeros(n, np.uint8)} for n in sizes])


def test_concat_distributed_sampler_deals_rows_round_robin():
    both = _padded([1, 2, 3, 4, 5]) + _padded([6, 7, 8])
    shards = []
    for shard in range(3):
        both.use_sampler(ds.DistributedSampler(num_shards=3, shard_id=shard, shuffle=False))
        shards.append([len(r["image"]) for r in both.create_dict_iterator(num_epochs=1, output_numpy=True)])
        assert both.get_dataset_size() == len(shards[-1])
    assert shards == [[1, 4, 7], [2, 5, 8], [3, 6]]  # uneven, nothing repeated to even them out
    both.use_sampler(ds.DistributedSampler(num_shards=9, shard_id=8, shuffle=False))
    assert both.get_dataset_size() == 0 and list(both) == []


def test_concat_random_sampler_reads_every_row_once():
    both = _padded([1, 2, 3]) + _padded([4, 5, 6, 7])
    both.use_sampler(ds.RandomSampler())
    lengths = [len(r["image"]) for r in both.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert sorted(lengths) == [1, 2, 3, 4, 5, 6, 7]


def test_concat_use_sampler_errors():
    both = _padded([1, 2]) + _padded([3])
    with pytest.raises(TypeError, match="must be DistributedSampler or RandomSampler"):
        both.use_sampler(ds.SequentialSampler())
    with pytest.raises(ValueError, match="shuffle of DistributedSampler must be False"):
        both.use_sampler(ds.DistributedSampler(2, 0, shuffle=True))
    with pytest.raises(ValueError, match="NumSamples of DistributedSampler"):
        both.use_sampler(ds.DistributedSampler(2, 0, shuffle=False, num_samples=1))
    with pytest.raises(ValueError, match="replacement of RandomSampler must be False"):
        both.use_sampler(ds.RandomSampler(replacement=True))
    batched = _padded([1, 2]).batch(2) + _padded([3])
    with pytest.raises(TypeError, match="must not be BatchDataset"):
        batched.use_sampler(ds.DistributedSampler(2, 0, shuffle=False))


def test_iterators_list_tracks_live_iterators():
    data = ds.GeneratorDataset(lambda: ((np.array([i]),) for i in range(2)), ["x"])
    iterators.ITERATORS_LIST.clear()
    first = data.create_tuple_iterator(num_epochs=1)
    second = data.create_tuple_iterator(num_epochs=1)
    assert len(iterators.ITERATORS_LIST) == 2 and all(ref() is not None for ref in iterators.ITERATORS_LIST)
    del first
    assert len(iterators.ITERATORS_LIST) == 1
    del second
    assert iterators.ITERATORS_LIST == []


def test_size_and_shape_queries_do_not_fire_callbacks():
    from openspore.dataset.callback import DSCallback

    class Counting(DSCallback):
        def __init__(self):
            super().__init__(step_size=1)
            self.begun, self.steps = 0, 0

        def ds_begin(self, ds_run_context):
            self.begun += 1

        def ds_step_begin(self, ds_run_context):
            self.steps += 1

    seen = Counting()
    data = ds.NumpySlicesDataset([1, 2, 3], shuffle=False).map(lambda x: x, callbacks=seen)
    data = data.filter(lambda x: x > 0)  # no size without reading: get_dataset_size walks the rows
    assert data.get_dataset_size() == 3 and data.output_shapes() == [[]]
    assert (seen.begun, seen.steps) == (0, 0)
    assert len(rows(data)) == 3
    assert (seen.begun, seen.steps) == (1, 3)


def test_waited_callback_timeout_names_the_event():
    from openspore.dataset.callback import WaitedDSCallback

    class Waits(WaitedDSCallback):
        def sync_step_begin(self, train_run_context, ds_run_context):
            pass

    old = ds.config.get_callback_timeout()
    ds.config.set_callback_timeout(1)
    try:
        data = ds.NumpySlicesDataset([1, 2, 3], shuffle=False).map(lambda x: x, callbacks=Waits())
        with pytest.raises(RuntimeError, match=r"RuntimeError: ds_step_begin timed out after 1 second\(s\)"):
            rows(data)  # nobody trains: the second step waits for a step_end that never comes
    finally:
        ds.config.set_callback_timeout(old)


def test_slice_selectors_as_mindspore():
    from openspore.dataset import transforms
    row = np.array([1, 2, 3, 4, 5])
    assert transforms.Slice(True)(row).tolist() == [1, 2, 3, 4, 5]  # True keeps everything, like None / ...
    assert transforms.Slice([-1, 0])(row).tolist() == [5, 1]
    with pytest.raises(RuntimeError, match="Index 5 is out of bounds."):
        transforms.Slice([5])(row)
    with pytest.raises(RuntimeError, match="Index -6 is out of bounds."):
        transforms.Slice(-6)(row)
    with pytest.raises(RuntimeError, match="Both indices and slices can not be empty."):
        transforms.Slice([])(row)
    with pytest.raises(TypeError, match=r"Argument slice_option\[0\] with value \[0, 1\] is not of type"):
        transforms.Slice([[0, 1]])
    with pytest.raises(TypeError, match=r"Argument slice_option\[0\] with value slice\(None, 3, None\)"):
        transforms.Slice([slice(3)])


def test_sliding_window_checks_and_empty_result():
    from openspore.dataset import text
    assert text.SlidingWindow(3, -1)(np.array([1, 2, 3, 4])).tolist() == [[1, 2, 3], [2, 3, 4]]
    wide = text.SlidingWindow(30)(np.array([1, 2, 3]))
    assert wide.shape == (0,) and wide.dtype == np.int64
    with pytest.raises(ValueError, match=r"Input width is not within the required interval of \[1, 2147483647\]"):
        text.SlidingWindow(0)
    with pytest.raises(TypeError, match="Argument width with value 1 is not of type"):
        text.SlidingWindow("1")
    with pytest.raises(TypeError, match="Argument axis with value 0 is not of type"):
        text.SlidingWindow(1, "0")
    with pytest.raises(RuntimeError, match="axis supports 0 or -1 only for now, but got 1"):
        text.SlidingWindow(2, 1)(np.array([1, 2, 3]))
    with pytest.raises(RuntimeError, match="supports 1D input only for now, but got 2D"):
        text.SlidingWindow(2)(np.ones((2, 3)))


def test_biquad_arguments_checked_in_mindspore_words():
    from openspore.dataset import audio
    cases = [((44100.5, 200, 0.707), TypeError,
              "Argument sample_rate with value 44100.5 is not of type [<class 'int'>], but got <class 'float'>."),
             ((0, 200, 0.707), ValueError,
              "Input sample_rate is not within the required interval of [-2147483648, 0) and (0, 2147483647]."),
             ((44100, "200", 0.707), TypeError,
              "Argument central_freq with value 200 is not of type [<class 'float'>, <class 'int'>]"),
             ((44100, 2 ** 25, 0.707), ValueError,
              "Input central_freq is not within the required interval of [-16777216, 16777216]."),
             ((44100, 200, 1.5), ValueError, "Input Q is not within the required interval of (0, 1].")]
    for args, error, words in cases:
        with pytest.raises(error) as info:
            audio.AllpassBiquad(*args)
        assert words in str(info.value)
    with pytest.raises(TypeError, match="Argument cutoff_freq with value None"):
        audio.LowpassBiquad(44100, None)


def test_amplitude_to_db_floors_each_spectrogram_and_checks_arguments():
    from openspore.dataset import audio
    batch = np.array([[[[1.0, 1e-12]]], [[[1e-3, 1e-12]]]], np.float32)  # two (1, 1, 2) spectrograms
    db = audio.AmplitudeToDB(top_db=50.0)(batch)
    np.testing.assert_allclose(db.reshape(2, 2), [[0.0, -50.0], [-30.0, -80.0]], atol=1e-4)
    with pytest.raises(TypeError, match=r"Argument stype with value test is not of type \[<enum 'ScaleType'>\]"):
        audio.AmplitudeToDB(stype="test")
    with pytest.raises(ValueError, match=r"Input amin is not within the required interval of \(0, 16777216\]"):
        audio.AmplitudeToDB(amin=-1e-10)


def test_complex_norm_power_two_is_the_sum_of_squares():
    from openspore.dataset import audio
    pairs = np.array([[1.0, 1.0], [2.0, 3.0]], np.float32)
    assert audio.ComplexNorm(2)(pairs).tolist() == [2.0, 13.0]
    assert audio.ComplexNorm()(np.array([[3.0, 4.0]])).tolist() == [5.0]
    with pytest.raises(ValueError, match=r"Input power is not within the required interval of \[0, 16777216\]"):
        audio.ComplexNorm(-3.0)


@pytest.mark.parametrize("build, error, words", [
    (lambda a: a.BandBiquad(44100, 200, 0.707, "False"), TypeError,
     "Argument noise with value False is not of type [<class 'bool'>], but got <class 'str'>."),
    (lambda a: a.BassBiquad(44100, "50.0", 200), TypeError,
     "Argument gain with value 50.0 is not of type [<class 'float'>, <class 'int'>], but got <class 'str'>."),
    (lambda a: a.BassBiquad(44100, 2 ** 25, 200), ValueError,
     "Input gain is not within the required interval of [-16777216, 16777216]."),
    (lambda a: a.Contrast("75.0"), TypeError, "Argument enhancement_amount with value 75.0 is not of type"),
    (lambda a: a.Contrast(101), ValueError, "Input enhancement_amount is not within the required interval of [0, 100]."),
    (lambda a: a.ComputeDeltas(win_length=2), ValueError,
     "Input win_length is not within the required interval of [3, 2147483647]"),
    (lambda a: a.ComputeDeltas(pad_mode=2), TypeError,
     "Argument pad_mode with value 2 is not of type [<enum 'BorderType'>], but got <class 'int'>."),
    (lambda a: a.Vol(-1.0), ValueError, "Input gain is not within the required interval of [0, 16777216]."),
    (lambda a: a.Vol(0.0, a.GainType.POWER), ValueError, "Input gain is not within the required interval of (0,"),
    (lambda a: a.Fade(-1), ValueError, "Input fade_in_len is not within the required interval of [0, 2147483647]."),
    (lambda a: a.Fade(1, 1, "linear"), TypeError, "Argument fade_shape with value linear is not of type"),
    (lambda a: a.MuLawEncoding(0), ValueError,
     "Input quantization_channels is not within the required interval of [1, 2147483647]."),
    (lambda a: a.TimeMasking(time_mask_param=-1), ValueError, "Input time_mask_param is not within the required"),
    (lambda a: a.FrequencyMasking(iid_masks=1), TypeError, "Argument iid_masks with value 1 is not of type"),
    (lambda a: a.DCShift(2.5), ValueError, "Input shift is not within the required interval of [-2.0, 2.0]."),
])
def test_audio_arguments_checked_in_mindspore_words(build, error, words):
    from openspore.dataset import audio
    with pytest.raises(error) as info:
        build(audio)
    assert words in str(info.value)


def test_dc_shift_limiter_holds_samples_at_the_threshold():
    from openspore.dataset import audio
    # shift 0.8, limiter gain 0.03: threshold 1 - (0.8 - 0.03) = 0.23; samples above it end at 0.23,
    # the others are shifted and clipped to [-1, 1]
    got = audio.DCShift(0.8, 0.03)(np.array([1.14, -1.06, 0.94, -0.33, 0.1]))
    np.testing.assert_allclose(got, [0.23, -0.26, 0.23, 0.47, 0.9], atol=1e-9)
    got = audio.DCShift(-0.8, 0.03)(np.array([-1.14, 1.06, 0.33, -0.1]))
    np.testing.assert_allclose(got, [-0.23, 0.26, -0.47, -0.9], atol=1e-9)


def test_pad_end_strings_and_argument_errors():
    from openspore.dataset import transforms
    out = transforms.PadEnd([3], b"-1")(np.array([b"1", b"2"]))
    assert out.tolist() == [b"1", b"2", b"-1"]  # the result widens to hold the pad value
    assert transforms.PadEnd([4])(np.array(["a", "b"])).tolist() == ["a", "b", "", ""]
    with pytest.raises(RuntimeError, match="pad_value and item of dataset are not of the same type"):
        transforms.PadEnd([3], "-1")(np.array([1, 2]))
    with pytest.raises(RuntimeError, match="pad_value and item of dataset are not of the same type"):
        transforms.PadEnd([2], 1)(np.array([b"1", b"2", b"3"]))
    with pytest.raises(TypeError, match="a value in the list is not an integer."):
        transforms.PadEnd(["2"], 1)
    with pytest.raises(TypeError, match=r"Argument pad_shape with value 3 is not of type \[<class 'list'>\]"):
        transforms.PadEnd(3, -1)
