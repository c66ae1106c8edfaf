"""Graph capture of code that has no source file (piped to stdin, typed at the prompt, exec'd): the error says
that the missing source is the likely cause (issue 20, item 6)."""
import subprocess
import sys

from tests.conftest import child_env

SCRIPT = """
import numpy as np, openspore as ms
from openspore import nn
ms.set_context(mode=ms.GRAPH_MODE)

class Net(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            return x * 2
        return x

Net()(ms.Tensor(np.ones(3, np.float32)))
"""


def test_graph_capture_error_on_stdin_code_names_the_missing_source():
    run = subprocess.run([sys.executable, "-"], input=SCRIPT, capture_output=True, text=True, env=child_env(),
                         timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()
    text = "\n".join(last[-4:])
    assert "GraphCaptureError: <stdin>:8:" in text and "the code comes from <stdin>, which has no source file" in text, \
        run.stderr[-2000:]


def test_the_same_code_in_a_file_compiles(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(SCRIPT + "print('ok')\n")
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=child_env(), timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]
