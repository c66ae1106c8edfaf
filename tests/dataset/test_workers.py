import os
import time

import numpy as np
import pytest

import openspore.dataset as ds
from openspore.dataset import config
from .conftest import numpy_rows


def slow_square(x):
    time.sleep(0.002)
    return x * x, np.int64(os.getpid())


class Source:
    def __len__(self):
        return 24

    def __getitem__(self, i):
        return np.array(i), np.int64(os.getpid())


def test_map_in_worker_processes_keeps_order():
    data = ds.NumpySlicesDataset({"x": np.arange(40)}, shuffle=False)
    data = data.map(slow_square, "x", ["sq", "pid"], num_parallel_workers=2, python_multiprocessing=True)
    rows = numpy_rows(data)
    assert [int(r[0]) for r in rows] == [i * i for i in range(40)]
    pids = {int(r[1]) for r in rows}
    assert len(pids) == 2 and os.getpid() not in pids


def test_map_large_rows_through_shared_memory_and_pickles(monkeypatch):
    from openspore.dataset.engine import workers
    unpacked = []
    real_unpack = workers._unpack
    monkeypatch.setattr(workers, "_unpack", lambda shm, layout: unpacked.append(1) or real_unpack(shm, layout))

    def big(x):
        side = 256 if x < 3 else 300  # 768 KiB rows fit a 1 MiB slot; 1.03 MiB rows go pickled
        return np.full((side, side, 3), x, np.float32)
    data = ds.NumpySlicesDataset({"x": np.arange(6, dtype=np.float32)}, shuffle=False)
    rows = numpy_rows(data.map(big, num_parallel_workers=2, python_multiprocessing=True, max_rowsize=1))
    assert [float(r[0][5, 7, 1]) for r in rows] == [0, 1, 2, 3, 4, 5]
    assert [r[0].shape[0] for r in rows] == [256] * 3 + [300] * 3
    assert len(unpacked) == 3
    config.set_enable_shared_mem(False)
    data = ds.NumpySlicesDataset({"x": np.arange(6, dtype=np.float32)}, shuffle=False)
    rows = numpy_rows(data.map(big, num_parallel_workers=2, python_multiprocessing=True))
    assert [float(r[0].mean()) for r in rows] == [0, 1, 2, 3, 4, 5]


def test_generator_random_access_in_worker_processes():
    data = ds.GeneratorDataset(Source(), ["i", "pid"], num_parallel_workers=2, shuffle=False)
    rows = numpy_rows(data)
    assert [int(r[0]) for r in rows] == list(range(24))
    assert len({int(r[1]) for r in rows}) == 2
    shuffled = numpy_rows(ds.GeneratorDataset(Source(), ["i", "pid"], num_parallel_workers=2))
    assert sorted(int(r[0]) for r in shuffled) == list(range(24))


def test_threads_when_python_multiprocessing_is_false():
    data = ds.NumpySlicesDataset({"x": np.arange(20)}, shuffle=False)
    rows = numpy_rows(data.map(slow_square, "x", ["sq", "pid"], num_parallel_workers=3))
    assert [int(r[0]) for r in rows] == [i * i for i in range(20)] and {int(r[1]) for r in rows} == {os.getpid()}


class FailingTransform:
    def __call__(self, x):
        if x == 13:
            raise ValueError("cannot handle 13")
        return x


@pytest.mark.parametrize("workers,processes", [(1, False), (2, True), (2, False)])
def test_failing_transform_names_row_and_transform(workers, processes):
    data = ds.NumpySlicesDataset({"x": np.arange(40)}, shuffle=False)
    data = data.map(FailingTransform(), "x", num_parallel_workers=workers, python_multiprocessing=processes)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"operation 'FailingTransform' failed on row 13.*ValueError: cannot handle 13"):
        numpy_rows(data)
    assert time.monotonic() - start < 10


def test_dead_worker_is_reported_not_waited_for():
    def die(x):
        if x == 5:
            os._exit(7)
        return x
    data = ds.NumpySlicesDataset({"x": np.arange(30)}, shuffle=False).map(
        die, num_parallel_workers=2, python_multiprocessing=True)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"row 5 .*exited unexpectedly \(exit code 7\)"):
        numpy_rows(data)
    assert time.monotonic() - start < 10


def test_source_read_failure_in_workers():
    class Broken(Source):
        def __getitem__(self, i):
            if i == 4:
                raise IndexError("bad sample")
            return super().__getitem__(i)
    data = ds.GeneratorDataset(Broken(), ["i", "pid"], num_parallel_workers=2, shuffle=False)
    with pytest.raises(RuntimeError, match="reading sample index 4 failed: IndexError: bad sample"):
        numpy_rows(data)


