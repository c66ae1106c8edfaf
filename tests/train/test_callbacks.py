"""Callbacks checked against values known by construction.

Most tests train a "network" whose output is a known number per step (the sum of its batch, or the next value
of a prescribed sequence), so printed losses, saved files and stopping epochs can be worked out by hand.
"""
import io
import os
import re

import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore import nn, ops
from openspore.train import (Model, Callback, RunContext, CallbackList, LossMonitor, TimeMonitor, ModelCheckpoint,
                             CheckpointConfig, EarlyStopping, ReduceLROnPlateau, LambdaCallback, History,
                             LearningRateScheduler, ProgressBar, load_checkpoint)


class SumNet(nn.Cell):
    """'Train network' returning the sum of its batch: batch k of arange(n) gives a known loss."""

    def construct(self, x):
        return x.sum()


class Sequence(nn.Cell):
    """Returns values[i] on the i-th call (a loss trajectory chosen by the test)."""

    def __init__(self, values):
        super().__init__()
        self.values = list(values)
        self.calls = 0

    def construct(self, x):
        value = self.values[min(self.calls, len(self.values) - 1)]
        self.calls += 1
        return ms.Tensor(np.float32(value))


def _numbers(n, batch):
    return ds.NumpySlicesDataset({"x": np.arange(n, dtype=np.float32)}, shuffle=False).batch(batch)


def _xy(n=24, batch=8):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def _trained_model(lr=0.05):
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt), net, opt


def test_loss_monitor_prints_mindspore_format(capsys):
    # arange(6) in batches of 2: sums 1, 5, 9 per epoch
    Model(SumNet()).train(2, _numbers(6, 2), callbacks=[LossMonitor()])
    assert capsys.readouterr().out.splitlines() == [
        "epoch: 1 step: 1, loss is 1.0", "epoch: 1 step: 2, loss is 5.0", "epoch: 1 step: 3, loss is 9.0",
        "epoch: 2 step: 1, loss is 1.0", "epoch: 2 step: 2, loss is 5.0", "epoch: 2 step: 3, loss is 9.0"]


def test_loss_monitor_per_print_times_counts_global_steps(capsys):
    Model(SumNet()).train(2, _numbers(6, 2), callbacks=[LossMonitor(per_print_times=2)])
    assert capsys.readouterr().out.splitlines() == [
        "epoch: 1 step: 2, loss is 5.0", "epoch: 2 step: 1, loss is 1.0", "epoch: 2 step: 3, loss is 9.0"]


def test_loss_monitor_stops_on_nan():
    with pytest.raises(ValueError, match="epoch: 1 step: 2. Invalid loss, terminating training."):
        Model(Sequence([1.0, float("nan")])).train(1, _numbers(4, 2), callbacks=[LossMonitor()])
    with pytest.raises(ValueError):
        LossMonitor(-1)


def test_time_monitor_format(capsys):
    Model(SumNet()).train(2, _numbers(6, 2), callbacks=[TimeMonitor(data_time=True)])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    pattern = r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms, avg data load time: \d+\.\d{3} ms"
    assert all(re.fullmatch(pattern, line) for line in lines)
    epoch_ms, step_ms = map(float, re.findall(r"(\d+\.\d{3}) ms", lines[0])[:2])
    assert step_ms == pytest.approx(epoch_ms / 3, abs=1e-3)


def test_model_checkpoint_names_keep_max_and_optimizer_state(tmp_path):
    model, net, _ = _trained_model()
    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
    ckpt = ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)
    model.train(2, _xy(), callbacks=[ckpt])  # 3 steps per epoch: saves at global steps 2, 4, 6
    assert sorted(os.listdir(tmp_path)) == ["net-2_1.ckpt", "net-2_3.ckpt"]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-2_3.ckpt")
    saved = load_checkpoint(ckpt.latest_ckpt_file_name)
    assert {"weight", "bias", "moments.weight", "moments.bias", "global_step", "learning_rate"} <= set(saved)
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    assert int(saved["global_step"].asnumpy().reshape(-1)[0]) == 6
    # a second run with the same prefix does not overwrite: it becomes net_1, then net_2
    model.train(1, _xy(), callbacks=[ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)])
    model.train(1, _xy(), callbacks=[ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)])
    names = sorted(os.listdir(tmp_path))
    assert "net_1-1_2.ckpt" in names and "net_1-1_3.ckpt" in names and "net_2-1_3.ckpt" in names
    assert not any(n.endswith(".tmp") for n in names)


