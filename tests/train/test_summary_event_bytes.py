"""The summary Event written as wire bytes (`_event_bytes.event_bytes`, histograms together: `_histograms.py`) is
byte for byte what protobuf serializes from the same values built as messages (`_pack.pack_value`, one
`fill_histogram` per array)."""
import logging

import numpy as np

from openspore.train.summary import _pack, summary_pb2
from openspore.train.summary._event_bytes import event_bytes
from openspore.train.summary._histograms import histogram_bytes


def protobuf_event(step, data, wall_time):
    event = summary_pb2.Event(wall_time=wall_time, step=step)
    for plugin, tag, value in data:
        try:
            event.summary.value.append(_pack.pack_value(plugin, tag, value))
        except (ValueError, TypeError):
            pass  # dropped, as event_bytes drops it (with an error log)
    return event.SerializeToString() if event.summary.value else None


def one_histogram(array):
    proto = summary_pb2.Summary.Histogram()
    _pack.fill_histogram(proto, array)
    return proto.SerializeToString()


def test_histograms_together_are_the_bytes_of_one_at_a_time():
    rng = np.random.default_rng(0)
    cases = [
        rng.standard_normal(6400).astype(np.float32), rng.standard_normal(100).astype(np.float32),
        np.full(7, 0.25, np.float32),  # one value: widened by 0.5 each side
        np.float32(3.0).reshape(()),  # 0-d
        rng.integers(-3, 3, 881).astype(np.float32),  # many values on the edges
        np.linspace(-1, 1, 880).astype(np.float32), (rng.standard_normal(5000) * 1e30).astype(np.float32),
        (rng.standard_normal(50) * 1e-30).astype(np.float32), rng.standard_normal(300),  # float64
        rng.standard_normal((40, 3)).astype(np.float32)[:, 1],  # not contiguous
        np.array([-3e38, 3e38, 0.0], np.float32),  # the range overflows float32: one at a time
        np.array([1.0, np.nan, np.inf, -np.inf, 2.0], np.float32), np.array([], np.float32),
        rng.integers(-9, 9, 300).astype(np.int32), np.array([1.0, 2.0, 2.5], np.float16),
    ]
    with np.errstate(all="ignore"):
        assert histogram_bytes(cases) == [one_histogram(a) for a in cases]
        # LeNet's five weights (shifted and scaled slice by slice) and forty biases (gathered)
        lenet = [rng.standard_normal(shape).astype(np.float32) for shape in [150, 2400, 48000, 10080, 840]]
        biases = [rng.standard_normal(int(n)).astype(np.float32) for n in rng.integers(1, 200, 40)]
        for group in (lenet, biases, lenet + biases):
            assert histogram_bytes(group) == [one_histogram(a) for a in group]
        for _ in range(60):  # random groups: which arrays go together changes with each group's members
            group = [cases[i] for i in rng.integers(0, len(cases), int(rng.integers(1, 7)))]
            assert histogram_bytes(group) == [one_histogram(a) for a in group]


def test_event_bytes_are_what_protobuf_serializes(caplog):
    rng = np.random.default_rng(1)
    choices = [
        lambda: ("scalar", "loss/auto", np.float32(rng.standard_normal())),
        lambda: ("scalar", "lr é", rng.standard_normal(3)),  # the first value; a non-ASCII tag
        lambda: ("image", "input_data/auto", rng.standard_normal((int(rng.integers(1, 20)), int(rng.choice([1, 3])),
                                                                 5, 7)).astype(np.float32)),
        lambda: ("histogram", "w", (rng.standard_normal(int(rng.integers(1, 3000))) * 3).astype(
            rng.choice([np.float32, np.float64, np.int32]))),
        lambda: ("tensor", "t", rng.integers(0, 5, (2, 3)).astype(np.int32)),
        lambda: ("image", "bad", np.zeros((2, 2))),  # not NCHW: dropped with an error log
        lambda: ("bogus", "bad", np.zeros(2)),
    ]
    with caplog.at_level(logging.CRITICAL, logger="openspore.summary"):
        for _ in range(150):
            data = [choices[i]() for i in rng.integers(0, len(choices), int(rng.integers(0, 9)))]
            step = int(rng.choice([0, 1, 300, 2 ** 40, -1, -2 ** 63]))
            wall_time = float(rng.random() * 2e9)
            assert event_bytes(step, data, wall_time) == protobuf_event(step, data, wall_time), data
