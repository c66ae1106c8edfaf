"""openspore.lite never imports torch: inference and training run in a process where torch cannot be imported."""
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, child_env
from tests.lite.helpers import MODELS, converter_lite, export_lenet_train, lite_env

_BLOCKER = """
import sys
class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is not installed on this device")
sys.meta_path.insert(0, _NoTorch())
"""

_SCRIPT = _BLOCKER + """
import os, numpy as np
from openspore import lite as mslite
fx, work = sys.argv[1], sys.argv[2]
for name in %r:
    for path, kind in ((os.path.join(fx, name + ".mindir"), mslite.ModelType.MINDIR),
                       (os.path.join(work, name + ".ms"), mslite.ModelType.MINDIR_LITE)):
        m = mslite.Model()
        m.build_from_file(path, kind, mslite.Context())
        ins = m.get_inputs()
        ins[0].set_data_from_numpy(np.load(os.path.join(fx, name + "_input0.npy")))
        out = m.predict(ins)[0].get_data_to_numpy()
        err = float(np.abs(out - np.load(os.path.join(fx, name + "_output.npy"))).max())
        assert err <= 1e-5, (name, kind, err)
m = mslite.Model()
m.build_from_file(os.path.join(work, "lenet_train.ms"), mslite.ModelType.MINDIR_LITE, train_cfg=mslite.TrainCfg())
ins = m.get_inputs()
ins[0].set_data_from_numpy(np.load(os.path.join(fx, "lenet5_train_x.npy")))
ins[1].set_data_from_numpy(np.load(os.path.join(fx, "lenet5_train_y.npy")))
losses = [float(m.run_step(ins).get_data_to_numpy()) for _ in range(5)]
assert np.abs(np.array(losses) - np.load(os.path.join(fx, "lenet5_train_losses.npy"))).max() <= 1e-4, losses
print("torch" in sys.modules, any(k.startswith("torch") for k in sys.modules))
""" % (MODELS,)


def test_inference_and_training_without_torch(fixtures_dir, tmp_path):
    for name in MODELS:
        res = converter_lite("--fmk=MINDIR", f"--modelFile={os.path.join(fixtures_dir, name + '.mindir')}",
                             f"--outputFile={tmp_path / name}")
        assert res.returncode == 0, res.stderr
    mindir = export_lenet_train(fixtures_dir, str(tmp_path / "lenet_train"))
    res = converter_lite("--fmk=MINDIR", "--trainModel=true", f"--modelFile={mindir}",
                         f"--outputFile={tmp_path / 'lenet_train'}")
    assert res.returncode == 0, res.stderr
    env = lite_env()
    run = subprocess.run([sys.executable, "-c", _SCRIPT, fixtures_dir, str(tmp_path)], capture_output=True,
                         text=True, env=env, cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("backend_env", [None, "torch"])
def test_importing_lite_does_not_import_torch(backend_env):
    env = child_env()
    env.pop("OPENSPORE_BACKEND", None)
    if backend_env:
        env["OPENSPORE_BACKEND"] = backend_env
    code = "import sys, openspore.lite\nprint('torch' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"


def test_converter_without_torch_for_mindir(fixtures_dir, tmp_path):
    code = _BLOCKER + ("from openspore.lite.converter import main\n"
                       f"sys.exit(main(['--fmk=MINDIR', '--modelFile={os.path.join(fixtures_dir, 'lenet5.mindir')}', "
                       f"'--outputFile={tmp_path / 'x'}']))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=lite_env(), cwd=REPO,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "CONVERT RESULT SUCCESS:0" in run.stdout and os.path.isfile(tmp_path / "x.ms")