def test_model_checkpoint_last_save_at_end_saved_network_and_append_info(tmp_path):
    model, net, _ = _trained_model()
    config = CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=10, saved_network=net,
                              append_info=["epoch_num", "step_num", {"lr": 0.05}])
    model.train(2, _xy(), callbacks=[ModelCheckpoint(directory=str(tmp_path), config=config)])
    # step 4 (epoch 2, step 1) by the policy, step 6 at the end of training
    assert sorted(os.listdir(tmp_path)) == ["CKP-2_1.ckpt", "CKP-2_3.ckpt"]
    saved = load_checkpoint(str(tmp_path / "CKP-2_3.ckpt"))
    assert set(saved) == {"weight", "bias", "epoch_num", "step_num", "lr"}
    assert int(saved["epoch_num"].asnumpy()) == 2 and int(saved["step_num"].asnumpy()) == 6
    assert float(saved["lr"].asnumpy()) == pytest.approx(0.05)


def test_checkpoint_config_checks():
    with pytest.raises(ValueError, match="can't be all None or 0"):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0, keep_checkpoint_max=0)
    cfg = CheckpointConfig(save_checkpoint_steps=5, save_checkpoint_seconds=10, keep_checkpoint_per_n_minutes=3)
    assert cfg.save_checkpoint_seconds is None and cfg.keep_checkpoint_per_n_minutes is None
    assert cfg.keep_checkpoint_max == 5
    with pytest.raises(TypeError, match="'saved_network'"):
        CheckpointConfig(saved_network="net")
    with pytest.raises(TypeError, match="'config'"):
        ModelCheckpoint(config={})
    with pytest.raises(ValueError, match="'prefix'"):
        ModelCheckpoint(prefix="a/b")


class _Inject(Callback):
    """Plays the role of Model.fit's evaluation: sets eval_results[key] from a sequence, epoch by epoch."""

    def __init__(self, key, values):
        super().__init__()
        self.key, self.values = key, values

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        cb.eval_results = {self.key: self.values[cb.cur_epoch_num - 1]}


def _epochs_run(callbacks, epochs=10, network=None):
    history = History()
    Model(network or SumNet()).train(epochs, _numbers(4, 2), callbacks=callbacks + [history])
    return history.epoch["epoch"]


def test_early_stopping_on_training_loss():
    # the last loss of each epoch (2 steps per epoch) is what counts: 5, 4, 4.5, 4.2 → best 4 at epoch 2
    net = Sequence([9, 5, 9, 4, 9, 4.5, 9, 4.2, 9, 1])
    stop = EarlyStopping(monitor="loss", patience=2)
    assert _epochs_run([stop], network=net) == [1, 2, 3, 4]
    assert stop.stopped_epoch == 4 and stop.best == 4


def test_early_stopping_patience_zero_min_delta_and_mode():
    acc = [0.5, 0.6, 0.65, 0.66, 0.9, 0.95]
    stop = EarlyStopping(monitor="acc", patience=0, min_delta=0.02)  # 'auto' → max for accuracy
    assert _epochs_run([_Inject("acc", acc), stop]) == [1, 2, 3, 4]
    assert stop.stopped_epoch == 4 and stop.best == 0.65
    loss = [1.0, 0.9, 0.95, 0.8, 0.85, 0.86, 0.87]
    stop = EarlyStopping(monitor="eval_loss", patience=2, mode="min")
    assert _epochs_run([_Inject("eval_loss", loss), stop]) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="'mode'"):
        EarlyStopping(mode="up")


def test_early_stopping_baseline_keeps_counting():
    # improving on the best but not on the baseline does not reset the wait: stops one epoch earlier
    loss = [0.9, 0.8, 0.85, 0.9, 0.95]
    assert _epochs_run([_Inject("eval_loss", loss), EarlyStopping(patience=2)]) == [1, 2, 3, 4]
    assert _epochs_run([_Inject("eval_loss", loss), EarlyStopping(patience=2, baseline=0.5)]) == [1, 2, 3]


def test_early_stopping_restores_best_weights():
    model, net, _ = _trained_model(lr=0.1)
    weights = {}

    class Snapshot(Callback):
        def on_train_epoch_end(self, run_context):
            weights[run_context.original_args().cur_epoch_num] = net.weight.asnumpy().copy()

    stop = EarlyStopping(monitor="eval_loss", patience=1, restore_best_weights=True)
    model.train(10, _xy(), callbacks=[_Inject("eval_loss", [3.0, 1.0, 2.0, 2.5, 0.1]), Snapshot(), stop])
    assert stop.stopped_epoch == 3 and sorted(weights) == [1, 2, 3]
    np.testing.assert_array_equal(net.weight.asnumpy(), weights[2])
    assert not np.array_equal(weights[2], weights[3])


