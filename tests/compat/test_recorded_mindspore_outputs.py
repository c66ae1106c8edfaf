"""Scripts whose stdout under real MindSpore 2.10 was recorded once (`tests/compat/recorded/<name>.expected`, made
with `tools/difftest.py`'s MindSpore environment): each runs here, unchanged, through the `mindspore` → `openspore`
import alias, and its printed values must match (numbers within rtol 1e-4 / atol 1e-5, text exactly)."""
import glob
import importlib.util
import os
import subprocess
import sys

import pytest

from tests.conftest import child_env

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "recorded", "*.py")))


def _difftest():
    spec = importlib.util.spec_from_file_location("difftest", os.path.join(REPO, "tools", "difftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script", SCRIPTS, ids=[os.path.basename(s)[:-3] for s in SCRIPTS])
def test_script_prints_what_mindspore_printed(script, tmp_path):
    difftest = _difftest()
    code = difftest._RUNNER.format(hook=difftest._OPENSPORE_HOOK.format(root=REPO), exc_file=difftest.EXC_FILE)
    proc = subprocess.run([sys.executable, "-c", code, script], cwd=tmp_path, env=child_env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(script[:-3] + ".expected") as f:
        expected = f.read()
    problems = difftest.diff_stdout(expected, proc.stdout, 1e-4, 1e-5)
    assert not problems, "\n".join(problems)
