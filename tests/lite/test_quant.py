"""Post-training quantization of a LeNet trained (by openspore.lite) on scikit-learn's digits."""
import os

import numpy as np
import pytest

from openspore import lite as mslite
from tests.lite.helpers import converter_lite, digits, train_digits_lenet

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    work = tmp_path_factory.mktemp("lite_quant")
    mindir, _ = train_digits_lenet(str(work))
    x_train, _, x_test, y_test = digits()
    calib = work / "calib"
    calib.mkdir()
    np.save(calib / "batch0.npy", x_train[:360])
    return work, mindir, x_test, y_test, str(calib)


def _accuracy(path, x, y):
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE)
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    return float((model.predict(inputs)[0].get_data_to_numpy().argmax(1) == y).mean()), model


def _convert(work, mindir, name, config_text):
    args = ["--fmk=MINDIR", f"--modelFile={mindir}", f"--outputFile={work / name}"]
    if config_text:
        cfg = work / f"{name}.cfg"
        cfg.write_text(config_text)
        args.append(f"--configFile={cfg}")
    res = converter_lite(*args)
    assert res.returncode == 0 and "CONVERT RESULT SUCCESS:0" in res.stdout, res.stderr
    return str(work / f"{name}.ms")


def test_weight_quant_is_small_and_accurate(trained):
    work, mindir, x, y, _ = trained
    fp32 = _convert(work, mindir, "fp32", "")
    int8 = _convert(work, mindir, "wq", "[common_quant_param]\nquant_type=WEIGHT_QUANT\nbit_num=8\n"
                                        "min_quant_weight_channel=0\n")
    base, _ = _accuracy(fp32, x, y)
    acc, _ = _accuracy(int8, x, y)
    assert base > 0.85, base
    assert os.path.getsize(int8) <= 0.3 * os.path.getsize(fp32)
    assert base - acc <= 0.005, (base, acc)


@pytest.mark.parametrize("method", ["MAX_MIN", "KL"])
def test_full_quant_runs_int8_kernels(trained, method):
    work, mindir, x, y, calib = trained
    fp32 = _convert(work, mindir, "fp32b", "")
    cfg = ("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\nmin_quant_weight_channel=0\n"
           f"[full_quant_param]\nactivation_quant_method={method}\nper_channel=true\n"
           f"[data_preprocess_param]\ncalibrate_path=x:{calib}\ncalibrate_size=1\ninput_type=BIN\n")
    path = _convert(work, mindir, f"fq_{method}", cfg)
    base, _ = _accuracy(fp32, x, y)
    acc, model = _accuracy(path, x, y)
    types = [op.type for op in model._program.main.ops]
    assert types.count("LiteQConv2D") == 2 and types.count("LiteQDense") == 3, types
    assert base - acc <= 0.01, (base, acc)


def test_dynamic_quant(trained):
    work, mindir, x, y, _ = trained
    base, _ = _accuracy(_convert(work, mindir, "fp32c", ""), x, y)
    path = _convert(work, mindir, "dq", "[common_quant_param]\nquant_type=DYNAMIC_QUANT\nbit_num=8\n"
                                        "min_quant_weight_channel=0\n")
    acc, model = _accuracy(path, x, y)
    assert any(op.type == "LiteQDense" and op.attrs.get("dynamic") for op in model._program.main.ops)
    assert base - acc <= 0.01, (base, acc)


def test_int8_dense_is_exact_integer_arithmetic():
    from openspore.lite.kernels import make
    from openspore.lite.kernels.quant import quantize_activation
    from openspore.lite.program import Op
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 2000)).astype(np.float32)
    wq = rng.integers(-127, 128, size=(4, 2000)).astype(np.int8)
    scale = np.full(4, 0.01, np.float32)
    op = Op("LiteQDense", {"x_scale": 0.05, "x_zero_point": 3, "activation": None}, [0, 1, 2], [3])
    y = make(op)(x, wq, scale)
    q = quantize_activation(x, 0.05, 3).astype(np.int64)
    exact = ((q - 3) @ wq.astype(np.int64).T) * (0.05 * 0.01)
    np.testing.assert_allclose(y, exact, rtol=1e-6)


def test_bad_quant_config(fixtures_dir, tmp_path):
    cfg = tmp_path / "bad.cfg"
    cfg.write_text("[common_quant_param]\nquant_type=HALF_QUANT\n")
    res = converter_lite("--fmk=MINDIR", f"--modelFile={os.path.join(fixtures_dir, 'lenet5.mindir')}",
                         f"--outputFile={tmp_path / 'x'}", f"--configFile={cfg}")
    assert res.returncode != 0 and "HALF_QUANT" in res.stderr
    cfg.write_text("[common_quant_param]\nquant_type=FULL_QUANT\n")
    res = converter_lite("--fmk=MINDIR", f"--modelFile={os.path.join(fixtures_dir, 'lenet5.mindir')}",
                         f"--outputFile={tmp_path / 'x'}", f"--configFile={cfg}")
    assert res.returncode != 0 and "calibrate_path" in res.stderr