def test_reduce_lr_on_plateau_changes_the_learning_rate_parameter():
    model, _, opt = _trained_model(lr=0.08)
    lrs = []
    record = LambdaCallback(on_train_epoch_end=lambda c: lrs.append(float(opt.learning_rate.asnumpy())))
    # improvements at epochs 1, 2; stalls from 3 on: patience 2 → reduce after epoch 4; cooldown 2 resets the
    # wait at epochs 5 and 6, so the next reduction comes after epoch 7 (after epoch 6 without cooldown)
    loss = [1.0, 0.8, 0.8, 0.81, 0.9, 0.9, 0.9]
    reduce = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=2, cooldown=2)
    model.train(7, _xy(), callbacks=[_Inject("eval_loss", loss), reduce, record])
    np.testing.assert_allclose(lrs, [0.08, 0.08, 0.08, 0.04, 0.04, 0.04, 0.02], rtol=1e-6)
    model, _, opt = _trained_model(lr=0.08)
    lrs.clear()
    reduce = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=2, min_lr=0.03)
    model.train(7, _xy(), callbacks=[_Inject("eval_loss", loss), reduce, record])
    np.testing.assert_allclose(lrs, [0.08, 0.08, 0.08, 0.04, 0.04, 0.03, 0.03], rtol=1e-6)
    with pytest.raises(ValueError, match="'factor'"):
        ReduceLROnPlateau(factor=1.0)


def test_learning_rate_scheduler_halves_every_two_steps():
    model, _, opt = _trained_model(lr=0.1)
    sched = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr)
    model.train(2, _xy(), callbacks=[sched])  # 6 steps → halved at steps 2, 4, 6
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.1 / 8)


def test_history_records_last_loss_and_eval_results():
    history = History()
    Model(SumNet()).train(2, _numbers(6, 2), callbacks=[_Inject("acc", [0.5, 0.75]), history])
    assert history.epoch == {"epoch": [1, 2]}
    assert history.history == {"net_output": [9.0, 9.0], "acc": [0.5, 0.75]}


def test_lambda_callback_and_legacy_hooks_see_train_and_eval():
    events = []
    cb = LambdaCallback(on_train_begin=lambda c: events.append("train_begin"),
                        on_train_epoch_end=lambda c: events.append(("epoch", c.original_args().cur_epoch_num)),
                        on_train_end=lambda c: events.append("train_end"))
    Model(SumNet()).train(2, _numbers(4, 2), callbacks=cb)
    assert events == ["train_begin", ("epoch", 1), ("epoch", 2), "train_end"]

    class Legacy(Callback):
        def __init__(self):
            self.steps = []

        def step_end(self, run_context):
            cb_params = run_context.original_args()
            self.steps.append((cb_params.mode, cb_params.cur_step_num))

    net = nn.Dense(3, 2)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"acc"})
    legacy = Legacy()
    model.train(1, _xy(), callbacks=[legacy])
    model.eval(_xy(), callbacks=[legacy])
    assert legacy.steps == [("train", 1), ("train", 2), ("train", 3), ("eval", 1), ("eval", 2), ("eval", 3)]


def test_run_context_and_callback_list():
    ctx = RunContext({"a": 1})
    assert ctx.original_args().a == 1 and not ctx.get_stop_requested()
    ctx.request_stop()
    assert ctx.get_stop_requested()
    with pytest.raises(TypeError):
        RunContext([1])
    calls = []

    class A(Callback):
        def __enter__(self):
            calls.append("enter")
            return self

        def __exit__(self, *err):
            calls.append("exit")

        def on_train_begin(self, run_context):
            calls.append("begin")

    with CallbackList([A(), A()]) as cbs:
        cbs.on_train_begin(ctx)
    assert calls == ["enter", "enter", "begin", "begin", "exit", "exit"]
    with pytest.raises(TypeError, match="Callback"):
        CallbackList([object()])


def test_progress_bar_draws_and_erases():
    stream = io.StringIO()
    Model(SumNet()).train(1, _numbers(6, 2), callbacks=[ProgressBar(stream=stream, min_interval=0)])
    text = stream.getvalue()
    assert "[" in text and "3/3 epoch 1/1" in text and "loss 9.0000" in text
    assert text.endswith("\r\x1b[2K")  # erased at the end of the epoch, nothing left on the line


def test_no_progress_bar_when_not_a_terminal(capsys):
    Model(SumNet()).train(1, _numbers(4, 2))
    assert capsys.readouterr().out == ""


def test_progress_bar_added_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    Model(SumNet()).train(1, _numbers(4, 2), callbacks=[LossMonitor()])
    text = screen.getvalue()
    # each LossMonitor line starts on a cleared line: the bar never mixes into the printed text
    assert "\r\x1b[2Kepoch: 1 step: 2, loss is 5.0\n" in text
    assert "2/2 epoch 1/1" in text


def test_update_of_learning_rate_needs_a_fixed_lr():
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), [0.1, 0.05, 0.01], 0.9)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
    with pytest.raises(ValueError, match="one fixed value"):
        model.train(1, _xy(), callbacks=[LearningRateScheduler(lambda lr, step: lr)])


def test_ops_still_usable_in_callbacks():
    # a callback may run ops on the outputs (e.g. logging a norm) without disturbing training
    norms = []
    cb = LambdaCallback(on_train_step_end=lambda c: norms.append(float(ops.abs(c.original_args().net_outputs))))
    Model(SumNet()).train(1, _numbers(4, 2), callbacks=[cb])
    assert norms == [1.0, 5.0]
