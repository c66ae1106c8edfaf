"""The project's lint rules ([tool.ruff] in pyproject.toml) hold for the whole tree: ruff runs as part of the suite,
so the README's test command (and CI) checks them."""
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO


def test_ruff_is_clean():
    try:
        import ruff  # noqa: F401  (installed by the `test` extra)
    except ImportError:
        if shutil.which("ruff") is None:
            pytest.skip("ruff is not installed (pip install '.[test]' installs it)")
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=REPO,
                         capture_output=True, text=True, timeout=300, env=dict(os.environ, NO_COLOR="1"))
    assert run.returncode == 0, run.stdout + run.stderr
