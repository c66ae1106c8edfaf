"""Model.train / eval / predict / fit on small synthetic data with real layers, losses and optimizers."""
import numpy as np
import pytest

import openspore as ms
import openspore.dataset as ds
from openspore import nn
from openspore.train import (Model, LossMonitor, LambdaCallback, Callback, History, FixedLossScaleManager,
                             DynamicLossScaleManager)


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] - x[:, 2] > 0).astype(np.int32)
    return x, y


def _dataset(x, y, batch=16):
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def _net():
    return nn.SequentialCell([nn.Dense(4, 16), nn.ReLU(), nn.Dense(16, 2)])


def _loss():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def _model(net=None, metrics=None, **kwargs):
    net = net or _net()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return Model(net, _loss(), opt, metrics=metrics, **kwargs), net, opt


def test_train_learns_and_eval_reports_accuracy():
    x, y = _data()
    model, _, _ = _model(metrics={"acc"})
    before = model.eval(_dataset(x, y))["acc"]
    history = History()
    model.train(8, _dataset(x, y), callbacks=[history])
    after = model.eval(_dataset(x, y))
    assert set(after) == {"acc"} and isinstance(after["acc"], float)
    assert after["acc"] >= 0.9 and after["acc"] > before
    losses = history.history["net_output"]
    assert len(losses) == 8 and losses[-1] < losses[0] / 2


def test_eval_matches_hand_computed_metrics():
    x, y = _data(40)
    model, net, _ = _model(metrics={"acc", "loss"})
    model.train(1, _dataset(x, y, 8))
    net.set_train(False)
    logits = net(ms.Tensor(x)).asnumpy().astype(np.float64)
    # accuracy over all samples; Loss averages the per-batch mean cross entropies
    acc = float((logits.argmax(1) == y).mean())
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    ce = -logp[np.arange(len(y)), y]
    batch_means = [ce[i:i + 8].mean() for i in range(0, 40, 8)]
    result = model.eval(_dataset(x, y, 8))
    assert result["acc"] == pytest.approx(acc)
    assert result["loss"] == pytest.approx(np.mean(batch_means), rel=1e-5)


def test_predict_runs_the_network_in_inference_mode():
    x, _ = _data(8)
    model, net, _ = _model()
    net.set_train(True)
    out = model.predict(ms.Tensor(x))
    assert net.training is False
    np.testing.assert_allclose(out.asnumpy(), net(ms.Tensor(x)).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(model.predict(x).asnumpy(), out.asnumpy(), rtol=1e-6)


def test_fit_prints_eval_results_every_valid_frequency(capsys):
    x, y = _data(32)
    model, _, _ = _model(metrics={"acc"})
    model.fit(4, _dataset(x, y), _dataset(x, y), valid_frequency=2, callbacks=[LossMonitor(100)])
    lines = [l for l in capsys.readouterr().out.splitlines() if l.startswith("Eval result")]
    assert [l.split(",")[0] for l in lines] == ["Eval result: epoch 2", "Eval result: epoch 4"]
    assert "metrics: {'acc': " in lines[0]


def test_fit_exposes_eval_results_with_eval_loss():
    x, y = _data(32)
    model, _, _ = _model(metrics={"acc"})
    seen = {}

    def grab(ctx):
        cb = ctx.original_args()
        seen[cb.cur_epoch_num] = (dict(cb.metrics or {}), dict(cb.eval_results))

    model.fit(2, _dataset(x, y), _dataset(x, y), valid_frequency=[1],
              callbacks=[LambdaCallback(on_train_epoch_end=grab)])
    metrics, results = seen[1]
    assert set(metrics) == {"acc"} and set(results) == {"acc", "eval_loss"}
    assert results["eval_loss"] > 0
    assert seen[2] == ({}, {})  # no evaluation at epoch 2


def test_cb_params_fields_and_step_counting():
    x, y = _data(48)
    model, _, opt = _model()
    steps = []

    def record(ctx):
        cb = ctx.original_args()
        steps.append((cb.cur_epoch_num, cb.cur_step_num, cb.batch_num, cb.epoch_num))
        assert cb.train_network is model.train_network and cb.optimizer is opt
        assert isinstance(cb.net_outputs, ms.Tensor) and cb.net_outputs.shape == ()
        assert cb.mode == "train" and len(cb.train_dataset_element) == 2

    model.train(2, _dataset(x, y), callbacks=LambdaCallback(on_train_step_end=record))
    assert steps == [(1, 1, 3, 2), (1, 2, 3, 2), (1, 3, 3, 2), (2, 4, 3, 2), (2, 5, 3, 2), (2, 6, 3, 2)]


def test_request_stop_ends_training_after_that_step():
    x, y = _data(48)
    model, _, _ = _model()
    events = []

    class Stop(Callback):
        def on_train_step_end(self, run_context):
            events.append(run_context.original_args().cur_step_num)
            if run_context.original_args().cur_step_num == 4:
                run_context.request_stop()

        def on_train_end(self, run_context):
            events.append("end")

    model.train(5, _dataset(x, y), callbacks=[Stop()])
    assert events == [1, 2, 3, 4, "end"]


def test_sink_mode_emulated_with_sink_size_and_initial_epoch():
    x, y = _data(64)  # 4 batches per pass
    model, _, _ = _model()
    steps = []
    cb = LambdaCallback(on_train_step_end=lambda c: steps.append((c.original_args().cur_epoch_num,
                                                                   c.original_args().cur_step_num,
                                                                   c.original_args().batch_num)))
    model.train(3, _dataset(x, y), callbacks=[cb], dataset_sink_mode=True, sink_size=3)
    assert [s[:2] for s in steps] == [(1, 1), (1, 2), (1, 3), (2, 4), (2, 5), (2, 6), (3, 7), (3, 8), (3, 9)]
    assert {s[2] for s in steps} == {3}
    steps.clear()
    model.train(3, _dataset(x, y), callbacks=[cb], initial_epoch=1)
    assert steps[0] == (2, 1, 4) and steps[-1] == (3, 8, 4)  # steps count from 1 in each call, as in MindSpore 2.10


def test_custom_train_network_and_eval_network_with_indexes():
    x, y = _data(32)
    net = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, _loss()), opt)
    eval_net = nn.WithEvalCell(net, _loss())
    model = Model(train_net, eval_network=eval_net, eval_indexes=[0, 1, 2], metrics={"acc", "loss"})
    assert model.train_network is train_net
    model.train(2, _dataset(x, y))
    result = model.eval(_dataset(x, y))
    assert set(result) == {"acc", "loss"} and 0 <= result["acc"] <= 1


