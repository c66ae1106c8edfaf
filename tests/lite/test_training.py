"""On-device training reproduces MindSpore's LeNet5 trajectory from the exported, converted training step."""
import os

import numpy as np
import pytest

from openspore import lite as mslite
from tests.lite.helpers import converter_lite, export_lenet_train


@pytest.fixture(scope="module")
def train_ms(tmp_path_factory):
    from tests.conftest import FIXTURES
    if not os.path.isdir(FIXTURES):
        pytest.skip(f"MindSpore fixtures not found at {FIXTURES}")
    out = tmp_path_factory.mktemp("lite_train")
    mindir = export_lenet_train(FIXTURES, str(out / "lenet_train"))
    res = converter_lite("--fmk=MINDIR", "--trainModel=true", f"--modelFile={mindir}",
                         f"--outputFile={out / 'lenet_train'}")
    assert res.returncode == 0 and "CONVERT RESULT SUCCESS:0" in res.stdout, res.stderr
    return str(out / "lenet_train.ms")


def _build(path):
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE, mslite.Context(), train_cfg=mslite.TrainCfg())
    return model


def _data(fixtures_dir):
    return (np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")),
            np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")))


def _feed(model, x, y):
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    inputs[1].set_data_from_numpy(y)
    return inputs


def _trainable(model):
    return {t.name: t.get_data_to_numpy() for t in model.get_trainable_params()}


def test_five_steps_match_mindspore_losses(train_ms, fixtures_dir):
    model = _build(train_ms)
    x, y = _data(fixtures_dir)
    losses = [float(model.run_step(_feed(model, x, y)).get_data_to_numpy()) for _ in range(5)]
    np.testing.assert_allclose(losses, np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy")), atol=1e-4)
    import openspore as ms
    after = ms.load_checkpoint(os.path.join(fixtures_dir, "lenet5_after5.ckpt"))
    for name, value in _trainable(model).items():
        np.testing.assert_allclose(value, after[name].asnumpy(), atol=1e-5, err_msg=name)


def test_virtual_batch_of_quarters_equals_one_full_step(train_ms, fixtures_dir):
    x, y = _data(fixtures_dir)
    full = _build(train_ms)
    full.run_step(_feed(full, x, y))
    virtual = _build(train_ms)
    virtual.resize(virtual.get_inputs(), [[4, 1, 32, 32], [4]])
    virtual.setup_virtual_batch(4)
    assert virtual.get_learning_rate() == pytest.approx(0.05 / 4)
    for k in range(4):
        before = _trainable(virtual)
        virtual.run_step(_feed(virtual, x[4 * k:4 * k + 4], y[4 * k:4 * k + 4]))
        if k < 3:  # gradients accumulate; the weights move only on the 4th step
            for name, value in _trainable(virtual).items():
                np.testing.assert_array_equal(value, before[name])
    want, got = _trainable(full), _trainable(virtual)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-5, err_msg=name)


def test_memory_plan_reuses_memory_without_overlap(train_ms):
    plan = _build(train_ms).memory_plan()
    plan.check()
    assert plan.live_bytes <= plan.peak_bytes < plan.total_bytes


def test_gradients_learning_rate_and_apply(train_ms, fixtures_dir):
    x, y = _data(fixtures_dir)
    model = _build(train_ms)
    assert model.get_learning_rate() == pytest.approx(0.05)
    with pytest.raises(ValueError, match="learning rate"):
        model.set_learning_rate(-1.0)
    model.set_learning_rate(0.0)
    start = _trainable(model)
    model.run_step(_feed(model, x, y))
    for name, value in _trainable(model).items():
        np.testing.assert_array_equal(value, start[name])  # lr 0: the step moved nothing
    grads = model.get_gradients()
    assert sorted(g.name for g in grads) == sorted(start)
    fresh = _build(train_ms)  # (the lr-0 step above already moved `model`'s momentum buffers)
    fresh.apply_gradients(grads)
    reference = _build(train_ms)
    reference.run_step(_feed(reference, x, y))
    want = _trainable(reference)
    for name, value in _trainable(fresh).items():
        np.testing.assert_allclose(value, want[name], atol=1e-6, err_msg=name)
    with pytest.raises(ValueError, match="no trainable weight"):
        fresh.apply_gradients([mslite.Tensor(np.zeros(3, np.float32), name="nope")])


def test_eval_mode_train_loop_and_inference_export(train_ms, fixtures_dir, tmp_path):
    x, y = _data(fixtures_dir)
    model = _build(train_ms)
    monitor = mslite.LossMonitor(print_every=0)
    model.train(2, [(x, y)], [monitor, mslite.LRScheduler(mslite.StepLRLambda(1, 0.5))])
    assert len(monitor.losses) == 2 and monitor.losses[1] < monitor.losses[0]
    assert model.get_learning_rate() == pytest.approx(0.0125)
    metrics = model.evaluate([(x, y)], [mslite.AccuracyMetrics()])
    assert 0.0 <= metrics["AccuracyMetrics"] <= 1.0
    model.set_train(False)
    assert model.get_outputs()[0].shape == [16, 10]
    logits = model.predict(_feed(model, x, y))[0].get_data_to_numpy()
    np.testing.assert_array_equal(model.predict([mslite.Tensor(x)])[0].get_data_to_numpy(), logits)
    path = model.export(str(tmp_path / "lenet_infer"), export_inference_only=True)
    served = mslite.Model()
    served.build_from_file(path, mslite.ModelType.MINDIR_LITE)
    assert len(served.get_inputs()) == 1
    inputs = served.get_inputs()
    inputs[0].set_data_from_numpy(x)
    np.testing.assert_allclose(served.predict(inputs)[0].get_data_to_numpy(), logits, atol=1e-5)
    retrain = model.export(str(tmp_path / "lenet_more"), export_inference_only=False)
    again = _build(retrain)
    np.testing.assert_allclose(_trainable(again)["fc3.bias"], _trainable(model)["fc3.bias"])


def test_training_needs_a_training_model(fixtures_dir):
    model = mslite.Model()
    with pytest.raises(ValueError, match="trainModel"):
        model.build_from_file(os.path.join(fixtures_dir, "lenet5.mindir"), mslite.ModelType.MINDIR,
                              train_cfg=mslite.TrainCfg())
    model.build_from_file(os.path.join(fixtures_dir, "lenet5.mindir"), mslite.ModelType.MINDIR)
    with pytest.raises(RuntimeError, match="not built for training"):
        model.run_step()
