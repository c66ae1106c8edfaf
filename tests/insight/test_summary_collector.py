"""SummaryCollector in Model.train (a real LeNet run), read back by openspore.insight's reader."""
import os
import signal
import threading

import numpy as np
import pytest

import openspore as ms
from openspore import nn
from openspore.insight.summary_reader import InvalidTrainId, SummaryIndex
from tests.insight import summary_runs


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_lenet_run_is_read_back_step_by_step(tmp_path, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    losses = summary_runs.train_lenet(str(tmp_path / "lenet"), custom_lineage_data={"note": "first", "layers": 5})
    assert len(losses) == 8  # 2 epochs of 4 batches
    run = SummaryIndex(str(tmp_path)).run("./lenet")
    # one point per step, the value the training loop saw (float32 as written)
    assert run.scalars["loss/auto"] == [(k + 1, float(np.float32(v))) for k, v in enumerate(losses)]
    assert [s for s, _ in run.scalars["logits_mean"]] == list(range(1, 9))  # ScalarSummary in construct
    assert run.scalars["learning_rate/auto"][0][1] == pytest.approx(0.01)
    plugins = run.plugins()
    assert plugins["histogram"] == sorted(["conv1.weight/auto", "conv2.weight/auto", "fc1.weight/auto",
                                           "fc1.bias/auto", "fc2.weight/auto", "logits"])  # first five params
    assert set(plugins["image"]) == {"input", "input_data/auto"}
    convs = [n for n in run.graph.node if n.op_type == "Conv2D"]
    assert [n.scope for n in convs] == [f"Default/network-WithLossCell/_backbone-SummaryLeNet/{c}-Conv2d"
                                        for c in ("conv1", "conv2")]
    stack = {a.name: a.value for a in convs[0].attribute}["code_stack"]
    assert stack.values[0].str_val.endswith(f"nets.py:{summary_runs.nets.CONV1_LINE}")
    lineage = run.lineage
    assert lineage["optimizer"] == "Momentum" and lineage["epoch"] == 2 and lineage["batch_size"] == 8
    assert lineage["loss"] == pytest.approx(losses[-1]) and lineage["network"] == "SummaryLeNet"
    assert lineage["user_defined"] == {"note": "first", "layers": 5}
    assert lineage["dataset_graph"]["op_type"] == "BatchDataset"


def test_collect_freq_and_specified_data(tmp_path):
    losses = summary_runs.train_lenet(str(tmp_path / "r"), epochs=1, collect_freq=3,
                                      collect_specified_data={"collect_graph": False, "histogram_regular": "fc2"},
                                      keep_default_action=True)
    run = SummaryIndex(str(tmp_path)).run("./r")
    assert [s for s, _ in run.scalars["loss/auto"]] == [1, 3]  # the first step, then every third
    assert run.scalars["loss/auto"][1][1] == pytest.approx(losses[2])
    assert run.graph is None
    assert sorted(t for t in run.histograms if t.endswith("/auto")) == ["fc2.bias/auto", "fc2.weight/auto"]


def test_collector_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="greater than 0"):
        ms.SummaryCollector(str(tmp_path), collect_freq=0)
    with pytest.raises(ValueError, match="not supported"):
        ms.SummaryCollector(str(tmp_path), collect_specified_data={"collect_everything": True})
    with pytest.raises(ValueError, match="regular expression"):
        ms.SummaryCollector(str(tmp_path), collect_specified_data={"histogram_regular": "("})
    with pytest.raises(TypeError, match="int, float or str"):
        ms.SummaryCollector(str(tmp_path), custom_lineage_data={"k": [1]})
    only = ms.SummaryCollector(str(tmp_path), collect_specified_data={"collect_metric": True},
                               keep_default_action=False)
    assert only.collect_specified_data["collect_metric"] and not only.collect_specified_data["collect_graph"]


def test_reader_tails_new_records_and_refuses_escaping_ids(tmp_path):
    base = tmp_path / "base"
    (tmp_path / "outside").mkdir()
    with ms.SummaryRecord(str(base / "live")) as rec:
        rec.add_value("scalar", "loss", ms.Tensor(np.float32(1.0)))
        rec.record(1)
        rec.flush()
        index = SummaryIndex(str(base))
        run = index.run("./live")
        assert run.scalars["loss"] == [(1, 1.0)]
        version = run.version
        rec.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
        rec.record(2)
        rec.flush()
        assert run.reload() and run.version == version + 1
        assert run.scalars["loss"] == [(1, 1.0), (2, 0.5)]
        assert not run.reload()  # nothing new: nothing re-read
    # a record cut in the middle (a writer caught mid-write) is left for the next reload
    path = os.path.join(base, "live", [n for n in os.listdir(base / "live") if n.endswith("_MS")][0])
    os.chmod(path, 0o600)
    from openspore.train.summary import summary_pb2
    from openspore.train.summary._records import frame
    event = summary_pb2.Event(wall_time=1.0, step=3)
    event.summary.value.add(tag="loss", scalar_value=0.25)
    record = frame(event.SerializeToString())
    with open(path, "ab") as f:
        f.write(record[:10])
    assert not run.reload()
    with open(path, "ab") as f:
        f.write(record[10:])
    assert run.reload() and run.scalars["loss"][-1] == (3, 0.25)
    os.symlink(str(tmp_path / "outside"), str(base / "link"))
    for bad in ("../outside", "./../outside", str(tmp_path / "outside"), "./live/../../outside", "./link", "",
                "./a/b"):
        with pytest.raises(InvalidTrainId):
            index.run(bad)
    with pytest.raises(KeyError):
        index.run("./missing")
    assert [r.train_id for r in index.runs()] == ["./live"]