def test_model_argument_errors():
    net = _net()
    with pytest.raises(ValueError, match="Auto mixed precision will not work because 'optimizer' is None"):
        Model(net, _loss(), amp_level="O2")
    with pytest.raises(ValueError, match="`eval_network` must not be None"):
        Model(net, metrics={"acc"})
    with pytest.raises(ValueError, match="'eval_indexes'"):
        Model(net, eval_network=nn.WithEvalCell(net, _loss()), eval_indexes=[0, 1], metrics={"acc"})
    with pytest.raises(ValueError, match="not supported"):
        Model(net, _loss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), loss_scale=3)
    model, _, _ = _model()
    with pytest.raises(ValueError, match="'metrics' can not be None or empty"):
        model.eval(_dataset(*_data(16)))
    with pytest.raises(TypeError, match="must be a Dataset"):
        model.train(1, [(1, 2)])
    with pytest.raises(ValueError, match="'epoch' must be a positive int"):
        model.train(0, _dataset(*_data(16)))
    with pytest.raises(ValueError, match="'initial_epoch' must be less than 'epoch'"):
        model.train(2, _dataset(*_data(16)), initial_epoch=2)
    with pytest.raises(TypeError, match="'callbacks' should be a Callback"):
        model.train(1, _dataset(*_data(16)), callbacks=[print])


def test_fit_rejects_legacy_callbacks_with_validation():
    class Legacy(Callback):
        def step_end(self, run_context):
            pass

    x, y = _data(16)
    model, _, _ = _model(metrics={"acc"})
    with pytest.raises(ValueError, match="overrides \\['step_end'\\]"):
        model.fit(1, _dataset(x, y), _dataset(x, y), callbacks=[Legacy()])
    model.train(1, _dataset(x, y), callbacks=[Legacy()])  # fine without evaluation


def test_o2_trains_with_dynamic_loss_scale():
    x, y = _data(64)
    y = np.eye(2, dtype=np.float32)[y]  # one-hot labels (dense cross entropy)
    net = nn.SequentialCell([nn.Dense(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dense(16, 2)])
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    lsm = DynamicLossScaleManager(init_loss_scale=2 ** 20, scale_factor=2, scale_window=1000)
    loss = nn.SoftmaxCrossEntropyWithLogits(reduction="mean")
    model = Model(net, loss, opt, metrics={"acc"}, amp_level="O2", loss_scale_manager=lsm)
    assert type(model.train_network).__name__ == "TrainOneStepWithLossScaleCell"
    history = History()
    model.train(6, _dataset(x, y), callbacks=[history])
    # float16 gradients of a 2**20-scaled loss overflow: the manager lowered the scale in step with the cell
    assert lsm.get_loss_scale() < 2 ** 20
    assert float(model.train_network.scale_sense.asnumpy()) == lsm.get_loss_scale()
    assert all(p.dtype == ms.float32 for p in net.trainable_params())
    assert history.history["net_output"][-1] < history.history["net_output"][0]
    assert model.eval(_dataset(x, y))["acc"] > 0.8


def test_fixed_loss_scale_without_drop_matches_unscaled_training():
    x, y = _data(16)
    results = []
    for lsm, scale in ((None, 1.0), (FixedLossScaleManager(128.0, drop_overflow_update=False), 128.0)):
        ms.set_seed(3)
        net = _net()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=scale)
        kwargs = {} if lsm is None else {"loss_scale_manager": lsm}
        model = Model(net, _loss(), opt, **kwargs)
        assert type(model.train_network).__name__ == "TrainOneStepCell"
        model.train(1, _dataset(x, y, 8))
        results.append([p.asnumpy().copy() for p in net.trainable_params()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_graph_mode_script_runs():
    ms.set_context(mode=ms.GRAPH_MODE)
    x, y = _data(32)
    model, _, _ = _model(metrics={"acc"})
    model.train(1, _dataset(x, y))
    assert 0 <= model.eval(_dataset(x, y))["acc"] <= 1


def test_public_paths():
    import openspore.train.model as legacy_model
    from openspore.train.callback import LossMonitor as LM
    from openspore.train.loss_scale_manager import DynamicLossScaleManager as D
    assert ms.Model is Model and ms.train.Model is Model and legacy_model.Model is Model
    assert LM is LossMonitor and ms.amp.DynamicLossScaleManager is D is DynamicLossScaleManager
