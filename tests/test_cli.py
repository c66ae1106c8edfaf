"""The command line: `python -m openspore.cli ...` and `python -m openspore ...` (the `openspore` console script
calls the same `main`)."""
import os
import subprocess
import sys

import pytest

import openspore as ms
from openspore import cli
from tests.conftest import child_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, backend=None, module="openspore.cli"):
    env = child_env()
    if backend:
        env["OPENSPORE_BACKEND"] = backend
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120)


def fields(stdout):
    out = {}
    for line in stdout.splitlines()[1:]:
        key, _, value = line.partition(":")
        out[key.strip()] = value.strip()
    return out


@pytest.mark.parametrize("module", ["openspore.cli", "openspore"])
def test_version(module):
    res = run("--version", module=module)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"openspore {ms.__version__}"


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_info(backend):
    res = run("info", backend=backend)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"openspore {ms.__version__}"
    info = fields(res.stdout)
    assert info["backend"] == backend
    assert info["device target"].startswith("CPU")
    assert int(info["threads"]) >= 1
    assert info["mode"] == "PYNATIVE_MODE"
    assert int(info["primitives"]) == len(ms.ops.primitive_table())


def test_python_dash_m_openspore_info():
    res = run("info", module="openspore", backend="numpy")  # numpy: no second torch start-up in the suite
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == f"openspore {ms.__version__}"
    assert fields(res.stdout)["backend"] == "numpy"


def test_no_command_prints_help():
    res = run(module="openspore")
    assert res.returncode == 0
    assert "usage: openspore" in res.stdout and "info" in res.stdout


def test_unknown_command_fails():
    res = run("bogus")
    assert res.returncode == 2
    assert "invalid choice" in res.stderr


def test_info_on_the_numpy_backend_does_not_import_torch():
    code = ("import sys; from openspore.cli import main; rc = main(['info']); "
            "print('torch-loaded' if 'torch' in sys.modules else 'torch-free'); sys.exit(rc)")
    env = child_env(OPENSPORE_BACKEND="numpy")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "torch-free"


def test_main_in_process(capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"openspore {ms.__version__}\n")
    assert f"backend:        {ms.get_context('backend')}" in out
