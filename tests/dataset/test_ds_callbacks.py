"""DSCallback hooks on map; the (epoch, step-in-epoch, step) numbers are those real MindSpore 2.10 (a black box)
passed to the same hooks for the same pipeline."""
import numpy as np
import pytest

import openspore.dataset as ds


class Recorder(ds.DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.log = []

    def _record(self, name, c):
        self.log.append((name, c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

    def ds_begin(self, c):
        self._record("begin", c)

    def ds_epoch_begin(self, c):
        self._record("epoch_begin", c)

    def ds_epoch_end(self, c):
        self._record("epoch_end", c)

    def ds_step_begin(self, c):
        self._record("step_begin", c)

    def ds_step_end(self, c):
        self._record("step_end", c)


def _run(callbacks, rows=5, epochs=2, **map_kwargs):
    data = ds.NumpySlicesDataset(np.arange(rows), shuffle=False).map(lambda x: x + 1, callbacks=callbacks,
                                                                      **map_kwargs)
    iterator = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    return [[int(r[0]) for r in iterator] for _ in range(epochs)]


@pytest.mark.parametrize("step_size, steps", [(1, [1, 2, 3, 4, 5]), (2, [1, 3, 5])])
def test_hooks_and_counts_match_mindspore(step_size, steps):
    cb = Recorder(step_size)
    assert _run(cb) == [[1, 2, 3, 4, 5]] * 2
    expected = [("begin", 0, 0, 0)]
    for epoch in (1, 2):
        done = 5 * (epoch - 1)
        expected.append(("epoch_begin", epoch, 0, done))
        expected += [(kind, epoch, s, done + s) for kind in ("step_begin", "step_end") for s in steps]
        expected.append(("epoch_end", epoch, 5, done + 5))
    got = sorted(cb.log, key=lambda t: (t[1], t[0] != "begin", t[0] != "epoch_begin", t[0] == "epoch_end",
                                        t[0], t[3]))
    assert got == expected
    # a row's step_begin comes before its step_end
    assert cb.log.index(("step_begin", 1, 1, 1)) < cb.log.index(("step_end", 1, 1, 1))


def test_several_callbacks_and_parallel_workers():
    every, second = Recorder(), Recorder(2)
    assert _run([every, second], rows=3, epochs=1, num_parallel_workers=2) == [[1, 2, 3]]
    assert [t for t in every.log if t[0] == "step_end"] == [("step_end", 1, s, s) for s in (1, 2, 3)]
    assert [t[2] for t in second.log if t[0] == "step_begin"] == [1, 3]


def test_callback_errors():
    with pytest.raises(ValueError, match="step_size"):
        ds.DSCallback(0)
    with pytest.raises(TypeError, match="DSCallback"):
        ds.NumpySlicesDataset(np.arange(3)).map(lambda x: x, callbacks=[print])
