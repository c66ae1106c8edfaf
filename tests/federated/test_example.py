"""examples/federated/simulate.py runs end to end (a small fleet, one iteration) and ends with its accuracy line."""
import subprocess
import sys

from tests.conftest import REPO, child_env


def test_simulate_example_small(tmp_path):
    res = subprocess.run([sys.executable, "examples/federated/simulate.py", "--clients", "8", "--participants", "4",
                          "--iterations", "2", "--epochs", "1", "--encrypt-type", "PW_ENCRYPT", "--out", str(tmp_path)],
                         cwd=REPO, env=child_env(OPENBLAS_NUM_THREADS="1"), capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert lines[-1].startswith("test accuracy: ")
    assert sum(line.startswith("iteration ") and "succeeded" in line for line in lines) == 2, res.stdout
    assert (tmp_path / "accuracy.png").exists() and (tmp_path / "ckpt_PW_ENCRYPT" / "metrics.json").exists()
