"""openspore.lite runs the MindSpore-made fixtures directly (.mindir) and after conversion (.ms)."""
import os

import numpy as np
import pytest

from openspore import lite as mslite
from tests.lite.helpers import MODELS, converter_lite


def _predict(model, x):
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    return model.predict(inputs)[0].get_data_to_numpy()


@pytest.mark.parametrize("name", MODELS)
def test_fixture_mindir_runs_directly(fixtures_dir, name):
    model = mslite.Model()
    model.build_from_file(os.path.join(fixtures_dir, f"{name}.mindir"), mslite.ModelType.MINDIR, mslite.Context())
    x = np.load(os.path.join(fixtures_dir, f"{name}_input0.npy"))
    expected = np.load(os.path.join(fixtures_dir, f"{name}_output.npy"))
    np.testing.assert_allclose(_predict(model, x), expected, rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_fixture_converted_to_ms_runs(fixtures_dir, name, tmp_path):
    res = converter_lite("--fmk=MINDIR", f"--modelFile={os.path.join(fixtures_dir, name + '.mindir')}",
                         f"--outputFile={tmp_path / name}")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith("CONVERT RESULT SUCCESS:0")
    model = mslite.Model()
    model.build_from_file(str(tmp_path / f"{name}.ms"), mslite.ModelType.MINDIR_LITE)
    x = np.load(os.path.join(fixtures_dir, f"{name}_input0.npy"))
    expected = np.load(os.path.join(fixtures_dir, f"{name}_output.npy"))
    np.testing.assert_allclose(_predict(model, x), expected, rtol=0, atol=1e-5)


def test_conversion_fuses_and_folds(fixtures_dir, tmp_path):
    from openspore.lite.converter import convert_program
    program = convert_program(os.path.join(fixtures_dir, "resblock.mindir"))
    types = [op.type for op in program.main.ops]
    assert "BatchNorm" not in types and "BiasAdd" not in types
    assert types.count("LiteConv2D") == 3 and types.count("LiteDense") == 1


def test_io_tensors_and_errors(fixtures_dir):
    model = mslite.Model()
    with pytest.raises(RuntimeError, match="not built"):
        model.get_inputs()
    model.build_from_file(os.path.join(fixtures_dir, "lenet5.mindir"), mslite.ModelType.MINDIR)
    (inp,) = model.get_inputs()
    assert inp.shape == [2, 1, 32, 32] and inp.dtype == mslite.DataType.FLOAT32
    assert model.get_outputs()[0].shape == [2, 10]
    with pytest.raises(TypeError, match="FLOAT32"):
        inp.set_data_from_numpy(np.zeros((2, 1, 32, 32), np.float64))
    with pytest.raises(ValueError, match="resize"):
        model.predict([mslite.Tensor(np.zeros((3, 1, 32, 32), np.float32))])
    with pytest.raises(FileNotFoundError):
        mslite.Model().build_from_file("/nonexistent/x.ms", mslite.ModelType.MINDIR_LITE)


def test_resize_changes_the_batch(fixtures_dir):
    model = mslite.Model()
    model.build_from_file(os.path.join(fixtures_dir, "lenet5.mindir"), mslite.ModelType.MINDIR)
    x = np.load(os.path.join(fixtures_dir, "lenet5_input0.npy"))
    expected = np.load(os.path.join(fixtures_dir, "lenet5_output.npy"))
    model.resize(model.get_inputs(), [[1, 1, 32, 32]])
    assert model.get_outputs()[0].shape == [1, 10]
    np.testing.assert_allclose(_predict(model, x[1:]), expected[1:], atol=1e-5)


def test_update_weights_by_name(fixtures_dir):
    model = mslite.Model()
    model.build_from_file(os.path.join(fixtures_dir, "mlp.mindir"), mslite.ModelType.MINDIR)
    names = {w.name: w for w in model.get_weights()}
    x = np.load(os.path.join(fixtures_dir, "mlp_input0.npy"))
    before = _predict(model, x)
    bias = [n for n in names if n.startswith("fc2") and names[n].shape == [5]][0]
    model.update_weights([[mslite.Tensor(names[bias].get_data_to_numpy() + 1.0, name=bias)]])
    np.testing.assert_allclose(_predict(model, x), before + 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="no weight named"):
        model.update_weights([mslite.Tensor(np.zeros(3, np.float32), name="nope")])


def test_model_parallel_runner(fixtures_dir, tmp_path):
    import threading
    runner = mslite.ModelParallelRunner()
    ctx = mslite.Context()
    ctx.parallel.workers_num = 3
    runner.build_from_file(os.path.join(fixtures_dir, "lenet5.mindir"), ctx)
    x = np.load(os.path.join(fixtures_dir, "lenet5_input0.npy"))
    expected = np.load(os.path.join(fixtures_dir, "lenet5_output.npy"))
    results, errors = [], []

    def call():
        try:
            ins = runner.get_inputs()
            results.append(runner.predict([mslite.Tensor(x)])[0].get_data_to_numpy())
            assert ins[0].shape == [2, 1, 32, 32]
        except Exception as exc:  # noqa: BLE001 - collected and reported by the assert below
            errors.append(exc)
    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 8 and runner.workers_num == 3
    for r in results:
        np.testing.assert_allclose(r, expected, atol=1e-5)


def test_predict_ignores_float_errors_and_keeps_the_callers_state(fixtures_dir):
    # a run computes IEEE results whatever the caller's numpy error state (Executable.run sets numpy's error-state
    # variable itself), and leaves that state as it was, also when a kernel fails
    model = mslite.Model()
    model.build_from_file(os.path.join(fixtures_dir, "lenet5.mindir"), mslite.ModelType.MINDIR, mslite.Context())
    x = np.load(os.path.join(fixtures_dir, "lenet5_input0.npy"))
    huge = np.full_like(x, 3e38)
    with np.errstate(all="raise"):
        with pytest.raises(FloatingPointError):  # what the program's code does without the run's error state
            model._exe.fn(huge)
        assert _predict(model, huge).shape == (2, 10)
        assert np.geterr() == {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"}
        with pytest.raises(mslite.executor.LiteRuntimeError, match="operator 'LiteConv2D'"):
            model._exe.run([huge[:, :, :5, :5]])  # a wrong shape fails inside a kernel, named
        assert np.geterr()["invalid"] == "raise"
    np.testing.assert_allclose(_predict(model, x), np.load(os.path.join(fixtures_dir, "lenet5_output.npy")),
                               rtol=0, atol=1e-5)