def _children():
    import multiprocessing
    return multiprocessing.active_children()


def test_workers_stop_when_iterator_is_closed_or_dropped():
    data = ds.NumpySlicesDataset({"x": np.arange(1000)}, shuffle=False).map(
        slow_square, "x", ["a", "b"], num_parallel_workers=2, python_multiprocessing=True)
    it = data.create_tuple_iterator(output_numpy=True)
    next(it)
    assert len(_children()) == 2
    it.stop()
    assert _children() == []
    it = data.create_tuple_iterator(output_numpy=True)
    next(it)
    assert len(_children()) == 2
    del it
    assert _children() == []


def test_per_batch_map_in_workers():
    def add_pid(xs, info):
        return [x + 1 for x in xs], np.array([os.getpid()] * len(xs))
    data = ds.NumpySlicesDataset({"x": np.arange(8)}, shuffle=False).batch(
        2, per_batch_map=add_pid, input_columns=["x"], output_columns=["x", "pid"], num_parallel_workers=2,
        python_multiprocessing=True)
    rows = numpy_rows(data)
    assert [r[0].tolist() for r in rows] == [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert len({int(r[1][0]) for r in rows}) == 2


def test_seeded_random_transforms_in_workers_are_reproducible():
    def run():
        config.set_seed(3)
        data = ds.NumpySlicesDataset({"x": np.zeros((16, 6, 6, 1), np.uint8)}, shuffle=False).map(
            ds.vision.RandomCrop(4, padding=2, fill_value=9), num_parallel_workers=2, python_multiprocessing=True)
        return np.stack([r[0] for r in numpy_rows(data)])
    a, b = run(), run()
    np.testing.assert_array_equal(a, b)
    assert len({x.tobytes() for x in a}) > 1


def test_debug_mode_runs_inline_and_calls_hooks():
    seen = []
    config.set_debug_mode(True, [lambda op, inputs, outputs: seen.append(int(outputs[0]))])
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).map(
        slow_square, "x", ["a", "b"], num_parallel_workers=2, python_multiprocessing=True)
    rows = numpy_rows(data)
    assert {int(r[1]) for r in rows} == {os.getpid()} and seen == [0, 1, 4, 9]


def test_multiprocessing_without_a_count_uses_the_configured_workers():
    config.set_num_parallel_workers(2)
    assert config.get_num_parallel_workers() == 2
    data = ds.NumpySlicesDataset({"x": np.arange(12)}, shuffle=False).map(
        slow_square, "x", ["a", "b"], python_multiprocessing=True)
    assert len({int(r[1]) for r in numpy_rows(data)}) == 2
    with pytest.raises(ValueError, match="Number of parallel workers given is not within the required range"):
        config.set_num_parallel_workers(0)


def fail_at_150(x):
    if int(x) == 150:
        raise ValueError("row 150 is bad")
    return x + 1, np.int64(os.getpid())


@pytest.mark.parametrize("processes", [True, False])
def test_cheap_rows_travel_in_chunks_in_order_and_a_failure_keeps_the_rows_before_it(processes, monkeypatch):
    from openspore.dataset.engine import workers
    chunks = []
    real_next = workers._Chunker.next_size
    monkeypatch.setattr(workers._Chunker, "next_size", lambda self: chunks.append(real_next(self)) or chunks[-1])
    data = ds.NumpySlicesDataset({"x": np.arange(400)}, shuffle=False).map(
        fail_at_150, "x", ["y", "pid"], num_parallel_workers=2, python_multiprocessing=processes)
    got = []
    with pytest.raises(RuntimeError, match=r"failed on row 150 .*ValueError: row 150 is bad"):
        for row in data.create_tuple_iterator(output_numpy=True):
            got.append(row)
    assert [int(r[0]) for r in got] == list(range(1, 151))  # every row before the failure, in order
    assert max(chunks) > 1  # cheap rows were grouped
    if processes:
        assert len({int(r[1]) for r in got}) == 2 and os.getpid() not in {int(r[1]) for r in got}


def test_seeded_draws_in_workers_do_not_depend_on_the_worker_count():
    def run(workers):
        config.set_seed(5)
        data = ds.NumpySlicesDataset({"x": np.zeros((24, 6, 6, 1), np.uint8)}, shuffle=False).map(
            ds.vision.RandomCrop(4, padding=2, fill_value=9), num_parallel_workers=workers, python_multiprocessing=True)
        return np.stack([r[0] for r in numpy_rows(data)])
    two = run(2)
    np.testing.assert_array_equal(two, run(3))
    assert len({x.tobytes() for x in two}) > 1