def test_eval_lineage_from_model_eval(tmp_path):
    from openspore import nn
    net = summary_runs.SummaryLeNet()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     metrics={"acc": nn.Accuracy()})
    collector = ms.SummaryCollector(str(tmp_path / "ev"))
    result = model.eval(summary_runs.dataset(), callbacks=[collector])
    collector.__exit__(None, None, None)
    lineage = SummaryIndex(str(tmp_path)).run("./ev").lineage
    assert lineage["metric"] == {"acc": pytest.approx(result["acc"])}
    assert lineage["test_dataset_count"] == 32


class _TensorLeNet(summary_runs.SummaryLeNet):
    """SummaryLeNet that also records its logits with TensorSummary."""

    def __init__(self):
        super().__init__()
        self.tensor_summary = ms.ops.TensorSummary()

    def construct(self, x):
        out = super().construct(x)
        self.tensor_summary("logits_tensor", out)
        return out


@pytest.mark.parametrize("tensor_freq, steps", [(3, [1, 3, 6]), (None, list(range(1, 9)))])
def test_collect_tensor_freq_thins_tensor_summaries_only(tmp_path, tensor_freq, steps):
    # 2 epochs x 4 steps, collect_freq=1; by default tensors follow ceil(8 / 20) = 1 (never above collect_freq)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    summary_runs.train_lenet(str(tmp_path / "t"), network=_TensorLeNet(), collect_tensor_freq=tensor_freq)
    run = SummaryIndex(str(tmp_path)).run("./t")
    assert [item["step"] for item in run.tensors["logits_tensor"]] == steps
    assert [s for s, _ in run.scalars["loss/auto"]] == list(range(1, 9))  # the other summaries are untouched


class _StopTheWriter(ms.Callback):
    """Stops the collector's writer process (SIGSTOP) after the first step and lets it go (SIGCONT) when leaving
    Model.train, before the collector closes (callbacks are left in reverse order); a watchdog lets it go after
    60 s, should training wait for the writer."""

    def __init__(self, collector):
        super().__init__()
        self.collector, self.writer, self.epochs_ended, self.watchdog_fired = collector, None, 0, False
        self._watchdog = None

    def on_train_step_end(self, run_context):
        if self.writer is None:
            self.writer = self.collector._record._summary.writer_process()
            os.kill(self.writer.pid, signal.SIGSTOP)
            self._watchdog = threading.Timer(60, self._let_go, args=(True,))
            self._watchdog.start()

    def on_train_epoch_end(self, run_context):
        self.epochs_ended += 1

    def _let_go(self, fired=False):
        self.watchdog_fired = self.watchdog_fired or fired
        os.kill(self.writer.pid, signal.SIGCONT)

    def __exit__(self, *err):
        self._watchdog.cancel()
        self._let_go()


def test_training_does_not_wait_for_the_writer_until_close(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENSPORE_SUMMARY_WRITER", "process")
    ms.set_seed(1)
    net = summary_runs.SummaryLeNet()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.01, 0.9))
    collector = ms.SummaryCollector(str(tmp_path / "r"), collect_freq=1)
    stopper, log = _StopTheWriter(collector), summary_runs.LossLog()
    model.train(2, summary_runs.dataset(), callbacks=[collector, stopper, log])
    # both epoch ends (and the run's end) passed while the writer was stopped; close() then waited for all of it
    assert stopper.epochs_ended == 2 and not stopper.watchdog_fired
    run = SummaryIndex(str(tmp_path)).run("./r")
    assert run.scalars["loss/auto"] == [(k + 1, float(np.float32(v))) for k, v in enumerate(log.losses)]
    assert run.lineage["epoch"] == 2


def test_histogram_host_views_follow_in_place_updates_and_replaced_buffers():
    from openspore.train.callback._summary_collector import _HostView
    ms.set_context(mode=ms.PYNATIVE_MODE)
    p = ms.Parameter(ms.Tensor(np.zeros(4, np.float32)), name="w")
    view = _HostView(p, "w/auto")
    assert view.host().tolist() == [0.0] * 4
    ms.ops.assign(p, ms.Tensor(np.ones(4, np.float32)))  # in place, as optimizers update
    assert view.host().tolist() == [1.0] * 4
    before = p.data_ref()
    p.set_data(ms.Tensor(np.full(4, 2.0, np.float32)))  # a new buffer: converted again
    assert p.data_ref() is not before and view.host().tolist() == [2.0] * 4
