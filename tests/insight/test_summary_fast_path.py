"""SummaryCollector's straight pass (`_summary_fast.FastCollection`, collect_freq=1, no summary ops): each step's
file record holds that step's weights, input batch, loss and learning rate, also across what makes it step aside
(a weight's array replaced, the rate changed in place, a smaller last batch)."""
import os

import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore import nn, ops
from openspore.insight.summary_reader import SummaryIndex
from openspore.train.callback import _summary_fast
from openspore.train.summary import _writer_client
from openspore.train.summary._pack import pack_value
from tests.insight import nets

PARAMS = ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight"]  # the first five


class Changes(ms.Callback):
    """Before the collector: at step 4 fc2.weight gets a new array (`set_data`), at step 6 the rate is assigned."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer = net, optimizer

    def on_train_step_end(self, run_context):
        step = run_context.original_args().cur_step_num
        if step == 4:
            weight = dict(self.net.parameters_and_names())["fc2.weight"]
            weight.set_data(ms.Tensor(np.full(weight.shape, 0.25, np.float32)))
        if step == 6:
            ops.assign(self.optimizer.learning_rate, ms.Tensor(np.float32(0.005)))


class Expected(ms.Callback):
    """After the collector: what each step's record should hold, copied when the collector took it."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer, self.steps = net, optimizer, {}

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        params = dict(self.net.parameters_and_names())
        self.steps[cb.cur_step_num] = {
            "loss": float(np.float32(cb.net_outputs.asnumpy())),
            "lr": float(np.float32(self.optimizer.learning_rate.asnumpy())),
            "batch": cb.train_dataset_element[0].asnumpy().copy(),
            "weights": {name: params[name].asnumpy().copy() for name in PARAMS}}


def _train(summary_dir, rows, epochs):
    ms.set_seed(3)
    rng = np.random.default_rng(3)
    data = ds.NumpySlicesDataset({"x": rng.standard_normal((rows, 1, 32, 32)).astype(np.float32),
                                  "y": rng.integers(0, 10, rows).astype(np.int32)}, shuffle=False).batch(8)
    net = nets.LeNet()
    optimizer = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), optimizer)
    expected = Expected(net, optimizer)
    collector = ms.SummaryCollector(summary_dir, collect_freq=1)
    model.train(epochs, data, callbacks=[Changes(net, optimizer), collector, expected])
    return expected.steps


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_each_record_holds_its_steps_values(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    _train(str(tmp_path / "warm"), rows=16, epochs=1)  # a writer process that is ready: the straight pass runs
    writer = _writer_client._idle.get("writer")
    assert writer is not None and writer.ready.wait(120)
    before = _summary_fast.POSTED[0]
    steps = _train(str(tmp_path / "r"), rows=36, epochs=2)  # 4 batches of 8 and one of 4, twice
    assert len(steps) == 10
    assert _summary_fast.POSTED[0] > before, "the straight pass never posted a collection"
    run = SummaryIndex(str(tmp_path)).run("./r")
    assert run.scalars["loss/auto"] == [(s, steps[s]["loss"]) for s in range(1, 11)]
    assert run.scalars["learning_rate/auto"] == [(s, steps[s]["lr"]) for s in range(1, 11)]
    assert steps[5]["lr"] == pytest.approx(0.01) and steps[6]["lr"] == pytest.approx(0.005)
    for name in PARAMS:
        records = run.histograms[f"{name}/auto"]
        assert [r["step"] for r in records] == list(range(1, 11))
        for record in records:
            want = pack_value("histogram", name, steps[record["step"]]["weights"][name]).histogram
            assert (record["min"], record["max"], record["sum"], record["count"]) == \
                   (want.min, want.max, want.sum, want.count), (name, record["step"])
            assert record["buckets"] == [[b.left, b.width, b.count] for b in want.buckets]
    assert steps[4]["weights"]["fc2.weight"].max() == pytest.approx(0.25, abs=0.05)  # the new array, updated once
    images = run.images["input_data/auto"]  # the newest 10 are kept
    assert [i["step"] for i in images] == list(range(1, 11))
    for image in images:
        batch = steps[image["step"]]["batch"]
        assert image["png"] == pack_value("image", "input_data/auto", batch).image.encoded_image, image["step"]
    assert {steps[s]["batch"].shape[0] for s in (5, 10)} == {4}


def _events(run_dir):
    from openspore.train.summary import summary_pb2
    from openspore.train.summary._records import read_records
    [name] = [n for n in os.listdir(run_dir) if n.endswith("_MS")]
    with open(os.path.join(run_dir, name), "rb") as f:
        data = f.read()
    events = []
    for payload in read_records(data, 0, check_crc=True):
        event = summary_pb2.Event.FromString(payload)
        event.wall_time = 0.0  # (a required field)
        events.append(event.SerializeToString(deterministic=True))
    return events


def test_same_file_as_the_general_way(tmp_path, monkeypatch):
    # the thread writer has no ring: every collection goes the general way there; the process writer's run takes
    # the straight pass (checked above). Apart from wall times the two files are the same bytes.
    ms.set_context(mode=ms.GRAPH_MODE)
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    _train(str(tmp_path / "warm"), rows=16, epochs=1)
    assert _writer_client._idle["writer"].ready.wait(120)
    before = _summary_fast.POSTED[0]
    _train(str(tmp_path / "process"), rows=36, epochs=2)
    assert _summary_fast.POSTED[0] > before
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "thread")
    _train(str(tmp_path / "thread"), rows=36, epochs=2)
    fast, general = _events(str(tmp_path / "process")), _events(str(tmp_path / "thread"))
    assert len(fast) == 12  # version, graph, 10 steps
    assert fast == general
