"""TrainCfg optimization levels O2/O3 (amp.py): float16 compute with float32 master weights, loss and (O2) BatchNorm,
static and dynamic loss scaling, float16 activations in the training arena."""
import os

import numpy as np
import pytest

from openspore import lite as mslite
from openspore.lite.types import OptimizationLevel
from tests.lite.helpers import export_lenet_train
from tests.lite.test_virtual_batch_bn import BNNet  # noqa: F401  (the BatchNorm training step below)


@pytest.fixture(scope="module")
def lenet_program(tmp_path_factory):
    from openspore.lite.converter import convert_program
    from tests.conftest import FIXTURES
    if not os.path.isdir(FIXTURES):
        pytest.skip(f"MindSpore fixtures not found at {FIXTURES}")
    mindir = export_lenet_train(FIXTURES, str(tmp_path_factory.mktemp("amp") / "lenet_train"))
    return convert_program(mindir, "MINDIR", train=True)


def _model(program, level, **mix):
    cfg = mslite.TrainCfg(optimization_level=level)
    for k, v in mix.items():
        setattr(cfg.mix_precision_cfg, k, v)
    model = mslite.Model()
    model.build_from_program(program, train_cfg=cfg)
    return model


def _steps(model, x, y, n):
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    inputs[1].set_data_from_numpy(y)
    return [float(model.run_step(inputs).get_data_to_numpy()) for _ in range(n)]


def _data(fixtures_dir):
    return (np.load(os.path.join(fixtures_dir, "lenet5_train_x.npy")),
            np.load(os.path.join(fixtures_dir, "lenet5_train_y.npy")))


@pytest.mark.parametrize("level", [OptimizationLevel.O2, OptimizationLevel.O3])
def test_float16_training_follows_mindspore_fp32_trajectory(lenet_program, fixtures_dir, level):
    x, y = _data(fixtures_dir)
    full = _model(lenet_program, OptimizationLevel.O0)
    half = _model(lenet_program, level)
    losses = _steps(half, x, y, 5)
    # float16 rounding of activations and gradients, not another trajectory
    np.testing.assert_allclose(losses, np.load(os.path.join(fixtures_dir, "lenet5_train_losses.npy")), atol=2e-3)
    first = _model(lenet_program, level)
    assert _steps(full, x, y, 1)[0] == pytest.approx(_steps(first, x, y, 1)[0], abs=1e-3)
    # the master weights stay float32; the gradients reach the optimizer unscaled, in float32
    grads = {g.name: g.get_data_to_numpy() for g in first.get_gradients()}
    ref = {g.name: g.get_data_to_numpy() for g in full.get_gradients()}
    for name, g in grads.items():
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, ref[name], atol=2e-2 * np.abs(ref[name]).max() + 1e-6)
    assert all(p.get_data_to_numpy().dtype == np.float32 for p in half.get_trainable_params())
    # activations are float16 in the training arena: about half the bytes of float32
    tr = half._train
    assert {v.dtype for v in tr.step.arena.values()} >= {np.dtype(np.float16)}
    assert half.memory_plan().peak_bytes < 0.6 * full.memory_plan().peak_bytes


def test_overflow_skips_the_update_and_dynamic_scale_halves(lenet_program, fixtures_dir):
    x, y = _data(fixtures_dir)
    model = _model(lenet_program, OptimizationLevel.O2, loss_scale=2.0 ** 20, dynamic_loss_scale=True)
    before = {p.name: p.get_data_to_numpy() for p in model.get_trainable_params()}
    _steps(model, x, y, 1)  # the seed 2**20 is inf in float16: every gradient overflows
    after = {p.name: p.get_data_to_numpy() for p in model.get_trainable_params()}
    for name in before:
        np.testing.assert_array_equal(after[name], before[name])
    amp = model._train.amp
    assert amp.scale == 2.0 ** 19 and amp.skipped == 1
    _steps(model, x, y, 5)  # 2**19 … 2**16 overflow too; 2**15 fits
    assert amp.scale == 2.0 ** 15 and amp.skipped == 5
    moved = {p.name: p.get_data_to_numpy() for p in model.get_trainable_params()}
    assert any(not np.array_equal(moved[n], before[n]) for n in before)


def test_static_scale_stays_and_dynamic_scale_grows_after_clean_steps(lenet_program, fixtures_dir):
    x, y = _data(fixtures_dir)
    static = _model(lenet_program, OptimizationLevel.O2)
    _steps(static, x, y, 3)
    assert static._train.amp.scale == 128.0
    dynamic = _model(lenet_program, OptimizationLevel.O2, dynamic_loss_scale=True, num_of_not_nan_iter_th=2)
    _steps(dynamic, x, y, 4)
    assert dynamic._train.amp.scale == 512.0 and dynamic._train.amp.skipped == 0
    with pytest.raises(ValueError, match="loss_scale"):
        _model(lenet_program, OptimizationLevel.O2, loss_scale=0.0)


def test_o2_keeps_batchnorm_float32_o3_does_not():
    from tests.lite.test_virtual_batch_bn import _model as bn_model
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((8, 3, 4, 4)) + 1).astype(np.float32)
    y = rng.integers(0, 5, 8).astype(np.int32)
    program = bn_model(x, y)._train.program
    kinds = {}
    for level in (OptimizationLevel.O2, OptimizationLevel.O3):
        model = _model(program, level)
        tr = model._train
        kinds[level] = {op.type for op in tr.step_block.ops if id(op) in tr.amp.fp32_ops}
        losses = _steps(model, x, y, 3)
        assert np.all(np.isfinite(losses))
        maps = {t.name: t.get_data_to_numpy() for t in model.get_feature_maps()}
        assert maps["bn.moving_mean"].dtype == np.float32 and np.all(maps["bn.moving_mean"] != 0)
    assert {"BatchNorm", "BatchNormGrad"} <= kinds[OptimizationLevel.O2]
    assert not {"BatchNorm", "BatchNormGrad"} & kinds[OptimizationLevel.O3]
